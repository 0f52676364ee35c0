"""Checkpoints of the embedding classifier's training (``-checkpoint``,
``-resume``): what a :class:`session.Session` saves and restores.

Saved at a safe point, every worker stopped between two of its
``-lrUpdateRate`` steps (``classify.kernels.train_thread`` returns there,
its state all in the arrays below): the input and output matrices, the
tree, the tree learner's statistics and the rebuilds done, each thread's
token count, cursor, random state and loss sums, each thread's place in
the shuffled epochs (``text.windows``: lap, window, line), the options
that shape the run, its plan, the input's identity and the encoded
corpus's size.  A kernel stopped there and started again trains exactly
as one that went on, so a ``-thread 1 -seed`` run resumed from any
checkpoint ends in the same model, byte for byte.  The file and its
checks are ``io/checkpoint``'s.
"""

import dataclasses

import numpy as np

from ..errors import TreexcError
from ..io import checkpoint as ckpt
from ..io import contents, modelfile
from ..trees.tree import Tree

FAMILY = "embedding"
# options that change nothing the checkpoint holds (where the model goes,
# what is printed, where the token cache lives, how often to checkpoint)
UNCHECKED = ("input", "output", "plan", "verbose", "cache", "checkpoint", "resume",
             "pretrainedVectors")


def wanted(args, plan):
    """Does the run checkpoint or resume?  (Not a pre-run or a retraining:
    those have no plan.)"""
    if plan is None:
        return False
    return bool(args.checkpoint or args.resume)


def resumed_rate(args):
    """The rate (``-lr``) of the run a -resume continues, or None (no
    -resume, or no readable checkpoint: the session refuses it)."""
    if not (args.resume and args.output):
        return None
    try:
        header = modelfile.load_header(ckpt.checkpoint_path(args.output))
        return float(header["options"]["lr"])
    except (TreexcError, KeyError, TypeError, ValueError):
        return None


class SessionCheckpoint:
    """A :class:`session.Session`'s checkpoints: when, what, and its resume."""

    def __init__(self, session, plan):
        self.session = session
        args = session.args
        ckpt.refuse_without_output(args)
        self.path = ckpt.checkpoint_path(args.output)
        self.clock = ckpt.Clock(args.checkpoint)
        if args.verbose >= 2:
            self.clock.report = session.reporter.info
        self.step_tokens = self.clock.every_steps * session.lr_update_rate
        corpus = session.corpus
        self.expected = {
            "options": {f.name: getattr(args, f.name) for f in dataclasses.fields(args)
                        if f.name not in UNCHECKED},
            "plan": list(plan.lines()),
            "input:input": ckpt.input_identity("input", args.input),
            "corpus": [int(corpus.n_lines), int(corpus.token_count()),
                       int(session.model.dictionary.nwords),
                       int(session.model.dictionary.nlabels)],
            "threads": session.n_threads,
        }

    def target(self, stop_at):
        """Where the workers stop next: ``stop_at``, or sooner where
        :data:`io.checkpoint.EVERY_ENV` asks for checkpoints by steps."""
        if not self.step_tokens:
            return stop_at
        done = int(self.session.progress.sum())
        return min(stop_at, (done // self.step_tokens + 1) * self.step_tokens)

    def save(self, rebuilds):
        s = self.session
        m = s.model
        arrays = {"w_in": m.w_in, "w_out": m.w_out, "progress": s.progress,
                  "cursor": s.cursor, "rng_state": s.rng_state.view(np.int64),
                  "loss_sum": s.loss_sum, "loss_n": s.loss_n}
        if m.tree is not None:
            arrays["children"] = m.tree.children
        if s.learner is not None:
            arrays["stats_p"] = s.learner.stats_p
            arrays["stats_n"] = s.learner.stats_n
        windows = None
        if s.windows is not None:
            windows = [[r.lap, r.window, r.position, r.lines is not None] for r in s.windows]
        header = dict(self.expected, family=FAMILY, rebuilds=rebuilds, windows=windows,
                      last_moved=s.learner.last_moved if s.learner is not None else 0)
        self.clock.write(self.path, header, arrays)

    def restore(self):
        """Put the checkpoint's state into the session; the rebuilds done."""
        s = self.session
        m = s.model
        header, arrays = ckpt.load(self.path, FAMILY, self.expected)
        try:
            _copy(arrays, "w_in", m.w_in)
            if "children" in arrays:
                if m.tree is None:
                    raise ValueError("children")
                contents.check_tree(arrays["children"], m.tree.n_labels)
                tree = Tree(np.array(arrays["children"]), m.tree.n_labels)
                w_out = arrays["w_out"]
                if (w_out.dtype != m.w_out.dtype or tree.arity != m.tree.arity
                        or w_out.shape != (tree.n_internal * tree.arity, m.w_out.shape[1])):
                    raise ValueError("w_out")
                m.tree, m.w_out = tree, np.array(w_out)
            else:
                _copy(arrays, "w_out", m.w_out)
            for name in ("progress", "cursor", "loss_sum", "loss_n"):
                _copy(arrays, name, getattr(s, name))
            _copy(arrays, "rng_state", s.rng_state.view(np.int64))
            # what indexes or counts: in range (the kernels trust them)
            if (s.progress < 0).any() or s.progress.sum() > s.total_tokens or \
                    (s.cursor < 0).any() or (s.cursor > s.corpus.n_lines).any():
                raise ValueError("counters")
            rebuilds = int(header["rebuilds"])
            if s.learner is not None:
                learner = s.learner
                learner.tree = m.tree
                learner.rebuilds = rebuilds
                learner.last_moved = int(header["last_moved"])
                learner.stats_p = learner.stats_n = None
                learner._reset()
                _copy(arrays, "stats_p", learner.stats_p)
                _copy(arrays, "stats_n", learner.stats_n)
            if s.windows is not None:
                for reader, (lap, window, position, started) in zip(s.windows,
                                                                    header["windows"]):
                    reader.restore(int(lap), int(window), int(position), bool(started))
        except (KeyError, ValueError, TypeError):
            raise TreexcError(f"{self.path}: cannot resume: the checkpoint's arrays do "
                                   "not fit this run (corrupt checkpoint)") from None
        self.clock.written = 0
        return rebuilds


def _copy(arrays, name, into):
    """Copy the saved array ``name`` into ``into`` (same shape and dtype)."""
    saved = arrays[name]
    if saved.shape != into.shape or saved.dtype != into.dtype:
        raise ValueError(name)
    into[...] = saved
