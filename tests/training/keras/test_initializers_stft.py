"""dg.keras.initializers.STFT (Keras 3's DFT-basis kernel) and the namespace
listing every initializer name of TF 2.21's `tf.keras.initializers`; values
recorded from TensorFlow 2.21 (Keras 3, SciPy windows)."""
import numpy as np
import pytest

import duograd as dg

I = dg.keras.initializers

CASES = [  # (initializer, shape, dtype, TF's values flattened)
    (I.STFT(), (4, 1, 3), None,
     [0.0, 0.0, 0.0, 0.7071068286895752, -3.0908619663705394e-08, -0.7071068286895752,
      0.7071068286895752, -0.7071068286895752, 0.7071068286895752, 0.0, 0.0, -0.0]),
    (I.STFT(side="imag", window="hamming", scaling="spectrum", periodic=True), (5, 1, 4), None,
     [-0.0, -0.0, -0.0, -0.0, -0.0, -0.12761114537715912, -0.12761113047599792,
      1.288197903903665e-08, -0.0, -0.2925715148448944, 0.2925715446472168,
      -5.90685118595502e-08, -0.0, 2.95342559297751e-08, -5.90685118595502e-08,
      8.057225109325827e-09, -0.0, 0.12761114537715912, -0.12761113047599792,
      -5.15279161561466e-08]),
    (I.STFT(window=None, scaling=None), (3, 1, 2), None, [1.0, 1.0, 1.0, -1.0, 1.0, 1.0]),
    (I.STFT(window="blackman", periodic=True), (4, 2, 3), "float64",
     [-1.2507080335193504e-17, -1.2507080335193504e-17, -1.2507080335193504e-17,
      0.30641823991366257, 1.876270583553163e-17, -0.30641823991366257, 0.9012301173931251,
      -0.9012301173931251, 0.9012301173931251, 0.30641823991366257, -5.62881175065949e-17,
      -0.30641823991366257]),
    (I.STFT(window="bartlett"), (5, 1, 2), None,
     [0.0, 0.0, 0.40824827551841736, -0.40824827551841736, 0.8164965510368347,
      0.8164965510368347, 0.40824827551841736, -0.40824827551841736, 0.0, 0.0]),
    (I.STFT(window="boxcar"), (3, 1, 2), None,
     [0.5773502588272095, 0.5773502588272095, 0.5773502588272095, -0.5773502588272095,
      0.5773502588272095, 0.5773502588272095]),
    (I.STFT(window=[1.0, 0.5, 0.25]), (3, 1, 2), None,
     [0.8728715181350708, 0.8728715181350708, 0.4364357590675354, -0.4364357590675354,
      0.2182178795337677, 0.2182178795337677]),
]


@pytest.mark.parametrize("init, shape, dtype, expected", CASES)
def test_stft_kernel_matches_keras(init, shape, dtype, expected):
    value = init(shape, dtype=dtype)
    # as Keras 3: the kernel has one channel whatever shape[1] asks for
    assert value.shape.as_list() == [shape[0], 1, shape[2]]
    assert value.dtype == (dg.float64 if dtype else dg.float32)
    np.testing.assert_allclose(value.numpy().ravel(), expected, atol=2e-7)


def test_stft_config_serialize_get_and_errors():
    config = {"side": "real", "window": "hann", "periodic": False, "scaling": "density"}
    assert I.STFT().get_config() == config
    assert I.serialize(I.STFT()) == {"module": "keras.initializers", "class_name": "STFT",
                                     "config": config, "registered_name": None}
    assert type(I.get("stft")) is I.STFT and type(I.get("STFT")) is I.STFT
    assert I.STFTInitializer is I.STFT and I.stft is I.STFT
    with pytest.raises(ValueError, match="side should be 'real' or 'imag', not x"):
        I.STFT(side="x")
    with pytest.raises(ValueError, match="Invalid window name 'nope'"):
        I.STFT(window="nope")
    with pytest.raises(ValueError, match="Scaling is invalid"):
        I.STFT(scaling="x")
    with pytest.raises(ValueError, match=r"must be equal to \[frame_length\]"):
        I.STFT(window=[1.0, 2.0])((3, 1, 2))


TF_NAMES = [  # dir(tf.keras.initializers) in TF 2.21
    "Constant", "GlorotNormal", "GlorotUniform", "HeNormal", "HeUniform", "Identity",
    "IdentityInitializer", "Initializer", "LecunNormal", "LecunUniform", "Ones", "Orthogonal",
    "OrthogonalInitializer", "RandomNormal", "RandomUniform", "STFT", "STFTInitializer",
    "TruncatedNormal", "VarianceScaling", "Zeros", "constant", "deserialize", "get",
    "glorot_normal", "glorot_uniform", "he_normal", "he_uniform", "identity", "lecun_normal",
    "lecun_uniform", "ones", "orthogonal", "random_normal", "random_uniform", "serialize",
    "stft", "truncated_normal", "variance_scaling", "zeros"]


def test_namespace_lists_every_tf_initializer():
    assert [name for name in TF_NAMES if not hasattr(I, name)] == []
    assert dg.initializers.STFT is I.STFT
