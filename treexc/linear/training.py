"""Training a linear model: plan -> features -> label tree -> node classifiers.

0. The plan (``linear/plan.py``) from the labels' counts: the counting
   pass's for text, the given rows' for sparse lines and arrays.
1. Text is counted and encoded through the token cache
   (``text/token_cache``: memory bounded by the model, ``-cache`` reused),
   the tf-idf columns fitted on it and its rows computed
   (``features.TfidfFeatures``); given sparse rows are taken as they are.
2. The label tree: balanced spherical k-means over the labels' PIFA
   centroids (``kmeans_tree``).
3. Every node's classifiers, trained in threads (``node_training``).
4. With ``-tree learned``, the tree refined by AssignLabels on the
   classifiers' scores, and its nodes retrained (``learned_tree``).
With ``-ensemble N`` steps 2-4 run N times, seeds ``-seed .. -seed+N-1``
(the N k-means trees built at once, one a thread),
unless the tree is one node (``-leafSize`` at least the labels): then its
members would be the same one-vs-rest classifiers, and one is trained.
"""

import time
from dataclasses import replace

import numpy as np

from ..errors import TreexcError
from ..io.sparse_format import TEXT, read_training, sniff
from ..io.textio import display_name
from ..model_family import LINEAR
from ..planning import GIVEN, Choice
from ..runtime import SilentReporter, run_workers
from ..text.label_lines import count_with_label_lines
from ..text.label_weights import label_weights
from ..text.token_cache import training_corpus
from . import kmeans_kernels as kk
from .features import TfidfFeatures, rows_from_arrays
from .kmeans_tree import kmeans_tree
from .learned_tree import refine_tree
from .model import LinearModel, ScoredTree
from .node_training import train_nodes
from .plan import DATA_RULES, LabelStats, plan

# the family's row of a plan made without ``treexc supervised`` (treexc.train_linear)
GIVEN_LINEAR = Choice(LINEAR, GIVEN, "the linear model (treexc.train_linear: given features)")
# rules whose line training prints, those that read the data (the others are said by
# -plan and the model's header)
SAID = tuple(rule.name for rule in DATA_RULES)


def read_sparse(args, fmt):
    """``(rows, label names)`` of sparse training lines (``io/sparse_format``)."""
    indptr, indices, values, label_off, labels, names, n_features = \
        read_training(args.input, fmt)
    rows = rows_from_arrays(indptr, indices, values, label_off, labels, n_features)
    if not len(rows.labels):
        raise TreexcError(f"{display_name(args.input)}: no line has labels")
    return rows, names


def rows_label_counts(rows, n_labels):
    """Each label's count of lines in given rows."""
    return np.bincount(rows.labels, minlength=n_labels)


def plan_of_input(args, given=frozenset(), family=GIVEN_LINEAR):
    """The plan a training of ``args`` would follow, from the input's label
    counts alone (the counting pass of text; sparse lines read): nothing
    encoded, nothing trained."""
    fmt = sniff(args.input)
    if fmt != TEXT:
        rows, names = read_sparse(args, fmt)
        counts = rows_label_counts(rows, len(names))
    else:
        counts = count_with_label_lines(args, display_name(args.input))[0].label_counts
    return plan(args, given, family, LabelStats.of(counts))


def planned(args, given, family, label_counts, reporter):
    """``(plan, the options it trains)`` for these label counts, the plan's
    notable choices reported."""
    run_plan = plan(args, given, family, LabelStats.of(label_counts))
    for _, choice in run_plan.items():
        if choice.rule in SAID:
            reporter.info(choice.why)
    return run_plan, run_plan.args(args)


