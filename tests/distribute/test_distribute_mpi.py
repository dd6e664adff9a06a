"""MultiWorkerMirroredStrategy under `mpiexec -n N` (the mpich wheel of the test extra).

Each test launches tests/distributed/train_worker.py as an MPI job (a subprocess
with a timeout, bound to the loopback interface) and compares the final variables
bit for bit with the same script's single-process reference, which computes the
shards' gradients one after another and adds them in shard order.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys

import numpy as np
import pytest
from repo_paths import REPO_ROOT, TESTS_DIR

WORKER = os.path.join(TESTS_DIR, "distributed",
                      "train_worker.py")
MPIEXEC = os.path.join(os.path.dirname(sys.executable), "mpiexec")


def environment() -> dict:
    env = dict(os.environ)
    env.update(HYDRA_IFACE="lo", MPIR_CVAR_CH3_INTERFACE_HOSTNAME="127.0.0.1",
               OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PATH=os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", ""))
    return env


def launch(ranks: int, *args: str, timeout: float = 90) -> subprocess.CompletedProcess:
    command = [sys.executable, WORKER, *args]
    if ranks:
        command = [MPIEXEC, "-n", str(ranks)] + command
    return run_job(command, timeout)


def run_job(command: list, timeout: float) -> subprocess.CompletedProcess:
    """Runs a job in its own process group; on timeout the whole group is killed (mpiexec's
    proxies and ranks too), then the timeout is raised."""
    process = subprocess.Popen(command, env=environment(), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def final_values(path) -> list:
    with np.load(path) as data:
        return [data[f"arr_{i}"] for i in range(len(data.files))]


def assert_bit_identical(a_path, b_path) -> None:
    a, b = final_values(a_path), final_values(b_path)
    assert len(a) == len(b) == 4
    for x, y in zip(a, b):
        assert x.dtype == y.dtype and x.shape == y.shape
        assert x.tobytes() == y.tobytes(), f"max difference {np.max(np.abs(x - y))}"


def checked(result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def test_mpiexec_comes_with_the_test_extra():
    assert os.access(MPIEXEC, os.X_OK), f"{MPIEXEC} missing: pip install -e '.[mpi]'"


@pytest.mark.parametrize("mode", ["eager", "function", "session"])
def test_two_ranks_train_bit_identically_to_one_process(tmp_path, mode):
    ref, out = tmp_path / "ref.npz", tmp_path / "mpi.npz"
    checked(launch(0, "--mode", mode, "--reference", "2", "--out", str(ref)))
    result = checked(launch(2, "--mode", mode, "--out", str(out)))
    assert_bit_identical(ref, out)
    losses = {line.split("final loss ")[1] for line in result.stdout.splitlines()
              if "final loss" in line}
    assert len(losses) == 1  # both ranks print the same final loss (they also hash-check)


def test_deterministic_reduction_is_bit_identical_for_three_ranks(tmp_path):
    ref, out = tmp_path / "ref.npz", tmp_path / "mpi.npz"
    checked(launch(0, "--reference", "3", "--out", str(ref)))
    checked(launch(3, "--deterministic", "--out", str(out)))
    assert_bit_identical(ref, out)


def test_a_rank_that_skips_a_collective_fails_the_job(tmp_path):
    result = launch(2, "--skip-collective-rank", "1", "--timeout", "1",
                    "--out", str(tmp_path / "x.npz"), timeout=60)
    assert result.returncode != 0
    assert "DeadlineExceededError" in result.stderr
    assert "timed out after 1.0 s on rank 0" in result.stderr


def test_the_example_prints_the_single_process_final_loss_under_mpiexec():
    example = os.path.join(REPO_ROOT,
                           "examples", "distributed_training.py")

    def final_loss(command):
        result = checked(run_job(command + [sys.executable, example], timeout=120))
        (line,) = [l for l in result.stdout.splitlines() if l.startswith("final loss")]
        return float(line.split()[-1])

    single, two = final_loss([]), final_loss([MPIEXEC, "-n", "2"])
    assert single < 0.05  # it trained
    assert abs(single - two) <= 1e-12


@pytest.mark.parametrize("mode", ["eager", "session"])
def test_a_killed_rank_fails_the_job_and_a_rerun_resumes_bit_identically(tmp_path, mode):
    """Rank 1 SIGKILLs itself at step 6; the last checkpoint (chief-only, atomic) is
    step 4's; the rerun restores it on every rank and ends where an uninterrupted
    run ends, to the bit."""
    ref, out, ckpt = tmp_path / "ref.npz", tmp_path / "mpi.npz", tmp_path / "ckpt"
    checked(launch(0, "--mode", mode, "--reference", "2", "--steps", "12", "--out", str(ref)))
    killed = launch(2, "--mode", mode, "--steps", "12", "--checkpoint-dir", str(ckpt),
                    "--save-every", "4", "--kill-at-step", "6", "--kill-rank", "1",
                    "--timeout", "5", "--out", str(out), timeout=60)
    assert killed.returncode != 0 and not out.exists()
    resumed = checked(launch(2, "--mode", mode, "--steps", "12", "--checkpoint-dir", str(ckpt),
                             "--save-every", "4", "--out", str(out)))
    assert "resumed at step 4" in resumed.stdout
    assert_bit_identical(ref, out)
