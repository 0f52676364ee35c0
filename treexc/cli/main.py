"""The ``treexc`` command line, mirroring fastText's.

fastText's single-dash long flags work (``-input``, ``-lr``, ``-wordNgrams``),
and so do double-dash ones (``--input``).  User errors print one line,
``treexc: <what is wrong>``, and exit with status 1.
"""

import dataclasses
import difflib
import errno
import io
import functools
import math
import os
import sys

import click

from .. import __version__
from ..classify.options import SUPERVISED_DEFAULTS, Args, make_args
from ..errors import TreexcError

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
    "loss": "loss function {auto, softmax, hs, ova, ns, tree}; auto = flat softmax up to "
            "4,096 labels, a learned tree above (or when -arity is given)",
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


LM_COMMANDS = ("lm", "test-lm", "predict-next", "plot")


def _kernels_ready(callback):
    """``callback`` after Numba's start-up is set (``jitstart``): here, once
    click has parsed the arguments, so that ``--help`` imports no Numba."""
    if getattr(callback, "kernels_ready", False):
        return callback

    @functools.wraps(callback)
    def run(*args, **kwargs):
        # imported here: Numba takes 0.3-0.5 s to import, which --help need not
        from .. import jitstart

        jitstart.prepare()
        return callback(*args, **kwargs)

    run.kernels_ready = True
    return run


class NumberArgsCommand(click.Command):
    """Negative numbers are positional arguments, not options: fastText's
    ``predict model.bin file -1`` asks for every label."""

    def parse_args(self, ctx, args):
        for i, arg in enumerate(args):
            if arg == "--":
                break
            if arg.startswith("-") and _is_number(arg):
                before = args[i - 1] if i else ""  # an option's value follows it
                after_option = before.startswith("-") and before != "-" \
                    and not _is_number(before)
                if not after_option and all(_is_number(a) or not a.startswith("-")
                                            for a in args[i:]):
                    args = [*args[:i], "--", *args[i:]]
                break
        return super().parse_args(ctx, args)


class Main(click.Group):
    """Turns user errors into one line on stderr and an exit status."""

    command_class = NumberArgsCommand

    def add_command(self, cmd, name=None):
        if cmd.name != "plot":  # the one command that runs no kernel
            cmd.callback = _kernels_ready(cmd.callback)
        super().add_command(cmd, name)

    def get_command(self, ctx, name):
        if name in LM_COMMANDS and name not in self.commands:
            _add_lm_commands(self)
        return super().get_command(ctx, name)

    def list_commands(self, ctx):
        return sorted({*super().list_commands(ctx), *LM_COMMANDS})

    def main(self, *args, **kwargs):
        standalone = kwargs.pop("standalone_mode", True)
        try:
            # not standalone: click would print a usage error as several
            # lines (usage, hint, error); here it becomes one, with status 2
            return super().main(*args, standalone_mode=False, **kwargs)
        except click.UsageError as e:
            if not standalone:
                raise
            if isinstance(e, click.exceptions.NoArgsIsHelpError):
                e.show()  # `treexc` alone: the help text
                sys.exit(e.exit_code)
            names, ctx = [], e.ctx
            while ctx is not None and ctx.parent is not None:
                names.insert(0, ctx.info_name)
                ctx = ctx.parent
            command = " ".join(["treexc", *names])
            click.echo(f"treexc: {e.format_message()} (see: {command} -h)", err=True)
            sys.exit(e.exit_code)
        except click.ClickException as e:
            if not standalone:
                raise
            click.echo(f"treexc: {e.format_message()}", err=True)
            sys.exit(e.exit_code)
        except click.exceptions.Abort:
            if not standalone:
                raise
            click.echo("treexc: interrupted", err=True)
            sys.exit(130)
        except OSError as e:
            # `treexc --help` or `--version` written to a full disk: parsed
            # and printed before invoke (click handles only EPIPE here)
            _silence_stdout()
            fail(f"standard output: cannot write: {e.strerror or e}")

    def invoke(self, ctx):
        try:
            _tolerant_stdout()
            result = super().invoke(ctx)
            flush_stdout()  # here, not at exit, where Python's own flush would fail
            return result
        except TreexcError as e:
            fail(str(e))
        except BrokenPipeError:
            # the reader went away (e.g. `| head`): not an error
            _silence_stdout()
            sys.exit(0)
        except OSError as e:
            # one not met where its file could be named, e.g. standard output
            # written as text by a command that does not use write_stdout
            _silence_stdout()
            fail(f"{e.filename}: {e.strerror or e}" if e.filename
                 else f"standard output: cannot write: {e.strerror or e}")
        except MemoryError:
            fail("out of memory")
        except KeyboardInterrupt as e:
            # Ctrl-C, or SIGTERM/SIGHUP during training (publish.Interrupted)
            _interrupted(e)
        except SystemError as e:
            # a signal handled inside a kernel called from this thread (an LM
            # tree rebuild): Python wraps the handler's exception like this
            cause = e.__cause__
            while isinstance(cause, SystemError):  # one per call level
                cause = cause.__cause__
            if isinstance(cause, KeyboardInterrupt):
                _interrupted(cause)
            raise


