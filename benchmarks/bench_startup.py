#!/usr/bin/env python3
"""Warm start-up of `treexc predict model.bin -` to its first answer, and of
the Python API's import, load_model and one predict, for a model of each
classifier family (docs/results/startup.md).

    .venv/bin/python benchmarks/bench_startup.py                 # 10 runs, medians
    .venv/bin/python benchmarks/bench_startup.py --runs 20 \\
        --variant before=/tmp/old --variant nopatch=,TREEXC_NUMBA_PATCH=0

Compiles the package's bytecode (`make demo` does), trains
examples/cooking.train.txt.gz once into out/startup-linear.bin with
the flags of `make demo` (the default: the linear model) and once into
out/startup-embedding.bin with the embedding model's (`-dim 50 -bucket
200000 -wordNgrams 2 ...`), warms the Numba cache with one run, then times
`printf 'x\\n' | treexc predict MODEL -` (a whole process: start, imports,
model load, kernel loads, one answer, exit), `treexc test MODEL
examples/cooking.valid.txt.gz` (the kernels' start and 1,579 lines) and
`python -c 'import treexc; treexc.load_model(MODEL).predict(...)'`
``--runs`` times, interleaved with
the floors that every treexc process pays: starting Python, importing
numpy, importing numba.  Prints medians of wall and CPU (user + system)
seconds and of peak RSS, and the load average: a busy machine slows
everything, so compare rows of one run only.

``--bytecode`` times a one-line `treexc predict` of the linear model with
the package's bytecode deleted (compiled at each start, under
PYTHONDONTWRITEBYTECODE=1) and written, instead.

``--small MODEL:TEST`` times the whole `treexc test MODEL TEST` and
`treexc predict MODEL TEST` of a linear model on the first ``--lines``
lines of TEST: the command (cli/entry.py: numpy, no click) against the
full command line (cli/main.py, click).

``--variant LABEL=DIR[,NAME=VALUE...]`` adds a treexc to time in the same
interleaved runs (its CLI, on the embedding model): the package in DIR
(e.g. an older commit unpacked with `git archive COMMIT treexc | tar -x -C
DIR`; empty: this working tree), with its own model file DIR/cooking.bin,
and the given environment variables.
"""

import json
import os
import statistics
from pathlib import Path

from harness import PYTHON, REPO, TREEXC, parser, run, table

LINEAR_FLAGS = ["-thread", "2", "-verbose", "0"]  # make demo's
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
    return label, [TREEXC], REPO / "out" / "startup-embedding.bin", env


# `treexc ARGS...` with Python's last garbage collections at exit, which
# the command line skips (cli/main.py, _no_final_collections)
WITH_COLLECTIONS = ("import sys; sys.argv = ['treexc'] + sys.argv[1:]; import treexc.cli.main; "
                    "m = sys.modules['treexc.cli.main']; "
                    "m._no_final_collections.registered = True; m.main()")
# the Python API's steps inside one process: CPU seconds (time.process_time)
# of each, and the peak RSS (MiB) after it
STEPS = """
import json, resource, sys, time
out = {}
def step(name, t):
    out[name] = (time.process_time() - t,
                 resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
t = time.process_time(); import numpy; step("import numpy", t)
t = time.process_time(); import treexc; step("import treexc", t)
t = time.process_time(); m = treexc.load_model(sys.argv[1]); step("load_model", t)
t = time.process_time(); m.predict("how to bake bread"); step("first predict", t)
t = time.process_time(); m.predict("how to bake bread"); step("second predict", t)
out["numba imported"] = ("numba" in sys.modules, 0)
print(json.dumps(out))
"""


# the command line before cli/entry.py: click and the commands' modules first
FULL_COMMAND = ("import sys; sys.argv = ['treexc'] + sys.argv[1:]; "
                "from treexc.cli.main import main; sys.exit(main())")

