"""The ``treexc`` command line, mirroring fastText's.

fastText's single-dash long flags work (``-input``, ``-lr``, ``-wordNgrams``),
and so do double-dash ones (``--input``).  User errors print one line,
``treexc: <what is wrong>``, and exit with status 1.
"""

import dataclasses
import difflib
import math
import os
import sys

import click

from .args import SUPERVISED_DEFAULTS, Args, make_args
from .errors import TreexcError

HELP = {
    "input": "training file path (fastText format; .gz accepted; - = stdin)",
    "output": "output file path, without extension (.bin and .vec are written)",
    "lr": "learning rate",
    "lrUpdateRate": "change the rate of updates for the learning rate (tokens)",
    "dim": "size of word vectors",
    "ws": "size of the context window (unused in supervised mode)",
    "epoch": "number of epochs",
    "minCount": "minimal number of word occurrences",
    "minCountLabel": "minimal number of label occurrences",
    "neg": "number of negatives sampled (loss ns)",
    "wordNgrams": "max length of word ngram",
    "loss": "loss function {softmax, hs, ova, ns, tree}",
    "bucket": "number of buckets for hashed n-grams",
    "minn": "min length of char ngram",
    "maxn": "max length of char ngram",
    "thread": "number of threads (0 = all cores)",
    "t": "sampling threshold (unused in supervised mode)",
    "label": "labels prefix",
    "verbose": "verbosity level: 0 silent, 1 summary, 2 progress",
    "pretrainedVectors": "pretrained word vectors (.vec) for supervised learning",
    "saveOutput": "also write the output matrix to OUTPUT.output",
    "seed": "random generator seed; with -thread 1 training is reproducible",
    "arity": "tree arity M for hs and tree losses (0 = 2 for hs, 20 for tree)",
    "treeUpdates": "tree rebuilds (AssignLabels) in the first half of training",
    "maxDepth": "depth limit of a learned tree: -1 = auto (the least depth that "
                "holds all labels), 0 = none",
    "treeGradient": "AssignLabels score: ll (log-likelihood) or plain (J_n gradient)",
}


class Main(click.Group):
    """Turns user errors into one line on stderr and an exit status."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except TreexcError as e:
            fail(str(e))
        except BrokenPipeError:
            # the reader went away (e.g. `| head`): not an error
            _silence_stdout()
            sys.exit(0)
        except MemoryError:
            fail("out of memory")
        except KeyboardInterrupt:
            click.echo("treexc: interrupted", err=True)
            sys.exit(130)


class FastTextCommand(click.Command):
    """A command with fastText's single-dash long flags: an unknown one is
    named whole (click alone would complain about its first letter)."""

    def parse_args(self, ctx, args):
        known = {name for param in self.get_params(ctx) for name in getattr(param, "opts", [])}
        for arg in args:
            if arg == "--":
                break
            name = arg.split("=", 1)[0]
            if (name.startswith("-") and len(name) > 2 and name not in known
                    and not _is_number(name)):
                close = difflib.get_close_matches(name, sorted(known), n=1)
                hint = f" (did you mean {close[0]}?)" if close else ""
                raise click.UsageError(f"unknown option {name}{hint}", ctx)
        return super().parse_args(ctx, args)


def _is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def fail(message):
    click.echo(f"treexc: {message}", err=True)
    sys.exit(1)


def _silence_stdout():
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


@click.group(cls=Main, context_settings={"help_option_names": ["-h", "-help", "--help"]})
@click.version_option(package_name="treexc")
def main():
    """treexc: fastText-style text classification with learned tree softmax.

    \b
    treexc supervised -input train.txt -output model
    treexc test model.bin test.txt 5
    treexc predict model.bin - < lines.txt
    """


def training_options(defaults):
    """click options for every Args field, as -name and --name."""

    def decorate(f):
        for field in reversed(dataclasses.fields(Args)):
            name = field.name
            default = getattr(defaults, name)
            kind = field.type
            extra = {"is_flag": True} if kind is bool else {"type": kind}
            if name in ("input", "output"):
                # no default at all: recent click versions take an explicit
                # default=None as a value and then do not require the flag
                extra["required"] = True
                extra["type"] = str
            else:
                extra["default"] = None
            f = click.option(f"-{name}", f"--{name}", name,
                             help=HELP[name] + ("" if name in ("input", "output")
                                                else f" [{default}]"),
                             **extra)(f)
        return f

    return decorate


@main.command(cls=FastTextCommand, context_settings={"show_default": False})
@training_options(SUPERVISED_DEFAULTS)
def supervised(**flags):
    """Train a supervised classifier.

    \b
    treexc supervised -input train.txt -output model -epoch 25 -wordNgrams 2
    treexc supervised -input train.txt -output model -loss hs
    """
    from .trainer import train_supervised

    args = make_args(**flags)
    check_output_writable(args.output)
    reporter = make_reporter(args.verbose)
    model = train_supervised(args, reporter)
    model.save_model(args.output + ".bin")
    from .vectors import write_vec

    write_vec(args.output + ".vec", model.get_words(), model.word_vectors())
    if args.saveOutput:
        write_vec(args.output + ".output", output_row_names(model), model.w_out)


def output_row_names(model):
    if model.tree is None:
        return model.get_labels()
    return [f"node{n}/{j}" for n in range(model.tree.n_internal)
            for j in range(model.tree.arity)]


def check_output_writable(output):
    if not output:
        raise TreexcError("-output: the file name must not be empty")
    folder = os.path.dirname(os.path.abspath(output)) or "."
    if not os.path.isdir(folder):
        why = "is not a folder" if os.path.exists(folder) else "does not exist"
        raise TreexcError(f"-output {output}: folder {folder} {why}")
    if not os.access(folder, os.W_OK):
        raise TreexcError(f"-output {output}: folder {folder} is not writable")


def make_reporter(verbose):
    from . import progress

    if verbose < 1:
        return None
    if verbose == 1:
        return progress.SummaryReporter(sys.stderr)
    if sys.stderr.isatty():
        return progress.RichReporter()
    return progress.LineReporter(sys.stderr)


def _k_threshold(k, threshold):
    if k < 1:
        raise TreexcError(f"k {k}: must be >= 1")
    if not 0.0 <= threshold <= 1.0 or math.isnan(threshold):
        raise TreexcError(f"threshold {threshold}: must be between 0 and 1")


def _load(path):
    from .model import load_model
    return load_model(path)


def model_input_k_threshold(input_default):
    """fastText's positional arguments: MODEL INPUT [K] [THRESHOLD]."""

    def decorate(f):
        f = click.argument("threshold", type=float, default=0.0)(f)
        f = click.argument("k", type=int, default=1)(f)
        optional = {} if input_default is None else {"default": input_default}
        f = click.argument("input_path", metavar="INPUT", **optional)(f)
        return click.argument("model_path", metavar="MODEL")(f)

    return decorate


