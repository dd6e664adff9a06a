"""String tensors: dg.strings ops (never differentiable)."""
