#!/usr/bin/env bash
# make conformance: builds .venv-conformance (tensorflow-cpu 2.21.0, absl-py, duograd
# editable with its tensorboard extra), runs TensorFlow's own gradient tests through ../shared/tfsuite (the
# six files of issue 10 and the control-flow ones, unmodified, TF's test files
# fetched into ~/.cache/tfsuite/src as ../shared/tfsuite/README.md says), then
# the differential suite of conformance/run.py and the program corpus
# (conformance/program_corpus.py, conformance/programs/); prints both summaries. Fails
# when the differential suite finds a difference or the test files are missing.
set -u
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
VENV=.venv-conformance
PY="$VENV/bin/python"
PIP="$PY -m pip install --quiet --disable-pip-version-check"
TFSUITE="${TFSUITE:-../shared/tfsuite}"   # the runner beside this checkout (override: TFSUITE=...)
SRC="${TFSUITE_SRC:-$HOME/.cache/tfsuite/src}"

if [ ! -f "$VENV/.conformance-installed-2" ]; then
    [ -x "$PY" ] || "$PYTHON" -m venv "$VENV" || { echo "cannot create $VENV"; exit 1; }
    $PIP --upgrade pip >/dev/null 2>&1 || true
    $PIP "tensorflow-cpu==2.21.0" absl-py || { echo "tensorflow-cpu 2.21.0 failed to install"; exit 1; }
    # the program corpus writes TensorBoard summaries: duograd's `tensorboard` extra
    $PIP -e '.[tensorboard]' || { echo "duograd failed to install into $VENV"; exit 1; }
    touch "$VENV/.conformance-installed-2"
fi

status=0
if [ ! -x "$TFSUITE/run.sh" ]; then
    echo "conformance: $TFSUITE (the tfsuite runner) is missing next to this checkout"
    status=1
elif ! ls "$SRC"/tensorflow/python >/dev/null 2>&1; then
    echo "conformance: TensorFlow's test files are not in $SRC."
    echo "  Fetch them as $TFSUITE/README.md lists (path, commit, sha256), e.g."
    echo "  curl -fsSL https://raw.githubusercontent.com/tensorflow/tensorflow/<commit>/<path> -o $SRC/<path>"
    status=1
else
    PYTHON="$PWD/$PY" TFSUITE_OUT="${TFSUITE_OUT:-$PWD/.tfsuite-out}" "$TFSUITE/run.sh" "$@" \
        | tee .tfsuite-out.log | grep -E '^(file|ops/|eager/|kernel_tests/|TOTAL|in scope|tfsuite)'
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
# TensorFlow's op and kernel test files of issue 22 (conformance/tfsuite_more_files.md),
# through this project's copy of the runner (conformance/tfsuite; TFSUITE_MORE overrides).
TFSUITE="${TFSUITE_MORE:-$PWD/conformance/tfsuite}" PYTHON="$PWD/$PY" bash conformance/tfsuite_more.sh \
    | grep -E '^(file|kernel_tests/|ops/|TOTAL|in scope|tfsuite)' || status=1
"$PY" conformance/run.py || status=1
"$PY" conformance/formats_check.py || status=1   # TF reads duograd's checkpoints (issue 24)
exit $status
