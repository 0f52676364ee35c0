"""``treexc compile``: every command's kernels compiled now, in one go.

Why: a command compiles the kernels it calls that are not cached yet, so
on a fresh install the first ``supervised``, the first ``test``, the first
``quantize`` and the first ``lm`` would each stop for a compilation.  This
command runs each model family's commands once on a few generated lines,
in a scratch folder, so that afterwards no command compiles (``make demo``
runs it first).  ``treexc compile -check`` runs them again, each in a fresh
process with the compile notice on, and fails naming any that compiled:
the continuous-integration check that the warm-up covers every command.

Each family lists its runs in :data:`RUNS`: argument lists of ``treexc``,
with ``{labelled}`` (single-label lines), ``{multi}`` (multi-label lines),
``{many}`` (enough lines that prediction leaves the numpy first answers,
``classify/firstlines.py`` and ``linear/firstlines.py``, for the kernels), ``{wide}`` (300 labels: enough output rows to quantise), ``{words}`` and ``{text}`` (unlabelled lines), ``{sparse}`` (the Extreme
Classification Repository's format) and
``{out}`` (the scratch folder) filled in; a run whose last item starts with
``<`` reads that file on standard input.  A new family adds its line.
"""

import os
import random
import subprocess
import sys
import tempfile
import time

import click

# Topics of a few words each: training on them learns something in an epoch.
_TOPICS = ("ball goal team match run score", "bread cheese taste dish bake oven",
           "song band guitar drum play tune", "code bug test run build deploy",
           "rain wind cloud storm snow cold", "train bus road car ride stop")

# Autotune is not run: its trials call the training and test kernels run
# here, and a search bounded by seconds could finish no trial on a busy
# machine (and so fail the warm-up).
_CLASSIFIER = [
    ["supervised", "-input", "{labelled}", "-output", "{out}/flat", "-epoch", "2",
     "-dim", "8", "-wordNgrams", "2", "-bucket", "2000", "-minn", "2", "-maxn", "4"],
    *(["supervised", "-input", "{labelled}", "-output", f"{{out}}/{name}", "-epoch", "2",
       "-dim", "8", *flags] for name, flags in (
        ("tree", ["-loss", "tree", "-arity", "3", "-wordNgrams", "2", "-bucket", "1000"]), ("hs", ["-loss", "hs"]),
        ("ova", ["-loss", "ova"]), ("ns", ["-loss", "ns"]),
        ("cluster", ["-tree", "cluster", "-arity", "3"]),
        ("random", ["-tree", "random", "-arity", "3"]),
        ("mean", ["-loss", "tree", "-arity", "3", "-depth", "2", "-scoring", "mean"]),
        ("pretrained", ["-pretrainedVectors", "{out}/flat.vec"]),
        ("cached", ["-cache", "{out}/cache"]))),
    ["supervised", "-input", "{multi}", "-output", "{out}/plt", "-epoch", "2", "-dim", "8"],
    # continued training (-inputModel), on each model's own kind of lines
    *(["supervised", "-input", f"{{{data}}}", "-inputModel", f"{{out}}/{name}.bin",
       "-output", f"{{out}}/{name}-continued", "-epoch", "1"]
      for name, data in (("tree", "labelled"), ("plt", "multi"))),
    ["supervised", "-input", "{multi}", "-loss", "tree", "-plan"],  # the count with its labels
    *(["test", f"{{out}}/{name}.bin", "{labelled}", "2"]
      for name in ("flat", "tree", "hs", "ova", "ns", "mean")),
    ["test", "{out}/plt.bin", "{multi}", "3", "0.1"],
    ["test-label", "{out}/flat.bin", "{labelled}"],
    *(["predict", f"{{out}}/{name}.bin", "{many}", "2"]
      for name in ("flat", "tree", "hs", "ova", "ns", "mean", "plt")),
    *(["predict-prob", f"{{out}}/{name}.bin", "{many}", "2", "0.01"]
      for name in ("flat", "tree", "plt")),
    ["quantize", "-output", "{out}/flat", "-input", "{labelled}", "-cutoff", "300",
     "-retrain", "-qnorm", "-epoch", "1"],
    ["supervised", "-input", "{wide}", "-output", "{out}/wide", "-epoch", "1", "-dim", "8",
     "-loss", "softmax", "-wordNgrams", "2", "-bucket", "1000"],
    ["quantize", "-output", "{out}/wide", "-qout"],
    ["test", "{out}/wide.ftz", "{wide}"],
    ["quantize", "-output", "{out}/tree", "-dsub", "4"],
    ["test", "{out}/flat.ftz", "{labelled}"],
    ["test", "{out}/tree.ftz", "{labelled}"],
    ["predict-prob", "{out}/flat.ftz", "{many}", "2"],
    ["print-word-vectors", "{out}/flat.bin", "<{words}"],
    ["print-sentence-vectors", "{out}/flat.bin", "<{text}"],
    ["nn", "{out}/flat.bin", "3", "<{words}"],
    ["analogies", "{out}/flat.bin", "3", "<{words}"],
    ["print-ngrams", "{out}/flat.bin", "bread"],
    *(["dump", "{out}/flat.bin", part] for part in ("args", "dict", "input", "output")),
    ["dump-tree", "{out}/tree.bin", "-input", "{labelled}"],
    ["dump-tree", "{out}/plt.bin", "-input", "{multi}"],
    ["check", "{out}/flat.bin"],
    ["check", "{out}/flat.ftz"],
]

