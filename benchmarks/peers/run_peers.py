"""`python -m benchmarks.peers.run_peers [--quick] [--only W1]` (make bench-peers).

Runs the workloads through every peer that imports (TensorFlow, JAX, PyTorch,
HIPS autograd) beside duograd, pinned to one core, and writes
benchmarks/results-peers.md.
"""
from __future__ import annotations

from ..pinning import pin_process

pin_process("benchmarks.peers.run_peers")

import importlib  # noqa: E402
import importlib.metadata  # noqa: E402
import sys  # noqa: E402
import warnings  # noqa: E402

from ..suite import main_for  # noqa: E402

PEERS = ("tf_peer", "jax_peer", "torch_peer", "autograd_peer")


LIBRARIES = {"tf_peer": "tensorflow", "jax_peer": "jax", "torch_peer": "torch",
             "autograd_peer": "autograd", "dg_workloads": "duograd", "dg_models": "duograd"}


def _version(module_name: str) -> str:
    """The installed version of the library behind a provider module."""
    library = LIBRARIES.get(module_name.rsplit(".", 1)[-1], "")
    try:
        return f"{library} {importlib.metadata.version(library.replace('tensorflow', 'tensorflow-cpu'))}"
    except importlib.metadata.PackageNotFoundError:
        return f"{library} (version unknown)"


def available_providers():
    providers, notes = [], []
    for name in ("benchmarks.dg_workloads", "benchmarks.dg_models") + tuple(f"benchmarks.peers.{p}" for p in PEERS):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                module = importlib.import_module(name)
        except Exception as e:  # a peer that does not import is left out, with a note
            notes.append(f"{name.rsplit('.', 1)[-1]}: not available ({type(e).__name__}: {e})"[:160])
            print(f"note: {notes[-1]}", flush=True)
            continue
        providers.append((name, module))
        notes.append(f"{name.rsplit('.', 1)[-1]}: {_version(name)}")
    return providers, notes


if __name__ == "__main__":
    providers, notes = available_providers()
    sys.exit(main_for(providers, sys.argv[1:], "duograd and its peers (issue 7)",
                      "results-peers.md", extra=notes))