def train_linear_text(args, reporter=None, given=frozenset(), family=GIVEN_LINEAR):
    """A linear model of the file ``args.input``: fastText's text, or
    sparse lines (``io/sparse_format``: the features as given); ``given``:
    the LinearArgs fields the user set (the rest are planned); ``family``:
    the plan's first row (``supervised.choose_family``'s Choice)."""
    reporter = reporter or SilentReporter()
    name = display_name(args.input)
    fmt = sniff(args.input)
    if fmt != TEXT:  # given features: trained as they are
        rows, names = read_sparse(args, fmt)
        reporter.info(f"Read {rows.n_rows} sparse lines ({fmt}): {rows.n_cols - 1} features, "
                      f"{len(names)} labels")
        return train_linear_rows(rows, names, args, reporter, given, family)

    def verbose_info(message):
        if args.verbose >= 2:
            reporter.info(message)

    t0 = time.monotonic()
    with training_corpus(args, name, lambda: None, verbose_info) as (dictionary, corpus, _):
        reporter.info(f"Read {corpus.token_count() // 1000000}M words")
        reporter.info(f"Number of words:  {dictionary.nwords}")
        reporter.info(f"Number of labels: {dictionary.nlabels}")
        corpus.report_bare_lines(name)
        run_plan, args = planned(args, given, family, dictionary.label_counts, reporter)
        features = TfidfFeatures.fit(corpus, dictionary.nwords + dictionary.bucket,
                                     dictionary.eos_id(), args.minDf)
        rows = weighted(features.rows(corpus), dictionary.labels(), args)
    reporter.info(f"Features: {features.n_cols - 1} tf-idf columns seen in >= {args.minDf} "
                  f"lines, {len(rows.data)} nonzeros ({time.monotonic() - t0:.1f} s)")
    trees = train_trees(rows, dictionary.nlabels, args, reporter)
    model = LinearModel(args, trees, rows.n_cols, dictionary, features)
    model.plan = run_plan
    return model


def train_linear_rows(rows, label_names, args, reporter=None, given=frozenset(),
                      family=GIVEN_LINEAR):
    """A linear model of given sparse rows (``features.SparseRows``);
    ``given``, ``family``: as :func:`train_linear_text`'s."""
    reporter = reporter or SilentReporter()
    run_plan, args = planned(args, given, family,
                             rows_label_counts(rows, len(label_names)), reporter)
    rows = weighted(rows, label_names, args)
    trees = train_trees(rows, len(label_names), args, reporter)
    model = LinearModel(args, trees, rows.n_cols, label_names=list(label_names))
    model.plan = run_plan
    return model


def weighted(rows, label_names, args):
    """``rows`` with the label weights of ``args`` (``text/label_weights``),
    if it asks for them."""
    weights = label_weights(args, label_names, rows.label_off, rows.labels)
    return rows if weights is None else replace(rows, label_weight=weights)


def train_trees(rows, n_labels, args, reporter):
    """``-ensemble`` scored trees over ``rows``: the members' k-means trees
    built at once in threads (each its own seed), then each member's
    classifiers, in threads too (``node_training``)."""
    t0 = time.monotonic()
    centroids = kk.label_centroids(rows.indptr, rows.indices, rows.data, rows.label_off,
                                   rows.labels, n_labels, rows.n_cols - 1)
    members = args.ensemble if n_labels > args.leafSize else 1
    seeds = [args.seed + member for member in range(members)]
    kmeans = [None] * members
    n_threads = max(1, min(args.thread, members))

    def build(t):
        for member in range(t, members, n_threads):
            kmeans[member] = kmeans_tree(centroids, rows.n_cols - 1, n_labels, args.arity,
                                         args.leafSize, seeds[member])

    t1 = time.monotonic()
    run_workers(n_threads, build, np.zeros(1, dtype=np.int64), lambda: None)
    reporter.info(f"k-means trees: {members} in {time.monotonic() - t1:.1f} s")
    trees = []
    for member, tree in enumerate(kmeans):
        member_args = replace(args, seed=seeds[member])
        t2 = time.monotonic()
        weights = train_nodes(tree, rows, member_args)
        scored = ScoredTree(tree, weights)
        reporter.info(f"tree {member + 1}/{members}: {tree.n_internal} nodes, "
                      f"classifiers {time.monotonic() - t2:.1f} s, {weights.nnz} weights")
        if args.tree == "learned":
            scored = refine_tree(scored, rows, member_args, reporter)
        trees.append(scored)
    reporter.info(f"Trained in {time.monotonic() - t0:.1f} s")
    return trees
