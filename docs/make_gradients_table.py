"""Writes docs/gradients_table.md: TensorFlow's gradient registry against duograd's.

Run with an interpreter that has both tensorflow (2.21) and duograd installed, e.g. the
conformance environment:  .venv-tf/bin/python docs/make_gradients_table.py
What this file knows beyond the two registries (which op types differ and why, which
are out of scope) is in the tables below; tests/test_gradient_registry_audit.py checks
the written table against duograd's registry.
"""
import inspect
import os
import pathlib
import re

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def _tf_registry():
    """[(file, op type, not differentiable, function name)] and {op type: docstring line}."""
    import tensorflow  # noqa: F401 (registers every gradient)
    from tensorflow.python.framework import ops
    base = pathlib.Path(tensorflow.__file__).parent
    rows, docs = [], {}
    for name, entry in ops._gradient_registry._registry.items():  # noqa: SLF001 (TF's table)
        fn = entry["type"]
        if fn is None:
            rows.append((_registering_file(base, name), name, True, None))
            continue
        rows.append((inspect.getsourcefile(fn), name, False, fn.__name__))
        docs[name] = (inspect.getdoc(fn) or "").strip().split("\n")[0]
    return rows, docs


def _registering_file(base, name):
    """The TF source file that declares `name` not differentiable ('?' if none does)."""
    pattern = re.compile(r'(NotDifferentiable|no_gradient|NoGradient)\(\s*"%s"' % re.escape(name))
    for path in sorted(base.rglob("*.py")):
        if "test" in path.name:
            continue
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError):
            continue
        if pattern.search(text):
            return str(path)
    return "?"


def _our_registry():
    """{op type: None (not differentiable) or {'doc': docstring}} as duograd registers them."""
    import duograd  # noqa: F401
    from duograd.framework.registry import gradient_functions
    out = {}
    for name, fn in gradient_functions.items():
        out[name] = None if fn is None else {
            "doc": (inspect.getdoc(fn) or "").strip().replace("\n", " ")}
    return out


tf_rows, tf_docs = _tf_registry()
ours = _our_registry()


def short_file(f):
    f = re.sub(r'^.*?/tensorflow/', '', f)
    if f.startswith('python/'):
        f = f[len('python/'):]
    return f if f != '?' else 'ops/image_ops_impl.py etc.'

