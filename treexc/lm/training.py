"""Training orchestration for ``treexc lm``: data, trees, threads, evaluation.

Each epoch visits every stream position once in a seeded random order
(``text.epoch_order``: a new one each epoch, with no permutation array), cut
into mini-batches.  Worker threads (``runtime.run_workers``) take batches
in turn and apply Adagrad to the shared weights without locks (Hogwild);
their BLAS products and numba kernels release the GIL, so the threads run
in parallel.  BLAS is held to one thread per worker while they run.

Training is cut into *phases* at batch counts where every worker has
stopped: that is where the learned tree is rebuilt (``-treeUpdates`` times
in all, evenly inside the learning span: the plan's ``tree_updates``;
statistics summed over threads, then reset) and where the model
is evaluated (``-evalPerEpoch`` times per epoch).  Train ms/batch is the
wall time of the training phases (tree rebuilds included) over the number
of batches; evaluation ms/batch likewise, with batches of ``-batch``
positions and all threads.
"""

import copy
import math
import time
from dataclasses import replace

import numpy as np

from .. import jitstart
from .. import memory
from ..errors import TreexcError
from ..io.textio import display_name, read_text
from ..runtime import (
    Progress,
    SilentReporter,
    blas_threads,
    check_weights_in_range,
    diverged,
    run_workers,
)
from ..text.epoch_order import epoch_key, fill_order
from ..text.vocab import Stream, build_vocab, read_stream
from ..trees.builders import build_tree
from ..trees.capacity import check_capacity
from ..trees.learner import TreeLearner
from .checkpoint import LMCheckpoint
from .memory import lm_parts
from .model import LanguageModel, init_weights, stream_nll
from .plan import learning_span, plan, rebuild_batches, root_rows, uses_tree

DIVERGED = 2  # control[0] of a training phase: a batch met a NaN or infinity
# A train loss (nats a token) past which training has blown up: -lr 100 trains
# to ~150 with finite weights (held-out perplexity then overflows).  Not a
# multiple of log(V), guessing's loss: on a toy corpus of a few words (one
# batch an epoch) Adagrad's first steps overshoot to 6-16 nats and recover
# (docs/lm.md, "Divergence"), three times guessing among 2 to 4 words.
DIVERGED_LOSS = 50.0


# -- evaluation -----------------------------------------------------------------


