"""``treexc quantize``: a classifier compressed as fastText's ``quantize``
compresses one (``.ftz``).

1. ``-cutoff N`` (below the input matrix's rows): keep the N input rows of
   largest norm, ``</s>`` first (``quantized.select_rows``), and prune the
   dictionary to them (``text.pruned``: words dropped, n-gram buckets
   renumbered so hashing still finds the kept ones);
2. ``-retrain`` (with a cutoff, as fastText): train the kept rows and the
   output matrix on ``-input`` again, through the same ``Session`` as
   ``treexc supervised``, with the model's own ``-epoch``, ``-lr``,
   ``-thread`` unless given; the output tree stays as it is (no rebuild:
   ``treeUpdates`` 0), so quantisation never changes the tree;
3. product quantisation of the input matrix (``-dsub`` columns per
   sub-quantiser, 256 centroids each; ``-qnorm``: norms apart) and with
   ``-qout`` of the output matrix (2 columns per sub-quantiser, as fastText).

The k-means draws from the model's ``-seed``: with ``-thread 1`` the result
is reproducible bit for bit (the sub-quantisers' k-means are independent of
the thread count; retraining is as ``supervised``'s).
"""

from dataclasses import replace

import numpy as np

from ...errors import TreexcError
from ...io.textio import display_name
from ...runtime import SilentReporter, check_weights_in_range
from ...text.pruned import prune
from ...text.token_cache import encoded_with
from .kernels import KSUB
from .matrix import OUTPUT_DSUB, QuantizedMatrix, product_quantize, select_rows
from ..session import Session


def quantize_model(model, q, reporter=None):
    """The parts of ``model`` quantised with :class:`QuantizeArgs` ``q``:
    ``(dictionary, w_in, w_out, w_out_quantized, description)``; ``model``
    itself is not changed."""
    if isinstance(model.w_in, QuantizedMatrix):
        raise TreexcError("the model is quantised already")
    args = model.args
    q.check(args.dim)
    reporter = reporter or SilentReporter()
    threads = q.thread or args.thread
    dictionary, w_in, w_out = model.dictionary, model.w_in, model.w_out
    pruned = 0 < q.cutoff < w_in.shape[0]
    if pruned:
        rows = select_rows(w_in, q.cutoff, dictionary.eos_id())
        dictionary = prune(dictionary, rows)
        w_in = np.ascontiguousarray(w_in[rows], dtype=np.float32)
    elif q.retrain and q.cutoff:
        reporter.info(f"-retrain: nothing pruned (-cutoff {q.cutoff} >= "
                      f"{w_in.shape[0]} input rows), no retraining")
    if w_in.shape[0] < KSUB:
        raise TreexcError(f"the input matrix has {w_in.shape[0]} rows, too few to quantise "
                          f"(at least {KSUB})" + (": raise -cutoff" if pruned else ""))
    if q.qout and w_out.shape[0] < KSUB:
        raise TreexcError(f"-qout: the output matrix has {w_out.shape[0]} rows, too few to "
                          f"quantise (at least {KSUB}): leave -qout out")
    if pruned and q.retrain:  # after the checks above: retraining can take hours
        w_out = _retrain(model, q, dictionary, w_in, threads, reporter)
    w_in_q = product_quantize(w_in, q.dsub, q.qnorm, args.seed, threads)
    w_out_q = None
    if q.qout:
        w_out_q = product_quantize(np.ascontiguousarray(w_out, dtype=np.float32),
                                   min(OUTPUT_DSUB, args.dim), q.qnorm, args.seed + 1,
                                   threads)
        w_out = w_out_q.dense()
    description = {"dsub": q.dsub, "qnorm": q.qnorm, "qout": q.qout,
                   "cutoff": q.cutoff if pruned else 0,
                   "retrain": bool(q.retrain and pruned)}
    return dictionary, w_in_q, w_out, w_out_q, description


def _retrain(model, q, dictionary, w_in, threads, reporter):
    """Train the kept rows ``w_in`` (in place) and a copy of the output
    matrix on ``q.input`` with the pruned ``dictionary``; the tree is kept.
    Returns the output matrix."""
    if not q.input:
        raise TreexcError("-retrain needs -input, the training file")
    args = replace(model.args, input=q.input, epoch=q.epoch or model.args.epoch,
                   lr=q.lr or model.args.lr, thread=threads,
                   verbose=model.args.verbose if q.verbose is None else q.verbose,
                   treeUpdates=0)
    w_out = np.array(model.w_out, dtype=np.float32)
    retrained = type(model)(args, dictionary, model.tree, w_in, w_out)
    # through a temporary token cache, as training: the text is not held
    with encoded_with(dictionary, q.input) as corpus:
        corpus.report_bare_lines(display_name(q.input))
        Session(retrained, corpus, reporter).run()
    check_weights_in_range((("w_in", retrained.w_in), ("w_out", retrained.w_out)),
                           args.epoch, args.lr)
    return retrained.w_out
