"""The ranking metrics of extreme classification: nDCG@k and
propensity-scored precision PSP@k (Jain, Prabhu & Varma, KDD 2016).

Pure numpy over arrays, for every model family's ``test``:

- ``top``: ``(n_lines, width)`` predicted label ids of each line, best
  first, distinct within a row; ``made``: ``(n_lines,)`` how many of a row's
  entries are predictions (the rest are padding, as when fewer than k labels
  pass a threshold or the model has fewer than k labels);
- the gold labels as CSR arrays: ``gold_off`` (``n_lines + 1``) and
  ``gold_labels``; a label repeated on a line counts once;
- for PSP@k, the labels' propensities (:func:`propensities`, from their
  training counts).

Lines without a gold label have no ideal ranking and are left out, as
fastText's meter leaves them out of P@k; a caller leaves out further lines
with ``examples`` (fastText's meter: lines without a known word).  Each
metric is NaN when no line is left.

nDCG@k of a line is its DCG@k = sum over its first k predictions of
``gold / log2(rank + 1)`` over the best DCG@k its gold labels allow (all of
them ranked first), averaged over the lines.  PSP@k is normalised as the
Extreme Classification Repository's code does: the sum over lines of
``gold / p_label`` over the first k predictions, over the same sum for the
best possible predictions (the line's gold labels of smallest propensity
first), so that it lies in [0, 1] like P@k.
"""

import math

import numpy as np

from .errors import TreexcError

DEFAULT_A = 0.55
DEFAULT_B = 1.5
METRICS = ("ndcg", "psp")


def propensities(label_counts, n_train, A=DEFAULT_A, B=DEFAULT_B):
    """Jain et al.'s propensity of each label: ``1 / (1 + C (N_l + B)^-A)``
    with ``C = (log N - 1) (B + 1)^A``, ``N_l`` the label's training count
    and ``N`` (``n_train``) the training lines."""
    if n_train < 1:
        raise ValueError("propensities need at least one training line")
    n_l = np.asarray(label_counts, dtype=np.float64)
    c = (np.log(n_train) - 1.0) * (B + 1.0) ** A
    return 1.0 / (1.0 + c * (n_l + B) ** -A)


def _ranked(top, made, gold_off, gold_labels, k, examples):
    """The rows kept, their hits (``(rows, k)`` bool: the prediction at that
    rank is a gold label of the line) and their distinct gold labels (CSR)."""
    top = np.asarray(top, dtype=np.int64)
    n = top.shape[0]
    gold_off = np.asarray(gold_off, dtype=np.int64)
    gold_labels = np.asarray(gold_labels, dtype=np.int64)
    # distinct (line, label) pairs: a repeated gold label counts once
    line = np.repeat(np.arange(n, dtype=np.int64), np.diff(gold_off))
    width = int(max(top.max(initial=-1), gold_labels.max(initial=-1))) + 1
    pairs = np.unique(line * width + gold_labels)
    pair_line, pair_label = pairs // max(width, 1), pairs % max(width, 1)
    n_gold = np.bincount(pair_line, minlength=n)
    keep = n_gold > 0
    if examples is not None:
        keep &= np.asarray(examples, dtype=bool)
    rows = np.flatnonzero(keep)
    # the first k columns (fewer where the rows are narrower), padding cut off
    k_cols = min(k, top.shape[1])
    ranks = np.arange(k_cols)[None, :]
    valid = ranks < np.asarray(made, dtype=np.int64)[rows, None]
    keys = rows[:, None] * width + top[rows, :k_cols]
    hits = valid & np.isin(keys, pairs)
    kept_pairs = keep[pair_line]
    off = np.concatenate([[0], np.cumsum(n_gold[rows])])
    return rows, hits, off, pair_label[kept_pairs]


def ndcg_at_k(top, made, gold_off, gold_labels, k, examples=None):
    """Mean nDCG@k over the lines with a gold label (and ``examples``)."""
    rows, hits, off, _ = _ranked(top, made, gold_off, gold_labels, k, examples)
    if not len(rows):
        return float("nan")
    discount = 1.0 / np.log2(np.arange(2, k + 2))
    dcg = hits @ discount[:hits.shape[1]]
    ideal = np.cumsum(discount)[np.minimum(np.diff(off), k) - 1]
    return float(np.mean(dcg / ideal))


def psp_at_k(top, made, gold_off, gold_labels, k, propensity, examples=None):
    """PSP@k, normalised by the best achievable (see the module's text)."""
    rows, hits, off, gold = _ranked(top, made, gold_off, gold_labels, k, examples)
    if not len(rows):
        return float("nan")
    inverse = 1.0 / np.asarray(propensity, dtype=np.float64)
    k_cols = hits.shape[1]
    top = np.asarray(top, dtype=np.int64)[rows, :k_cols]
    gained = float(np.sum(np.where(hits, inverse[np.where(hits, top, 0)], 0.0)))
    # the best: each line's k gold labels of largest 1 / propensity
    gold_inverse = inverse[gold]
    line = np.repeat(np.arange(len(rows)), np.diff(off))
    order = np.lexsort((-gold_inverse, line))
    rank = np.arange(len(gold)) - off[line[order]]
    best = float(np.sum(gold_inverse[order][rank < k]))
    return gained / best


def check_metrics(names, A=DEFAULT_A, B=DEFAULT_B):
    """``names`` (a comma-separated string or a sequence) as a tuple of
    METRICS; TreexcError for an unknown one or a propensity parameter that
    gives no propensity (every label's ``N_l + B`` must be positive:
    counts are >= 1)."""
    if isinstance(names, str):
        names = [n.strip() for n in names.split(",") if n.strip()]
    names = tuple(dict.fromkeys(names))
    unknown = [n for n in names if n not in METRICS]
    if unknown:
        raise TreexcError(f"unknown metric {unknown[0]!r} (choose among {', '.join(METRICS)})")
    if not (math.isfinite(A) and A >= 0):
        raise TreexcError(f"-A {A}: must be a number >= 0")
    if not (math.isfinite(B) and B > -1):
        raise TreexcError(f"-B {B}: must be a number > -1")
    return names


def ranking_metrics(names, top, made, gold_off, gold_labels, k, label_counts=None,
                    n_train=None, A=DEFAULT_A, B=DEFAULT_B, examples=None):
    """``{"nDCG@k": ..., "PSP@k": ...}`` for the metrics ``names`` (see
    :func:`check_metrics`), in that order; ``label_counts`` and ``n_train``
    are needed by ``psp``."""
    names = check_metrics(names, A, B)
    out = {}
    for name in names:
        if name == "ndcg":
            out[f"nDCG@{k}"] = ndcg_at_k(top, made, gold_off, gold_labels, k, examples)
        else:
            p = propensities(label_counts, n_train, A, B)
            out[f"PSP@{k}"] = psp_at_k(top, made, gold_off, gold_labels, k, p, examples)
    return out
