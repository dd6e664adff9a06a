#!/usr/bin/env bash
# Reproduces the README's TensorBoard pictures: runs the demo into a fresh log
# directory, serves it with a real TensorBoard on 127.0.0.1, and screenshots the
# scalars dashboard (loss curves) and the graph dashboard (the graph-mode run's
# forward, gradient and Adam ops) with headless Chromium.
#
# Needs: make demo (the .venv with tensorboard and tqdm), and Chromium
# (Debian: apt-get install -y chromium). Output: docs/images/training_*.png
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
TENSORBOARD=${TENSORBOARD:-.venv/bin/tensorboard}
CHROMIUM=${CHROMIUM:-chromium}
OUT=${OUT:-docs/images}
WORK=$(mktemp -d)
LOGDIR="$WORK/runs"
mkdir -p "$OUT"

"$PY" examples/breast_cancer.py --logdir "$LOGDIR" >/dev/null 2>&1
PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$TENSORBOARD" --logdir "$LOGDIR" --host 127.0.0.1 --port "$PORT" --load_fast=false \
    >"$WORK/tensorboard.log" 2>&1 &
TB_PID=$!
trap 'kill "$TB_PID" 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 1 100); do
    curl -fs "http://127.0.0.1:$PORT/data/plugin/scalars/tags" | grep -q '"loss"' && break
    sleep 0.2
done

shot() {  # shot URL FILE WIDTH,HEIGHT
    "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --hide-scrollbars --user-data-dir="$(mktemp -d -p "$WORK")" \
        --virtual-time-budget=15000 --window-size="$3" --screenshot="$2" "$1" \
        >/dev/null 2>&1
}
BASE="http://127.0.0.1:$PORT"
shot "$BASE/?darkMode=false#scalars&_smoothingWeight=0&_ignoreYOutliers=false&tagFilter=loss" \
    "$OUT/training_loss.png" 1200,760
shot "$BASE/?darkMode=false#graphs&run=graph" "$OUT/training_graph.png" 1200,760
ls -l "$OUT"/training_loss.png "$OUT"/training_graph.png
