"""Eager mode: the context, eager tensors, execution, tapes and backprop."""