OUT_OF_SCOPE = {
    'compiler/jit/ops/xla_ops_grad.py': 'XLA', 'compiler/tf2xla/python/xla.py': 'XLA',
    'dtensor/python/api.py': 'DTensor', 'data/ops/dataset_ops.py': 'tf.data',
    'debug/lib/debug_gradients.py': 'tfdbg', 'debug/lib/dumping_callback.py': 'tfdbg',
    'ops/composite_tensor_ops.py': 'composite-tensor variants', 'ops/ctc_ops.py': 'CTC',
    'ops/cudnn_rnn_grad.py': 'cuDNN RNN', 'ops/image_grad.py': 'image ops',
    'ops/image_ops.py': 'image ops', 'ops/image_ops_impl.py etc.': 'image/audio/ragged ops',
    'ops/io_ops.py': 'readers (I/O)', 'ops/linalg/sparse/sparse_csr_matrix_grad.py': 'CSR sparse matrices',
    'ops/list_ops.py': 'TensorList variants (TF-internal)', 'ops/logging_ops.py': 'summaries/printing',
    'ops/lookup_grad.py': 'lookup tables', 'ops/nccl_ops.py': 'NCCL', 'ops/optional_grad.py': 'tf.data optionals',
    'ops/parsing_grad.py': 'parsing (strings)', 'ops/proto_ops.py': 'protocol buffers',
    'ops/ragged/ragged_array_ops.py': 'RaggedTensor', 'ops/ragged/ragged_conversion_ops.py': 'RaggedTensor',
    'ops/ragged/ragged_gather_ops.py': 'RaggedTensor', 'ops/ragged/ragged_tensor.py': 'RaggedTensor',
    'ops/rnn_grad.py': 'fused LSTM kernels', 'ops/sdca_ops.py': 'SDCA optimizer',
    'ops/sets_impl.py': 'set ops', 'ops/signal/fft_ops.py': 'FFT', 'ops/sparse_grad.py': 'SparseTensor',
    'ops/string_ops.py': 'strings',
    'ops/stateless_random_ops.py': 'stateless RNG V1 op types, reached through tf.raw_ops only (random.stateless_* build the V2 ones, declared here); StatelessRandomShuffle (random.experimental.stateless_shuffle) not provided',
    'tpu/ops/tpu_ops.py': 'TPU', 'training/checkpoint_ops.py': 'checkpoint remapping',
    'ops/state_grad.py': 'TF1 ref variables', 'ops/bitwise_ops.py': 'bitwise ops (integers)',
    'ops/nn_fused_batch_norm_grad.py': 'fused batch norm',
    'lite/experimental/microfrontend/python/ops/audio_microfrontend_op.py': 'TF Lite audio',
    'ops/image_ops_impl.py': 'image ops', 'ops/ragged/ragged_math_ops.py': 'RaggedTensor',
}
OUT_OF_SCOPE_OPS = {'_EagerConst': 'TF-internal eager constants', 'XlaEinsum': 'XLA',
                    'EditDistance': 'SparseTensor', 'SparseMatMul': 'TF1 sparse-hinted matmul',
                    'CopyToMesh': 'DTensor', 'CopyToMeshGrad': 'DTensor', 'Relayout': 'DTensor',
                    'RelayoutLike': 'DTensor'}
# TF op types whose role an op of another name plays here.
ALIAS = {
    'Add': 'AddV2', 'BatchMatMul': 'BatchMatMulV2', 'BatchMatMulV3': 'BatchMatMulV2',
    'Concat': 'ConcatV2', 'Pad': 'PadV2', 'Select': 'SelectV2', 'Gather': 'GatherV2',
    'Reverse': 'ReverseV2', 'Div': 'RealDiv', 'MatrixDiagV2': 'MatrixDiag',
    'MatrixDiagV3': 'MatrixDiag', 'MatrixDiagPartV2': 'MatrixDiagPart',
    'MatrixDiagPartV3': 'MatrixDiagPart', 'MatrixSetDiagV2': 'MatrixSetDiag',
    'MatrixSetDiagV3': 'MatrixSetDiag', 'StatelessIf': 'If', 'StatelessWhile': 'While',
    'TopK': 'TopKV2', 'MaxPoolV2': 'MaxPool', 'BiasAddV1': 'BiasAdd', 'EagerPyFunc': 'PyFunc',
    'RefIdentity': 'Identity', 'Inv': 'Reciprocal', 'ComplexAbs': 'Abs',
    'ResourceGather': 'GatherV2 (of a ReadVariableOp)', 'ResourceGatherNd': 'GatherNd (of a ReadVariableOp)',
    'TensorArrayWrite': 'TensorArrayWriteV3', 'TensorArrayWriteV2': 'TensorArrayWriteV3',
    'TensorArrayScatter': 'TensorArrayScatterV3', 'TensorArrayScatterV2': 'TensorArrayScatterV3',
    'TensorArray': 'TensorArrayV3', 'TensorArrayV2': 'TensorArrayV3',
    'SegmentSum': 'composite: UnsortedSegmentSum with last id + 1 segments',
    'SegmentMean': 'composite: UnsortedSegmentSum / counts', 'SegmentProd': 'composite: UnsortedSegmentProd',
    'SegmentMax': 'composite: UnsortedSegmentMax, 0 for empty segments',
    'SegmentMin': 'composite: UnsortedSegmentMin, 0 for empty segments',
    'ClipByValue': 'composite: Minimum then Maximum (same gradient)',
    'AccumulateNV2': 'AddN', 'StatelessCase': 'If (switch_case is nested conds)', 'Case': 'If (switch_case is nested conds)',
}
FUSED_GRAD = ['ReluGrad', 'EluGrad', 'SeluGrad', 'Relu6Grad', 'LeakyReluGrad', 'SoftplusGrad',
              'SqrtGrad', 'RsqrtGrad', 'ReciprocalGrad', 'InvGrad', 'BiasAddGrad']
