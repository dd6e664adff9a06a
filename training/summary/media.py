"""PNG and WAV encoding for dg.summary.image and dg.summary.audio (standard library
only), and the Summary values TensorBoard's image and audio dashboards read."""
from __future__ import annotations

import io
import struct
import wave
import zlib
from typing import Any

import numpy as np

from .tensorboard_support import tb


def _as_uint8(images: np.ndarray) -> np.ndarray:
    """Floats in [0, 1] scaled to 0..255 (saturating, as TF's convert_image_dtype)."""
    if images.dtype == np.uint8:
        return images
    if images.dtype.kind == "f":
        return np.clip(np.round(images.astype(np.float64) * 255.0), 0, 255).astype(np.uint8)
    return np.clip(images, 0, 255).astype(np.uint8)


def encode_png(image: np.ndarray) -> bytes:
    """An [h, w, c] uint8 image (c = 1, 2, 3 or 4) as PNG bytes."""
    height, width, channels = image.shape
    color_type = {1: 0, 2: 4, 3: 2, 4: 6}[channels]
    rows = b"".join(b"\x00" + image[row].tobytes() for row in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + \
            struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + \
        chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def encode_wav(clip: np.ndarray, sample_rate: int) -> bytes:
    """A [frames, channels] float clip in [-1, 1] as 16-bit PCM WAV bytes."""
    pcm = np.clip(np.round(clip.astype(np.float64) * 32767.0), -32768, 32767).astype("<i2")
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(clip.shape[1])
        out.setsampwidth(2)
        out.setframerate(int(sample_rate))
        out.writeframes(pcm.tobytes())
    return buffer.getvalue()


def image_summary(tag: str, value: np.ndarray, description: str, max_outputs: int) -> Any:
    """[k, h, w, c] images: the tensor [width, height, png, ...] of TF's image summary."""
    images = _as_uint8(np.asarray(value))
    if images.ndim != 4 or images.shape[-1] not in (1, 2, 3, 4):
        raise ValueError(f"images must be [k, h, w, c] with 1 to 4 channels, got shape "
                         f"{images.shape}")
    encoded = [encode_png(image) for image in images[:max_outputs]]
    strings = np.array([str(images.shape[2]).encode(), str(images.shape[1]).encode()]
                       + encoded, dtype=object)
    metadata = tb("image_metadata").create_summary_metadata(display_name=tag,
                                                            description=description)
    summary = tb("summary_pb2").Summary()
    summary.value.add(tag=tag, metadata=metadata,
                      tensor=tb("tensor_util").make_tensor_proto(strings))
    return summary


def audio_summary(tag: str, value: np.ndarray, description: str, max_outputs: int,
                  sample_rate: int) -> Any:
    """[k, frames, channels] clips: the [k, 2] tensor (wav, label) of TF's audio summary."""
    clips = np.asarray(value)
    if clips.ndim == 2:
        clips = clips[:, :, None]
    if clips.ndim != 3:
        raise ValueError(f"audio must be [k, frames, channels], got shape {clips.shape}")
    rows = [[encode_wav(clip, sample_rate), b""] for clip in clips[:max_outputs]]
    metadata_module = tb("audio_metadata")
    metadata = metadata_module.create_summary_metadata(
        display_name=tag, description=description,
        encoding=metadata_module.Encoding.Value("WAV"))
    summary = tb("summary_pb2").Summary()
    summary.value.add(tag=tag, metadata=metadata, tensor=tb("tensor_util").make_tensor_proto(
        np.array(rows, dtype=object).reshape(len(rows), 2)))
    return summary
