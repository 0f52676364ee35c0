"""The classifier's commands: supervised, predict, predict-prob, test,
test-label, print-word-vectors, print-sentence-vectors, dump."""

import math
import os
import sys

import click

from ..classify.options import Args, AutotuneArgs, check_k_threshold
from ..classify.quantize.options import QuantizeArgs
from ..errors import TreexcError
from ..options import option_values
from ..supervised_options import FamilyArgs, LinearOnlyArgs
from .common import (
    FastTextCommand,
    NumberArgsCommand,
    check_output_writable,
    load_any_model,
    evaluated_model,
    load_classifier,
    model_input_k_threshold,
    option_flags,
    stdin_lines,
    usage_if_typing,
    write_stdout,
)


@click.command(cls=FastTextCommand, context_settings={"show_default": False})
@option_flags(FamilyArgs)
@option_flags(Args)
@option_flags(LinearOnlyArgs)
@option_flags(AutotuneArgs)
def supervised(**flags):
    """Train a supervised classifier: the sparse linear model (-model
    linear, the default's choice unless an option only the embedding
    model has is given) or fastText's embedding model (-model embedding).

    \b
    treexc supervised -input train.txt -output model
    treexc supervised -input train.txt -output model -tree learned -ensemble 3
    treexc supervised -input train.txt -output model -epoch 25 -wordNgrams 2
    treexc supervised -input train.txt -output model -loss hs
    treexc supervised -input train.txt -output model -autotune-validation valid.txt
    treexc supervised -input train.txt -plan      # what would be trained, and why
    """
    # imported here, not above: only a running command loads numpy and Numba
    from ..io import checkpoint
    from ..io.publish import OutputSet, interrupt_on_signals
    from ..io.vectors import write_vec, write_vec_arrays
    from ..supervised import EMBEDDING, family_of_flags, plan_lines, train_supervised

    if flags.pop("plan", None):  # what training would build, and why: counted, not trained
        write_stdout("".join(line + "\n" for line in plan_lines(flags)))
        return
    if flags.get("output") is None:  # an empty one is refused with the others below
        raise click.UsageError("Missing option '-output'.")
    output = flags["output"]
    embedding = family_of_flags(flags) == EMBEDDING
    bin_path, vec_path, out_path = (output + ext for ext in (".bin", ".vec", ".output"))
    # published together, the .bin last (see publish.py); the linear model has no vectors
    finals = (([out_path] if flags.get("saveOutput") else []) + [vec_path]
              if embedding else []) + [bin_path]
    check_output_writable(output, finals,
                          inputs=[flags["input"], flags.get("autotuneValidationFile")])
    outputs = OutputSet(finals)
    with interrupt_on_signals(), outputs:
        outputs.remove_stale()
        model = train_supervised(flags)
        outputs.write(bin_path, model.save_model)
        if embedding:  # its word vectors too, as fastText
            outputs.write(vec_path, lambda tmp: write_vec(tmp, model.dictionary.nwords,
                                                          model.args.dim, model.word_rows))
            if model.args.saveOutput:
                outputs.write(out_path, lambda tmp: write_vec_arrays(
                    tmp, output_row_names(model), model.w_out))
        outputs.publish()
        if embedding:
            checkpoint.remove(model.args)  # the model it led to is published



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



def dask_options(f):
    """``-dask SCHEDULER`` and ``-daskOutput DIR``: the route of predict and
    predict-prob over a set of files on a Dask cluster (treexc/dask.py)."""
    f = click.option("-daskOutput", "dask_output", metavar="DIR", default=None,
                     help="with -dask: each worker writes DIR/NAME.pred for input file "
                     "NAME instead of sending the answers to standard output")(f)
    return click.option("-dask", "dask_scheduler", metavar="SCHEDULER", default=None,
                        help="predict INPUT, a file or a quoted glob ('shards/*.txt', one "
                        "task per file, answers in file-name order), on a Dask cluster: "
                        "tcp://HOST:8786, a scheduler file (.json) or local:N (N worker "
                        "processes here); needs pip install 'treexc[dask]'")(f)