class LMSession:
    """One training run: shuffled batches, threads, phases, tree rebuilds."""

    def __init__(self, model, train, args, reporter_factory=None, on_eval=None,
                 valid=None, test=None, checkpoint=False):
        self.model = model
        self.train = train
        self.args = args
        self.valid = valid
        self.test = test
        self.reporter_factory = reporter_factory or SilentReporter
        self.on_eval = on_eval or (lambda record: None)
        self.B = args.batch
        self.N = train.n_tokens
        self.batches_per_epoch = -(-self.N // self.B)
        # a phase has at most an epoch's batches, one per thread at the most:
        # more threads would only be started and stopped (-thread 100000 ran
        # for hours on a small file); the same batches go to the same threads
        self.n_threads = max(1, min(args.thread, self.batches_per_epoch))
        self.epochs_drawn = 0  # the next epoch's order is epoch_key(seed, epochs_drawn)
        m = model
        self.acc = {"U": np.zeros_like(m.U), "C": np.zeros_like(m.C)}
        if m.is_tree:
            self.acc["W"] = np.zeros_like(m.W)
        self.engines = [m.engine(self.B) for _ in range(self.n_threads)]
        self.learn_tree = m.is_tree and args.tree == "learned" and args.treeUpdates > 0
        self.learner = None
        if self.learn_tree:
            # every leaf at -depth
            self.learner = TreeLearner(m.tree, self.n_threads, "ll", args.depth,
                                       exact_depth=True,
                                       label_mass=m.vocab.counts.astype(np.float64),
                                       mass_slack=args.massSlack)
        self.rebuild_at = self._rebuild_batches()
        self.progress = np.zeros(self.n_threads, dtype=np.int64)
        self.loss_sum = np.zeros(self.n_threads)
        self.loss_n = np.zeros(self.n_threads, dtype=np.int64)
        self.train_seconds = 0.0
        self.phase_compile = 0.0
        self.train_batches = 0
        self.rebuild_seconds = 0.0
        self.records = []
        self.last_loss = 0.0
        # the record and (U, C, W, tree) of the best evaluation so far
        # (-keepBest): small corpora overfit within the default 5 epochs
        self.best = self.best_weights = None
        self.checkpoint = LMCheckpoint(self, checkpoint)  # lm/checkpoint.py

    def _rebuild_batches(self):
        """The batches (counted from the first epoch's first) before which
        the tree is rebuilt (``plan.rebuild_batches``)."""
        if not self.learn_tree:
            return set()
        return rebuild_batches(self.args.treeUpdates, learning_span(self.args),
                               self.batches_per_epoch)

    def _epoch_schedule(self, epoch):
        """Sorted batch indices of this epoch where a phase ends, with what
        happens there: ('rebuild', b) (before batch b) and ('eval', b)."""
        nb = self.batches_per_epoch
        first = epoch * nb
        events = [(p - first, 0, "rebuild") for p in self.rebuild_at if first <= p < first + nb]
        e = self.args.evalPerEpoch
        for k in range(1, e + 1):
            events.append((k * nb // e, 1, "eval"))
        return sorted(set(events))

    def run(self, epochs=None, evaluate_at_end=True):
        """Train for ``epochs``; one progress reporter for the whole run (a
        line every few seconds in a log, not one per phase)."""
        self.reporter = self.reporter_factory()
        try:
            records = self._run(epochs, evaluate_at_end)
        except BaseException:
            self.reporter.abort()
            raise
        final = self._snapshot(None)
        # nothing is left to train, also where -patience stopped the run
        # short of -epoch (its fraction then says how far it got)
        final.eta_seconds = 0.0
        self.reporter.finish(final)
        return records

    def _run(self, epochs, evaluate_at_end):
        epochs = self.args.epoch if epochs is None else epochs
        whole = int(math.floor(epochs))
        self.total_tokens = int(round(epochs * self.N))
        if self.total_tokens >= 2 ** 62:  # int64 token counters (and years of training)
            raise TreexcError(f"-epoch {epochs}: {self.total_tokens:.3g} tokens to train on, "
                              "beyond treexc's counters (2^62); lower -epoch")
        self.start_time = time.monotonic()
        first, skip = self.checkpoint.resume()  # its phases ending at or before skip: done
        for epoch in range(first, int(math.ceil(epochs))):
            order = epoch_key(self.args.seed, self.epochs_drawn)
            self.epochs_drawn += 1
            b0 = 0
            limit = self.batches_per_epoch if epoch < whole else \
                int(round((epochs - whole) * self.batches_per_epoch))
            for b, _, what in self._epoch_schedule(epoch):
                if b > limit:
                    break
                if b <= skip:
                    b0 = b
                    continue
                if b > b0:  # a rebuild at an epoch's start has no phase before it
                    self._train_phase(order, b0, b)
                b0 = b
                if what == "rebuild":
                    self._rebuild()
                elif evaluate_at_end:
                    self._evaluate(epoch + b / self.batches_per_epoch)
                    if self._out_of_patience():
                        last = self.records[-1]
                        last["stopped_epoch"] = last["epoch"]
                        return self.records
            if b0 < limit:
                self._train_phase(order, b0, limit)
            skip = -1
        return self.records

    def _snapshot(self, phase_start):
        """Progress with the speed of training alone (evaluations and the
        time before ``phase_start`` began are not training)."""
        done = int(self.progress.sum())
        elapsed = self.train_seconds
        if phase_start is not None:
            # compiling is not training (jitstart.compile_seconds)
            elapsed += (time.perf_counter() - phase_start
                        - (jitstart.compile_seconds() - self.phase_compile))
        elapsed = max(elapsed, 1e-9)
        fraction = min(1.0, done / max(1, self.total_tokens))
        n = int(self.loss_n.sum())
        rate = done / elapsed
        eta = (self.total_tokens - done) / rate if rate > 0 else float("inf")
        return Progress(fraction=fraction, words_per_sec_thread=rate / self.n_threads,
                        lr=self.args.lr,
                        loss=float(self.loss_sum.sum()) / n if n else self.last_loss,
                        eta_seconds=eta)

    def _train_phase(self, order, b0, b1):
        """Batches ``b0..b1`` of the epoch whose order is keyed ``order``."""
        if b1 <= b0:
            return
        B, T = self.B, self.n_threads
        lr = float(self.args.lr)
        ids = self.train.ids
        N = self.N
        control = np.zeros(1, dtype=np.int64)
        learn = self.learn_tree
        reporter = self.reporter
        ckpt = self.checkpoint
        next_batch = ckpt.next_batches(b0, b1, T)

        def work(t):
            e = self.engines[t]
            positions = np.empty(B, dtype=np.int64)
            acc = self.acc
            if learn:
                sp, sn = self.learner.stats_p[t], self.learner.stats_n[t]
            for b in range(next_batch[t], b1, T):
                if control[0]:
                    break
                n = min(B, N - b * B)
                p = positions[:n]
                fill_order(p, b * B, n, N, order)
                if learn:
                    loss = e.train(ids, p, n, lr, acc, True, sp, sn)
                else:
                    loss = e.train(ids, p, n, lr, acc)
                # a NaN or infinite weight reaches the loss or the context
                # gradient of the batch that uses it: (d + 1) * n values,
                # little next to the step's matrix products
                if not (math.isfinite(loss) and np.isfinite(e.dr[:n]).all()):
                    control[0] = DIVERGED
                    break
                self.loss_sum[t] += loss
                self.loss_n[t] += n
                self.progress[t] += n
                next_batch[t] = b + T
                ckpt.stepped(control)

        t0 = time.perf_counter()
        self.phase_compile = jitstart.compile_seconds()
        try:
            with blas_threads(1):
                # threads past the phase's batches would have none: not started
                while True:  # again after each stop for a checkpoint
                    run_workers(min(T, b1 - b0), work, control,
                                lambda: ckpt.poll(control, reporter, self._snapshot(t0)))
                    if not ckpt.save_if_paused(control, b0, b1, next_batch):
                        break
        except ZeroDivisionError:
            # a node's softmax over infinite scores sums to 0 (node_probabilities
            # divides by it) before the test above sees the NaN
            control[0] = DIVERGED
        self.train_seconds += (time.perf_counter() - t0
                               - (jitstart.compile_seconds() - self.phase_compile))
        self.train_batches += b1 - b0
        if control[0] == DIVERGED:
            raise diverged(int(self.progress.sum()) / self.N, self.args.epoch, self.args.lr)
        reporter.update(self._snapshot(None))  # the phase's end, before an evaluation

    def _rebuild(self):
        """AssignLabels with every worker stopped (``TreeLearner``): node
        weights and their Adagrad accumulators follow the nodes, and with
        ``-leafRows 1`` a word's leaf row follows the word."""
        t0 = time.perf_counter()
        m = self.model
        m.W, self.acc["W"] = self.learner.rebuild(m.W, self.acc["W"],
                                                  leaf_rows=bool(self.args.leafRows))
        m.tree = self.learner.tree
        dt = time.perf_counter() - t0
        self.rebuild_seconds += dt
        self.train_seconds += dt

    def _keep_if_best(self, record):
        ppl = record.get("valid_ppl")
        if not self.args.keepBest or ppl is None:
            return
        if self.best is not None and self.best["valid_ppl"] <= ppl:
            return
        m = self.model
        self.best = record
        self.best_weights = (m.U.copy(), m.C.copy(), None if m.W is None else m.W.copy(),
                             copy.deepcopy(m.tree))

    def _out_of_patience(self):
        """-patience: has validation perplexity not improved for that many
        epochs?  Counted in epochs, not evaluations, so that -evalPerEpoch
        does not change when training stops.  A curve that turns up stays
        up (ten curves on four corpora: docs/lm.md, "Stopping early"), so the
        epochs after the stop would not change the saved weights."""
        a = self.args
        if not (a.patience and a.keepBest and self.best is not None):
            return False
        return self.records[-1]["epoch"] - self.best["epoch"] >= a.patience - 1e-9

    def restore_best(self):
        """Put back the weights of the best evaluation (-keepBest); its
        record, or None when the last evaluation is the best."""
        if self.best is None or self.best is self.records[-1]:
            return None
        m = self.model
        U, C, W, tree = self.best_weights
        m.U[...] = U
        m.C[...] = C
        if W is not None:
            m.W, m.tree = W, tree
        return self.best

    def _evaluate(self, epoch):
        m = self.model
        n = int(self.loss_n.sum())
        train_loss = float(self.loss_sum.sum()) / n if n else None
        if n and not train_loss < DIVERGED_LOSS:
            uniform = math.log(max(2, m.vocab.size))  # the loss of guessing uniformly
            raise diverged(
                epoch, self.args.epoch, self.args.lr,
                f"train loss {train_loss:.1f} nats a token, guessing uniformly {uniform:.1f}")
        record = {
            "run": self.args.name or None, "epoch": round(epoch, 4),
            "tokens": int(self.progress.sum()),
            "train_loss": train_loss,
            "train_ms_per_batch": 1000.0 * self.train_seconds / max(1, self.train_batches),
            "train_seconds": self.train_seconds,
            "train_tokens_per_sec": int(self.progress.sum()) / max(self.train_seconds, 1e-9),
            "loss": self.args.loss, "tree": self.args.tree if m.is_tree else None,
            "arity": m.tree.arity if m.is_tree else None,
            "depth": m.tree.max_depth() if m.is_tree else None,
            "dim": self.args.dim, "context": self.args.context, "batch": self.B,
            "lr": self.args.lr, "threads": self.n_threads, "vocab": m.vocab.size,
            "rebuilds": self.learner.rebuilds if self.learner else 0,
            "rebuild_seconds": self.rebuild_seconds,
            "moved_last_rebuild": self.learner.last_moved if self.learner else 0,
        }
        eval_seconds = eval_batches = 0
        for key, stream in (("valid", self.valid), ("test", self.test)):
            if stream is None:
                continue
            nll, ntok, sec, nb = stream_nll(m, stream.ids, self.engines, self.B)
            if not nll / ntok < 709.0:  # exp overflows: the weights blew up
                raise diverged(epoch, self.args.epoch, self.args.lr,
                               f"{key} perplexity overflows")
            record[f"{key}_ppl"] = math.exp(nll / ntok)
            record[f"{key}_tokens"] = ntok
            eval_seconds += sec
            eval_batches += nb
        if eval_batches:
            record["eval_ms_per_batch"] = 1000.0 * eval_seconds / eval_batches
        self._keep_if_best(record)
        self.records.append(record)
        self.reporter.pause()  # the record's line goes below the bar, not into it
        self.on_eval(record)
        self.last_loss = record["train_loss"] or 0.0  # shown until the next batch
        self.loss_sum[:] = 0.0
        self.loss_n[:] = 0


# The standard deviation of the root's extra rows at the start (the offline
# fit of docs/lm.md's "Several rows per root slot" started there).
ROOT_ROW_INIT = 0.01


def make_tree(args, vocab, train, rng, reporter_factory=None, echo=None):
    """The ``-tree`` over the vocabulary: ``random`` (also a learned tree's
    start) and ``cluster`` with every leaf at ``-depth``, ``huffman`` over
    the word counts (any depth)."""
    V = vocab.size
    depth, arity = args.depth, args.arity
    if args.tree in ("random", "learned"):
        return build_tree("random", V, arity, depth, rng)
    if args.tree != "cluster":  # huffman, or any builder that needs no vectors
        return build_tree(args.tree, V, arity, depth, rng, counts=vocab.counts)
    # clustering tree: vectors from a short run with a random tree
    t0 = time.perf_counter()
    pre_args = replace(args, tree="random", treeUpdates=0, evalPerEpoch=1)
    pre = new_model(pre_args, vocab, build_tree("random", V, arity, depth, rng), rng)
    LMSession(pre, train, pre_args, reporter_factory).run(args.clusterEpoch,
                                                          evaluate_at_end=False)
    tree = build_tree("cluster", V, arity, depth, rng, vectors=np.asarray(pre.U))
    if echo:
        echo(f"clustering tree: vectors from {args.clusterEpoch:g} epoch(s) with a random "
             f"tree, k-means, {time.perf_counter() - t0:.1f} s")
    return tree


def new_model(args, vocab, tree, rng):
    U, C = init_weights(vocab.size, args, rng)
    W = None
    if tree is not None:
        # the nodes' rows start at 0 (as the paper's); the root's extra rows
        # (loss.kernels.root_row) at small random values: rows started equal
        # would get equal gradients and stay equal
        main = tree.n_internal * tree.arity
        extra = (root_rows(args, tree.arity) - 1) * tree.arity
        W = np.zeros((main + extra, args.dim + 1), dtype=np.float32)
        W[main:] = rng.normal(0.0, ROOT_ROW_INIT, size=W[main:].shape)
    return LanguageModel(args, vocab, U, C, tree, W)


def plan_of_input(args):
    """The :class:`plan.Plan` a training of ``args`` would follow, from
    the text's vocabulary alone: nothing encoded, nothing trained."""
    vocab = build_vocab(read_text(args.input), args.minCount, display_name(args.input))
    return plan(args, vocab.size)


def train_lm(args, reporter_factory=None, echo=None, on_eval=None):
    """Train a language model; returns ``(model, records)``."""
    name = display_name(args.input)
    if uses_tree(args):  # -arity and -depth alone (0 words: no count yet)
        check_capacity(0, args.arity, args.depth)
    # what the options alone ask for (-arity, -dim, -context), before reading
    memory.refuse_oversized(lm_parts(args, 1, args.arity or 2))
    data = read_text(args.input)
    vocab = build_vocab(data, args.minCount, name)
    # the rate and the tree's shape, saved with the model
    run_plan = plan(args, vocab.size)
    args = run_plan.args(args)
    memory.refuse_oversized(lm_parts(args, vocab.size, args.arity or 2))
    train = Stream(name, vocab.encode(data))
    del data
    valid = read_stream(args.valid, vocab) if args.valid else None
    test = read_stream(args.test, vocab) if args.test else None
    if echo:
        echo(f"Read {train.n_tokens} tokens, vocabulary {vocab.size} words "
             f"(-minCount {args.minCount}, <unk> and </s> included)")
    rng = np.random.default_rng(args.seed)
    tree = None
    if uses_tree(args):
        tree = make_tree(args, vocab, train, rng, reporter_factory, echo)
    model = new_model(args, vocab, tree, rng)
    model.plan = run_plan
    session = LMSession(model, train, args, reporter_factory, on_eval, valid, test,
                        checkpoint=bool(args.checkpoint or args.resume))
    records = session.run()
    stopped = records[-1].get("stopped_epoch") if records else None
    if stopped is not None and echo:
        echo(f"stopped after epoch {stopped:g} of {args.epoch}: no better validation "
             f"perplexity for {args.patience} epoch(s) (-patience 0 trains every epoch)")
    kept = session.restore_best()
    if kept is not None:
        records[-1]["kept_epoch"] = kept["epoch"]
        if echo:
            echo(f"kept the weights of epoch {kept['epoch']:g}: validation perplexity "
                 f"{kept['valid_ppl']:.2f} (-keepBest 0 keeps the last)")
    check_weights_in_range((("U", model.U), ("C", model.C), ("W", model.W)), args.epoch,
                           args.lr)
    return model, records
