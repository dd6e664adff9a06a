"""dg.nn: activations, convolution, pooling, softmax and cross-entropy, embeddings."""