TF1_CONTROL = ['Enter', 'Exit', 'LoopCond', 'Merge', 'NextIteration', 'RefEnter', 'RefExit',
               'RefMerge', 'RefNextIteration', 'RefSwitch', 'Switch']
TA_COMPOSED = ['TensorArrayConcat', 'TensorArrayConcatV2', 'TensorArrayConcatV3',
               'TensorArrayGather', 'TensorArrayGatherV2', 'TensorArrayGatherV3',
               'TensorArrayRead', 'TensorArrayReadV2', 'TensorArrayReadV3', 'TensorArraySplit',
               'TensorArraySplitV2', 'TensorArraySplitV3']
TA_META = ['TensorArrayClose', 'TensorArrayCloseV2', 'TensorArrayCloseV3', 'TensorArrayGrad',
           'TensorArrayGradV2', 'TensorArrayGradV3', 'TensorArrayGradWithShape', 'TensorArraySize',
           'TensorArraySizeV2', 'TensorArraySizeV3']
QUEUES = ['DeleteSessionTensor', 'GetSessionHandle', 'GetSessionHandleV2', 'GetSessionTensor',
          'Queue', 'QueueClose', 'QueueDequeue', 'QueueDequeueMany', 'QueueDequeueUpTo', 'QueueEnqueue',
          'QueueEnqueueMany', 'QueueSize', 'Stack', 'StackClose', 'StackPop', 'StackPush']
QUANT = ['FakeQuantWithMinMaxArgs', 'FakeQuantWithMinMaxVars', 'FakeQuantWithMinMaxVarsPerChannel',
         'FakeQuantWithMinMaxArgsGradient', 'FakeQuantWithMinMaxVarsGradient',
         'FakeQuantWithMinMaxVarsPerChannelGradient', 'QuantizeAndDequantize',
         'QuantizeAndDequantizeV2', 'QuantizeAndDequantizeV3', 'QuantizeAndDequantizeV4',
         'QuantizeAndDequantizeV4Grad']

