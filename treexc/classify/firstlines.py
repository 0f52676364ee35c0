"""The first answers of ``predict``, without Numba.

Why: importing Numba and loading the cached prediction kernels costs about
0.4 s of CPU and, in the Python API, 100 MiB of llvmlite's library, against
0.15 s for Python, numpy and the model file.  A short prediction (one line
typed, a few lines piped, a script's ``load_model(m).predict(text)``) is
answered here with numpy only; the kernels take over once the input turns
out big (``io/first_answers.py`` says when).  This module imports nothing
that imports Numba (a test checks ``sys.modules``).

What it mirrors, and must stay identical to:

* :func:`load` reads the file through ``stored.read_classifier``, as
  ``classify.model.load_model`` does; the two checks done there by kernels
  (no duplicate vocabulary entry, ``trees.path_kernels.compute_paths``) are
  written with Python and numpy, with the same messages
  (``text.line_features``, ``trees.tree_checks``).
* :meth:`FirstLines.features` is ``text.kernels.encode_lines`` for one line
  (``text.line_features.LineEncoder``).
* :meth:`FirstLines.predict` answers as ``classify.predict_kernels``, whose
  arithmetic has one fixed order (``classify/exact_kernels.py``): the same
  float32 and float64 operations on the same values in the same order, so
  the same bits.  Every label is scored (the kernels' branch and bound
  finds the same best ``k``: ties go to the smaller label id either way);
  exp and log are libm's through Python's ``math``, as the kernels call
  them (numpy's own vectorised exp and log may differ in the last bit).
"""

import math

import numpy as np

from ..io.textio import to_str
from ..loss.registry import KERNEL_NS, KERNEL_OVA, KERNEL_PLT, KERNEL_TREE, loss
from ..text.line_features import LineEncoder, split_piece, vocabulary_entries
from ..trees.tree_checks import check_paths
from .options import check_k_threshold
from .plan_rules import SCORING_MEAN
from .stored import read_classifier

# the kernel branches mirrored here: trees (softmax included), sigmoids,
# and trees of sigmoids (PLT)
MIRRORED_KERNELS = (KERNEL_TREE, KERNEL_OVA, KERNEL_NS, KERNEL_PLT)
LOG_FLOOR = 1e-300  # exact_kernels.LOG_FLOOR: log(max(p, 1e-300))
LANES = 8  # exact_kernels.dot_lanes
# numpy scores every output row of a line, exp and log one value at a time:
# about 0.5 us a row (0.5 ms a line of 800 rows, 4 ms of 8,800), the kernels
# microseconds after their 0.4 s of start.  So numpy answers at most
# FIRST_ROWS / rows lines (half the break-even), and never more than
# FIRST_LINES.
FIRST_LINES = 500
FIRST_ROWS = 400_000


def load(path, loaded=None):
    """A :class:`FirstLines` for the classifier in ``path``, checked as
    ``classify.model.load_model`` checks it (``stored.read_classifier``).
    ``loaded`` is ``modelfile.load``'s answer when the file has been read
    already."""
    s = read_classifier(path, vocabulary_entries, check_paths, loaded)
    keys, entry_ids = s.vocabulary
    labels = [to_str(key) for key in keys[s.nwords:]]
    first = FirstLines(s.args, s.nwords, entry_ids, labels, s.tree, s.w_in, s.w_out, s.loaded)
    first.scoring = s.scoring
    return first