def small(spec, lines, runs):
    """`treexc test` and `predict` of a small linear model: the entry's
    answer and the full command's, on the first LINES lines of the test
    file; medians of CPU s."""
    import tempfile

    model, test = spec.split(":")
    folder = Path(tempfile.mkdtemp(prefix="startup-small-"))
    text = Path(test).read_bytes().splitlines(keepends=True)
    files = {}
    for n in lines:
        files[n] = folder / f"first{n}.txt"
        files[n].write_bytes(b"".join(text[:n]))
    cases = {}
    for n, path in files.items():
        for command in ("test", "predict"):
            args = [command, model, str(path)]
            cases[(n, command, "treexc")] = [TREEXC] + args
            cases[(n, command, "full command")] = [PYTHON, "-c", FULL_COMMAND] + args
    outs = {}
    for key, cmd in cases.items():  # the same answer every way
        outs.setdefault(key[:2], set()).add(run(cmd).out)
    assert all(len(v) == 1 for v in outs.values()), "answers differ"
    cpu = {key: [] for key in cases}
    for _ in range(runs):
        for key, cmd in cases.items():
            cpu[key].append(run(cmd).cpu)
    print(f"{runs} runs each, interleaved; load average after: {os.getloadavg()[0]:.1f}")
    ways = ("treexc", "full command")
    print("\n".join(table(["lines", "command"] + [f"{w} CPU s" for w in ways], [
        [f"{n:,}", command] + [f"{statistics.median(cpu[(n, command, w)]):.3f}" for w in ways]
        for n in lines for command in ("test", "predict")])))


def trained(treexc, model, flags, env):
    if not model.exists():
        model.parent.mkdir(exist_ok=True)
        run(treexc + ["supervised", "-input", str(REPO / "examples" / "cooking.train.txt.gz"),
                      "-output", str(model)[:-4]] + flags, env=env, capture=False)
    return model


