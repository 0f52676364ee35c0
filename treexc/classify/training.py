"""Training orchestration: data -> dictionary -> threads of SGD -> Model.

The threads, phases and reporting of a run are ``classify.session``'s
:class:`Session`.
"""

import time
from dataclasses import replace

import numpy as np

from .. import memory
from ..io import bus_error
from ..errors import TrainingDiverged, TreexcError
from ..io.textio import display_name
from ..io.vectors import read_vec
from ..loss.registry import KERNEL_NS, loss
from ..runtime import SilentReporter, check_weights_in_range
from ..text.label_lines import count_with_label_lines
from ..text.label_weights import label_weights
from ..text.token_cache import training_corpus
from ..trees.builders import build_tree
from ..trees.capacity import CLASSIFIER_FLAGS, fit_depth
from .checkpoint import resumed_rate
from .memory import supervised_parts
from .model import Model
from .plan import EMBEDDING, LabelStats, plan
from .plan_rules import SCORING_MEAN
from .predict_kernels import label_centroids
from .session import Session


def train_supervised(args, reporter=None, initial_tree=None, family=EMBEDDING):
    """Train a classifier on ``args`` (what the user typed): the labels
    counted, its plan (``classify/plan.py``) made and reported, the model
    trained and returned (its ``plan`` attribute says what was chosen).
    ``initial_tree`` replaces the loss's usual starting tree (same label
    count), e.g. to compare tree shapes; ``family``: the plan's first row
    (``supervised.choose_family``'s Choice)."""
    reporter = reporter or SilentReporter()
    name = display_name(args.input)
    # what the options alone ask for (bucket x dim, arity), before reading
    memory.refuse_oversized(supervised_parts(args))

    def verbose_info(message):
        if args.verbose >= 2:
            reporter.info(message)

    with training_corpus(args, name, lambda: read_pretrained(args), verbose_info) \
            as (dictionary, corpus, pretrained):
        reporter.info(f"Read {corpus.token_count() // 1000000}M words")
        reporter.info(f"Number of words:  {dictionary.nwords}")
        reporter.info(f"Number of labels: {dictionary.nlabels}")
        corpus.report_bare_lines(name)  # warns; raises if nothing is left
        return train_on_corpus(args, reporter, initial_tree, dictionary, corpus, pretrained,
                               family=family)


def plan_of_input(args, family=EMBEDDING):
    """The :class:`plan.Plan` a training of ``args`` would follow, from the
    input's counting pass alone (``text/label_lines``): nothing encoded,
    nothing trained."""
    dictionary, labels_per_line = count_with_label_lines(args, display_name(args.input))
    return plan(args, LabelStats.of(dictionary.label_counts, labels_per_line), family)


# -loss ns draws -neg negatives an example, each a dim-long update: beyond
# this many per label (and NEG_FLOOR) they only repeat the same labels, at a
# cost that grows without bound (-neg 1000000 on 3,000 lines ran for minutes)
NEG_PER_LABEL = 10
NEG_FLOOR = 1000


def refuse_needless_negatives(args, n_labels):
    """Refuse a -neg that draws each label many times over, an example."""
    limit = max(NEG_FLOOR, NEG_PER_LABEL * n_labels)
    if loss(args.loss).kernel == KERNEL_NS and args.neg > limit:
        raise TreexcError(f"-neg {args.neg}: more than {limit} negatives an example "
                          f"({NEG_PER_LABEL} per label of {n_labels}, at least "
                          f"{NEG_FLOOR}) draws every label many times over; lower -neg")


def read_pretrained(args):
    """``(words, vectors)`` of -pretrainedVectors, or None."""
    if not args.pretrainedVectors:
        return None
    return read_vec(args.pretrainedVectors, args.dim, args.label)


def train_on_corpus(args, reporter, initial_tree, dictionary, corpus, pretrained, start=None,
                    family=EMBEDDING):
    """Train on an encoded corpus (the token cache's mapping).  ``start``:
    a ``classify.continued.Continuation`` (the input model grown, and the
    new data's label counts, which the plan reads), or None: a new model;
    ``family``: the model family's choice, the plan's first row."""
    counts = dictionary.label_counts if start is None else start.label_counts
    run_plan = plan(args, LabelStats.of(counts, corpus.labels_per_line), family)
    for line in dict.fromkeys(run_plan.report()):  # the wide root's line sets two fields
        reporter.info(line)
    planned = run_plan.args(args)
    refuse_needless_negatives(planned, dictionary.nlabels)
    memory.refuse_oversized(supervised_parts(planned, dictionary.nwords, dictionary.nlabels))
    weights = label_weights(args, dictionary.labels(), corpus.label_off, corpus.labels)
    halvings = run_plan.halvings.value
    resumed_lr = resumed_rate(planned)  # a checkpoint of a run whose rate was halved
    for halving in range(halvings + 1):
        # the attempts the checkpointed run made before its rate was halved, skipped
        skip = planned.resume and resumed_lr is not None and resumed_lr < planned.lr
        try:
            if skip and halving < halvings:
                raise TrainingDiverged("diverged in the checkpointed run")
            return train_model(planned, run_plan, reporter, initial_tree, dictionary, corpus,
                               pretrained, start, weights)
        except TrainingDiverged:
            if halving == halvings:
                raise
            lr = planned.lr / 2
            # a resumed attempt that diverged: the next one starts afresh
            planned = replace(planned, lr=lr, resume=skip)
            run_plan = replace(run_plan, lr=replace(
                run_plan.lr, value=lr, why=f"{run_plan.lr.why}; halved {halving + 1} time(s): "
                "training diverged"))
            reporter.info(f"training diverged at -lr {2 * lr:g}: training again at "
                          f"-lr {lr:g} (the default rate, halved; -lr sets one)")


