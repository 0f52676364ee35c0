"""Command-line interface of the language model: ``lm``, ``test-lm``,
``predict-next`` and ``plot``.

These are plain click commands; the main ``treexc`` group adds
:data:`COMMANDS` when one of them is asked for (and turns ``TreexcError``
into one line on stderr).
"""

import json
import math
import os
import re
import sys

import click

from ..errors import TreexcError
from ..lm.options import LMArgs, make_lm_args
from .common import (
    FastTextCommand,
    NumberArgsCommand,
    check_output_writable,
    option_flags,
    refuse_folder_name,
    write_stdout,
)


def format_record(r):
    parts = [f"epoch {r['epoch']:5.2f}"]
    for key in ("valid", "test"):
        if f"{key}_ppl" in r:
            parts.append(f"{key} perplexity {r[key + '_ppl']:9.2f}")
    parts.append(f"train {r['train_ms_per_batch']:7.3f} ms/batch "
                 f"({r['train_tokens_per_sec']:,.0f} tokens/s)")
    if "eval_ms_per_batch" in r:
        parts.append(f"eval {r['eval_ms_per_batch']:7.3f} ms/batch")
    if r.get("train_loss") is not None:
        parts.append(f"train loss {r['train_loss']:.4f}")
    return " | ".join(parts)


@click.command(cls=FastTextCommand, context_settings={"show_default": False})
@option_flags(LMArgs)
def lm(**flags):
    """Train a log-bilinear language model (flat or tree softmax).

    \b
    treexc lm -input train.txt -valid valid.txt -output lm
    treexc lm -input train.txt -output lm -loss softmax
    treexc lm -input train.txt -output lm -tree random -arity 65 -depth 3
    treexc lm -input train.txt -valid valid.txt -output lm -log curve.jsonl
    treexc lm -input train.txt -plan          # what would be trained, and why

    Prints the validation perplexity, train ms/batch and evaluation ms/batch
    after each epoch; writes OUTPUT.bin.
    """
    # imported here, not above: only a running command loads numpy and Numba
    from ..io import checkpoint
    from ..io.publish import OutputSet, interrupt_on_signals
    from ..lm.training import plan_of_input, train_lm
    from ..runtime import reporter_factory

    args = make_lm_args(**flags)
    if args.plan:  # what training would build, and why: counted, not trained
        write_stdout("".join(line + "\n" for line in plan_of_input(args).lines()))
        return
    if flags.get("output") is None:  # an empty one is refused with the others below
        raise click.UsageError("Missing option '-output'.")
    bin_path = args.output + ".bin"
    texts = [args.input, args.valid, args.test]
    check_output_writable(args.output, [bin_path], inputs=texts)
    if args.log:
        check_output_writable(args.log, [args.log, bin_path], flag="-log", inputs=texts)
    if not args.name:
        args.name = os.path.basename(args.output)
    # the log describes the model next to it: published with it, the .bin
    # last (see publish.py); during the run its records are on stdout
    outputs = OutputSet(([args.log] if args.log else []) + [bin_path])
    with interrupt_on_signals(), outputs:
        outputs.remove_stale()
        log = None
        if args.log:
            try:
                log = open(outputs.temp(args.log), "w")
            except OSError as e:
                raise TreexcError(f"-log {args.log}: cannot write: {e.strerror}") from None

        def echo(line):
            if args.verbose >= 1:
                click.echo(line)

        def on_eval(record):
            echo(format_record(record))
            if log is not None:
                try:
                    log.write(json.dumps(record) + "\n")
                    log.flush()
                except OSError as e:
                    raise TreexcError(f"-log {args.log}: cannot write: {e.strerror}") \
                        from None

        try:
            reporters = reporter_factory(args.verbose, sys.stderr, summary=False)
            model, records = train_lm(args, reporters, echo, on_eval)
        finally:
            if log is not None:
                try:
                    log.close()
                except OSError:
                    pass  # the write that failed has said so
        outputs.write(bin_path, model.save_model)
        outputs.publish()
        checkpoint.remove(args)  # the model it led to is published
        if records and args.verbose >= 1:  # a signal now is ignored: the run is done
            last = records[-1]
            if "valid_ppl" in last:  # of the saved weights (-keepBest)
                kept = last.get("kept_epoch")
                saved = next(r for r in records if r["epoch"] == kept) if kept else last
                click.echo(f"final valid perplexity {saved['valid_ppl']:.2f}")


@click.command("test-lm")
@click.argument("model_path", metavar="MODEL")
@click.argument("input_path", metavar="TEST")
@click.option("-thread", "--thread", type=int, default=0, help="threads (0 = all cores)")
def test_lm(model_path, input_path, thread):
    """Print the perplexity of a language model on TEST and its token count.

    \b
    treexc test-lm lm.bin test.txt
    """
    # imported here, not above: only a running command loads numpy and Numba
    from ..lm.model import load_lm, perplexity
    from ..options import default_threads

    model = load_lm(model_path)
    ppl, n = perplexity(model, input_path, thread or default_threads())
    click.echo(f"perplexity\t{ppl:.3f}\ntokens\t{n}")


