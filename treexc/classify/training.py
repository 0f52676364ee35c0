"""Training orchestration: data -> dictionary -> threads of SGD -> Model.

Worker threads run :func:`kernels.train_thread` (which releases the
GIL) on shared weights; the calling thread only watches the shared progress
counters and reports.  Training is cut into *phases* at token counts where
every worker has stopped: that is where a learned tree may be rebuilt
(``trees.learner``), so no worker ever trains on stale paths.
"""

import time
from dataclasses import replace

import numpy as np

from .. import memory
from ..errors import TreexcError
from ..io.textio import display_name
from ..io.vectors import read_vec
from ..loss.registry import loss
from ..runtime import (
    Progress,
    SilentReporter,
    check_weights_in_range,
    diverged_message,
    run_workers,
)
from ..text.token_cache import training_corpus
from ..trees.builders import build_tree, fit_depth
from ..trees.capacity import CLASSIFIER_FLAGS
from ..trees.learner import TreeLearner
from . import kernels as kern
from .model import Model
from .predict_kernels import label_centroids

# The default learned tree's mass cap: a subtree of several labels holds at
# most MASS_SLACK / arity of its parent's label occurrences.
MASS_SLACK = 1.0


def train_supervised(args, reporter=None, initial_tree=None):
    """Train a classifier.  ``initial_tree`` replaces the loss's usual
    starting tree (same label count), e.g. to compare tree shapes."""
    reporter = reporter or SilentReporter()
    name = display_name(args.input)
    # what the options alone ask for (bucket x dim, arity), before reading
    memory.refuse_oversized(memory.supervised_parts(args))

    def verbose_info(message):
        if args.verbose >= 2:
            reporter.info(message)

    with training_corpus(args, name, lambda: read_pretrained(args), verbose_info) \
            as (dictionary, corpus, pretrained):
        reporter.info(f"Read {int(corpus.ntokens.sum()) // 1000000}M words")
        reporter.info(f"Number of words:  {dictionary.nwords}")
        reporter.info(f"Number of labels: {dictionary.nlabels}")
        corpus.report_bare_lines(name)  # warns; raises if nothing is left
        return train_on_corpus(args, reporter, initial_tree, dictionary, corpus, pretrained)


def read_pretrained(args):
    """``(words, vectors)`` of -pretrainedVectors, or None."""
    if not args.pretrainedVectors:
        return None
    return read_vec(args.pretrainedVectors, args.dim, args.label)


def train_on_corpus(args, reporter, initial_tree, dictionary, corpus, pretrained):
    """Train on an encoded corpus (the token cache's mapping)."""
    chosen = args.resolve_auto_loss(dictionary.nlabels)
    if chosen:
        reporter.info(chosen)
    memory.refuse_oversized(memory.supervised_parts(args, dictionary.nwords,
                                                    dictionary.nlabels))
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
    w_out = np.zeros((rows, args.dim), dtype=np.float32)
    model = Model(args, dictionary, tree, w_in, w_out)
    Session(model, corpus, reporter).run()
    check_weights_in_range((("w_in", model.w_in), ("w_out", model.w_out)), args.epoch, args.lr)
    return model


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
    label_centroids(corpus.feat_off, corpus.feats, corpus.label_off, corpus.labels,
                    pre.w_in, sums, counts)
    reporter.info(f"clustering tree: label vectors from 1 epoch with a random tree, "
                  f"k-means, {time.perf_counter() - t0:.1f} s")
    return sums / np.maximum(counts, 1)[:, None]