@click.command(cls=NumberArgsCommand)
@model_input_k_threshold(input_default="-")
@dask_options
def predict(model_path, input_path, k, threshold, dask_scheduler, dask_output):
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
    treexc predict model.bin 'shards/*.txt' 3 -dask tcp://scheduler:8786
    """
    _predict(model_path, input_path, k, threshold, False, dask_scheduler, dask_output)



@click.command("predict-prob", cls=NumberArgsCommand)
@model_input_k_threshold(input_default="-")
@dask_options
def predict_prob(model_path, input_path, k, threshold, dask_scheduler, dask_output):
    """Like predict, with each label's probability.

    \b
    INPUT      text, one example per line (.gz accepted; - = stdin, the default)
    K          labels per line (default 1; -1 = every label)
    THRESHOLD  leave out labels of probability below it (default 0.0)

    \b
    producer | treexc predict-prob model.bin - 3 0.1 | consumer
    """
    _predict(model_path, input_path, k, threshold, True, dask_scheduler, dask_output)



def _predict(model_path, input_path, k, threshold, with_prob, dask_scheduler=None,
             dask_output=None):
    usage_if_typing(input_path)
    if dask_scheduler is not None or dask_output is not None:
        return _predict_on_dask(model_path, input_path, k, threshold, with_prob,
                                dask_scheduler, dask_output)
    # imported here, not above: only a running command loads numpy and Numba
    from ..model_family import LINEAR, model_family

    check_k_threshold(k, threshold)
    linear = model_family(model_path) == LINEAR
    if linear:
        from ..linear.predict import stream_predictions
    else:
        from ..classify.predict import stream_predictions

    def kernel_model(first):
        # imported here: Numba and the kernels only once the input turns out
        # big; the first lines need numpy alone (classify/ and linear/firstlines.py)
        from .. import jitstart

        if linear:
            from ..linear.model import load_linear as load
        else:
            from ..classify.model import load_model as load
        jitstart.prepare()
        return load(model_path, loaded=first.loaded)

    for chunk in stream_predictions(model_path, input_path, k, threshold, with_prob,
                                    kernel_model):
        write_stdout(chunk)


def _predict_on_dask(model_path, input_path, k, threshold, with_prob, scheduler, out_dir):
    if scheduler is None:
        raise TreexcError("-daskOutput needs -dask SCHEDULER")
    check_k_threshold(k, threshold)
    try:
        # imported here: dask is an optional extra, and heavy
        from .. import dask as treexc_dask
    except ImportError as e:
        raise TreexcError(f"-dask needs dask.distributed ({e}): "
                          "pip install 'treexc[dask]'") from None
    from ..classify import firstlines
    from ..io.textio import warn

    paths = treexc_dask.expand_inputs(input_path)
    if out_dir is not None and not os.path.isdir(out_dir):
        raise TreexcError(f"-daskOutput {out_dir}: not a folder")
    from ..model_family import LINEAR, model_family

    # a bad model file is refused here, not on each worker
    if model_family(model_path) == LINEAR:
        load_classifier(model_path)
    else:
        firstlines.load(model_path)
    with treexc_dask.connect(scheduler) as client:
        for _, answers, warning in treexc_dask.predict_files(
                client, paths, model_path, k, threshold, with_prob, out_dir):
            if warning:
                warn(warning)
            if answers is not None:
                write_stdout(answers)


# _predict prepares Numba itself, when it needs the kernels (main._kernels_ready)
predict.callback.kernels_ready = predict_prob.callback.kernels_ready = True



@click.command(cls=NumberArgsCommand)
@model_input_k_threshold(input_default=None)
@click.option("-metrics", "--metrics", "metrics", metavar="LIST", default="",
              help="also print these ranking metrics at K, comma-separated: ndcg "
              "(nDCG@K), psp (propensity-scored P@K, Jain et al. 2016); docs/metrics.md")
@click.option("-A", "--A", "prop_a", type=float, default=0.55, show_default=True,
              help="the propensities' A (psp)")
@click.option("-B", "--B", "prop_b", type=float, default=1.5, show_default=True,
              help="the propensities' B (psp)")
def test(model_path, input_path, k, threshold, metrics, prop_a, prop_b):
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
    treexc test model.bin valid.txt 5 -metrics ndcg,psp -A 0.55 -B 1.5
    zcat valid.txt.gz | treexc test model.bin - 1 0.5
    """
    # imported here, not above: only a running command loads numpy and Numba
    from ..metrics import check_metrics

    check_k_threshold(k, threshold)
    names = check_metrics(metrics, prop_a, prop_b)
    model, data = evaluated_model(model_path, input_path)
    if not names:  # fastText's output, alone
        meter = model.evaluate(data, k, threshold, input_path)
        write_stdout(general_metrics(meter, k, "g") + "\n")
        return
    meter, ranks = model.evaluate_ranking(data, k, threshold, names, prop_a, prop_b,
                                          path=input_path)
    write_stdout(general_metrics(meter, k, "g")
                 + "".join(f"\n{name}\t{value:.3g}" for name, value in ranks.items()) + "\n")



# test and test-label prepare Numba themselves, when the kernels answer (main._kernels_ready)
test.callback.kernels_ready = True


def general_metrics(meter, k, style):
    return (f"N\t{meter.n_examples}\n"
            f"P@{k}\t{meter.precision():.3{style}}\n"
            f"R@{k}\t{meter.recall():.3{style}}")



@click.command("test-label", cls=NumberArgsCommand)
@model_input_k_threshold(input_default=None)
def test_label(model_path, input_path, k, threshold):
    """Print F1-score, precision and recall of every label, then test's lines.

    \b
    INPUT      labelled text, fastText's format (.gz accepted; - = stdin)
    K          labels predicted per line (default 1; -1 = every label)
    THRESHOLD  leave out labels of probability below it (default 0.0)
    """
    # imported here, not above: only a running command loads numpy and Numba
    from ..io.textio import printable

    check_k_threshold(k, threshold)
    model, data = evaluated_model(model_path, input_path)
    meter = model.evaluate(data, k, threshold, input_path)

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


