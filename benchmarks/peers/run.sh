#!/usr/bin/env bash
# make bench-peers: builds .venv-peers with whichever of tensorflow-cpu, jax,
# torch (the CPU wheel) and autograd install here, installs duograd into it,
# and runs the benchmark workloads through every peer that imports.
# Each install may fail; the run goes on without that peer.
set -u
cd "$(dirname "$0")/../.."
PYTHON="${PYTHON:-python3}"
VENV=.venv-peers
PY="$VENV/bin/python"
PIP="$PY -m pip install --quiet --disable-pip-version-check"
export PYTHONWARNINGS=ignore

if [ ! -x "$PY" ]; then
    "$PYTHON" -m venv "$VENV" || { echo "cannot create $VENV"; exit 1; }
    $PIP --upgrade pip >/dev/null 2>&1 || true
fi
if [ ! -f "$VENV/.peers-installed" ]; then
    $PIP numpy || { echo "numpy failed to install: cannot run the peers"; exit 1; }
    # torch first, from the local CPU wheel; --no-deps first so that no CUDA
    # package is ever resolved, then its small pure-Python dependencies.
    if $PIP --no-deps "torch==2.13.0"; then
        $PIP "setuptools>=77.0.3" filelock typing-extensions sympy networkx jinja2 fsspec \
            || echo "note: some torch dependencies failed to install"
    else
        echo "note: torch did not install"
    fi
    $PIP tensorflow-cpu || echo "note: tensorflow-cpu did not install"
    $PIP jax jaxlib || echo "note: jax did not install"
    $PIP autograd || echo "note: autograd did not install"
    $PIP -e . || { echo "duograd failed to install into $VENV"; exit 1; }
    if "$PY" -m pip list 2>/dev/null | grep -qi '^nvidia'; then
        echo "note: removing CUDA packages pulled in by a peer"
        "$PY" -m pip list 2>/dev/null | awk 'tolower($1) ~ /^nvidia/ {print $1}' \
            | xargs -r "$PY" -m pip uninstall -y --quiet
    fi
    touch "$VENV/.peers-installed"
fi
exec "$PY" -m benchmarks.peers.run_peers "$@"
