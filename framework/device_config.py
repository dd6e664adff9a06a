"""dg.config's device and threading settings: duograd runs on one CPU (NumPy).

`list_physical_devices()` answers the one CPU as TF on a CPU-only machine does
(and [] for "GPU"), so programs that branch on GPUs take their CPU path. The
settings are process-wide, as TF's: threading counts, soft placement, op
determinism (duograd's kernels are deterministic already) and visible devices
(only the CPU exists; hiding GPUs is accepted, hiding the CPU is refused as TF
refuses once the runtime is initialised).
"""
from __future__ import annotations

from typing import Any, List, NamedTuple, Optional

_settings = {"intra_op": 0, "inter_op": 0, "soft_placement": True, "deterministic": False}


class PhysicalDevice(NamedTuple):
    name: str
    device_type: str


class LogicalDevice(NamedTuple):
    name: str
    device_type: str


class LogicalDeviceConfiguration(NamedTuple):
    memory_limit: Optional[int] = None
    experimental_priority: Optional[int] = None
    experimental_device_ordinal: Optional[int] = None


CPU = PhysicalDevice("/physical_device:CPU:0", "CPU")
LOGICAL_CPU = LogicalDevice("/device:CPU:0", "CPU")


def list_physical_devices(device_type: Optional[str] = None) -> List[PhysicalDevice]:
    return [CPU] if device_type in (None, "CPU") else []


def list_logical_devices(device_type: Optional[str] = None) -> List[LogicalDevice]:
    return [LOGICAL_CPU] if device_type in (None, "CPU") else []


def get_visible_devices(device_type: Optional[str] = None) -> List[PhysicalDevice]:
    return list_physical_devices(device_type)


def set_visible_devices(devices: Any, device_type: Optional[str] = None) -> None:
    """Only the CPU exists: any list keeping it (or hiding other types) is accepted."""
    listed = [devices] if isinstance(devices, PhysicalDevice) else list(devices)
    if device_type in (None, "CPU") and CPU not in listed:
        raise RuntimeError("Visible devices cannot be modified after being initialized")


def get_logical_device_configuration(device: PhysicalDevice) -> None:
    return None


def set_logical_device_configuration(device: PhysicalDevice, logical_devices: Any) -> None:
    raise RuntimeError("Virtual devices cannot be modified after being initialized")


def get_memory_growth(device: PhysicalDevice) -> None:
    raise ValueError("Cannot get memory growth on non-GPU and non-Pluggable devices")


def set_memory_growth(device: PhysicalDevice, enable: bool) -> None:
    raise ValueError("Cannot set memory growth on non-GPU and non-Pluggable devices")


def get_soft_device_placement() -> bool:
    return bool(_settings["soft_placement"])


def set_soft_device_placement(enabled: bool) -> None:
    _settings["soft_placement"] = bool(enabled)


def enable_op_determinism() -> None:
    """Recorded; duograd's kernels give the same result for the same input already."""
    _settings["deterministic"] = True


def get_intra_op_parallelism_threads() -> int:
    return int(_settings["intra_op"])


def set_intra_op_parallelism_threads(num_threads: int) -> None:
    """Recorded (NumPy picks its own BLAS threads)."""
    _settings["intra_op"] = int(num_threads)


def get_inter_op_parallelism_threads() -> int:
    return int(_settings["inter_op"])


def set_inter_op_parallelism_threads(num_threads: int) -> None:
    _settings["inter_op"] = int(num_threads)


CONFIG_NAMES = {name: globals()[name] for name in (
    "PhysicalDevice LogicalDevice LogicalDeviceConfiguration list_physical_devices "
    "list_logical_devices get_visible_devices set_visible_devices "
    "get_logical_device_configuration set_logical_device_configuration "
    "get_soft_device_placement set_soft_device_placement").split()}
THREADING_NAMES = {name: globals()[name] for name in (
    "get_intra_op_parallelism_threads set_intra_op_parallelism_threads "
    "get_inter_op_parallelism_threads set_inter_op_parallelism_threads").split()}
EXPERIMENTAL_NAMES = {name: globals()[name] for name in (
    "list_physical_devices list_logical_devices get_visible_devices set_visible_devices "
    "get_memory_growth set_memory_growth enable_op_determinism").split()}