_LANGUAGE_MODEL = [
    ["lm", "-input", "{text}", "-valid", "{text}", "-output", "{out}/lm", "-epoch", "2",
     "-dim", "8", "-log", "{out}/lm.jsonl"],
    ["lm", "-input", "{text}", "-output", "{out}/lm_flat", "-epoch", "1", "-dim", "8",
     "-loss", "softmax"],
    ["lm", "-input", "{text}", "-output", "{out}/lm_random", "-epoch", "1", "-dim", "8",
     "-tree", "random", "-arity", "4", "-depth", "3"],
    *(["test-lm", f"{{out}}/{name}.bin", "{text}"] for name in ("lm", "lm_flat", "lm_random")),
    ["predict-next", "{out}/lm.bin", "{words}", "3"],
    ["predict-next", "{out}/lm_flat.bin", "{words}", "3"],
    ["lm", "-input", "{text}", "-plan"],
]

_LINEAR_TREE = ["-arity", "2", "-leafSize", "2"]  # a tree of several levels over 6 labels
_LINEAR = [
    ["supervised", "-input", "{labelled}", "-output", "{out}/linear", *_LINEAR_TREE],
    ["supervised", "-input", "{multi}", "-output", "{out}/linear_multi", "-tree", "learned",
     "-ensemble", "2", *_LINEAR_TREE],
    ["supervised", "-input", "{labelled}", "-output", "{out}/linear_lr", "-solver", "lr",
     "-scorer", "sigmoid", *_LINEAR_TREE],
    ["supervised", "-input", "{sparse}", "-output", "{out}/linear_sparse", *_LINEAR_TREE],
    ["supervised", "-input", "{multi}", "-output", "{out}/linear_weighted", "-weightBalanced",
     *_LINEAR_TREE],
    # a root of more than solver_kernels.SLOT_GROUP slots: its groups are jobs of their own
    ["supervised", "-input", "{wide}", "-output", "{out}/linear_wide", "-arity", "20",
     "-leafSize", "2"],
    ["test", "{out}/linear.bin", "{labelled}", "2", "-metrics", "ndcg,psp"],
    ["test", "{out}/linear_multi.bin", "{multi}", "3", "0.1"],
    ["test", "{out}/linear_sparse.bin", "{sparse}", "2"],
    ["test-label", "{out}/linear.bin", "{labelled}"],
    *(["predict", f"{{out}}/{name}.bin", "{many}", "2"] for name in ("linear", "linear_lr")),
    ["predict-prob", "{out}/linear_multi.bin", "{many}", "2", "0.01"],
    ["predict", "{out}/linear_sparse.bin", "{sparse}"],
    ["dump-tree", "{out}/linear.bin"],
    ["check", "{out}/linear.bin"],
]

_WORD_VECTORS = [
    *([model, "-input", "{text}", "-output", f"{{out}}/{name}", "-epoch", "1", "-dim", "8",
       "-minCount", "1", *flags] for model, name, flags in (
        ("skipgram", "sg", []), ("cbow", "cbow", []), ("skipgram", "sg_hs", ["-loss", "hs"]),
        ("skipgram", "sg_learned", ["-loss", "hs", "-tree", "learned"]),
        ("cbow", "cbow_flat", ["-loss", "softmax"]))),
    ["print-word-vectors", "{out}/sg.bin", "<{words}"],
    ["print-sentence-vectors", "{out}/sg.bin", "<{text}"],
    ["nn", "{out}/sg.bin", "3", "<{words}"],
    ["analogies", "{out}/sg.bin", "3", "<{words}"],
]

