"""Checkpoints of the language model's training (``-checkpoint``,
``-resume``): what an :class:`training.LMSession` saves and restores.

Saved between two batches, every worker stopped: the weights (``U``,
``C``, ``W``) and their Adagrad accumulators, the tree, the tree learner's
statistics and rebuilds, each thread's token count and loss sums, where
training is (the epoch, whose batch order is a function of the seed and
the epoch; the phase, between two rebuilds or evaluations; each thread's
next batch), the evaluation records so far and the best one's weights
(``-keepBest``), with the options, the plan and the identity of
``-input``, ``-valid`` and ``-test``.  Nothing else carries from a batch
to the next, so a ``-thread 1 -seed`` run resumed from any checkpoint
ends in the same model, byte for byte.  On resume the saved records are
printed and logged again (``-log`` then holds the whole run).  The file
and its checks are ``io/checkpoint``'s.
"""

import dataclasses

import numpy as np

from ..errors import TreexcError
from ..io import checkpoint as ckpt
from ..io import contents
from ..io.checkpoint import PAUSE
from ..trees.tree import Tree

FAMILY = "lm"
# options that change nothing the checkpoint holds (the identity of the
# texts is checked instead of their names)
UNCHECKED = ("input", "output", "plan", "valid", "test", "log", "name", "verbose",
             "checkpoint", "resume")
_MATRICES = ("U", "C", "W")