class Session:
    """One training run: shared counters, threads, phases, reporting."""

    def __init__(self, model, corpus, reporter):
        self.model = model
        self.corpus = corpus
        self.reporter = reporter
        args = model.args
        self.args = args
        self.n_threads = args.thread
        self.total_tokens = int(corpus.ntokens.sum()) * args.epoch
        if self.total_tokens == 0:
            raise TreexcError(f"{display_name(args.input)}: no tokens to train on")
        if self.total_tokens >= 2 ** 62:  # the kernels' int64 token counters
            raise TreexcError(f"-epoch {args.epoch}: {self.total_tokens:.3g} tokens to train "
                              "on, beyond treexc's counters (2^62); lower -epoch")
        t = self.n_threads
        self.progress = np.zeros(t, dtype=np.int64)
        self.control = np.zeros(1, dtype=np.int64)
        self.loss_sum = np.zeros(t, dtype=np.float64)
        self.loss_n = np.zeros(t, dtype=np.int64)
        n_lines = corpus.n_lines
        self.cursor = np.array([i * n_lines // t for i in range(t)], dtype=np.int64)
        seeds = np.random.SeedSequence(args.seed).generate_state(t, dtype=np.uint64)
        self.rng_state = np.where(seeds == 0, np.uint64(1), seeds).astype(np.uint64)
        counts = model.dictionary.label_counts.astype(np.float64)
        self.neg_cdf = np.cumsum(np.sqrt(counts))
        self.learner = None
        self.lr_hold = 0.0
        if loss(args.loss).learned and args.treeUpdates > 0 and \
                args.tree in ("", "learned"):
            # the paper's schedule: structure learned and lr constant in the
            # first half, structure frozen and lr decaying in the second
            # -depth -1 (auto): no depth limit, and a child of several labels
            # holds at most 1/M of its parent's label occurrences, so label
            # frequency shapes depth as in a Huffman tree while the statistics
            # shape the grouping (docs/trees.md, issue 10)
            auto = args.maxDepth == -1
            self.learner = TreeLearner(model.tree, t, args.treeGradient, max(args.maxDepth, 0),
                                       label_mass=counts, mass_slack=MASS_SLACK if auto else 0.0,
                                       flags=CLASSIFIER_FLAGS)
            self.lr_hold = 0.5
        self.start_time = None
        # a worker trains lrUpdateRate tokens between looks at the counters:
        # more than the whole run would never stop (-lrUpdateRate 2^63 hung)
        self.lr_update_rate = min(args.lrUpdateRate, self.total_tokens)

    def run(self):
        self.start_time = time.monotonic()
        try:
            if self.learner is not None:
                updates = self.args.treeUpdates
                for r in range(1, updates + 1):
                    self.run_phase(int(self.total_tokens * 0.5 * r / updates), collect=True)
                    if self.control[0]:
                        break
                    self.model.w_out, = self.learner.rebuild(self.model.w_out)
                    self.model.tree = self.learner.tree
            if not self.control[0]:
                self.run_phase(self.total_tokens)
        except ZeroDivisionError:
            # a node's softmax over infinite scores sums to 0 (node_probabilities
            # divides by it) before the kernel's own test sees the NaN
            self.control[0] = kern.DIVERGED
        except BaseException:
            self.reporter.abort()
            raise
        if self.control[0] == kern.DIVERGED:
            self.reporter.abort()
            raise TreexcError(diverged_message(self.snapshot().fraction * self.args.epoch,
                                               self.args.epoch, self.args.lr))
        self.reporter.finish(self.snapshot())

    def run_phase(self, stop_at, collect=False):
        """Train with all threads until ``stop_at`` tokens are processed."""
        m = self.model
        if collect:
            stats_p, stats_n = self.learner.stats_p, self.learner.stats_n
        else:
            # one (unused) slot per thread: the kernel takes its thread's slice
            stats_p, stats_n = np.zeros((self.n_threads, 1, 1)), np.zeros((self.n_threads, 1))
        tree_arrays = (m.children,) + ((m.tree.path_off, m.tree.path_node, m.tree.path_slot)
                                       if m.tree is not None else
                                       (np.zeros(1, np.int64), np.zeros(0, np.int32),
                                        np.zeros(0, np.int32)))
        c = self.corpus

        def work(t):
            kern.train_thread(
                t, c.feat_off, c.feats, c.label_off, c.labels, c.ntokens,
                m.w_in, m.w_out, m.loss_kind, *tree_arrays, self.neg_cdf,
                self.args.neg, self.args.lr, self.lr_hold, self.total_tokens,
                self.lr_update_rate, self.progress, stop_at, self.control,
                self.loss_sum, self.loss_n, self.cursor, self.rng_state,
                collect, stats_p, stats_n)

        run_workers(self.n_threads, work, self.control,
                    lambda: self.reporter.update(self.snapshot()))

    def snapshot(self):
        done = int(self.progress.sum())
        elapsed = max(time.monotonic() - self.start_time, 1e-9)
        fraction = min(1.0, done / self.total_tokens)
        n = int(self.loss_n.sum())
        x = fraction
        if x < self.lr_hold:
            lr = self.args.lr
        else:
            lr = self.args.lr * max(0.0, 1.0 - x) / (1.0 - self.lr_hold)
        eta = elapsed * (1.0 - fraction) / fraction if fraction > 0 else float("inf")
        return Progress(fraction=fraction,
                        words_per_sec_thread=done / elapsed / self.n_threads,
                        lr=lr, loss=float(self.loss_sum.sum()) / n if n else 0.0,
                        eta_seconds=eta)


