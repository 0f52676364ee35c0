"""The default learning rate of ``treexc supervised`` (``-lr 0``), chosen
from the training labels' counts, and how often it is halved when training
diverges (``classify.training``).  The measurements behind both rates are
in docs/results/classify.md, "The default learning rate"."""

from .tree_shape import label_spread

# -lr 0 (the default): this rate, halved and training started again while it
# diverges (classify.training).  fastText's 0.1 under-trains with its own
# 5 epochs: valid P@1 at the default flags otherwise, -lr 0.1 / 0.25 / 0.5 /
# 1.0: cooking 0.364 / 0.575 / 0.645 / 0.509, debian_tags 0.771 / 0.820 /
# 0.824 / 0.824, agnews_testonly 0.714 / 0.867 / 0.884 / 0.874, wn_hypernym
# 0.077 / 0.186 / 0.271 / 0.343, the book-of-a-paragraph set 0.046 / 0.125 /
# 0.238 / 0.365; 2.0 diverged on three of the five.  0.5 is the best or
# within 0.01 of it on three and 0.07-0.13 short of 1.0 on two, where 1.0
# loses 0.14 on cooking.  Confirmed on sets not used to choose it:
# docs/results/classify.md, "The default learning rate".
DEFAULT_LR = 0.5
# ... halved at most this many times: past 0.5 / 2^5 = 0.016 a run that still
# diverges has another cause (e.g. -pretrainedVectors of huge values)
DEFAULT_LR_HALVINGS = 5
# ... but this rate (fastText's) where the labels are Zipf-distributed, as
# words are: evenness (exp(entropy of the label counts) / labels) below
# ZIPF_MAX_EVENNESS.  There a few labels take most lines (the ten commonest
# words 30% of the next word's), P@1 rests on them, and their rows move
# fastest: every output layer trains best at 0.1.  Test P@1, 0.1 against
# 0.5: the next word (evenness 0.03) 0.1067 / 0.1018 at the default flags,
# 0.167 / 0.145 with -wordNgrams 2 (every output layer alike), its 3,000
# commonest words (0.096; the flat softmax) 0.1187 / 0.1161; and not used
# to choose: its inputs 64 words long instead of 8 (0.03) 0.0883 / 0.0869,
# five next words a line (multi-label, 0.015) 0.319 / diverged (0.315 at
# 0.25).  Every other set's evenness is 0.146 (debian_tags) or more; the
# threshold is about the geometric middle of 0.146 and the next word's
# highest, 0.096 (0.118; counts falling as 1/rank cross it at about 3,000
# labels).  A proxy, not the cause: the next word's 1,000 commonest words
# (0.170) also train better at 0.1 (0.1316 / 0.1266), debian_tags (0.146)
# does not.
ZIPF_LR, ZIPF_MAX_EVENNESS = 0.1, 0.12


def default_rate(label_counts):
    """``(rate, why)``: the rate ``-lr 0`` trains at for these label counts
    (occurrences in the training file), and the line saying why where it is
    not :data:`DEFAULT_LR` (else None)."""
    evenness, _ = label_spread(label_counts)
    if evenness >= ZIPF_MAX_EVENNESS:
        return DEFAULT_LR, None
    return ZIPF_LR, (f"learning rate: {ZIPF_LR:g} (-lr 0: Zipf-distributed labels, evenness "
                     f"{evenness:.3f} < {ZIPF_MAX_EVENNESS}; {DEFAULT_LR:g} otherwise)")
