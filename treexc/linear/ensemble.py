"""An ensemble's answer: its trees' best labels, their probabilities
averaged (numpy only: the first answers of ``predict``,
``linear/firstlines.py``, use it too)."""

import numpy as np


def ensemble_width(k, n_labels):
    """How many labels each tree of an ensemble answers, for ``k`` in all."""
    return min(n_labels, max(4 * k, 20))


def predict_trees(trees, predict_tree, n, n_labels, k, threshold):
    """``(labels, log_scores, counts)`` of ``n`` rows: ``predict_tree(tree, k,
    threshold)`` of the one tree, or of each tree at the ensemble's width,
    averaged; ``k`` -1 is every label."""
    k = n_labels if k == -1 else min(k, n_labels)
    if len(trees) == 1:
        return predict_tree(trees[0], k, threshold)
    wide = ensemble_width(k, n_labels)
    answers = [predict_tree(t, wide, 0.0) for t in trees]
    return average_answers(answers, n, n_labels, k, threshold)


def average_answers(answers, n, n_labels, k, threshold):
    """The ``k`` best labels of each line by their probabilities averaged
    over the trees' answers (a label a tree did not answer scores 0 there)."""
    lines, labels, probs = [], [], []
    for lab, score, count in answers:
        valid = np.arange(lab.shape[1])[None, :] < count[:, None]
        lines.append(np.nonzero(valid)[0])
        labels.append(lab[valid])
        probs.append(np.exp(score[valid]))
    key = np.concatenate(lines) * n_labels + np.concatenate(labels)
    prob = np.concatenate(probs)
    order = np.argsort(key, kind="stable")
    key, prob = key[order], prob[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    total = np.add.reduceat(prob, starts) / len(answers) if len(prob) else prob
    key = key[starts]
    line, label = key // n_labels, key % n_labels
    rank = np.lexsort((label, -total, line))
    line, label, total = line[rank], label[rank], total[rank]
    first = np.searchsorted(line, np.arange(n))
    place = np.arange(len(line)) - first[line]
    keep = (place < k) & (total >= threshold)
    out_label = np.zeros((n, k), dtype=np.int64)
    out_score = np.zeros((n, k), dtype=np.float64)
    out_label[line[keep], place[keep]] = label[keep]
    with np.errstate(divide="ignore"):
        out_score[line[keep], place[keep]] = np.log(total[keep])
    out_count = np.bincount(line[keep], minlength=n).astype(np.int64)
    return out_label, out_score, out_count
