"""vectorized_map (TensorFlow's pfor) and its batching rules."""
