"""One training run of a classifier on an encoded corpus: shared counters,
worker threads of :func:`kernels.train_thread`, phases, reporting.

Worker threads run the kernel (which releases the GIL) on shared weights;
the calling thread only watches the shared progress counters and reports.
Training is cut into *phases* at token counts where every worker has
stopped: that is where a learned tree may be rebuilt (``trees.learner``),
so no worker ever trains on stale paths.  Apart from ``training`` (which
builds a new model) so that retraining an existing one (``quantize``) runs
the same path without importing the model's builders.
"""

import time

import numpy as np

from .. import jitstart
from ..errors import TreexcError
from ..io import bus_error
from ..io.checkpoint import PAUSE
from ..io.textio import display_name
from ..runtime import Progress, diverged, run_workers
from ..text.windows import WindowReader, corpus_changed
from ..trees.capacity import CLASSIFIER_FLAGS
from ..trees.learner import TreeLearner, train_in_phases
from . import kernels as kern
from .checkpoint import SessionCheckpoint, wanted
from .options import SHUFFLED


class Session:
    """One training run: shared counters, threads, phases, reporting."""

    def __init__(self, model, corpus, reporter, plan=None, label_weight=None):
        """``plan`` (``classify/plan.py``): whether and how the tree is
        learned and the rate's schedule; None: a fixed tree, fastText's
        schedule (a quantised model's retraining, a pre-run).
        ``label_weight``: one weight a label (``text/label_weights``), or
        None: every example weighs 1."""
        self.model = model
        self.label_weight = np.ascontiguousarray(
            np.zeros(0) if label_weight is None else label_weight, dtype=np.float64)
        self.corpus = corpus
        self.reporter = reporter
        args = model.args
        self.args = args
        # a thread needs a line to start from: more would only be started and
        # stopped, in every phase (-thread 100000 took 29 s on 3,000 lines)
        self.n_threads = max(1, min(args.thread, corpus.n_lines))
        self.total_tokens = corpus.token_count() * args.epoch
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
        # each epoch in a new random order, a window at a time per thread
        # (text.windows), or in the file's order (cursor: the thread's line)
        self.windows = ([WindowReader(corpus, args.seed, i, t) for i in range(t)]
                        if args.order == SHUFFLED else None)
        if self.windows is None and corpus.source is not None:
            bus_error.install()  # the kernels read the mapping: a truncation is SIGBUS
        seeds = np.random.SeedSequence(args.seed).generate_state(t, dtype=np.uint64)
        self.rng_state = np.where(seeds == 0, np.uint64(1), seeds).astype(np.uint64)
        counts = model.dictionary.label_counts.astype(np.float64)
        self.neg_cdf = np.cumsum(np.sqrt(counts))
        self.learner = None
        self.lr_hold = 0.0
        self.rebuilds, self.rebuild_seconds = 0, 0.0  # reported by train_on_corpus
        if plan is not None and plan.learns_tree:
            # the plan's rules mass-cap and learned-schedule (classify/plan_rules.py)
            self.learner = TreeLearner(model.tree, t, args.treeGradient, max(args.maxDepth, 0),
                                       label_mass=counts, mass_slack=plan.mass_cap.value,
                                       flags=CLASSIFIER_FLAGS)
            self.lr_hold = plan.lr_hold.value
        self.start_time = None
        self.compile_start = 0.0
        # a worker trains lrUpdateRate tokens between looks at the counters:
        # more than the whole run would never stop (-lrUpdateRate 2^63 hung)
        self.lr_update_rate = min(args.lrUpdateRate, self.total_tokens)
        self.checkpoint = SessionCheckpoint(self, plan) if wanted(args, plan) else None

    def run(self):
        self.start_time = time.monotonic()
        self.compile_start = jitstart.compile_seconds()
        try:
            start = self.resume()
            self.rebuilds, self.rebuild_seconds = train_in_phases(
                self.learner, self.model, self.total_tokens, self.args.treeUpdates,
                self.run_phase, self.control, start)
        except ZeroDivisionError:
            # a node's softmax over infinite scores sums to 0 (node_probabilities
            # divides by it) before the kernel's own test sees the NaN
            self.control[0] = kern.DIVERGED
        except BaseException:
            self.reporter.abort()
            raise
        if self.control[0] == kern.BAD_CORPUS:
            self.reporter.abort()
            raise corpus_changed(self.corpus)
        if self.control[0] == kern.DIVERGED:
            self.reporter.abort()
            raise diverged(self.snapshot().fraction * self.args.epoch, self.args.epoch,
                           self.args.lr)
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

        limit = stop_at  # where the workers stop: sooner for a checkpoint by steps

        def train(t, c, shuffled, key):
            kern.train_thread(
                t, c.feat_off, c.feats, c.label_off, c.labels, c.ntokens,
                m.w_in, m.w_out, m.loss_kind, *tree_arrays, self.neg_cdf,
                self.args.neg, self.args.lr, self.lr_hold, self.total_tokens,
                self.lr_update_rate, self.progress, limit, self.control,
                self.loss_sum, self.loss_n, self.cursor, shuffled, key,
                self.rng_state, collect, stats_p, stats_n, self.label_weight)

        def work(t):
            if self.windows is None:
                train(t, self.corpus, False, 0)
                return
            reader = self.windows[t]
            while self.progress.sum() < limit and not self.control[0]:
                lines = reader.current()
                self.cursor[t] = reader.position
                train(t, lines, True, reader.key())
                reader.position = int(self.cursor[t])

        # a worker trains lrUpdateRate tokens between looks at the counters:
        # workers past the phase's chunks of that size would start idle
        chunks = -(-(stop_at - int(self.progress.sum())) // self.lr_update_rate)
        def poll():
            if self.corpus.source is not None:  # the token cache, written to meanwhile?
                self.corpus.source.check_unchanged()
            self.reporter.update(self.snapshot())
            # the workers stop at their next step (a DIVERGED or BAD_CORPUS set
            # between the test and the store is set again by the line that set it)
            if c is not None and c.clock.due() and not self.control[0]:
                self.control[0] = PAUSE

        c = self.checkpoint
        while True:
            limit = stop_at if c is None else c.target(stop_at)
            run_workers(max(1, min(self.n_threads, chunks)), work, self.control, poll)
            if c is None or not (self.control[0] == PAUSE or
                                 (not self.control[0] and limit < stop_at)):
                break
            self.control[0] = 0  # every worker stopped: a safe point
            c.save(self.learner.rebuilds if self.learner is not None else 0)

    def resume(self):
        """With -resume, the checkpoint's state (``classify/checkpoint``);
        the rebuilds it had done."""
        if self.checkpoint is None or not self.args.resume:
            return 0
        rebuilds = self.checkpoint.restore()
        self.reporter.info(f"resumed from {self.checkpoint.path}: "
                           f"{100 * self.progress.sum() / self.total_tokens:.1f}% trained")
        return rebuilds

    def snapshot(self):
        done = int(self.progress.sum())
        # compiling is not training: a cold cache's minutes would make the
        # first ETAs hours and the speed a crawl
        compiling = jitstart.compile_seconds() - self.compile_start
        elapsed = max(time.monotonic() - self.start_time - compiling, 1e-9)
        fraction = min(1.0, done / self.total_tokens)
        n = int(self.loss_n.sum())
        lr = kern.learning_rate(self.args.lr, self.lr_hold, fraction)
        eta = elapsed * (1.0 - fraction) / fraction if fraction > 0 else float("inf")
        return Progress(fraction=fraction,
                        words_per_sec_thread=done / elapsed / self.n_threads,
                        lr=lr, loss=float(self.loss_sum.sum()) / n if n else 0.0,
                        eta_seconds=eta)


