"""Training word vectors: text -> token cache -> threads of Hogwild SGD ->
:class:`WordVectors`.

The training file goes through the classifier's token cache
(``text/token_cache``) encoded as words alone (no character n-grams, no
word n-grams): each line is its known words' ids, ``</s>`` included, as
fastText's ``getLine`` gives them, on disk and mapped, so a corpus larger
than memory trains in bounded memory.  A word's subword rows come from one
table built from the vocabulary (``kernels.subword_table``), as fastText's
``initNgrams``.  Each thread starts at its share of the lines (fastText
starts each at its share of the file's bytes) and cycles through them.
"""

import time
from types import SimpleNamespace

import numpy as np

from .. import memory
from ..errors import TreexcError
from ..io.textio import display_name
from ..runtime import Progress, SilentReporter, check_weights_in_range, diverged, run_workers
from ..text.dictionary import Dictionary
from ..text.token_cache import training_corpus
from ..trees.builders import build_tree
from ..trees.capacity import fit_depth, rebuild_memory_parts
from ..trees.learner import TreeLearner, train_in_phases
from . import kernels as kern
from .model import WordVectors

NEGATIVE_TABLE_SIZE = 10_000_000  # fastText's
# a learned tree's mass cap (trees/learner): a subtree of several words
# holds at most this share over arity of its parent's occurrences, so word
# frequency shapes the depth as in the Huffman tree it starts from
MASS_SLACK = 1.0


def encoding_options(args):
    """What the token cache encodes with: words only (their subwords are
    looked up per word while training)."""
    return SimpleNamespace(input=args.input, cache=args.cache, minCount=args.minCount,
                           minCountLabel=args.minCountLabel, wordNgrams=1, bucket=0, minn=0,
                           maxn=0, label=args.label, pretrainedVectors="")


def train_vectors(args, reporter=None):
    """Train a skipgram or cbow model on ``args.input``."""
    reporter = reporter or SilentReporter()
    name = display_name(args.input)
    memory.refuse_oversized(memory_parts(args))

    def verbose_info(message):
        if args.verbose >= 2:
            reporter.info(message)

    with training_corpus(encoding_options(args), name, lambda: None, verbose_info,
                         labels_needed=False) as (cached, corpus, _):
        d = Dictionary(cached.pool, cached.entry_off, cached.entry_len, cached.counts,
                       cached.nwords, args.label, args.wordNgrams, args.bucket, args.minn,
                       args.maxn)
        if d.nwords == 1 and d.word(0) == "</s>":  # lines without any (known) word
            raise TreexcError(f"{name}: no words found besides the ends of lines"
                              + (f" (none occurs -minCount {args.minCount} times)"
                                 if args.minCount > 1 else ""))
        reporter.info(f"Read {corpus.token_count() // 1000000}M words")
        reporter.info(f"Number of words:  {d.nwords}")
        reporter.info(f"Number of labels: {d.nlabels}")
        memory.refuse_oversized(memory_parts(args, d.nwords))
        model = new_model(args, d)
        session = VectorSession(model, corpus, corpus.token_count(), reporter)
        session.run()
    check_weights_in_range((("w_in", model.w_in), ("w_out", model.w_out)), args.epoch, args.lr)
    return model


def memory_parts(args, nwords=0):
    """The large arrays of a run (``memory.check``'s parts): before the
    words are counted a floor from the options alone."""
    f32 = 4
    out_rows = nwords * (args.arity if args.tree_softmax else 1)
    parts = [("input matrix", (nwords + args.bucket) * args.dim * f32, "-dim/-bucket"),
             ("output matrix", out_rows * args.dim * f32, "-dim"),
             ("negative table", NEGATIVE_TABLE_SIZE * 4 if args.negative_sampling else 0, "-loss")]
    if args.learned:
        positions = nwords * max(1, int(np.log2(max(nwords, 2))))
        parts += rebuild_memory_parts(args.thread, positions, nwords, args.arity,
                                      "-arity/-thread")
    return parts


def new_model(args, dictionary):
    """A model of fresh weights: input rows uniform in +-1/dim (fastText),
    output rows zero, the output tree ``-loss`` and ``-tree`` name."""
    nwords = dictionary.nwords
    rng = np.random.default_rng(args.seed)
    w_in = rng.random((nwords + args.bucket, args.dim), dtype=np.float32)
    w_in -= np.float32(0.5)
    w_in *= np.float32(2.0 / args.dim)
    tree = make_tree(args, dictionary.counts[:nwords], rng)
    rows = nwords if tree is None else tree.n_internal * tree.arity
    w_out = np.zeros((rows, args.dim), dtype=np.float32)
    return WordVectors(args, dictionary, w_in, w_out, tree)


def make_tree(args, counts, rng):
    """The output tree: none for ns, the flat tree for softmax, for hs the
    Huffman tree (also where a learned tree starts) or a random one."""
    n = len(counts)
    if args.negative_sampling:
        return None
    if args.flat_softmax:
        return build_tree("flat", n, n, 1)
    if args.tree == "random":
        return build_tree("random", n, args.arity, fit_depth(n, args.arity), rng=rng)
    return build_tree("huffman", n, args.arity, 0, counts=counts)


def negative_table(counts):
    """fastText's ``NegativeSamplingLoss`` table: word ``i`` in
    ``ceil(sqrt(count_i) * SIZE / sum_j sqrt(count_j))`` slots.  fastText
    shuffles it, but draws its slots uniformly at random, so the order
    changes nothing (and shuffling 10M slots cost a second a run)."""
    weight = np.sqrt(counts.astype(np.float64))
    slots = np.ceil(weight * NEGATIVE_TABLE_SIZE / weight.sum()).astype(np.int64)
    return np.repeat(np.arange(len(counts), dtype=np.int32), slots)