@click.command("predict-next", cls=NumberArgsCommand)  # k -1: a number, not a flag
@click.argument("model_path", metavar="MODEL")
@click.argument("input_path", metavar="INPUT", default="-")
@click.argument("k", type=int, default=5)
def predict_next(model_path, input_path, k):
    """Print the k most likely next words after each line of INPUT
    (- = stdin), with their probabilities: ``word prob word prob ...``.

    A line is a context: its last -context words are used (fewer are padded
    with </s>; an empty line asks for the first word of a paragraph).

    \b
    echo "the old man" | treexc predict-next lm.bin - 3
    """
    # imported here, not above: only a running command loads numpy and Numba
    from ..io.textio import ByteCheck, display_name, printable, read_line_chunks, to_str
    from ..lm.model import load_lm

    if k < 1:
        raise TreexcError(f"k {k}: must be >= 1")
    model = load_lm(model_path)
    check = ByteCheck()
    for _, chunk in read_line_chunks(input_path, check):
        lines = chunk.split(b"\n")
        if lines[-1] == b"":
            lines.pop()
        out = []
        for line in lines:
            words = [to_str(w) for w in last_words(line, model.args.context)]
            best = model.predict_next(words, k)
            out.append(" ".join(f"{printable(w)} {p:.5g}" for w, p in best) + "\n")
        write_stdout("".join(out))
    check.warn(display_name(input_path))


TOKEN_SEPARATORS = re.compile(rb"[ \t\r\v\f\0]+")


def last_words(line, n):
    """The last ``n`` words of ``line`` (bytes), split at the tokeniser's
    separators (NUL included, not str.split's), from a tail of the line
    that grows until it holds them: the context of a 100 MB line is its
    end, not 17 million words (3.7 GB)."""
    size = 4096
    while True:
        words = [w for w in TOKEN_SEPARATORS.split(line[-size:]) if w]
        if size >= len(line) or len(words) > n:  # only the first can be cut
            return words[len(words) - n:] if len(words) > n else words
        size *= 4


PLOT_INSTALL = ("matplotlib is needed for `treexc plot`: install it with "
                "`pip install 'treexc[plot]'` (or `pip install matplotlib`)")


@click.command()
@click.argument("curves", nargs=-1, required=True, metavar="CURVE.jsonl...")
@click.option("-o", "--output", "output", required=True, help="image file (.png, .svg, .pdf)")
@click.option("--metric", type=click.Choice(["auto", "test", "valid"]), default="auto",
              help="perplexity to draw (auto: test when the logs have it, else valid)")
@click.option("--title", default="", help="figure title")
def plot(curves, output, metric, title):
    """Draw perplexity per epoch of several runs (logs of `treexc lm -log`).

    \b
    treexc plot flat.jsonl random.jsonl cluster.jsonl learned.jsonl -o curves.png
    """
    refuse_folder_name(output, "-o", "curves.png")
    runs = [(path, read_curve(path)) for path in curves]
    if metric == "auto":
        metric = "test" if all(any("test_ppl" in r for r in recs) for _, recs in runs) \
            else "valid"
    try:
        # imported here, not above: only a running command loads numpy and Numba
        import matplotlib
        matplotlib.use("Agg")
        # imported here, not above: only a running command loads numpy and Numba
        import matplotlib.pyplot as plt
    except ImportError:
        raise TreexcError(PLOT_INSTALL) from None
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    for path, recs in runs:
        pts = [(r["epoch"], r[f"{metric}_ppl"]) for r in recs if f"{metric}_ppl" in r]
        if not pts:
            raise TreexcError(f"{path}: no {metric} perplexity in the records "
                              f"(train with -{metric} FILE)")
        label = recs[0].get("run") or os.path.splitext(os.path.basename(path))[0]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
    ax.set_xlabel("epoch")
    ax.set_ylabel(f"{metric} perplexity")
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    try:
        fig.savefig(output, dpi=120)
    except (OSError, ValueError) as e:
        raise TreexcError(f"-o {output}: cannot write the figure: {e}") from None
    click.echo(output)


def read_curve(path):
    """Records of a ``treexc lm -log`` file (``-`` = stdin, gzip accepted)."""
    # imported here, not above: only a running command loads numpy and Numba
    from ..io.textio import display_name, read_bytes

    name = display_name(path)
    records = []
    for i, line in enumerate(read_bytes(path).split(b"\n"), 1):
        if not line.strip():
            continue
        try:
            r = json.loads(line.decode("utf-8"))
            # a diverged run may log an infinite or NaN perplexity: drawn as a gap
            numbers = [r["epoch"]] + [r[key] for key in ("valid_ppl", "test_ppl") if key in r]
            if not (all(isinstance(x, (int, float)) and not isinstance(x, bool)
                        for x in numbers) and math.isfinite(r["epoch"])):
                raise ValueError("not a number")
        # UnicodeDecodeError is a ValueError; RecursionError: deeply nested JSON
        except (ValueError, KeyError, TypeError, RecursionError):
            raise TreexcError(f"{name}: line {i}: not a `treexc lm -log` record") from None
        records.append(r)
    if not records:
        raise TreexcError(f"{name}: no records")
    return records


COMMANDS = (lm, test_lm, predict_next, plot)
