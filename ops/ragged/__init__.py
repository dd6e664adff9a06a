"""dg.RaggedTensor (a minimal one) and dg.ragged."""