test_label.callback.kernels_ready = True



@click.command("print-word-vectors", cls=NumberArgsCommand)
@click.argument("model_path", metavar="MODEL")
def print_word_vectors(model_path):
    """Print the vector of each word read from stdin."""
    # imported here, not above: only a running command loads numpy and Numba
    from ..io.textio import printable, to_str
    from ..io.vectors import format_vector

    model = load_any_model(model_path)
    for lines in stdin_lines():
        out = []
        for word in lines.split():  # ASCII white space, as fastText's `cin >> word`
            word = to_str(word)
            out.append(f"{printable(word)} {format_vector(model.get_word_vector(word))}\n")
        write_stdout("".join(out))



@click.command("print-sentence-vectors", cls=NumberArgsCommand)
@click.argument("model_path", metavar="MODEL")
def print_sentence_vectors(model_path):
    """Print the vector of each line read from stdin."""
    # imported here, not above: only a running command loads numpy and Numba
    import numpy as np

    # imported here, not above: only a running command loads numpy and Numba
    from ..io.vectors import format_vector

    model = load_any_model(model_path)
    for lines in stdin_lines():
        out = []
        # split at newlines only: a \r is a separator inside a line for fastText
        parts = lines.split(b"\n")
        last = parts.pop()
        for line in [p + b"\n" for p in parts] + ([last] if last else []):
            vector = model.sentence_vector(np.frombuffer(line, dtype=np.uint8))
            out.append(format_vector(vector) + "\n")
        write_stdout("".join(out))



@click.command(cls=NumberArgsCommand)
@click.argument("model_path", metavar="MODEL")
@click.argument("what", type=click.Choice(["args", "dict", "input", "output"]))
def dump(model_path, what):
    """Print the model's options, dictionary, or input/output matrix."""
    # imported here, not above: only a running command loads numpy and Numba
    from ..planning import plan_header, stored_plan_lines
    from ..io.textio import printable

    model = load_any_model(model_path)
    lines = []

    def write(line):  # a block of lines at a time: one write call per block
        lines.append(line)
        if len(lines) >= 4096:
            write_stdout("".join(lines), flush=False)
            lines.clear()

    if what == "args":
        for name, value in option_values(model.args).items():
            write(printable(f"{name} {value}") + "\n")
        # what training chose for the automatic ones, and why (classify/plan.py)
        plan = getattr(model, "plan", None)  # the embedding classifier's and the LM's
        plan = plan if isinstance(plan, dict) or plan is None else plan_header(plan)
        for line in stored_plan_lines(plan):
            write(printable(line) + "\n")
    elif what == "dict":
        d = model.dictionary
        if d is None:  # a linear model of given sparse features
            raise TreexcError(f"{model_path}: trained on sparse features, it has no "
                              "dictionary")
        write(f"{len(d.entry_off)}\n")
        for i in range(len(d.entry_off)):
            # control characters escaped: an entry cannot break the one-entry lines
            write(f"{printable(d.entry(i))} {d.counts[i]} "
                  f"{'word' if i < d.nwords else 'label'}\n")
    else:
        matrix = model.w_in if what == "input" else model.w_out
        if hasattr(matrix, "dense"):  # quantised (treexc quantize): its decoded rows
            matrix = matrix.dense()
        write(f"{matrix.shape[0]} {matrix.shape[1]}\n")
        for row in matrix:
            # fastText prints matrices with C++'s default precision, 6 digits
            write(" ".join(f"{x:.6g}" for x in row.tolist()) + "\n")
    write_stdout("".join(lines))



@click.command(cls=FastTextCommand, context_settings={"show_default": False})
@option_flags(QuantizeArgs)
def quantize(**flags):
    """Compress a classifier (fastText's quantize): OUTPUT.bin is read,
    OUTPUT.ftz written.

    \b
    treexc quantize -output model -input train.txt -cutoff 100000 -retrain -qnorm
    treexc quantize -output model -qout -dsub 4
    """
    # imported here, not above: only a running command loads numpy and Numba
    from ..io.publish import OutputSet, interrupt_on_signals
    from ..options import options_from_flags
    from ..runtime import reporter_factory

    q = options_from_flags(QuantizeArgs, flags)
    bin_path, ftz_path = q.output + ".bin", q.output + ".ftz"
    check_output_writable(q.output, [ftz_path], inputs=[q.input])
    model = load_classifier(bin_path)
    verbose = model.args.verbose if q.verbose is None else q.verbose
    outputs = OutputSet([ftz_path])
    with interrupt_on_signals(), outputs:
        outputs.remove_stale()
        model.quantize(q.input, q.qout, q.cutoff, q.retrain, q.epoch, q.lr, q.thread,
                       verbose, q.dsub, q.qnorm, reporter_factory(verbose, sys.stderr)())
        outputs.write(ftz_path, model.save_model)
        outputs.publish()



COMMANDS = (supervised, predict, predict_prob, test, test_label, print_word_vectors,
            print_sentence_vectors, dump, quantize)