def keep_probabilities(counts, ntokens, t):
    """fastText's ``pdiscard``: a word of frequency ``f`` is kept with
    probability ``sqrt(t / f) + t / f``."""
    ratio = t / (counts.astype(np.float64) / max(ntokens, 1))
    return np.sqrt(ratio) + ratio


class VectorSession:
    """One training run: shared counters, threads, a learned tree's
    rebuilds, reporting."""

    def __init__(self, model, corpus, ntokens, reporter):
        self.model, self.corpus, self.reporter = model, corpus, reporter
        args = self.args = model.args
        d = model.dictionary
        n_lines = corpus.n_lines
        self.n_threads = t = max(1, min(args.thread, n_lines))
        self.total_tokens = len(corpus.feats) * args.epoch
        if self.total_tokens == 0:
            raise TreexcError(f"{display_name(args.input)}: no word occurs -minCount "
                              f"{args.minCount} times: nothing to train on")
        counts = d.counts[:d.nwords]
        self.sub_off, self.sub_rows = kern.subword_table(
            d.pool, d.entry_off, d.entry_len, d.nwords, args.minn, args.maxn, args.bucket)
        self.pdiscard = keep_probabilities(counts, ntokens, args.t)
        self.neg_table = (negative_table(counts) if args.negative_sampling
                          else np.zeros(1, np.int32))
        self.progress = np.zeros(t, dtype=np.int64)
        self.control = np.zeros(1, dtype=np.int64)
        self.loss_sum = np.zeros(t, dtype=np.float64)
        self.loss_n = np.zeros(t, dtype=np.int64)
        self.cursor = np.array([i * n_lines // t for i in range(t)], dtype=np.int64)
        seeds = np.random.SeedSequence(args.seed).generate_state(t, dtype=np.uint64)
        self.rng_state = np.where(seeds == 0, np.uint64(1), seeds).astype(np.uint64)
        self.lr_update_rate = min(args.lrUpdateRate, self.total_tokens)
        self.learner = None
        if args.learned:
            self.learner = TreeLearner(model.tree, t, "ll", 0, label_mass=counts.astype(
                np.float64), mass_slack=MASS_SLACK)
        self.start_time = None
        self.lr = args.lr
        self.rebuilds, self.rebuild_seconds = 0, 0.0

    def run(self):
        self.start_time = time.monotonic()
        try:
            self.rebuilds, self.rebuild_seconds = train_in_phases(
                self.learner, self.model, self.total_tokens, self.args.treeUpdates,
                self.run_phase, self.control)
        except ZeroDivisionError:  # a softmax node over infinite scores sums to 0
            self.control[0] = kern.DIVERGED
        except BaseException:
            self.reporter.abort()
            raise
        if self.control[0] == kern.DIVERGED:
            self.reporter.abort()
            raise diverged(self.snapshot().fraction * self.args.epoch, self.args.epoch,
                           self.args.lr)
        self.reporter.finish(self.snapshot())
        if self.rebuilds:
            self.reporter.info(f"Tree rebuilds: {self.rebuilds} in "
                               f"{self.rebuild_seconds:.2f} s")

    def run_phase(self, stop_at, collect=False):
        """Train with all threads until ``stop_at`` tokens are done."""
        m, a, c = self.model, self.args, self.corpus
        if collect:
            stats_p, stats_n = self.learner.stats_p, self.learner.stats_n
        else:  # one unused slot per thread: the kernel takes its thread's
            stats_p = np.zeros((self.n_threads, 1, 1), np.float32)
            stats_n = np.zeros((self.n_threads, 1), np.float32)
        if m.tree is not None:
            tree = (m.tree.children, m.tree.path_off, m.tree.path_node, m.tree.path_slot)
        else:
            tree = (np.zeros((1, 2), np.int32), np.zeros(1, np.int64), np.zeros(0, np.int32),
                    np.zeros(0, np.int32))
        model_kind = kern.SKIPGRAM if a.model == "skipgram" else kern.CBOW
        loss_kind = kern.LOSS_NS if a.negative_sampling else kern.LOSS_TREE

        def work(t):
            kern.train_thread(
                t, c.feat_off, c.feats, self.sub_off, self.sub_rows, self.pdiscard, m.w_in,
                m.w_out, model_kind, loss_kind, self.neg_table, a.neg, a.ws, *tree, a.lr,
                self.total_tokens, self.lr_update_rate, self.progress, stop_at, self.control,
                self.loss_sum, self.loss_n, self.cursor, self.rng_state, collect,
                stats_p, stats_n)

        run_workers(self.n_threads, work, self.control,
                    lambda: self.reporter.update(self.snapshot()))

    def snapshot(self):
        done = int(self.progress.sum())
        elapsed = max(time.monotonic() - self.start_time, 1e-9)
        fraction = min(1.0, done / self.total_tokens)
        n = int(self.loss_n.sum())
        eta = elapsed * (1.0 - fraction) / fraction if fraction > 0 else float("inf")
        return Progress(fraction=fraction, words_per_sec_thread=done / elapsed / self.n_threads,
                        lr=kern.learning_rate(self.args.lr, fraction),
                        loss=float(self.loss_sum.sum()) / n if n else 0.0, eta_seconds=eta)
