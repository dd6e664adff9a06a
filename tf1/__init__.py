"""TF1's graph-training surface for `duograd.compat.v1` (assembled in namespaces.py).

Names that TF 1.15 programs call and TF2 dropped: the TF1 spellings of the random
ops, casts and reductions (`reduction_indices=`, `keep_dims=`), session
configuration messages, graph collections and `GraphKeys`, queue-runner
coordination (documented no-ops: duograd has no input queues).
"""