# TF's gradient where ours differs, and why ours differs.
DIFFERS = {
    'Sqrt': ('grad * 0.5 / y, y = sqrt(x) (inf at x = 0)',
             'differs at x = 0 only: 0 there (the documented subgradient, kept by issue 15), '
             'not inf'),
    'Cumprod': ('div_no_nan(cumsum(grad * cumprod(x), reverse), x) (0 where x = 0, wrong there)',
                'differs where x has zeros: products of the other factors, no division, '
                'so exact there; equal elsewhere'),
    'MatrixDeterminant': ('grad * det(A) * A^-H', 'differs for complex A only: grad * conj(det A) '
                          '* A^-H (TF omits the conj its convention needs); same for real A'),
    'LogMatrixDeterminant': ('grad_log_abs_det * A^-H (the sign output is ignored)',
                             'differs for complex A only: the sign output passes d arg(det) '
                             '(imaginary part); same for real A'),
    'SquaredDifference': ('(2 grad (x - y), -2 grad (x - y))', 'differs for complex inputs '
                          'only: 2 Re(grad) (x - y), since the output is real; same for real'),
    'Xlogy': ('(grad * xlogy(x != 0, y), grad * xdivy(x, y))', 'differs for complex inputs only: '
              'partials conjugated (TF omits the conj); same for real'),
    'Xdivy': ('(grad * xdivy(x != 0, y), grad * xdivy(-x, y**2))', 'differs for complex inputs '
              'only: partials conjugated (TF omits the conj); same for real'),
    'Xlog1py': ('(grad * xlog1py(x != 0, y), grad * xdivy(x, y + 1))', 'differs for complex '
                'inputs only: partials conjugated (TF omits the conj); same for real'),
    'RaggedTensorToTensor': ('the gradient of the values (the dense gradient gathered back)',
                             'differs: not differentiable (the minimal dg.RaggedTensor is '
                             'never differentiable, docs/differences.md)'),
    'LinSpace': ('not differentiable (the raw kernel; tf.linspace itself is composed of '
                 'differentiable ops)', 'differs: the LinSpace op carries the gradient of '
                 "tf.linspace's composition: d stop = sum(grad * i / (n - 1)), "
                 'd start = sum(grad) - d stop (the values tf.linspace gives)'),
}
# TF registers a gradient function that returns None for every input.
NONE_FUNCTIONS = {'ArgMax', 'ArgMin', 'FloorDiv', 'TruncateDiv', 'Floor', 'Ceil', 'Round', 'Rint'}
SAME_NOTES = {
    'ArgMax': 'same (None for every input)', 'ArgMin': 'same (None for every input)',
    'FloorDiv': 'same (None for both inputs)', 'TruncateDiv': 'same (None for both inputs)',
    'Floor': 'same (None)', 'Ceil': 'same (None)', 'Round': 'same (None)', 'Rint': 'same (None)',
    'While': 'same values (our While op replays the body backwards itself)',
    'If': 'same values (our If op holds its branches backward functions)',
    'TensorArrayWriteV3': 'same values (no flow-based gradient TensorArray here)',
    'TensorArrayScatterV3': 'same values (no flow-based gradient TensorArray here)',
    'Svd': 'same (static m, n needed, as TF)', 'EuclideanNorm': 'same (no conj, NaN at 0, as TF)',
    'UnsortedSegmentProd': 'same (no conj for complex data, as TF)',
}
# Issue 22: the op types that were missing, as implemented (notes) or accounted for.
SAME_NOTES.update({
    'ApproxTopK': "same (exact on CPU, as TF's kernel)",
    'ApproximateEqual': 'same (raw op: ops/array/raw_only_ops.py)',
    'AvgPool3DGrad': 'same (None for the shape input, which TF passes through stop_gradient)',
    'BesselI1': "same (with TF's value 1 at x = 0, where the true derivative is 0.5)",
    'Betainc': 'same (no gradient in a, b, as TF)',
    'BroadcastGradientArgs': 'same (raw op; our gradients unbroadcast without it)',
    'CheckNumericsV2': 'same (raw op)',
    'ConcatOffset': "same (raw op; ConcatV2's gradient slices without it)",
    'ConjugateTranspose': 'same (raw op; dg.transpose(conjugate=True) composes Transpose and Conj, with the same gradient)',
    'Dilation2D': 'same (its backprop ops have no gradient, as in TF)',
    'Eig': 'same (distinct eigenvalues, as TF)',
    'ExtractImagePatches': 'same (composed: unsorted_segment_sum of the gradient over the patches of an index image)',
    'ExtractVolumePatches': 'same (composed as ExtractImagePatches)',
    'FractionalAvgPool': 'same (as FractionalMaxPool)',
    'FractionalMaxPool': "same (region boundaries from duograd's RNG; exact TF boundaries when the ratio divides the size)",
    'FusedBatchNormV3': "same (the gradient composed of ops, so second order works as TF's FusedBatchNormGradGrad)",
    'Igamma': "same (IgammaGradA by a series in SciPy's gammaln/digamma)",
    'IsotonicRegression': 'same (the segment mean composed of unsorted_segment_mean and gather)',
    'LRN': 'same (LRNGrad has no gradient, as in TF)',
    'MatrixSolveLs': 'same (reached, as in TF, for fast=False or large batched inputs; lstsq composes otherwise)',
    'MatrixSquareRoot': 'same (kernel: scipy.linalg.sqrtm, the scipy extra)',
    'MaxPoolWithArgmax': 'same (MaxPoolGradWithArgmax has no gradient, as in TF)',
    'Multinomial': 'same (random.categorical)',
    'NthElement': 'same (reached through raw ops only in TF; here ops/nn/ranking_ops.nth_element)',
    'ParallelDynamicStitch': 'same (raw op; partitioned embedding_lookup uses DynamicStitch)',
    'PreventGradient': 'same (raw op: LookupError naming the message)',
    'Qr': 'same (NotImplementedError for dynamic shapes and full_matrices with m > n, as TF)',
    'RandomGamma': "same (samples are duograd's own RNG; RandomGammaGrad from the scipy extra)",
    'ScatterNdNonAliasingAdd': 'same (raw op)',
    'SparseSegmentMean': 'same (as SparseSegmentSum, each segment divided by its count)',
    'SparseSegmentMeanWithNumSegments': 'same (as SparseSegmentMean)',
    'SparseSegmentSqrtN': 'same (as SparseSegmentSum, each segment divided by sqrt(count))',
    'SparseSegmentSqrtNWithNumSegments': 'same (as SparseSegmentSqrtN)',
    'SparseSegmentSum': "same (TF's dense gradient, composed of gather and unsorted_segment_sum)",
    'SparseSegmentSumWithNumSegments': 'same (as SparseSegmentSum)',
    'StatelessParameterizedTruncatedNormal': "same (TF's formulas: mean and stddev at fixed standardized bounds)",
    'StatelessRandomGammaV3': 'same (random.stateless_gamma builds it, as TF)',
    'Zeta': 'same (no gradient in x, as TF)',
})
ISSUE22_ABSENT = {
    'BatchNormWithGlobalNormalization': "not an op type here: composed of batch_normalization, as TF's public nn.batch_norm_with_global_normalization (the op is reached through tf.raw_ops only)",
    'BatchToSpace': "not an op type here: BatchToSpaceND plays its role (TF's public tf.compat.v1.batch_to_space builds BatchToSpaceND too)",
    'FusedBatchNorm': 'not an op type here: FusedBatchNormV3 plays its role (tf.compat.v1.nn.fused_batch_norm builds V3, as TF 2.21)',
    'FusedBatchNormV2': 'not an op type here: FusedBatchNormV3 plays its role (tf.compat.v1.nn.fused_batch_norm builds V3, as TF 2.21)',
    'MaxPoolGradV2': "not an op type here: MaxPoolGrad plays its role (ksize and strides are attrs here, as MaxPool plays MaxPoolV2's)",
    'ParameterizedTruncatedNormal': 'out of scope: TF reaches it through tf.raw_ops only (no public function builds it)',
    'SpaceToBatch': "not an op type here: SpaceToBatchND plays its role (TF's public tf.compat.v1.space_to_batch builds SpaceToBatchND too)",
    'VariableShape': "not an op type here: the Shape of the variable's value plays its role (dg.shape(variable))",
}
OURS_ONLY = {
    'Moments': "eager tf.nn.moments as one op (ops/nn/moments_ops.py), values bit-equal to TF's "
               "composite, gradient TF's first derivative in three passes (exact second order: "
               "the mean is not stopped); graphs keep TF's composite",
    'IsNan': 'not differentiable (bool output; TF registers nothing)',
    'IsFinite': 'not differentiable (bool output; TF registers nothing)',
    'All': 'not differentiable (bool output)', 'Any': 'not differentiable (bool output)',
    'Where': 'not differentiable (int64 coordinates)',
    'Placeholder': 'not differentiable (a graph input; gradients stop at it)',
    'NoOp': 'not differentiable (no outputs)',
    'VarHandleOp': 'not differentiable (a resource handle)',
    'AssignVariableOp': 'not differentiable (a state update, as TF)',
    'AssignAddVariableOp': 'not differentiable (a state update, as TF)',
    'AssignSubVariableOp': 'not differentiable (a state update, as TF)',
    'ResourceScatterAdd': 'not differentiable (a state update, as TF)',
    'ResourceScatterSub': 'not differentiable (a state update, as TF)',
    'ResourceScatterUpdate': 'not differentiable (a state update, as TF)',
    'ResourceSparseApplyRule': "not differentiable (a fused optimizer step on a sparse gradient's "
                               'rows, training/sparse_apply.py)',
    'WriteSummary': 'not differentiable (writes a summary event)',
    'CollectiveAllReduce': 'all-reduce of the upstream gradients, one fused collective '
                           '(dg.distribute; TF registers no gradient for its CollectiveReduceV2)',
    'CollectiveBcast': "not differentiable (copies rank 0's initial values, dg.distribute)",
    'ReplicaIdInSyncGroup': 'not differentiable (an int32 replica index, dg.distribute)',
    'RandomUniformInt': 'not differentiable (integer samples)',
    'IsInf': 'not differentiable (bool output; TF registers nothing)',
    'Sort': 'a primitive here (TF composes sort from TopKV2): grad scattered back to the sorted '
            "positions, TopKV2's gradient",
    'SumToShape': 'sums broadcast axes away (the unbroadcast of unknown shapes): grad '
                  'broadcast back',
    'CustomGradient': "the user's gradient function (TF's custom_gradient identity op)",
    'PartitionedCall': 'the function call: its traced backward function (TF differentiates '
                       'function calls in gradients_util, not through the registry)',
    'TensorArrayMaskRows': 'TensorArray bookkeeping: grad with the masked rows zeroed',
    'ScatterRowsToDense': 'TensorArray bookkeeping: grad gathered at the written rows',
}

