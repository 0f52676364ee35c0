"""The first answers of ``predict``, without Numba.

Why: importing Numba and loading the cached prediction kernels costs about
0.9 s, against 0.3 s for Python, numpy and the model file.  A short
prediction (one line typed, a few lines piped) is answered here with numpy
only; the kernels take over once the input turns out big
(``classify/predict.py`` says when).  This module imports nothing that
imports Numba (a test checks ``sys.modules``).

What it mirrors, and must stay identical to:

* :func:`load` reads the file through ``stored.read_classifier``, as
  ``classify.model.load_model`` does; the two checks done there by kernels
  (no duplicate vocabulary entry, ``trees.path_kernels.compute_paths``) are
  written with Python and numpy, with the same messages
  (``text.line_features``, ``trees.tree_checks``).
* :meth:`FirstLines.features` is ``text.kernels.encode_lines`` for one line
  (``text.line_features.LineEncoder``).
* :meth:`FirstLines.predict` answers as ``classify.predict_kernels``
  (``loss.topk``, ``loss.kernels.node_probabilities``, and
  ``node_sigmoids`` for a probabilistic label tree): the mean of the
  feature rows, then the exact top-k over every leaf with the threshold.

The kernels add float32 numbers in an order chosen by the compiler
(``fastmath``: vectorised, fused multiply-adds), which numpy cannot
reproduce.  So every score is computed here as an interval that holds the
kernels' value whatever that order (bounds of float32 summation, a few ulps
for exp and log), and an answer is given only when the intervals decide it:
the labels and their order, the threshold, and, for ``predict-prob``, every
printed digit.  Otherwise :meth:`FirstLines.predict` returns ``None`` and
the caller asks the kernels: the answers are theirs, byte for byte.
Labels are almost always decided; six printed digits of a probability
seldom are (the kernels' own last float32 bits move them), so
``predict-prob`` mostly goes to the kernels.
"""

import numpy as np

from ..io.textio import to_str
from ..loss.registry import KERNEL_NS, KERNEL_OVA, KERNEL_PLT, KERNEL_TREE, loss
from ..text.line_features import LineEncoder, split_piece, vocabulary_entries
from ..trees.tree_checks import check_paths
from .stored import read_classifier

# the kernel branches mirrored here: trees (softmax included), sigmoids,
# and trees of sigmoids (PLT)
MIRRORED_KERNELS = (KERNEL_TREE, KERNEL_OVA, KERNEL_NS, KERNEL_PLT)
LOG_FLOOR = float(np.log(1e-300))  # the kernels' log(max(p, 1e-300))
_U32 = 2.0 ** -24   # float32 unit roundoff
_U64 = 2.0 ** -53
_TINY = 2.0 ** -120  # room for float32 underflow, per term
# Relative error of a float64 exp, log or division in the kernels (a few
# ulps; libm and vectorised versions alike) and of a float32 exp.
_F64_ULPS = 16 * _U64
_F32_EXP = 8 * _U32


