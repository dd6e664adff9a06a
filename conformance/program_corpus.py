"""The program corpus: TensorFlow programs as their authors write them, run twice.

    python conformance/program_corpus.py [NAME ...]

Each file of conformance/programs/ starts with `import tensorflow as tf` or
`import tensorflow.compat.v1 as tf`. It runs once as written under TensorFlow
and once with only that line changed to `import duograd as tf` /
`import duograd.compat.v1 as tf`, each in a fresh process and an empty working
directory; the two standard outputs must agree line by line: text exactly,
numbers to the precision printed, whitespace ignored (and 1e-4 relative, for the last digits of
values printed in full). The duograd run uses $DUOGRAD_PYTHON when set (an
interpreter with duograd's `tensorboard` extra), else this interpreter. Prints one line per program and a summary
`programs: A agree, D differ of N`; the exit status is 1 when any differs.
"""
from __future__ import annotations

import difflib
import os
import re
import subprocess
import sys
import tempfile
from typing import List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")
ROOT = os.path.dirname(HERE)
IMPORTS = {"import tensorflow as tf": "import duograd as tf",
           "import tensorflow.compat.v1 as tf": "import duograd.compat.v1 as tf"}
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf")
TIMEOUT_S = 300


def translate(source: str) -> str:
    """The program with its TensorFlow import line replaced by duograd's (only that)."""
    first, _, rest = source.partition("\n")
    if first.strip() not in IMPORTS:
        raise ValueError(f"a corpus program must start with one of {sorted(IMPORTS)}, "
                         f"not {first!r}")
    return IMPORTS[first.strip()] + "\n" + rest


def _environment(backend: str) -> dict:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TF_ENABLE_ONEDNN_OPTS="0",
               PYTHONHASHSEED="0")
    env.pop("PYTHONPATH", None)
    if backend == "dg" and os.path.basename(ROOT) == "duograd":
        env["PYTHONPATH"] = os.path.dirname(ROOT)   # this checkout's duograd, first
    return env


def run_program(source: str, backend: str) -> Tuple[int, str, str]:
    """(exit status, stdout, stderr) of `source` in a fresh process and directory."""
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "program.py")
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(source)
        python = os.environ.get("DUOGRAD_PYTHON", sys.executable) if backend == "dg" \
            else sys.executable
        done = subprocess.run([python, path], cwd=work, env=_environment(backend),
                              capture_output=True, text=True, timeout=TIMEOUT_S)
    return done.returncode, done.stdout, done.stderr


def _decimals(token: str) -> int:
    mantissa = token.lower().split("e")[0]
    return len(mantissa.split(".")[1]) if "." in mantissa else 0


def _numbers_agree(a: str, b: str) -> bool:
    if a == b:
        return True
    if a in ("nan", "inf") or b in ("nan", "inf"):
        return False
    x, y = float(a), float(b)
    exponent = int(a.lower().split("e")[1]) if "e" in a.lower() else 0
    printed = 1.5 * 10.0 ** (exponent - _decimals(a))   # one unit in the last printed place
    return abs(x - y) <= max(printed, 1e-4 * max(abs(x), abs(y)))


def line_difference(a: str, b: str) -> Optional[str]:
    """None when two printed lines agree (numbers within what was printed)."""
    if a == b:
        return None
    # NumPy pads array elements to the widest one: whitespace is layout, not content
    text_a = [re.sub(r"\s+", "", t) for t in NUMBER.split(a)]
    text_b = [re.sub(r"\s+", "", t) for t in NUMBER.split(b)]
    nums_a, nums_b = NUMBER.findall(a), NUMBER.findall(b)
    if text_a != text_b or len(nums_a) != len(nums_b):
        return f"TF: {a!r}\n      duograd: {b!r}"
    for x, y in zip(nums_a, nums_b, strict=True):
        if not _numbers_agree(x, y):
            return f"TF: {a!r}\n      duograd: {b!r} ({x} vs {y})"
    return None


def output_difference(tf_out: str, dg_out: str) -> Optional[str]:
    lines_a, lines_b = tf_out.splitlines(), dg_out.splitlines()
    if len(lines_a) != len(lines_b):
        diff = "\n".join(difflib.unified_diff(lines_a, lines_b, "tensorflow", "duograd",
                                              lineterm="", n=1))
        return f"{len(lines_a)} lines vs {len(lines_b)}:\n{diff}"
    for number, (a, b) in enumerate(zip(lines_a, lines_b, strict=True), 1):
        found = line_difference(a, b)
        if found:
            return f"line {number}: {found}"
    return None


def program_names() -> List[str]:
    return sorted(name[:-3] for name in os.listdir(PROGRAMS) if name.endswith(".py"))


def check(name: str) -> Optional[str]:
    """None when the program prints the same under both; else what differs."""
    with open(os.path.join(PROGRAMS, name + ".py"), encoding="utf-8") as stream:
        source = stream.read()
    tf_status, tf_out, tf_err = run_program(source, "tf")
    if tf_status != 0:
        return f"TensorFlow itself fails (status {tf_status}):\n{tf_err[-2000:]}"
    dg_status, dg_out, dg_err = run_program(translate(source), "dg")
    if dg_status != 0:
        return f"duograd fails (status {dg_status}):\n{dg_err[-2000:]}"
    return output_difference(tf_out, dg_out)


def main(names: List[str]) -> int:
    names = names or program_names()
    agree = 0
    for name in names:
        found = check(name)
        if found is None:
            agree += 1
            print(f"agree     programs/{name}")
        else:
            print(f"DIFFER    programs/{name}: {found}")
    print(f"programs: {agree} agree, {len(names) - agree} differ of {len(names)}")
    return 0 if agree == len(names) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
