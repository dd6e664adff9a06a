"""Control flow: cond, while_loop, switch_case, TensorArray, map_fn/scan/fold, group."""
