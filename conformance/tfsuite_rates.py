"""The public in-scope pass rate per file of a tfsuite run (its classified.json): tests
TensorFlow passes, that are not TF-internal, and that need no TF-private name, as the
runner's `tfsuite-public` line counts them, file by file."""
from __future__ import annotations

import collections
import json
import sys

IN_SCOPE = ("pass", "fail-value", "fail-exception", "missing-api", "crash", "hang")


def main(path: str) -> None:
    with open(path) as f:
        per_file = json.load(f)
    total_pass = total_scope = 0
    print(f"{'file':<62}{'passed':>8}{'public':>8}{'rate':>8}")
    for name, entries in sorted(per_file.items()):
        counts = collections.Counter()
        for entry in entries.values():
            category = entry["category"]
            private = category == "missing-api" and "[TF-private]" in str(entry.get("dg_msg", ""))
            if category in IN_SCOPE and not private:
                counts["scope"] += 1
                counts["pass"] += category == "pass"
        rate = 100.0 * counts["pass"] / counts["scope"] if counts["scope"] else float("nan")
        total_pass += counts["pass"]
        total_scope += counts["scope"]
        short = name.replace("tensorflow/python/", "")
        print(f"{short:<62}{counts['pass']:>8}{counts['scope']:>8}{rate:>7.1f}%")
    rate = 100.0 * total_pass / total_scope if total_scope else float("nan")
    print(f"tfsuite-more-public: {total_pass} passed of {total_scope} in scope "
          f"that need no TF-private name ({rate:.1f}%)")


if __name__ == "__main__":
    main(sys.argv[1])
