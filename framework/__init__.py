"""The data model: dtypes, shapes, tensors, graphs, operations, sessions."""