def _gamma(n, u):
    """Bound of the relative error of a sum of ``n`` terms, any order."""
    return n * u / (1 - n * u)


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
        self._w_out64 = None
        self.scoring = ""  # "fasttext" (a converted model): fastText's arithmetic, not mirrored
        self.kernel = loss(args.loss).kernel
        if children is not None:
            self._tree_layout()

    def features(self, line, has_eos):
        """Input-matrix rows of one line (bytes without its newline)."""
        return self.encoder.features(line, has_eos)

    # -- prediction ----------------------------------------------------------
    def predict(self, piece, k, threshold, with_prob):
        """``(labels, log_probs, counts)`` of every line of ``piece`` (bytes),
        as ``Model.predict_corpus`` gives them, or ``None`` when numpy cannot
        tell what the kernels would answer (see the module docstring)."""
        if self.kernel not in MIRRORED_KERNELS or self.scoring:
            return None  # a loss added since, or fastText's scoring: the kernels answer
        if self.w_in is None:
            return None  # a quantised model (treexc quantize): the kernels decode it
        k = self.nlabels if k == -1 else min(k, self.nlabels)
        lines, eos = split_piece(piece)
        out_label, out_score = np.zeros((len(lines), k), np.int64), np.zeros((len(lines), k))
        out_count = np.zeros(len(lines), dtype=np.int64)
        # the kernels' log(threshold), give or take its last bits
        log_t = np.log(threshold) if threshold > 0.0 else -np.inf
        margin = 4 * _U64 * abs(log_t) if threshold > 0.0 else 0.0
        log_t_lo, log_t_hi = log_t - margin, log_t + margin
        for n, (line, has_eos) in enumerate(zip(lines, eos)):
            feats = self.features(line, has_eos)
            if not feats:
                continue  # no answer, as the kernels
            lo, hi = self._scores(*self._logits(feats))
            answer = _decide(lo, hi, k, log_t_lo, log_t_hi, with_prob)
            if answer is None:
                return None
            labels, scores = answer
            out_count[n] = len(labels)
            out_label[n, :len(labels)] = labels
            out_score[n, :len(labels)] = scores
        return out_label, out_score, out_count

    def _logits(self, feats):
        """Output-row scores ``d`` and bounds ``err``: the kernels' float32
        value is within ``d +- err``, whatever their order of summation."""
        rows = self.w_in[np.array(feats, dtype=np.int64)].astype(np.float64)
        m = len(feats)
        inv = float(np.float32(1.0 / m))  # predict_kernels.hidden_vector
        hidden = rows.sum(axis=0) * inv
        mass = np.abs(rows).sum(axis=0) * inv
        hidden_err = ((_gamma(m, _U32) + _gamma(m, _U64)) * mass * (1 + _U32)
                      + _U32 * np.abs(hidden) + m * _TINY)
        if self._w_out64 is None:
            self._w_out64 = self.w_out.astype(np.float64)
            self._w_out_abs = np.abs(self._w_out64)
        w, w_abs = self._w_out64, self._w_out_abs
        dim = w.shape[1]
        d = w @ hidden
        spread = w_abs @ hidden_err
        magnitude = w_abs @ np.abs(hidden)
        err = (spread + (_gamma(dim, _U32) + _gamma(dim, _U64)) * (magnitude + spread)
               + dim * _TINY) * (1 + 1e-9)
        return d, err

    def _scores(self, d, err):
        """Intervals ``(lo, hi)`` of every label's log-probability."""
        if self.children is None:  # ova, ns: a sigmoid per label
            p_lo, p_hi = _sigmoid_bounds(d - err, d + err)
            return _log_bounds(p_lo, p_hi)
        arity = self.children.shape[1]
        d, err = d.reshape(-1, arity), err.reshape(-1, arity)
        if self.kernel == KERNEL_PLT:  # each slot its own sigmoid
            lo, hi = _log_bounds(*_sigmoid_bounds(d - err, d + err))
            lo, hi = np.where(self.present, lo, -np.inf), np.where(self.present, hi, -np.inf)
        else:
            lo, hi = _softmax_bounds(d - err, d + err, self.present)
            if arity == 2:  # a node with both slots filled is a sigmoid
                both = self.present.all(axis=1)
                p_lo, p_hi = _sigmoid_bounds(d[both, 0] - err[both, 0],
                                             d[both, 0] + err[both, 0])
                one_lo, one_hi = _log_bounds(p_lo, p_hi)
                zero_lo, zero_hi = _log_bounds(np.maximum(1.0 - p_hi - 2 * _U64, 0.0),
                                               1.0 - p_lo + 2 * _U64)
                lo[both] = np.stack([zero_lo, one_lo], 1)
                hi[both] = np.stack([zero_hi, one_hi], 1)
        single = self.present.sum(axis=1) == 1  # a chain link: probability 1 exactly
        lo[single], hi[single] = 0.0, 0.0
        # path sums from the root, one tree level at a time
        node_lo, node_hi = np.zeros(len(d)), np.zeros(len(d))
        for nodes, parents, slots in self.levels:
            node_lo[nodes] = _down(node_lo[parents] + lo[parents, slots])
            node_hi[nodes] = _up(node_hi[parents] + hi[parents, slots])
        return (_down(node_lo[self.leaf_node] + lo[self.leaf_node, self.leaf_slot]),
                _up(node_hi[self.leaf_node] + hi[self.leaf_node, self.leaf_slot]))

    def _tree_layout(self):
        """Each label's leaf (node, slot); internal nodes by depth, with
        their parent and slot (breadth-first: a parent precedes its child)."""
        children, n_labels = self.children.astype(np.int64), self.nlabels
        self.present = children >= 0
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


