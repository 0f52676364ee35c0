#!/usr/bin/env python3
"""Where numpy's answers of a linear model (``treexc/linear/firstlines.py``)
stop beating the kernels' for a whole `treexc test` command: the evidence of
``firstlines.FIRST_LINES`` and ``FIRST_BYTES``.

    .venv/bin/python benchmarks/bench_linear_crossover.py \\
        --model cooking=/tmp/m/cooking.bin:/tmp/d/cooking.test.txt \\
        --model wn=/tmp/m/wn_hypernym.bin:/tmp/d/wn_hypernym.test.txt --lines 500,2000,8000

For each model and each number of lines (the test file's first lines,
repeated if it is shorter), times the whole `treexc test MODEL FILE 5`
command ``--runs`` times with each path forced (``firstlines.FIRST_LINES``
and ``FIRST_BYTES`` set to 0 for the kernels, to no limit for numpy, in the
process itself) and prints the medians of CPU seconds (user + system), wall
seconds and peak RSS of each, and the ratio.  Both print the same figures
(checked).
"""

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from harness import PYTHON, run

FORCED = ("import sys; from treexc.linear import firstlines; "
          "firstlines.FIRST_LINES = firstlines.FIRST_BYTES = int(sys.argv.pop(1)); "
          "sys.argv[0] = 'treexc'; from treexc.cli.main import main; sys.exit(main())")
PATHS = {"numpy": 1 << 62, "kernels": -1}


def lines_of(path, n, out):
    """The first ``n`` lines of ``path`` (repeated when it has fewer) in ``out``."""
    lines = Path(path).read_bytes().splitlines(keepends=True)
    picked = (lines * (n // len(lines) + 1))[:n]
    out.write_bytes(b"".join(picked))
    return sum(map(len, picked))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", action="append", required=True,
                   help="NAME=MODEL.bin:TEST.txt (repeatable)")
    p.add_argument("--lines", default="250,500,1000,2000,4000,8000")
    p.add_argument("--runs", type=int, default=3)
    opts = p.parse_args()
    print("| model | lines | MB | numpy CPU s | kernels CPU s | numpy / kernels | "
          "numpy wall s | kernels wall s | numpy RSS MiB | kernels RSS MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for spec in opts.model:
            name, _, files = spec.partition("=")
            model, _, test = files.partition(":")
            run([PYTHON, "-c", FORCED, "-1", "test", model, test, "5"])  # warm caches
            for n in map(int, opts.lines.split(",")):
                part = Path(tmp) / f"{name}-{n}.txt"
                size = lines_of(test, n, part)
                got = {path: [] for path in PATHS}
                outputs = set()
                for _ in range(opts.runs):  # interleaved: the load falls on both alike
                    for path, limit in PATHS.items():
                        r = run([PYTHON, "-c", FORCED, str(limit), "test", model, str(part),
                                 "5"])
                        got[path].append(r)
                        outputs.add(r.out)
                if len(outputs) != 1:
                    sys.exit(f"{name} {n}: the two paths print different figures: {outputs}")
                med = {path: (statistics.median(r.cpu for r in rs),
                              statistics.median(r.wall for r in rs),
                              statistics.median(r.maxrss_mib for r in rs))
                       for path, rs in got.items()}
                (nc, nw, nr), (kc, kw, kr) = med["numpy"], med["kernels"]
                print(f"| {name} | {n} | {size / 1e6:.2f} | {nc:.3f} | {kc:.3f} | "
                      f"{nc / kc:.2f} | {nw:.3f} | {kw:.3f} | {nr:.0f} | {kr:.0f} |",
                      flush=True)


if __name__ == "__main__":
    main()
