"""Label weights: ``-labelWeights FILE`` read and checked, ``-weightBalanced``
computed from the training lines' labels (docs/weights.md).

The result is one float64 weight per label id (the dictionary's order, or
a sparse file's label ids), or None when neither flag is given: the
families then train exactly as without weights.  How a weight enters each
loss is the family's: the embedding model repeats an example about its
weight's times, each term's rate scaled by its share
(``classify/kernels``, ``loss/plt``), the linear family takes it as a
line's cost in its dual solver (``linear/solver_kernels``).

``-weightBalanced``: with ``n_l`` the training lines carrying label ``l``
(a label repeated on a line counts once) and ``Y_i`` the distinct labels
of labelled line ``i`` (``N`` such lines), ``w_l = c / n_l`` with ``c``
chosen so that the mean over the lines of a line's mean label weight is 1:
``c = N / sum_i (1/|Y_i|) sum_{l in Y_i} 1/n_l``.  On single-label lines
this is scikit-learn's ``class_weight='balanced'``, ``N / (K n_l)`` with
``K`` the labels seen.  A ``-labelWeights`` file's weights are
normalised the same way (:func:`normalised`): only their ratios matter.
"""

import math

import numpy as np

from ..errors import TreexcError
from ..io.textio import display_name, warn


def label_weights(args, names, label_off, labels):
    """The weight of every label (float64, ``len(names)``), or None
    without ``-labelWeights`` / ``-weightBalanced``.  ``names``: the labels
    as the training file spells them (the prefix ``args.label`` included
    for text, a sparse file's label names as given); ``label_off`` and
    ``labels``: the training lines' label ids (CSR)."""
    if args.weightBalanced:
        return balanced_weights(label_off, labels, len(names))
    if args.labelWeights:
        return normalised(read_weights(args.labelWeights, names, args.label), label_off,
                          labels)
    return None


def _pairs(label_off, labels, n_labels):
    """``(line of each distinct (line, label) pair, its label, the lines
    with each label, the distinct labels of each line)``."""
    label_off = np.asarray(label_off, dtype=np.int64)
    per_line = np.diff(label_off)
    line = np.repeat(np.arange(len(per_line), dtype=np.int64), per_line)
    pairs = np.unique(line << 32 | np.asarray(labels, dtype=np.int64))
    pair_line, pair_label = pairs >> 32, pairs & 0xFFFFFFFF
    return (pair_line, pair_label, np.bincount(pair_label, minlength=n_labels),
            np.bincount(pair_line, minlength=len(per_line)).astype(np.float64))


def normalised(weights, label_off, labels):
    """``weights`` times the constant that makes the mean, over the
    labelled lines, of a line's mean label weight 1.  Weights are
    relative: the embedding model's rate and the linear model's ``-C``
    keep their meaning, and a weighted run trains about as many steps as
    an unweighted one (``classify/kernels``)."""
    pair_line, pair_label, _, distinct = _pairs(label_off, labels, len(weights))
    n_lines = int((distinct > 0).sum())
    if n_lines == 0:
        return weights
    mean = float(np.sum(weights[pair_label] / distinct[pair_line])) / n_lines
    if abs(mean - 1.0) < 1e-12:  # rounding of a sum that is 1: weights of 1 stay 1
        return weights
    return weights / mean


def balanced_weights(label_off, labels, n_labels):
    """``-weightBalanced``'s weights (module docstring) of the lines
    ``label_off``/``labels``; a label no line carries gets 1."""
    _, _, lines_with, _ = _pairs(label_off, labels, n_labels)
    seen = lines_with > 0
    inverse = np.ones(n_labels, dtype=np.float64)
    inverse[seen] = 1.0 / lines_with[seen]
    weights = normalised(inverse, label_off, labels)
    weights[~seen] = 1.0
    return weights


def read_weights(path, names, prefix):
    """``-labelWeights``: one ``label weight`` pair a line (blank lines
    skipped), the label with or without ``prefix``; labels the file leaves
    out weigh 1 (before :func:`normalised`); labels no training line has
    are warned about once.
    Malformed lines, weights that are not finite and > 0, and a label
    given twice are refused with ``FILE:LINE``."""
    name = display_name(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise TreexcError(f"-labelWeights {name}: cannot read it ({e.strerror or e})") \
            from None
    index = {label: i for i, label in enumerate(names)}
    weights = np.ones(len(names), dtype=np.float64)
    given = {}
    unknown, first_unknown = 0, None
    for number, raw in enumerate(data.split(b"\n"), 1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise TreexcError(f"{name}:{number}: not UTF-8 text") from None
        fields = text.split()
        if not fields:
            continue
        if len(fields) != 2:
            raise TreexcError(f"{name}:{number}: expected 'label weight', got "
                              f"{len(fields)} field(s)")
        label, value = fields
        try:
            weight = float(value)
        except ValueError:
            raise TreexcError(f"{name}:{number}: weight {value!r} is not a number") from None
        if not math.isfinite(weight) or weight <= 0.0:
            raise TreexcError(f"{name}:{number}: weight {value} must be finite and > 0")
        i = index.get(label)
        if i is None:  # the other spelling: with the prefix, or without it
            other = label[len(prefix):] if label.startswith(prefix) else prefix + label
            i = index.get(other)
        key = label if i is None else i
        if key in given:
            raise TreexcError(f"{name}:{number}: label {label} given twice (first on line "
                              f"{given[key]})")
        given[key] = number
        if i is None:
            unknown += 1
            first_unknown = first_unknown or (label, number)
            continue
        weights[i] = weight
    if unknown:
        label, number = first_unknown
        warn(f"{name}: {unknown} label(s) no training line has, ignored (first: {label}, "
             f"line {number})")
    return weights
