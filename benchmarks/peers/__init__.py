"""Adapters running the benchmark workloads through TensorFlow, JAX, PyTorch, autograd."""
