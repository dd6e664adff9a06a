"""Random ops with TensorFlow's global-seed / op-seed rules."""