@main.command()
@model_input_k_threshold(input_default="-")
def predict(model_path, input_path, k, threshold):
    """Print the k most likely labels of each line of INPUT (- = stdin).

    \b
    treexc predict model.bin test.txt 3
    producer | treexc predict model.bin - | consumer
    """
    _predict(model_path, input_path, k, threshold, with_prob=False)


@main.command("predict-prob")
@model_input_k_threshold(input_default="-")
def predict_prob(model_path, input_path, k, threshold):
    """Like predict, with each label's probability."""
    _predict(model_path, input_path, k, threshold, with_prob=True)


def _predict(model_path, input_path, k, threshold, with_prob):
    from .predict import stream_predictions

    _k_threshold(k, threshold)
    model = _load(model_path)
    out = sys.stdout.buffer
    for chunk in stream_predictions(model, input_path, k, threshold, with_prob):
        out.write(chunk)
        out.flush()


@main.command()
@model_input_k_threshold(input_default=None)
def test(model_path, input_path, k, threshold):
    """Print N, precision at k and recall at k on a labelled file."""
    from .textio import read_text

    _k_threshold(k, threshold)
    model = _load(model_path)
    meter = model.evaluate(read_text(input_path), k, threshold)
    click.echo(general_metrics(meter, k, "g"))


def general_metrics(meter, k, style):
    return (f"N\t{meter.n_examples}\n"
            f"P@{k}\t{meter.precision():.3{style}}\n"
            f"R@{k}\t{meter.recall():.3{style}}")


@main.command("test-label")
@model_input_k_threshold(input_default=None)
def test_label(model_path, input_path, k, threshold):
    """Print F1-score, precision and recall of every label, then test's lines."""
    from .textio import read_text

    _k_threshold(k, threshold)
    model = _load(model_path)
    meter = model.evaluate(read_text(input_path), k, threshold)

    def metric(name, value):
        shown = f"{value:.6f}" if math.isfinite(value) else "--------"
        return f"{name} : {shown}  "

    lines = []
    for i, label in enumerate(model.get_labels()):
        lines.append(metric("F1-Score", meter.label_f1(i))
                     + metric("Precision", meter.label_precision(i))
                     + metric("Recall", meter.label_recall(i)) + " " + label)
    lines.append(general_metrics(meter, k, "f"))
    click.echo("\n".join(lines))


