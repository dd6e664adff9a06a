"""dg.summary and dg.compat.v1.summary: TensorBoard event files through the optional
`tensorboard` package (imported when a summary is first written, never at import)."""
