"""Training on top of the differentiation core: modules, optimizers, checkpoints, summaries."""