def _down(x):  # x lowered by more than one float64 rounding (_up: raised)
    return x - _F64_ULPS * (np.abs(x) + 1.0)


def _up(x):
    return x + _F64_ULPS * (np.abs(x) + 1.0)


def _sigmoid_bounds(x_lo, x_hi):
    """Bounds of ``loss.kernels.sigmoid`` (0 below -30, 1 above 30, else
    ``1 / (1 + exp(-x))`` with a float32 exp) over ``[x_lo, x_hi]``; it is
    non-decreasing, so its ends bound it."""
    def sigmoid(x, exp_error):
        with np.errstate(over="ignore"):
            p = 1.0 / (1.0 + np.exp(-x) * (1.0 + exp_error))
        return np.where(x < -30.0, 0.0, np.where(x > 30.0, 1.0, p))
    lo = sigmoid(x_lo, _F32_EXP) * (1 - _F64_ULPS)
    hi = np.minimum(sigmoid(x_hi, -_F32_EXP) * (1 + _F64_ULPS), 1.0)
    return lo, hi


def _log_bounds(p_lo, p_hi):
    """Bounds of the kernels' ``log(max(p, 1e-300))`` for p in the bounds."""
    with np.errstate(divide="ignore"):
        return (_down(np.log(np.maximum(p_lo, 1e-300))),
                np.minimum(_up(np.log(np.maximum(p_hi, 1e-300))), 0.0))


def _softmax_bounds(s_lo, s_hi, present):
    """Bounds of each slot's log-probability in ``node_probabilities``'s
    softmax, for scores within ``[s_lo, s_hi]``: ``log p_j = s_j - logsumexp``
    grows with ``s_j`` and falls with the others."""
    def logsumexp(s):  # a node without children gives NaN: it has no slot
        top = np.max(np.where(present, s, -np.inf), axis=1, keepdims=True)
        z = np.where(present, np.exp(s - top), 0.0).sum(axis=1, keepdims=True)
        return top + np.log(z)
    slack = _F64_ULPS * (present.shape[1] + 4)  # the kernels' exp, sum, division, log
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = s_lo - logsumexp(s_hi)
        hi = s_hi - logsumexp(s_lo)
    # log(max(p, 1e-300)) at both ends; p may pass 1 by an ulp (fastmath)
    lo = np.maximum(lo - slack * (np.abs(lo) + 1.0), LOG_FLOOR - slack * 1000)
    hi = np.maximum(hi + slack * (np.abs(hi) + 1.0), LOG_FLOOR + slack * 1000)
    return np.where(present, lo, -np.inf), np.where(present, hi, -np.inf)


def _decide(lo, hi, k, log_t_lo, log_t_hi, with_prob):
    """The top-``k`` labels, best first, with scores to print, when the
    intervals ``[lo, hi]`` settle them (and with ``with_prob`` each printed
    probability); else ``None``."""
    order = np.argsort(-(lo + hi), kind="stable")
    top, rest = order[:k], order[k:]
    if (lo[top[:-1]] <= hi[top[1:]]).any():
        return None  # two of the k too close to tell their order
    if len(rest) and lo[top[-1]] <= hi[rest].max():
        return None  # the k-th and the next too close
    passes = lo[top] >= log_t_hi
    if not (passes | (hi[top] < log_t_lo)).all():
        return None  # too close to the threshold
    top = top[passes]
    if with_prob:
        # the printed probability (classify/predict.format_predictions) must be
        # the same at both ends (formatting is monotonic)
        p_lo = np.exp(lo[top]) * (1 - _F64_ULPS)
        p_hi = np.exp(hi[top]) * (1 + _F64_ULPS)
        if any(f"{a:.6g}" != f"{b:.6g}" for a, b in zip(p_lo.tolist(), p_hi.tolist())):
            return None
    return top, lo[top]
