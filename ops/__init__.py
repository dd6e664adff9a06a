"""The op library: each op declared once, public wrappers over `apply_op`."""
