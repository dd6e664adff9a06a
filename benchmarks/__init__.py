"""duograd's benchmark suite (issue 7): workloads W1..W6 against the NumPy floor.

Run from the repository root: `python -m benchmarks.run [--quick]`
(`make bench`), and `bash benchmarks/peers/run.sh` (`make bench-peers`) for
TensorFlow, JAX, PyTorch and HIPS autograd where they install.
"""
