"""Training on top of the differentiation core: Module, optimizers, schedules,
checkpoints (Checkpoint, CheckpointManager, Saver) and TensorBoard summaries.

Nothing in the core imports this package; the public namespaces
(`dg.Module`, `dg.keras.optimizers`, `dg.train`, `dg.compat.v1.train`) are
assembled in `duograd/namespaces.py`.
"""
