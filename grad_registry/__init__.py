"""The gradient registry and the gradient function of every op."""
