"""The optimizer problem both trajectory tests use (training/test_optimizers.py for Keras 3,
training/test_v1_optimizers.py for tf.compat.v1.train): their TF 2.21 numbers were recorded
on exactly these inputs, so the two files share them rather than repeat them.

W0, B0: the dense variables' start; GW, GB: their gradients in three steps;
E0: a (5, 2) embedding; SPARSE_STEPS: (row indices, values) of its IndexedSlices
gradients in three steps, rows repeated.
"""
import numpy as np

W0 = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)
B0 = np.array([0.25, -0.75], np.float32)
GW = [np.array(a, np.float32) for a in ([[0.1, -0.2], [0.3, 0.4]], [[-0.5, 0.05], [0.2, -0.1]],
                                        [[0.3, 0.3], [-0.4, 0.25]])]
GB = [np.array(a, np.float32) for a in ([0.5, -1.0], [0.2, 0.3], [-0.6, 0.1])]
E0 = np.arange(10, dtype=np.float32).reshape(5, 2) / 10 - 0.3
SPARSE_STEPS = [([0, 2, 0], [[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]]),
                ([1, 1, 4], [[-0.2, 0.1], [0.4, 0.3], [0.2, -0.5]]),
                ([2, 2, 2], [[0.3, 0.1], [0.1, 0.1], [-0.2, 0.7]])]
