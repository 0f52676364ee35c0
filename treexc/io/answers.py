"""Prediction answers as ``predict`` and ``predict-prob`` print them, for
every model family: one line per input line, labels with control
characters escaped (``textio.printable``), probabilities with 6 digits."""

import numpy as np

from ..errors import TreexcError
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


def api_lines(text):
    """The Python API's ``predict(text)`` argument, checked: ``(single,
    n_lines, data)``, ``data`` the lines' bytes (``uint8``), one line each,
    newline-ended (fastText's ``predict`` takes a str or a list of str)."""
    single = isinstance(text, str)
    if not single and (isinstance(text, (bytes, bytearray)) or not hasattr(text, "__iter__")):
        raise TypeError(f"predict takes a str or a list of str, not {type(text).__name__}")
    lines = [text] if single else list(text)
    for line in lines:
        if not isinstance(line, str):
            raise TypeError(f"predict takes a str or a list of str, not "
                            f"{type(line).__name__}")
        if "\n" in line:
            raise TreexcError("predict processes one line at a time; "
                              "remove the newline characters")
    raw = "".join(line + "\n" for line in lines).encode("utf-8", "surrogateescape")
    return single, len(lines), np.frombuffer(raw, dtype=np.uint8)


def api_answers(names, labels, scores, counts, single):
    """The Python API's ``predict`` answer of the arrays ``(labels,
    log_scores, counts)``: for each line the tuple of its label names and
    the array of their probabilities; those of the one line of a ``str``
    (``single``), else the two lists."""
    out_labels = [tuple(names[j] for j in labels[i, :counts[i]]) for i in range(len(counts))]
    out_probs = [np.exp(scores[i, :counts[i]]) for i in range(len(counts))]
    if single:
        return out_labels[0], out_probs[0]
    return out_labels, out_probs