class FirstLines:
    """A checked classifier, as numpy arrays, that answers lines."""

    def __init__(self, args, nwords, entry_ids, labels, children, w_in, w_out, loaded):
        self.args = args
        self.nwords = nwords
        self.entry_ids = entry_ids
        self.children = children
        self.w_in, self.w_out = w_in, w_out
        self.loaded = loaded  # (header, arrays): the kernels' model reuses them
        self.labels = labels
        self.nlabels = len(self.labels)
        a = args
        self.encoder = LineEncoder(entry_ids, nwords, a.label, a.wordNgrams, a.bucket, a.minn,
                                   a.maxn)
        self.scoring = ""  # "fasttext" (a converted model): fastText's arithmetic, not mirrored
        self.kernel = loss(args.loss).kernel
        self._lane_rows = None  # w_out for the dot products, at the first answer
        if children is not None:
            self._tree_layout()

    def features(self, line, has_eos):
        """Input-matrix rows of one line (bytes without its newline)."""
        return self.encoder.features(line, has_eos)

    # -- prediction ----------------------------------------------------------
    def first_lines(self):
        """How many lines numpy answers before the kernels take over (the
        constants above)."""
        return max(1, min(FIRST_LINES, FIRST_ROWS // max(1, len(self.w_out))))

    def answers_text(self):
        """Does :meth:`predict` answer this model (else only the kernels do)?"""
        return (self.kernel in MIRRORED_KERNELS
                and self.scoring in ("", SCORING_MEAN)  # not fastText's arithmetic
                and self.w_in is not None  # not quantised (the kernels decode it)
                and (self.children is None  # no root with several rows a slot
                     or len(self.w_out) == self.children.size))

    def predict(self, piece, k, threshold):
        """``(labels, log_probs, counts)`` of every line of ``piece`` (bytes),
        as ``Model.predict_corpus`` gives them, or ``None`` for a model only
        the kernels answer (:meth:`answers_text`)."""
        check_k_threshold(k, threshold)  # as Model.predict_corpus
        if not self.answers_text():
            return None
        k = self.nlabels if k == -1 else min(k, self.nlabels)
        lines, eos = split_piece(piece)
        out_label, out_score = np.zeros((len(lines), k), np.int64), np.zeros((len(lines), k))
        out_count = np.zeros(len(lines), dtype=np.int64)
        log_t = math.log(threshold) if threshold > 0.0 else -math.inf
        for n, (line, has_eos) in enumerate(zip(lines, eos)):
            feats = self.features(line, has_eos)
            if not feats:
                continue  # no answer, as the kernels
            scores = self.label_scores(self._hidden(feats))
            order = np.lexsort((np.arange(len(scores)), -scores))  # ties: smaller id
            order = order[scores[order] >= log_t][:k]
            out_count[n] = len(order)
            out_label[n, :len(order)] = order
            out_score[n, :len(order)] = scores[order]
        return out_label, out_score, out_count

    def _hidden(self, feats):
        """``exact_kernels.hidden_mean``: the rows added in order, then scaled."""
        hidden = np.zeros(self.w_in.shape[1], dtype=np.float32)
        for row in self.w_in[np.array(feats, dtype=np.int64)]:
            hidden += row
        hidden *= np.float32(1.0 / len(feats))
        return hidden

    def label_scores(self, hidden):
        """Every label's log-probability (float64), the kernels' bits."""
        if self._lane_rows is None:
            self._lane_rows = LaneRows(self.w_out)
        d = self._lane_rows.dots(hidden).astype(np.float64)
        if self.children is None:  # ova, ns: a sigmoid per label
            return _logs(_sigmoids(d))
        d = d.reshape(-1, self.children.shape[1])
        if self.scoring == SCORING_MEAN:
            return self._mean_scores(d)
        if self.kernel == KERNEL_PLT:  # each slot its own sigmoid
            probs = np.where(self.present, _sigmoids(d), 0.0)
        else:
            probs = self._node_probabilities(d)
        probs[self.single] = np.where(self.present[self.single], 1.0, 0.0)
        log_p = _logs(probs)
        node_score = np.zeros(len(d))  # each node's path sum from the root
        for nodes, parents, slots in self.levels:
            node_score[nodes] = node_score[parents] + log_p[parents, slots]
        return node_score[self.leaf_node] + log_p[self.leaf_node, self.leaf_slot]

    def _node_probabilities(self, d):
        """``exact_kernels.node_probabilities`` of every node at once."""
        present = self.present
        top = np.where(present, d, -np.inf).max(axis=1, keepdims=True)
        e = np.where(present, _exps(np.where(present, d - top, 0.0)), 0.0)
        z = np.cumsum(e, axis=1)[:, -1:]  # over the slots in order, as the kernel
        with np.errstate(invalid="ignore", divide="ignore"):  # a childless node: unread
            probs = e / z
        if present.shape[1] == 2:  # a binary node with both children: a sigmoid
            both = self.both
            p1 = _sigmoids(d[both, 0])
            probs[both, 0], probs[both, 1] = 1.0 - p1, p1
        return probs

    def _mean_scores(self, d):
        """``exact_kernels.mean_top_k``'s scores of every label."""
        present, arity = self.present, self.present.shape[1]
        logits = np.where(present, d, 0.0)
        if arity == 2:  # fastText's sigmoid on row 0: the logits (0, score)
            logits[self.both] = np.stack([np.zeros(int(self.both.sum())), d[self.both, 0]], 1)
        logits[self.single] = 0.0
        top = np.maximum(np.where(present, logits, -1e300).max(axis=1), -1e300)
        e = np.where(present, _exps(np.where(present, logits - top[:, None], 0.0)), 0.0)
        total = np.cumsum(e, axis=1)[:, -1]
        log_norm = top + _logs(total)  # a childless node's is never read
        only = present.argmax(axis=1)  # a chain link's one slot
        log_norm[self.single] = logits[self.single, only[self.single]]
        node_tree, node_flat = np.zeros(len(d)), np.zeros(len(d))
        for nodes, parents, slots in self.levels:
            node_tree[nodes] = (node_tree[parents] + logits[parents, slots]) - log_norm[parents]
            node_flat[nodes] = node_flat[parents] + logits[parents, slots]
        leaf, slot = self.leaf_node, self.leaf_slot
        tree = (node_tree[leaf] + logits[leaf, slot]) - log_norm[leaf]
        flat = node_flat[leaf] + logits[leaf, slot]
        scores = 0.5 * (tree + flat)
        top = max(-1e300, float(scores.max()))
        total = float(np.cumsum(_exps(scores - top))[-1])
        return scores - (top + math.log(total))

    def _tree_layout(self):
        """Each label's leaf (node, slot); internal nodes by depth, with
        their parent and slot (breadth-first: a parent precedes its child)."""
        children, n_labels = self.children.astype(np.int64), self.nlabels
        self.present = children >= 0
        self.single = self.present.sum(axis=1) == 1  # a chain link: probability 1
        self.both = self.present.all(axis=1)  # (arity 2) fastText's sigmoid node
        node_of, slot_of = np.divmod(np.arange(children.size), children.shape[1])
        flat = children.reshape(-1)
        leaf = (flat >= 0) & (flat < n_labels)
        self.leaf_node = np.empty(n_labels, dtype=np.int64)
        self.leaf_slot = np.empty(n_labels, dtype=np.int64)
        self.leaf_node[flat[leaf]], self.leaf_slot[flat[leaf]] = node_of[leaf], slot_of[leaf]
        inner = flat >= n_labels
        parent, slot = np.zeros(len(children), np.int64), np.zeros(len(children), np.int64)
        child = flat[inner] - n_labels
        parent[child], slot[child] = node_of[inner], slot_of[inner]
        depth = np.zeros(len(children), dtype=np.int64)
        for n in range(1, len(children)):  # parents come first
            depth[n] = depth[parent[n]] + 1
        self.levels = [(nodes, parent[nodes], slot[nodes])
                       for nodes in (np.flatnonzero(depth == level)
                                     for level in range(1, int(depth.max()) + 1))]


class LaneRows:
    """Float32 rows laid out for ``exact_kernels.dot_lanes``: the blocks of
    eight columns as ``(blocks, 8, n_rows)``, the tail as ``(tail, n_rows)``,
    so that each numpy operation runs over all rows contiguously."""

    def __init__(self, w):
        n, dim = w.shape
        self.blocks = dim // LANES
        cut = self.blocks * LANES
        self.lanes = np.ascontiguousarray(
            w[:, :cut].reshape(n, self.blocks, LANES).transpose(1, 2, 0))
        self.tail = np.ascontiguousarray(w[:, cut:].T)

    def dots(self, hidden):
        """Every row's ``dot_lanes`` with ``hidden``: eight lanes over the
        blocks of eight, the tail into lanes 0.., the lanes added pairwise."""
        acc = np.zeros((LANES, self.lanes.shape[2] if self.blocks else self.tail.shape[1]),
                       dtype=np.float32)
        for b in range(self.blocks):
            acc += self.lanes[b] * hidden[b * LANES:(b + 1) * LANES, None]
        cut = self.blocks * LANES
        for t in range(len(self.tail)):
            acc[t] += self.tail[t] * hidden[cut + t]
        return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))


def _exps(x):
    """libm's exp of every value (numpy's may differ in the last bit)."""
    return np.array([math.exp(v) for v in x.ravel().tolist()]).reshape(x.shape)


def _logs(p):
    """libm's ``log(max(p, 1e-300))`` of every value."""
    p = np.maximum(p, LOG_FLOOR)
    return np.array([math.log(v) for v in p.ravel().tolist()]).reshape(p.shape)


def _sigmoids(x):
    """``exact_kernels.sigmoid`` of float64 values (float32 scores)."""
    mid = (x >= -30.0) & (x <= 30.0)
    p = np.where(x > 30.0, 1.0, 0.0)
    p[mid] = 1.0 / (1.0 + _exps(-x[mid]))
    return p
