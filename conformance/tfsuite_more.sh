#!/usr/bin/env bash
# TensorFlow's op and kernel test files (issue 22), run unmodified through the project's copy of the tfsuite runner
# (conformance/tfsuite, copied from ../shared/tfsuite; same rules: TensorFlow first as the oracle, then
# duograd; public names only). The files are listed, with commit and sha256, in
# conformance/tfsuite_more_files.md; fetch each byte for byte into $TFSUITE_SRC/<path>.
# Prints the runner's table and the public in-scope pass rate per file.
#
#   PYTHON=.venv-conformance/bin/python bash conformance/tfsuite_more.sh [--files a,b]
set -u
cd "$(dirname "$0")/.."
ROOT="$PWD"
PYTHON="${PYTHON:-$ROOT/.venv-conformance/bin/python}"
TFSUITE="${TFSUITE:-$ROOT/conformance/tfsuite}"
SRC="${TFSUITE_SRC:-$HOME/.cache/tfsuite/src}"
OUT="${TFSUITE_OUT:-$ROOT/.tfsuite-out-more}"
LIST="$ROOT/conformance/tfsuite_more_files.md"
export TF_CPP_MIN_LOG_LEVEL=3

# The files must be the versions the list names (path | commit | chars | line ends | sha256).
if ! (cd "$SRC" 2>/dev/null && sha256sum --quiet -c <(sed -n \
    's/^| \(tensorflow[^ ]*\) | [0-9a-f]* | [0-9]* | [A-Z]* | \([0-9a-f]*\) |$/\2  \1/p' "$LIST")); then
    echo "tfsuite-more: the TensorFlow test files in $SRC are missing or differ; see $LIST" >&2
    exit 2
fi
files="$(sed -n 's/^| \(tensorflow[^ ]*\) | .*$/\1/p' "$LIST" | paste -sd, -)"
if [ "${1:-}" = "--files" ]; then files="$2"; fi
# duograd is imported from this checkout (the parent folder of the package).
export PYTHONPATH="$(dirname "$ROOT")${PYTHONPATH:+:$PYTHONPATH}"
(cd "$TFSUITE" && "$PYTHON" -m tfshim.runner run --src "$SRC" --out "$OUT" \
    --jobs "${TFSUITE_JOBS:-2}" --timeout "${TFSUITE_TIMEOUT:-60}" --reuse "${TFSUITE_REUSE:-}" \
    --files "$files") || exit 1
"$PYTHON" "$ROOT/conformance/tfsuite_rates.py" "$OUT/classified.json"