def tf_text(name, file, is_none, fn):
    if is_none:
        return 'not differentiable'
    if name in NONE_FUNCTIONS:
        return 'not differentiable (registers a function returning None for every input)'
    if name in DIFFERS:
        return DIFFERS[name][0]
    if name in ours and ours[name] is not None:
        return ours[name]['doc'].split('  ')[0].rstrip('.')
    doc = tf_docs.get(name, '')
    if doc and not re.match(r'^(Gradients? (function )?for|Returns? the gradients? for|Gradient of)', doc):
        return doc.rstrip('.')
    return f'`{fn}`'

def ours_text(name, file):
    if name in ISSUE22_ABSENT:
        return ISSUE22_ABSENT[name]
    entry = ours.get(name, 'absent')
    if entry != 'absent':
        if name in DIFFERS:
            return DIFFERS[name][1]
        return SAME_NOTES.get(name, 'same')
    scope = OUT_OF_SCOPE_OPS.get(name) or OUT_OF_SCOPE.get(file)
    if name in ALIAS:
        return f'not an op type here: {ALIAS[name]} plays its role'
    if name in FUSED_GRAD:
        return ('not an op type here: the first-order gradient is composed of differentiable '
                'ops, so no fused gradient kernel needs its own gradient')
    if name in TF1_CONTROL:
        return 'out of scope: TF1 control-flow ops (here: While/If functional ops)'
    if name in TA_COMPOSED:
        return 'not an op type here: TensorArray reads are gather/slice ops on its buffer'
    if name in TA_META:
        return 'out of scope: TF1 TensorArray bookkeeping ops'
    if name in QUEUES:
        return 'out of scope: queues, stacks and session handles'
    if name in QUANT:
        return 'out of scope: quantization'
    if scope:
        return f'out of scope: {scope}'
    return 'missing'

