"""Keras 3's training helpers on duograd: initializers, losses, metrics
(`dg.keras.initializers`, `dg.keras.losses`, `dg.keras.metrics`, assembled in
duograd/namespaces.py)."""