def bytecode(runs):
    """A one-line linear `treexc predict` with the package's bytecode
    absent (Python compiles the sources at each start: the environment
    must not write bytecode, PYTHONDONTWRITEBYTECODE=1) and written, the
    two states twice in turn, with `python -c pass` beside them."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    model = trained([TREEXC], REPO / "out" / "startup-linear.bin", LINEAR_FLAGS, env)
    cpu = {}
    for state in ("absent", "written") * 2:
        if state == "absent":
            for pyc in (REPO / "treexc").rglob("*.pyc"):
                pyc.unlink()
        else:
            run([PYTHON, "-m", "compileall", "-q", str(REPO / "treexc")])
        for _ in range(runs):
            cpu.setdefault(f"treexc predict, bytecode {state}", []).append(
                run([TREEXC, "predict", str(model), "-"], env=env, input=b"x\n").cpu)
            cpu.setdefault("python -c pass", []).append(run([PYTHON, "-c", "pass"], env=env).cpu)
    print(f"{runs} runs of each state, twice; load average after: {os.getloadavg()[0]:.1f}")
    print("\n".join(table(["command", "CPU s (median)"], [
        [name, f"{statistics.median(v):.3f}"] for name, v in cpu.items()])))


def main():
    p = parser(__doc__.split("\n")[0], [("--runs", 10, "runs of each command [10]"),
                                        ("--bytecode", False, "time a one-line predict "
                                         "without and with the package's bytecode")])
    p.add_argument("--variant", action="append", default=[], help="LABEL=DIR[,NAME=VALUE...]")
    p.add_argument("--small", metavar="MODEL:TEST", default=None,
                   help="time test and predict of a small linear model (cli/entry.py)")
    p.add_argument("--lines", default="25,100,200,400,803",
                   help="with --small: the first lines of TEST to answer [25,100,200,400,803]")
    opts = p.parse_args()
    if opts.bytecode:
        return bytecode(opts.runs)
    if opts.small:
        return small(opts.small, [int(n) for n in opts.lines.split(",")], opts.runs)

    # the package's bytecode, as `make demo` leaves it (Python started with
    # PYTHONDONTWRITEBYTECODE would compile every source at every start)
    run([PYTHON, "-m", "compileall", "-q", str(REPO / "treexc")])
    cases = {}
    families = [("linear", [TREEXC], REPO / "out" / "startup-linear.bin", LINEAR_FLAGS,
                 dict(os.environ)),
                ("embedding", [TREEXC], REPO / "out" / "startup-embedding.bin", TRAIN_FLAGS,
                 dict(os.environ))]
    for label, treexc, model, env in [variant(v) for v in opts.variant]:
        families.append((label, treexc, model, TRAIN_FLAGS, env))
    for label, treexc, model, flags, env in families:
        model = trained(treexc, model, flags, env)
        cmd = treexc + ["predict", str(model), "-"]
        answer = run(cmd, env=env, input=b"x\n").out.decode().strip()  # also warms the cache
        cases[f"{label}: treexc predict {model.name} - ({answer})"] = (cmd, env, b"x\n")
        # the whole `treexc test` of a small file: the kernels' start included
        valid = str(REPO / "examples" / "cooking.valid.txt.gz")
        cases[f"{label}: treexc test {model.name} cooking.valid.txt.gz"] = (
            treexc + ["test", str(model), valid], env, b"")
        if label == "linear":  # the same without skipping Python's last collections
            cases[f"{label}: the same, with the collections at exit"] = (
                [PYTHON, "-c", WITH_COLLECTIONS, "predict", str(model), "-"], env, b"x\n")
        if label in ("linear", "embedding"):  # the Python API: import, load_model, predict
            code = (f"import treexc; print(treexc.load_model({str(model)!r})"
                    ".predict('how to bake bread'))")
            run([PYTHON, "-c", code], env=env)
            cases[f"{label}: python -c 'import treexc; load_model; predict'"] = (
                [PYTHON, "-c", code], env, b"")
            # what Python's last garbage collections at exit cost (the CLI
            # skips them: cli/main.py)
            cases[f"{label}: the same, ending with gc.freeze()"] = (
                [PYTHON, "-c", code + "; import gc; gc.freeze()"], env, b"")
    for name, code in (("python -c pass", "pass"), ("import numpy", "import numpy"),
                       ("import click", "import click"),
                       ("import treexc.cli.main (click, the classifier commands' options)",
                        "import treexc.cli.main"),
                       ("import numpy, treexc.cli.main, treexc.linear.predict",
                        "import numpy, treexc.cli.main, treexc.linear.predict"),
                       ("import numba", "import numba")):
        cases[name] = ([PYTHON, "-c", code], dict(os.environ), b"")
    results = {name: [] for name in cases}
    steps = {family: [] for family, *_ in families[:2]}
    for _ in range(opts.runs):
        for name, (cmd, env, stdin) in cases.items():
            r = run(cmd, env=env, input=stdin)
            results[name].append((r.wall, r.cpu, r.maxrss_mib))
        for family, _, model, _, env in families[:2]:
            steps[family].append(json.loads(run([PYTHON, "-c", STEPS, str(model)],
                                                env=env).out))
    print(f"{opts.runs} runs each, interleaved; load average after: "
          f"{os.getloadavg()[0]:.1f}")
    print("\n".join(table(["command", "wall s (median)", "wall s (min)", "CPU s (median)",
                           "peak RSS MiB (median)"], [
        [name, f"{statistics.median(w for w, _, _ in runs):.3f}",
         f"{min(w for w, _, _ in runs):.3f}", f"{statistics.median(c for _, c, _ in runs):.3f}",
         f"{statistics.median(m for _, _, m in runs):.0f}"] for name, runs in results.items()])))
    print("\nThe Python API step by step (medians; CPU s, peak RSS MiB after the step):\n")
    names = list(steps["linear"][0])
    print("\n".join(table(["step"] + [f"{family} {what}" for family in steps
                                      for what in ("CPU s", "RSS MiB")], [
        [name] + [cell for family in steps for cell in (
            (f"{statistics.median(r[name][0] for r in steps[family]):.3f}",
             f"{statistics.median(r[name][1] for r in steps[family]):.0f}")
            if name != "numba imported" else (str(steps[family][0][name][0]), ""))]
        for name in names])))


if __name__ == "__main__":
    main()
