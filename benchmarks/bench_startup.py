#!/usr/bin/env python3
"""Warm start-up of `treexc predict model.bin -` to its first answer.

    .venv/bin/python benchmarks/bench_startup.py                 # 10 runs, medians
    .venv/bin/python benchmarks/bench_startup.py --runs 20 \\
        --variant before=/tmp/old --variant nopatch=,TREEXC_NUMBA_PATCH=0

Trains examples/cooking.train.txt.gz once into out/cooking.bin (the flags of
`make demo`), warms the Numba cache with one run, then times
`printf 'x\\n' | treexc predict out/cooking.bin -` (a whole process: start,
imports, model load, kernel loads, one answer, exit) ``--runs`` times,
interleaved with the floors that every treexc process pays: starting Python,
importing numpy, importing numba.  Prints medians of wall and CPU (user +
system) seconds, and the load average: a busy machine slows everything, so
compare rows of one run only.

``--variant LABEL=DIR[,NAME=VALUE...]`` adds a treexc to time in the same
interleaved runs: the package in DIR (e.g. an older commit unpacked with
`git archive COMMIT treexc | tar -x -C DIR`; empty: this working tree), with
its own model file DIR/cooking.bin, and the given environment variables.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
TRAIN_FLAGS = ["-lr", "0.5", "-epoch", "25", "-wordNgrams", "2", "-dim", "50",
               "-bucket", "200000", "-thread", "2", "-verbose", "0"]
# a treexc package from another folder: the editable install's import hook
# would find this working tree first, so it is taken out
OTHER_TREE = ("import sys; sys.path.insert(0, sys.argv.pop(1)); "
              "sys.meta_path[:] = [f for f in sys.meta_path if '__editable__' not in "
              "str(getattr(f, '__module__', ''))]; "
              "from treexc.cli.main import main; sys.argv[0] = 'treexc'; sys.exit(main())")


def timed(cmd, env, stdin=b""):
    """Wall and CPU seconds of one run of ``cmd``, and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, input=stdin, capture_output=True, env=env, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, done.stdout


def variant(text):
    """``LABEL=DIR[,NAME=VALUE...]`` -> (label, treexc command, model, env)."""
    label, _, rest = text.partition("=")
    folder, *settings = rest.split(",")
    env = dict(os.environ)
    env.update(s.split("=", 1) for s in settings)
    if folder:
        return label, [PYTHON, "-c", OTHER_TREE, folder], Path(folder) / "cooking.bin", env
    return label, [str(Path(PYTHON).parent / "treexc")], REPO / "out" / "cooking.bin", env


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--variant", action="append", default=[])
    opts = parser.parse_args()

    cases = {}
    for label, treexc, model, env in [variant("this tree=")] + [variant(v) for v in
                                                                 opts.variant]:
        if not model.exists():
            model.parent.mkdir(exist_ok=True)
            subprocess.run(treexc + ["supervised", "-input", str(REPO / "examples" /
                                     "cooking.train.txt.gz"), "-output", str(model)[:-4]]
                           + TRAIN_FLAGS, env=env, check=True)
        cmd = treexc + ["predict", str(model), "-"]
        answer = timed(cmd, env, b"x\n")[2].decode().strip()  # also warms the cache
        cases[f"{label}: treexc predict model.bin - ({answer})"] = (cmd, env, b"x\n")
    for name, code in (("python -c pass", "pass"), ("import numpy", "import numpy"),
                       ("import numba", "import numba")):
        cases[name] = ([PYTHON, "-c", code], dict(os.environ), b"")
    results = {name: [] for name in cases}
    for _ in range(opts.runs):
        for name, (cmd, env, stdin) in cases.items():
            results[name].append(timed(cmd, env, stdin)[:2])
    print(f"{opts.runs} runs each, interleaved; load average after: "
          f"{os.getloadavg()[0]:.1f}")
    print("| command | wall s (median) | wall s (min) | CPU s (median) |")
    print("|---|---|---|---|")
    for name, runs in results.items():
        walls = [w for w, _ in runs]
        print(f"| {name} | {statistics.median(walls):.3f} | {min(walls):.3f} | "
              f"{statistics.median(c for _, c in runs):.3f} |")


if __name__ == "__main__":
    main()
