"""Prediction answers as ``predict`` and ``predict-prob`` print them, for
every model family: one line per input line, labels with control
characters escaped (``textio.printable``), probabilities with 6 digits."""

import numpy as np

from .textio import printable


def label_names(labels):
    """Printable label names, plus ``""`` for a slot with no label."""
    return np.array([printable(name) for name in labels] + [""], dtype=object)


def format_predictions(names, labels, scores, counts, with_prob):
    n, k = labels.shape
    shown = np.where(np.arange(k)[None, :] < counts[:, None], labels, len(names) - 1)
    if not with_prob:
        if k == 1:
            return "\n".join(names[shown[:, 0]].tolist()) + "\n"
        return "".join(" ".join(row[:c]) + "\n"
                       for row, c in zip(names[shown].tolist(), counts.tolist()))
    probs = np.exp(scores).tolist()
    out = []
    for row, p, c in zip(names[shown].tolist(), probs, counts.tolist()):
        out.append(" ".join(f"{row[j]} {p[j]:.6g}" for j in range(c)) + "\n")
    return "".join(out)