def train_model(args, run_plan, reporter, initial_tree, dictionary, corpus, pretrained,
                start=None, weights=None):
    """One training run of ``args`` (the planned options) at ``args.lr``,
    from new weights or from ``start``'s (continued training); ``weights``:
    the labels' (``text/label_weights``), or None."""
    if start is not None:
        w_in, tree, w_out = start.weights(args, run_plan)
    else:
        w_in, tree, w_out = new_weights(args, reporter, initial_tree, dictionary, corpus,
                                        pretrained)
    model = Model(args, dictionary, tree, w_in, w_out,
                  scoring=SCORING_MEAN if args.scoring == SCORING_MEAN else "", plan=run_plan)
    session = Session(model, corpus, reporter, run_plan, weights)
    session.run()
    if session.rebuilds:
        train_s = time.monotonic() - session.start_time
        reporter.info(f"Tree rebuilds: {session.rebuilds} in {session.rebuild_seconds:.2f} s "
                      f"({100 * session.rebuild_seconds / train_s:.1f}% of training)")
    check_weights_in_range((("w_in", model.w_in), ("w_out", model.w_out)), args.epoch, args.lr)
    return model


def new_weights(args, reporter, initial_tree, dictionary, corpus, pretrained):
    """``(w_in, tree, w_out)`` of a new model."""
    w_in = init_input_matrix(dictionary.nwords + args.bucket, args.dim, args.seed)
    if pretrained is not None:
        words, vectors = pretrained
        for word, row in zip(words, vectors):
            w_in[dictionary.word_id(word)] = row
    vectors = None
    if initial_tree is None and args.tree == "cluster":
        vectors = label_vectors(args, dictionary, corpus, w_in, reporter)
    tree = initial_tree or make_initial_tree(args, dictionary.label_counts, vectors)
    rows = tree.n_internal * tree.arity if tree is not None else dictionary.nlabels
    return w_in, tree, np.zeros((rows, args.dim), dtype=np.float32)


def init_input_matrix(rows, dim, seed):
    """Uniform in [-1/dim, 1/dim], as fastText, from a seeded generator."""
    rng = np.random.default_rng(seed)
    w = rng.random((rows, dim), dtype=np.float32)
    w *= 2.0 / dim
    w -= 1.0 / dim
    return w


def tree_depth(args, n_labels):
    """Depth of a random or clustering tree: ``-maxDepth``, or the least
    that holds the labels."""
    return args.maxDepth if args.maxDepth > 0 else fit_depth(n_labels, args.arity)


def make_initial_tree(args, label_counts, vectors=None):
    """The tree ``-tree`` names (``huffman``, ``random`` or ``cluster`` over
    label ``vectors``: fixed trees), else the loss's usual one: flat for
    softmax, Huffman for hs, and for a learned tree the M-ary Huffman tree
    (the default, ``-depth -1``, and ``-depth 0``); under a ``-depth D``
    limit, which the Huffman tree usually exceeds, the labels dealt out
    evenly within it, as AssignLabels does without statistics (it also
    measured slightly better than starting from Huffman there:
    gutenberg_books 0.131 vs 0.129, wn_hypernym 0.298 vs 0.292)."""
    n_labels = len(label_counts)
    entry = loss(args.loss)
    if not entry.has_tree:
        return None
    if entry.tree == "flat":
        return build_tree("flat", n_labels, n_labels, 1)
    name = args.tree
    if name and name != "learned":  # a fixed tree by name (trees/builders.py)
        return build_tree(name, n_labels, args.arity, tree_depth(args, n_labels),
                          np.random.default_rng(args.seed), label_counts, vectors,
                          CLASSIFIER_FLAGS)
    if entry.learned and args.maxDepth > 0:
        return build_tree("spread", n_labels, args.arity, args.maxDepth,
                          flags=CLASSIFIER_FLAGS)
    return build_tree(entry.tree, n_labels, args.arity, 0, counts=label_counts)


def label_vectors(args, dictionary, corpus, w_in, reporter):
    """Label vectors for a clustering tree: one epoch with a random tree
    (fixed), then each label's mean hidden vector over its lines."""
    t0 = time.perf_counter()
    n_labels = dictionary.nlabels
    depth = tree_depth(args, n_labels)
    pre_args = replace(args, epoch=1, treeUpdates=0)
    tree = build_tree("random", n_labels, args.arity, depth,
                      np.random.default_rng(args.seed), flags=CLASSIFIER_FLAGS)
    pre = Model(pre_args, dictionary, tree, w_in.copy(),
                np.zeros((tree.n_internal * tree.arity, args.dim), dtype=np.float32))
    Session(pre, corpus, SilentReporter()).run()
    sums = np.zeros((n_labels, args.dim), dtype=np.float64)
    counts = np.zeros(n_labels, dtype=np.int64)
    if corpus.source is not None:  # read through the mapping: a truncation is SIGBUS
        corpus.source.check_unchanged()
        bus_error.install()
    label_centroids(corpus.feat_off, corpus.feats, corpus.label_off, corpus.labels,
                    pre.w_in, sums, counts)
    reporter.info(f"clustering tree: label vectors from 1 epoch with a random tree, "
                  f"k-means, {time.perf_counter() - t0:.1f} s")
    return sums / np.maximum(counts, 1)[:, None]
