"""The label weight flags both classifier families declare (``-labelWeights``,
``-weightBalanced``), written once; what they compute is
``text/label_weights.py``'s.  Saved with the model only when given, so the
files of runs without them stay byte for byte what they were.

This module imports neither numpy nor Numba: ``treexc --help`` reads it.
"""

from .errors import TreexcError
from .options import IF_SET, option


def LABEL_WEIGHTS_OPTION():  # noqa: N802 (a field declaration, as the dataclasses read)
    return option("", "file of 'label weight' lines (the label with or without the -label "
                  "prefix; weights finite and > 0, relative: normalised to a mean line weight of 1; "
                  "labels left out weigh 1): each example's loss scaled by its labels' "
                  "weights (docs/weights.md); prediction is unchanged", saved=IF_SET)


def WEIGHT_BALANCED_OPTION():  # noqa: N802
    return option(False, "label weights inverse to the labels' line counts, w = c / n_l, "
                  "c making the mean weight over training lines 1 (scikit-learn's "
                  "class_weight='balanced' on single-label lines; docs/weights.md)",
                  saved=IF_SET)


def check_weight_flags(args):
    """One of the two flags at most: both would define the weights."""
    if args.labelWeights and args.weightBalanced:
        raise TreexcError("-labelWeights and -weightBalanced both define the label weights: "
                          "give one")