@main.command("print-word-vectors")
@click.argument("model_path", metavar="MODEL")
def print_word_vectors(model_path):
    """Print the vector of each word read from stdin."""
    from .vectors import format_vector

    model = _load(model_path)
    for line in _stdin_lines():
        for word in line.split():  # ASCII white space, as fastText's `cin >> word`
            word = word.decode("utf-8")
            sys.stdout.write(f"{word} {format_vector(model.get_word_vector(word))}\n")
        sys.stdout.flush()


@main.command("print-sentence-vectors")
@click.argument("model_path", metavar="MODEL")
def print_sentence_vectors(model_path):
    """Print the vector of each line read from stdin."""
    import numpy as np

    from .vectors import format_vector

    model = _load(model_path)
    for line in _stdin_lines():
        vector = model.sentence_vector(np.frombuffer(line, dtype=np.uint8))
        sys.stdout.write(format_vector(vector) + "\n")
        sys.stdout.flush()


def _stdin_lines():
    """Lines of standard input as bytes, split at newlines only (a \\r is a
    separator inside a line for fastText), each checked like text input."""
    from .predict import _shift_line
    from .textio import check_text

    for number, line in enumerate(sys.stdin.buffer, 1):
        try:
            check_text(line, "standard input")
        except TreexcError as e:
            raise TreexcError(_shift_line(str(e), number - 1)) from None
        yield line


@main.command("dump-tree")
@click.argument("model_path", metavar="MODEL")
@click.option("-input", "--input", "data_path", default=None,
              help="labelled data to measure each node's J_n, purity and balance on")
@click.option("-format", "--format", "fmt", type=click.Choice(["text", "json", "dot"]),
              default="text", show_default=True)
@click.option("-top", "--top", type=click.IntRange(min=0), default=5, show_default=True,
              help="most frequent labels shown per node")
def dump_tree(model_path, data_path, fmt, top):
    """Print the output tree: each node's depth, children, labels below it,
    and with -input its objective J_n, purity alpha_n and balance beta_n.

    \b
    treexc dump-tree model.bin -input valid.txt
    treexc dump-tree model.bin -format dot | dot -Tsvg > tree.svg
    """
    from . import dumptree

    report = dumptree.tree_report(_load_tree_model(model_path), data_path, top)
    if fmt == "json":
        sys.stdout.write(dumptree.format_json(report))
    elif fmt == "dot":
        sys.stdout.write(dumptree.format_dot(report))
    elif sys.stdout.isatty():
        _print_rich_tree(report)
    else:
        sys.stdout.write(dumptree.format_text(report))


def _load_tree_model(path):
    from . import modelfile

    kind = modelfile.load(path)[0].get("kind")
    if kind == "lm":
        from .lm_model import load_lm_model
        return load_lm_model(path)
    return _load(path)


def _print_rich_tree(report):
    from rich.console import Console
    from rich.tree import Tree as RichTree

    from .dumptree import node_line, summary_lines

    nodes = report["nodes"]

    def add(branch, node_id, depth_left):
        node = nodes[node_id]
        sub = branch.add(node_line(node))
        if depth_left == 0:
            return
        for c in node["children"]:
            if c and "node" in c:
                add(sub, c["node"], depth_left - 1)

    console = Console()
    root = RichTree("\n".join(summary_lines(report)))
    add(root, 0, 3)
    console.print(root)
    if len(nodes) > 1 and any(n["depth"] > 3 for n in nodes):
        console.print("(deeper nodes omitted; use -format text or json for all)")


@main.command()
@click.argument("model_path", metavar="MODEL")
@click.argument("what", type=click.Choice(["args", "dict", "input", "output"]))
def dump(model_path, what):
    """Print the model's options, dictionary, or input/output matrix."""
    model = _load(model_path)
    write = sys.stdout.write
    if what == "args":
        for name, value in dataclasses.asdict(model.args).items():
            write(f"{name} {value}\n")
    elif what == "dict":
        d = model.dictionary
        write(f"{len(d.entry_off)}\n")
        for i in range(len(d.entry_off)):
            write(f"{d.entry(i)} {d.counts[i]} {'word' if i < d.nwords else 'label'}\n")
    else:
        matrix = model.w_in if what == "input" else model.w_out
        write(f"{matrix.shape[0]} {matrix.shape[1]}\n")
        for row in matrix:
            # fastText prints matrices with C++'s default precision, 6 digits
            write(" ".join(f"{x:.6g}" for x in row.tolist()) + "\n")

from .lm_cli import register as _register_lm
_register_lm(main)