def _interrupted(e):
    try:
        click.echo("treexc: interrupted", err=True)
    except (OSError, ValueError):
        pass  # SIGHUP: the terminal may be gone
    sys.exit(128 + getattr(e, "signum", 2))


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
    try:
        if sys.stdout is not None:
            sys.stdout.flush()  # the answers before the error line
    except (OSError, ValueError):
        _silence_stdout()
    click.echo(f"treexc: {message}", err=True)
    sys.exit(1)


def _silence_stdout():
    """Point standard output at /dev/null, so that the flush at exit of what
    could not be written does not fail again (and print a traceback)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):
        pass
    finally:
        os.close(devnull)


def _tolerant_stdout():
    """Tokens with invalid UTF-8 are ``str`` with lone surrogates
    (``textio.to_str``): standard output writes them back as their bytes.
    Started with standard output closed (``>&-``), Python has none at all:
    a stand-in makes any write fail with one line, not an AttributeError."""
    if sys.stdout is None:
        sys.stdout = _ClosedStdout()
    try:
        sys.stdout.reconfigure(errors="surrogateescape")
    except (AttributeError, ValueError):
        pass


class _ClosedStdout(io.TextIOBase):
    """Standard output when there is none: writes fail, flushes do nothing."""

    def writable(self):
        return True

    def write(self, data):
        raise OSError(errno.EBADF, "standard output is closed")

    def fileno(self):
        raise OSError(errno.EBADF, "standard output is closed")

    @property
    def buffer(self):
        return self


def write_stdout(data, flush=True):
    """Write answer bytes (or text) to standard output.  A write that fails
    (a full disk, /dev/full, a descriptor not open for writing) becomes one
    ``TreexcError``; a reader that went away stays ``BrokenPipeError``, a
    quiet exit."""
    out = sys.stdout
    if out is None or isinstance(out, _ClosedStdout):  # started with `>&-`
        raise TreexcError("standard output is closed: nowhere to write the answers")
    if isinstance(data, str):
        from ..io.textio import to_bytes
        data = to_bytes(data)
    try:
        out.flush()
        buffer = getattr(out, "buffer", None)
        if buffer is None:  # a text-only stream put in place by an embedding program
            from ..io.textio import to_str
            out.write(to_str(data))
            buffer = out
        else:
            # a write cut short (a file size limit) returns what it wrote
            # instead of failing: the next write of the rest reports why;
            # an empty write is a write(2) of 0 bytes, which /dev/full refuses
            rest = memoryview(data)
            while rest:
                rest = rest[buffer.write(rest):]
        if flush:
            buffer.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as e:
        _silence_stdout()
        raise TreexcError(f"standard output: cannot write: "
                          f"{getattr(e, 'strerror', None) or e}") from None


def flush_stdout():
    if sys.stdout is not None and not isinstance(sys.stdout, _ClosedStdout):
        write_stdout(b"")


@click.group(cls=Main, context_settings={"help_option_names": ["-h", "-help", "--help"]})
@click.version_option(__version__, "-version", "--version", prog_name="treexc",
                      message="%(prog)s %(version)s")
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
    from ..io.publish import OutputSet, interrupt_on_signals
    from ..classify.training import train_supervised
    from ..io.vectors import write_vec

    args = make_args(**flags)
    bin_path, vec_path, out_path = (args.output + ext for ext in (".bin", ".vec", ".output"))
    # published together, the .bin last (see publish.py)
    finals = ([out_path] if args.saveOutput else []) + [vec_path, bin_path]
    check_output_writable(args.output, finals)
    outputs = OutputSet(finals)
    with interrupt_on_signals(), outputs:
        outputs.remove_stale()
        model = train_supervised(args, make_reporter(args.verbose))
        outputs.write(bin_path, model.save_model)
        outputs.write(vec_path, lambda tmp: write_vec(tmp, model.get_words(),
                                                      model.word_vectors()))
        if args.saveOutput:
            outputs.write(out_path, lambda tmp: write_vec(tmp, output_row_names(model),
                                                          model.w_out))
        outputs.publish()


def output_row_names(model):
    """Names of the output matrix's rows in ``.output``: the label a row
    scores where rows are labels (softmax, ova, ns: as fastText), else
    ``node<n>/<slot>``, the row of one slot of a tree node."""
    labels = model.get_labels()
    tree = model.tree
    if tree is None:
        return labels
    slots = tree.children[0]
    if tree.n_internal == 1 and ((slots >= 0) & (slots < len(labels))).all():  # flat
        return [labels[c] for c in slots]
    return [f"node{n}/{j}" for n in range(tree.n_internal) for j in range(tree.arity)]


def check_output_writable(output, finals=(), flag="-output"):
    """Refuse before training an output that could not be published: a
    missing or read-only folder, a folder where a file of ``finals`` goes."""
    if not output:
        raise TreexcError(f"{flag}: the file name must not be empty")
    folder = os.path.dirname(os.path.abspath(output)) or "."
    if not os.path.isdir(folder):
        why = "is not a folder" if os.path.exists(folder) else "does not exist"
        raise TreexcError(f"{flag} {output}: folder {folder} {why}")
    if not os.access(folder, os.W_OK):
        raise TreexcError(f"{flag} {output}: folder {folder} is not writable")
    for final in finals:
        if os.path.isdir(final):
            raise TreexcError(f"{flag} {output}: {final} is a folder "
                              "(remove it or choose another name)")


def make_reporter(verbose):
    from .. import runtime as progress

    if verbose < 1:
        return None
    if verbose == 1:
        return progress.SummaryReporter(sys.stderr)
    if sys.stderr.isatty():
        return progress.RichReporter()
    return progress.LineReporter(sys.stderr)


def _k_threshold(k, threshold):
    if k < 1 and k != -1:  # -1: all labels, as fastText
        raise TreexcError(f"k {k}: must be >= 1, or -1 for all labels")
    if not 0.0 <= threshold <= 1.0 or math.isnan(threshold):
        raise TreexcError(f"threshold {threshold}: must be between 0 and 1")


def _load(path):
    from ..classify.model import load_model
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
    """Print the K most likely labels of each line of INPUT, one line of
    answers per line of input.

    \b
    INPUT      text, one example per line (.gz accepted; - = stdin, the default)
    K          labels per line (default 1; -1 = every label)
    THRESHOLD  leave out labels of probability below it (default 0.0)

    \b
    treexc predict model.bin test.txt 3
    treexc predict model.bin test.txt -1 0.1
    producer | treexc predict model.bin - | consumer
    """
    _predict(model_path, input_path, k, threshold, with_prob=False)


@main.command("predict-prob")
@model_input_k_threshold(input_default="-")
def predict_prob(model_path, input_path, k, threshold):
    """Like predict, with each label's probability.

    \b
    INPUT      text, one example per line (.gz accepted; - = stdin, the default)
    K          labels per line (default 1; -1 = every label)
    THRESHOLD  leave out labels of probability below it (default 0.0)

    \b
    producer | treexc predict-prob model.bin - 3 0.1 | consumer
    """
    _predict(model_path, input_path, k, threshold, with_prob=True)


def _predict(model_path, input_path, k, threshold, with_prob):
    from ..classify.predict import stream_predictions

    _k_threshold(k, threshold)
    model = _load(model_path)
    for chunk in stream_predictions(model, input_path, k, threshold, with_prob):
        write_stdout(chunk)


@main.command()
@model_input_k_threshold(input_default=None)
def test(model_path, input_path, k, threshold):
    """Print N, precision at K and recall at K on a labelled file, as
    fastText: each line's K most likely labels, less those of probability
    below THRESHOLD, are its predictions; precision = correct / predicted,
    recall = correct / true labels, over all lines.

    \b
    INPUT      labelled text, fastText's format (.gz accepted; - = stdin)
    K          labels predicted per line (default 1; -1 = every label)
    THRESHOLD  leave out labels of probability below it (default 0.0)

    \b
    treexc test model.bin valid.txt
    treexc test model.bin valid.txt 5
    zcat valid.txt.gz | treexc test model.bin - 1 0.5
    """
    from ..io.textio import read_text

    _k_threshold(k, threshold)
    model = _load(model_path)
    meter = model.evaluate(read_text(input_path), k, threshold)
    write_stdout(general_metrics(meter, k, "g") + "\n")


def general_metrics(meter, k, style):
    return (f"N\t{meter.n_examples}\n"
            f"P@{k}\t{meter.precision():.3{style}}\n"
            f"R@{k}\t{meter.recall():.3{style}}")


@main.command("test-label")
@model_input_k_threshold(input_default=None)
def test_label(model_path, input_path, k, threshold):
    """Print F1-score, precision and recall of every label, then test's lines.

    \b
    INPUT      labelled text, fastText's format (.gz accepted; - = stdin)
    K          labels predicted per line (default 1; -1 = every label)
    THRESHOLD  leave out labels of probability below it (default 0.0)
    """
    from ..io.textio import printable, read_text

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
                     + metric("Recall", meter.label_recall(i)) + " " + printable(label))
    lines.append(general_metrics(meter, k, "f"))
    write_stdout("\n".join(lines) + "\n")


@main.command("print-word-vectors")
@click.argument("model_path", metavar="MODEL")
def print_word_vectors(model_path):
    """Print the vector of each word read from stdin."""
    from ..io.textio import printable, to_str
    from ..io.vectors import format_vector

    model = _load(model_path)
    for lines in _stdin_lines():
        out = []
        for word in lines.split():  # ASCII white space, as fastText's `cin >> word`
            word = to_str(word)
            out.append(f"{printable(word)} {format_vector(model.get_word_vector(word))}\n")
        write_stdout("".join(out))


@main.command("print-sentence-vectors")
@click.argument("model_path", metavar="MODEL")
def print_sentence_vectors(model_path):
    """Print the vector of each line read from stdin."""
    import numpy as np

    from ..io.vectors import format_vector

    model = _load(model_path)
    for lines in _stdin_lines():
        out = []
        # split at newlines only: a \r is a separator inside a line for fastText
        parts = lines.split(b"\n")
        last = parts.pop()
        for line in [p + b"\n" for p in parts] + ([last] if last else []):
            vector = model.sentence_vector(np.frombuffer(line, dtype=np.uint8))
            out.append(format_vector(vector) + "\n")
        write_stdout("".join(out))


def _stdin_lines():
    """Standard input in pieces of whole lines (bytes; the last piece may
    lack its newline), as they arrive: a typed line is answered at once.
    Gzip is recognised by its magic bytes; any byte is read as it is."""
    from ..classify.predict import read_line_chunks

    for _, piece in read_line_chunks("-"):
        yield piece


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
    from ..trees import dump as dumptree

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
    from ..io import modelfile

    kind = modelfile.load_header(path).get("kind")
    if kind == "lm":
        from ..lm.model import load_lm_model
        return load_lm_model(path)
    return _load(path)


def _print_rich_tree(report):
    from rich.console import Console
    from rich.tree import Tree as RichTree

    from ..trees.dump import node_line, summary_lines

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
    from ..io.textio import printable

    model = _load(model_path)
    lines = []

    def write(line):  # a block of lines at a time: one write call per block
        lines.append(line)
        if len(lines) >= 4096:
            write_stdout("".join(lines), flush=False)
            lines.clear()

    if what == "args":
        for name, value in dataclasses.asdict(model.args).items():
            write(printable(f"{name} {value}") + "\n")
    elif what == "dict":
        d = model.dictionary
        write(f"{len(d.entry_off)}\n")
        for i in range(len(d.entry_off)):
            # control characters escaped: an entry cannot break the one-entry lines
            write(f"{printable(d.entry(i))} {d.counts[i]} "
                  f"{'word' if i < d.nwords else 'label'}\n")
    else:
        matrix = model.w_in if what == "input" else model.w_out
        write(f"{matrix.shape[0]} {matrix.shape[1]}\n")
        for row in matrix:
            # fastText prints matrices with C++'s default precision, 6 digits
            write(" ".join(f"{x:.6g}" for x in row.tolist()) + "\n")
    write_stdout("".join(lines))

@main.command()
@click.argument("model_path", metavar="MODEL")
def check(model_path):
    """Verify a model file: every checksum (also of arrays too large to be
    verified at each load), then every check a load makes.

    \b
    treexc check model.bin
    """
    from ..io import modelfile

    header, version, n_arrays = modelfile.verify(model_path)
    kind = header.get("kind")
    if kind == "lm":
        from ..lm.model import load_lm
        load_lm(model_path)
    else:
        _load(model_path)
    sums = "checksums verified" if version >= 2 else "no checksums (format version 1)"
    click.echo(f"{model_path}: ok ({kind} model, format version {version}, "
               f"{n_arrays} arrays, {sums})")


def _add_lm_commands(group):
    # imported when asked for: the language model's modules and kernels are
    # of no use to the classifier's commands and cost their start-up
    from .lm import register

    register(group)
