"""dg.linalg: decompositions, solves, diagonals and norms of (batches of) matrices."""