def differentiable(name):
    entry = ours.get(name, 'absent')
    if entry == 'absent':
        return '-'
    return 'no' if entry is None else 'yes'

rows = []
seen = set()
for file, name, is_none, fn in tf_rows:
    f = short_file(file)
    rows.append((name, f, tf_text(name, f, is_none, fn), differentiable(name), ours_text(name, f)))
    seen.add(name)
for name, entry in ours.items():
    if name in seen:
        continue
    text = OURS_ONLY.get(name)
    if text is None:  # a new op type: say what the registry holds
        text = 'not differentiable' if entry is None else entry['doc'].rstrip('.')
    rows.append((name, '(none)', 'not registered', differentiable(name), 'ours only: ' + text))
rows.sort(key=lambda r: r[0].lower())

CATEGORIES = ('same', 'differs', 'not an op type here', 'missing', 'out of scope', 'ours only')


def _category(ours_text):
    return next((c for c in CATEGORIES if ours_text.startswith(c)), ours_text)


def _kept_notes(path):
    """The rows already in the table, so hand-written notes survive regeneration while
    the row's category and differentiability stay what the registries say."""
    kept = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.startswith('| ') and not line.startswith(('| op type', '| ---')):
                cells = [c.strip().replace('\\|', '|')
                         for c in re.split(r'(?<!\\)\|', line)[1:-1]]
                if len(cells) == 5:
                    kept[cells[0]] = cells
    return kept