class LMCheckpoint:
    """An :class:`training.LMSession`'s checkpoints and its resume."""

    def __init__(self, session, enabled):
        """``enabled`` false: none written, none resumed (a pre-run)."""
        self.session = session
        self.enabled = enabled
        args = session.args
        self.clock = ckpt.Clock(args.checkpoint if enabled else 0)
        self.steps = 0
        self.starts = None  # the resumed phase's next batch per thread
        self.phase = None   # the resumed phase's (b0, b1)
        if not enabled:
            return
        ckpt.refuse_without_output(args)
        self.path = ckpt.checkpoint_path(args.output)
        if args.verbose >= 2:
            self.clock.report = lambda line: session.reporter.info(line)
        m = session.model
        self.expected = {
            "options": {f.name: getattr(args, f.name) for f in dataclasses.fields(args)
                        if f.name not in UNCHECKED},
            "plan": list(m.plan.lines()) if m.plan is not None else None,
            "corpus": [int(session.N), int(m.vocab.size)],
            "threads": session.n_threads,
        }
        for flag in ("input", "valid", "test"):
            if getattr(args, flag):
                self.expected[f"input:{flag}"] = ckpt.input_identity(flag, getattr(args, flag))

    def next_batches(self, b0, b1, n_threads):
        """Each thread's first batch of the phase ``b0..b1``: the saved ones
        in the phase a resumed run stopped in."""
        if self.starts is not None:
            starts, phase, self.starts = self.starts, self.phase, None
            if phase != (b0, b1) or len(starts) != n_threads:
                raise TreexcError(f"{self.path}: cannot resume: its place in the epoch is "
                                  "not one of this run's (corrupt checkpoint)")
            return starts
        return np.arange(b0, b0 + n_threads, dtype=np.int64)

    def stepped(self, control):
        """A batch is done: a checkpoint due by steps stops the workers."""
        self.steps += 1
        if self.clock.every_steps and self.steps % self.clock.every_steps == 0:
            control[0] = PAUSE

    def poll(self, control, reporter, progress):
        """Every 0.1 s of a phase: the progress reported; a checkpoint due
        by time stops the workers."""
        reporter.update(progress)
        if self.clock.due() and not control[0]:
            control[0] = PAUSE

    def save_if_paused(self, control, b0, b1, next_batch):
        """Write a checkpoint where the workers stopped for one (True);
        False where they stopped for good (the phase's end, an error)."""
        if control[0] != PAUSE:
            return False
        control[0] = 0
        s = self.session
        m = s.model
        arrays = {name: getattr(m, name) for name in _MATRICES if getattr(m, name) is not None}
        arrays.update({f"acc_{name}": a for name, a in s.acc.items()})
        arrays.update(progress=s.progress, loss_sum=s.loss_sum, loss_n=s.loss_n,
                      next_batch=next_batch)
        if m.tree is not None:
            arrays["children"] = m.tree.children
        if s.learner is not None:
            arrays["stats_p"], arrays["stats_n"] = s.learner.stats_p, s.learner.stats_n
        best = None
        if s.best is not None:
            best = next(i for i, r in enumerate(s.records) if r is s.best)
            U, C, W, tree = s.best_weights
            arrays.update(best_U=U, best_C=C)
            if W is not None:
                arrays.update(best_W=W, best_children=tree.children)
        learner = s.learner
        header = dict(self.expected, family=FAMILY, epochs_drawn=s.epochs_drawn,
                      phase=[b0, b1], records=s.records, best=best, last_loss=s.last_loss,
                      train_seconds=s.train_seconds, train_batches=s.train_batches,
                      rebuild_seconds=s.rebuild_seconds,
                      rebuilds=learner.rebuilds if learner else 0,
                      last_moved=learner.last_moved if learner else 0)
        self.clock.write(self.path, header, arrays)
        return True

    def resume(self):
        """With -resume, the checkpoint's state put into the session:
        ``(epoch, b0)`` of the phase it stopped in; else ``(0, -1)``."""
        s = self.session
        if not (self.enabled and s.args.resume):
            return 0, -1
        m = s.model
        header, arrays = ckpt.load(self.path, FAMILY, self.expected)
        # the root's extra rows (-rootRows), after the nodes' rows of W
        rows = len(m.W) - m.tree.n_internal * m.tree.arity if m.tree is not None else 0
        try:
            for name in _MATRICES:
                if getattr(m, name) is not None:
                    setattr(m, name, _fitting(arrays, name, getattr(m, name)))
            for name in s.acc:
                s.acc[name] = _fitting(arrays, f"acc_{name}", s.acc[name])
            for name in ("progress", "loss_sum", "loss_n"):
                getattr(s, name)[...] = _fitting(arrays, name, getattr(s, name))
            if m.tree is not None:
                contents.check_tree(arrays["children"], m.tree.n_labels)
                m.tree = Tree(np.array(arrays["children"]), m.tree.n_labels)
                _fits_tree(m.W, m.tree, rows)
                _fits_tree(s.acc["W"], m.tree, rows)
            if s.learner is not None:
                s.learner.tree = m.tree
                s.learner.rebuilds = int(header["rebuilds"])
                s.learner.last_moved = int(header["last_moved"])
                s.learner.stats_p = s.learner.stats_n = None
                s.learner._reset()
                s.learner.stats_p[...] = _fitting(arrays, "stats_p", s.learner.stats_p)
                s.learner.stats_n[...] = _fitting(arrays, "stats_n", s.learner.stats_n)
            s.records = list(header["records"])
            if header["best"] is not None:
                s.best = s.records[int(header["best"])]
                tree = None
                if m.tree is not None:
                    contents.check_tree(arrays["best_children"], m.tree.n_labels)
                    tree = Tree(np.array(arrays["best_children"]), m.tree.n_labels)
                    _fits_tree(arrays["best_W"], tree, rows)
                s.best_weights = (np.array(arrays["best_U"]), np.array(arrays["best_C"]),
                                  np.array(arrays["best_W"]) if tree else None, tree)
            s.last_loss = float(header["last_loss"])
            s.train_seconds = float(header["train_seconds"])
            s.train_batches = int(header["train_batches"])
            s.rebuild_seconds = float(header["rebuild_seconds"])
            s.epochs_drawn = int(header["epochs_drawn"]) - 1  # drawn again for its epoch
            b0, b1 = (int(b) for b in header["phase"])
            self.phase = (b0, b1)
            starts = np.array(arrays["next_batch"], dtype=np.int64)
            T = s.n_threads
            # each thread's next batch: its own, of the phase (fill_order trusts it)
            if (len(starts) != T or (starts < b0).any() or (starts >= b1 + T).any()
                    or ((starts - b0) % T != np.arange(T)).any()
                    or not 0 <= b0 < b1 <= s.batches_per_epoch
                    or (s.progress < 0).any()):
                raise ValueError("next_batch")
            self.starts = starts
        except (KeyError, ValueError, TypeError, IndexError, StopIteration):
            raise TreexcError(f"{self.path}: cannot resume: the checkpoint's arrays do not "
                              "fit this run (corrupt checkpoint)") from None
        s.reporter.info(f"resumed from {self.path}: "
                        f"{100 * s.progress.sum() / max(1, s.total_tokens):.1f}% trained")
        for record in s.records:  # the -log holds the whole run
            s.reporter.pause()
            s.on_eval(record)
        return s.epochs_drawn, b0


def _fits_tree(W, tree, extra):
    """Node rows ``W`` must be ``tree``'s (and the root's ``extra`` rows)."""
    if W.shape[0] != tree.n_internal * tree.arity + extra:
        raise ValueError("W")


def _fitting(arrays, name, like):
    """The saved array ``name``, a writable copy, refused unless it has the
    shape and dtype of ``like`` (the node rows ``W`` any number of rows: a
    rebuilt tree may have other nodes)."""
    saved = arrays[name]
    free = name in ("W", "acc_W")
    if (saved.dtype != like.dtype or saved.ndim != like.ndim
            or saved.shape[free:] != like.shape[free:]):
        raise ValueError(name)
    return np.array(saved)
