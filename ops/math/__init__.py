"""Elementwise math, reductions, matrix products, einsum, special functions."""