_TABLE = pathlib.Path(__file__).parent / 'gradients_table.md'
_old = _kept_notes(_TABLE)
for i, row in enumerate(rows):
    old = _old.get(row[0])
    if old and old[3] == row[3] and _category(old[4]) == _category(row[4]):
        rows[i] = (row[0], row[1], old[2], row[3], old[4])

def esc(s):
    return s.replace('|', '\\|')

count = lambda pred: sum(1 for r in rows if pred(r))
tf_total = len(tf_rows)
both = count(lambda r: r[1] != '(none)' and r[3] != '-')
same = count(lambda r: r[1] != '(none)' and r[4].startswith('same'))
differs = count(lambda r: r[4].startswith('differs'))
missing = count(lambda r: r[4] == 'missing')
alias = count(lambda r: r[4].startswith('not an op type here'))
oos = count(lambda r: r[4].startswith('out of scope'))
only = count(lambda r: r[4].startswith('ours only'))
head = f"""# Gradients: TensorFlow's registry against ours

Every op type TensorFlow 2.21 registers a gradient for (`RegisterGradient` or
`NotDifferentiable`, {tf_total} op types, read from its registry after `import tensorflow`),
and every op type in duograd's registry. Columns: the op type; the TensorFlow file that
registers it; TensorFlow's gradient (the math, or "not differentiable"); whether duograd's
registry differentiates it (yes / no / `-` when the op type is not declared here); and how
ours compares:

- **same**: declared here with TensorFlow's gradient ({same} op types);
- **differs**: declared here, with a gradient that differs where stated and why ({differs});
- **not an op type here**: another op type plays its role (a V2 op, a composition, or a
  fused gradient kernel that our composed gradients do not need) ({alias});
- **missing**: in scope but not implemented yet ({missing});
- **out of scope**: families duograd does not provide (sparse, ragged, strings, I/O,
  TPU/XLA, TF1 ref variables and control flow, ...) ({oos});
- **ours only**: op types TensorFlow registers no gradient for ({only}).

Of the {tf_total} TensorFlow op types, {both} are declared here: {same} with the same gradient
and {differs} with a documented difference. `tests/test_gradient_registry_audit.py` checks this
table against the registry, so it cannot fall out of date.

| op type | TF file | TF gradient | ours differentiable | ours |
| --- | --- | --- | --- | --- |
"""
with open(_TABLE, 'w') as out:
    out.write(head)
    for r in rows:
        out.write('| ' + ' | '.join(esc(c) for c in r) + ' |\n')
