"""TensorFlow's file formats, read and written by duograd's own code.

- `crc32c`, `wire`, `table`, `bundle`: the tensor bundle of TF checkpoints
  (the `.index` SSTable of `BundleEntryProto`s and the `.data-*` file);
- `object_graph`: the `TrackableObjectGraph` stored in a checkpoint;
- `checkpoint_state`: the text `checkpoint` file of a directory.

Nothing here needs protobuf: the few messages a checkpoint holds are encoded
with the wire format by hand (`wire`), so checkpoints in TF's format need no
optional extra. Only SavedModel and GraphDef (`duograd[formats]`) use the
`protobuf` package, imported when first used.
"""