RUNS = {
    "classifier": _CLASSIFIER,
    "linear model": _LINEAR,
    "language model": _LANGUAGE_MODEL,
    "word vectors": _WORD_VECTORS,
}


def write_inputs(folder):
    """The generated files the runs read, by placeholder name."""
    rng = random.Random(0)
    topics = [t.split() for t in _TOPICS]

    def line(n_labels):
        picked = rng.sample(range(len(topics)), n_labels)
        words = [rng.choice(topics[picked[0]]) for _ in range(5)] + [rng.choice(topics[-1])]
        return " ".join([f"__label__t{p}" for p in picked] + words)

    contents = {
        "labelled": [line(1) for _ in range(600)],
        "multi": [line(rng.choice((2, 3))) for _ in range(600)],
        "many": [line(1) for _ in range(1500)],
        "wide": [f"__label__w{rng.randrange(300)} " + line(1).split(" ", 1)[1]
                 for _ in range(1200)],
        "words": [w for t in topics for w in t],
        # the Extreme Classification Repository's format: N F L, then labels f:v ...
        "sparse": ["300 40 6"] + [
            ",".join(map(str, sorted(rng.sample(range(6), rng.choice((1, 2)))))) + " " +
            " ".join(f"{f}:{rng.random():.3f}" for f in sorted(rng.sample(range(40), 5)))
            for _ in range(300)],
        "text": [" ".join(rng.choice(rng.choice(topics)) for _ in range(rng.randint(3, 9)))
                 for _ in range(800)],
    }
    paths = {"out": folder}
    os.mkdir(os.path.join(folder, "cache"))  # -cache DIR must exist
    for name, lines in contents.items():
        paths[name] = os.path.join(folder, name + ".txt")
        with open(paths[name], "w") as f:
            f.write("\n".join(lines) + "\n")
    return paths


def command_lines(paths):
    """``(family, argv, stdin path or None)`` of every run."""
    for family, runs in RUNS.items():
        for run in runs:
            argv = [a.format(**paths) for a in run]
            stdin = None
            if argv[-1].startswith("<"):
                stdin = argv.pop()[1:]
            yield family, argv, stdin


def run_treexc(argv, stdin, notice):
    """One ``treexc`` command in a fresh process: ``(status, stderr)``."""
    env = dict(os.environ, TREEXC_COMPILE_NOTICE="1" if notice else "0")
    code = "import sys; from treexc.cli import main; sys.argv[0] = 'treexc'; main()"
    with open(stdin or os.devnull, "rb") as source:
        done = subprocess.run([sys.executable, "-c", code, *argv], stdin=source,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    return done.returncode, done.stderr.decode(errors="replace")


@click.command("compile")
@click.option("-check", "check", is_flag=True,
              help="compile nothing: run every command again and fail if one compiles")
def compile_all(check):
    """Compile every command's kernels for this machine now (minutes; later
    commands start at once).  `make demo` runs it."""
    # imported here, not above: `treexc --help` loads no Numba
    from ..jitstart import NOTICE

    started = time.monotonic()
    compiled, failed = [], []
    with tempfile.TemporaryDirectory(prefix="treexc-compile-") as folder:
        runs = list(command_lines(write_inputs(folder)))
        if not check:
            click.echo(f"treexc: compiling the kernels of {len(runs)} runs of every command "
                       "(minutes, once; they are cached for later runs)", err=True)
        said = None
        for family, argv, stdin in runs:
            if family != said and not check:  # minutes without a word otherwise
                said = family
                count = sum(1 for f, _, _ in runs if f == family)
                click.echo(f"treexc: compile: {family} ({count} runs)", err=True)
            status, err = run_treexc(argv, stdin, notice=check)
            shown = " ".join(["treexc", *argv]).replace(folder + os.sep, "")
            if status != 0:
                failed.append(f"{family}: {shown}: exit status {status}: {err.strip()}")
            elif check and NOTICE in err:
                compiled.append(f"{family}: {shown}")
    for line in failed:
        click.echo(f"treexc: compile: {line}", err=True)
    for line in compiled:
        click.echo(f"treexc: compile -check: compiled kernels: {line}", err=True)
    seconds = time.monotonic() - started
    if failed or compiled:
        sys.exit(1)
    what = "no command compiled" if check else "every kernel is compiled and cached"
    click.echo(f"treexc: {len(runs)} runs in {seconds:.0f} s: {what}", err=True)


COMMANDS = (compile_all,)
