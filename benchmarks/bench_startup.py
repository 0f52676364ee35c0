#!/usr/bin/env python3
"""Warm start-up of `treexc predict model.bin -` to its first answer, and of
the Python API's import, load_model and one predict (docs/results/startup.md).

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

import os
import statistics
from pathlib import Path

from harness import PYTHON, REPO, TREEXC, parser, run, table

TRAIN_FLAGS = ["-lr", "0.5", "-epoch", "25", "-wordNgrams", "2", "-dim", "50",
               "-bucket", "200000", "-thread", "2", "-verbose", "0"]
# a treexc package from another folder (treexc.cli is a module before the
# package layout, a package after): the editable install's import hook would
# find this working tree first, so it is taken out
OTHER_TREE = ("import sys; sys.path.insert(0, sys.argv.pop(1)); "
              "sys.meta_path[:] = [f for f in sys.meta_path if '__editable__' not in "
              "str(getattr(f, '__module__', ''))]; "
              "from treexc.cli import main; sys.argv[0] = 'treexc'; sys.exit(main())")


def variant(text):
    """``LABEL=DIR[,NAME=VALUE...]`` -> (label, treexc command, model, env)."""
    label, _, rest = text.partition("=")
    folder, *settings = rest.split(",")
    env = dict(os.environ)
    env.update(s.split("=", 1) for s in settings)
    if folder:
        return label, [PYTHON, "-c", OTHER_TREE, folder], Path(folder) / "cooking.bin", env
    return label, [TREEXC], REPO / "out" / "cooking.bin", env


def main():
    p = parser(__doc__.split("\n")[0], [("--runs", 10, "runs of each command [10]")])
    p.add_argument("--variant", action="append", default=[], help="LABEL=DIR[,NAME=VALUE...]")
    opts = p.parse_args()

    cases = {}
    for label, treexc, model, env in [variant("this tree=")] + [variant(v) for v in
                                                                 opts.variant]:
        if not model.exists():
            model.parent.mkdir(exist_ok=True)
            run(treexc + ["supervised", "-input", str(REPO / "examples" / "cooking.train.txt.gz"),
                          "-output", str(model)[:-4]] + TRAIN_FLAGS, env=env, capture=False)
        cmd = treexc + ["predict", str(model), "-"]
        answer = run(cmd, env=env, input=b"x\n").out.decode().strip()  # also warms the cache
        cases[f"{label}: treexc predict model.bin - ({answer})"] = (cmd, env, b"x\n")
        if label == "this tree":  # the Python API: import, load_model, one predict
            code = (f"import treexc; print(treexc.load_model({str(model)!r})"
                    ".predict('how to bake bread'))")
            cases[f"{label}: python -c 'import treexc; load_model; predict'"] = (
                [PYTHON, "-c", code], env, b"")
    for name, code in (("python -c pass", "pass"), ("import numpy", "import numpy"),
                       ("import numba", "import numba")):
        cases[name] = ([PYTHON, "-c", code], dict(os.environ), b"")
    results = {name: [] for name in cases}
    for _ in range(opts.runs):
        for name, (cmd, env, stdin) in cases.items():
            r = run(cmd, env=env, input=stdin)
            results[name].append((r.wall, r.cpu, r.maxrss_mib))
    print(f"{opts.runs} runs each, interleaved; load average after: "
          f"{os.getloadavg()[0]:.1f}")
    print("\n".join(table(["command", "wall s (median)", "wall s (min)", "CPU s (median)",
                           "peak RSS MiB (median)"], [
        [name, f"{statistics.median(w for w, _, _ in runs):.3f}",
         f"{min(w for w, _, _ in runs):.3f}", f"{statistics.median(c for _, c, _ in runs):.3f}",
         f"{statistics.median(m for _, _, m in runs):.0f}"] for name, runs in results.items()])))


if __name__ == "__main__":
    main()
