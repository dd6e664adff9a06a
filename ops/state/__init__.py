"""State: dg.Variable, its resource ops, TF1 variable scopes and initializers."""
