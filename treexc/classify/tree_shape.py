"""The shape and the reading of a classifier's output tree, chosen from
the training labels' counts when the options leave them open: the learned
tree's default arity, the wide root for even, many-lined labels, and
whether a tree softmax answers with its two readings (``-scoring auto``),
and how many times a learned tree is rebuilt (``-treeUpdates -1``).
``classify.options`` applies these rules; they live here, apart from the
options themselves, with the measurements behind them.
"""

import math
import statistics

# The default output layer, -loss auto: the exact flat softmax up to this many
# labels, where it is cheap, and the learned tree above, where it pays.  At
# well-trained flags the flat softmax was the more accurate of the two at
# every label count measured (gutenberg_books cut to its 100 to 2,972 most
# frequent labels: 0.04-0.06 P@1 better) for 1.6-8x the training time; up to
# 4,096 labels treexc's softmax still trains faster than fastText's default
# (its softmax).  docs/results/trees.md has the figures.
AUTO_SOFTMAX_MAX_LABELS = 4096
# The learned tree's default shape when its labels are about equally frequent
# and each has many lines (a "wide root"): two levels, the root's children
# holding up to a fifth of the labels each, so an example scores about a
# fifth of the flat softmax's rows (never more than the flat softmax -loss
# auto trains).  A tree node's classifier is linear in the hidden vector, and
# a root slot of sqrt(labels) labels that each have their own direction is
# scored by one row: where labels are many-lined and no frequency structure
# puts some alone near the root, wider groups win.  "About equally frequent":
# evenness = exp(entropy of the label counts) / labels; "many lines": the
# median label count.  Test P@1, the default sqrt(labels) tree -> the wide
# root (one thread, seeds 0 and 1): gutenberg_books (evenness 0.97, median
# 79) 0.272, 0.273 -> 0.289, 0.294; its training file cut to a quarter (0.95,
# 19; seed 0) 0.090 -> 0.097; a book-of-a-paragraph set from gutenberg_lm
# (0.98, 150; not used to choose) 0.381, 0.380 -> 0.401, 0.403.  Not where
# either is low: wn_hypernym's 1,000 commonest labels (0.68, 19) +0.007,
# within noise, for 1.6 times the time; wn_hypernym (0.52, 4) -0.018; cooking
# (0.36, 14) -0.012; 3,000 next words (0.10, 56) level at 5x the time.
# Thresholds: the geometric middles of the nearest sets either side (0.68
# and 0.95; 4 and 19).  docs/trees.md, "A wide root for even, many-lined labels".
WIDE_ROOT_MIN_EVENNESS, WIDE_ROOT_MIN_MEDIAN_COUNT, WIDE_ROOT_SHARE = 0.8, 9, 5
# A model file's "scoring" for a tree softmax that answers with the geometric
# mean of its two readings (loss.topk.mean_top_k: the tree's probabilities and
# the flat softmax of its path scores), -scoring auto's choice for the tree
# softmax on the wide root's labels (even and many-lined): there a root slot's
# one row cannot say how well the input fits the labels under it, and the
# flat reading's sum over the path brings the group's own rows into the
# answer.  gutenberg_books, test P@1, tree -> mean: 595-ary wide root at -dim
# 100 0.2995 -> 0.3130 (the flat softmax: 0.316), at -dim 50 0.2917 -> 0.3027;
# 55-ary 0.2707 -> 0.2791; where labels are uneven or few-lined it loses
# (wn_hypernym 0.311 -> 0.291, cooking 0.578 -> 0.509), and on a binary tree,
# whose nodes are one sigmoid row each, so that no path sums to a logit
# (agnews_testonly's 4 labels, fixed Huffman tree: 0.847 -> 0.797).
# docs/trees.md, "Two readings of one tree".
SCORING_MEAN = "mean"
# ... up to this many labels: the mean scores every node of the tree, a flat
# softmax's work, at prediction; as far as the wide root keeps to a fifth of
# the labels a group (its arity is capped at AUTO_SOFTMAX_MAX_LABELS) that
# is the cost of a flat softmax -loss auto would have trained.  Above it the
# tree answers by its own probabilities, at a tree's cost.
SCORING_MEAN_MAX_LABELS = WIDE_ROOT_SHARE * AUTO_SOFTMAX_MAX_LABELS


# -treeUpdates -1 (auto): how many times a learned tree is rebuilt in the
# first half of training.  A tree softmax: once per STATS_PER_REBUILD lines a
# label in that half (each line adds statistics for one label), at least
# once, at most the paper's 50.  A rebuild on a few lines a label moves labels
# by noise into slots whose rows learnt others, and short runs do not recover:
# test P@1 at the default flags (5 epochs), the rule against 50 rebuilds,
# medians of 3-5 seeds: cooking 0.562 / 0.543 (1 rebuild), wn_hypernym 0.285 /
# 0.274 (1), debian_tags 0.766 / 0.763 (3), and on sets not used to choose:
# gutenberg_books 0.140 / 0.125 (6), its every fourth line 0.027 / 0.016 (1;
# its Huffman tree 0.021), the paragraphs' books 0.272 / 0.264 (11), 500K
# next words 0.102 / 0.102 (1).  At the grids' flags: cooking at 25 epochs
# 0.601 / 0.584 (7), gutenberg_books at 20 0.303 / 0.300 (24), but
# wn_hypernym at 10 0.298 / 0.306 (1).  10 lines a label instead of 30 won
# that one back and lost on cooking and the books.  docs/results/trees.md,
# "How many rebuilds".  A probabilistic label tree is rebuilt once, at the
# middle, from the whole first half's statistics: cooking, seeds 1-10, P@1
# median 0.625 against 0.608 with 50 rebuilds and 0.618 for the Huffman tree
# it starts from (docs/trees.md, "One rebuild, at the middle of training").
TREE_UPDATES, PLT_TREE_UPDATES = 50, 1
STATS_PER_REBUILD = 30


def default_tree_arity(n_labels, depth=2):
    """Arity of a learned tree when ``-arity`` is not given: the least M
    with M^depth >= the number of labels (``depth`` = ``-depth`` when given,
    else 2: about sqrt(labels)).  A node's classifier is linear in the
    hidden vector: at well-trained flags two wide levels beat a deep 20-ary
    tree (gutenberg_books +0.02 P@1 on valid) and tied on wn_hypernym;
    wider than sqrt(labels) gained nothing but on even, many-lined labels
    (:func:`wide_root_arity`; docs/trees.md)."""
    depth = min(depth, 62)  # 2^62 leaves hold any label count (and -depth 2^31 stays cheap)
    arity = max(2, int(max(n_labels, 1) ** (1.0 / depth)) - 1)
    while arity ** depth < n_labels:
        arity += 1
    return arity


def learned_tree_arity(n_labels, depth=2):
    """A learned tree's arity when ``-arity`` is not given: that of
    :func:`default_tree_arity`, but all the labels (a tree of one node: the
    flat softmax) where that tree would save nothing, its paths crossing as
    many slots as the labels: ``levels x M >= labels``, ``levels`` the
    fewest that hold them (up to 6 labels at ``-depth 2``).  A one-node
    tree has nothing to learn (:func:`tree_updates`); on agnews_testonly's
    4 labels it is the more accurate (test P@1 medians of seeds 0-19 at the
    default flags: 0.849 against the binary learned tree's 0.842 and the
    binary Huffman tree's 0.847)."""
    arity = default_tree_arity(n_labels, depth)
    levels, held = 1, arity
    while held < n_labels:
        levels, held = levels + 1, held * arity
    return max(n_labels, 2) if levels * arity >= n_labels else arity


def label_spread(label_counts):
    """``(evenness, median)`` of the label counts: exp(entropy of their
    distribution) / labels (1.0 when every label is as frequent) and the
    median count."""
    counts = [c for c in label_counts if c > 0]
    if not counts:
        return 0.0, 0.0
    total = float(sum(counts))
    entropy = -sum(c / total * math.log(c / total) for c in counts)
    return math.exp(entropy) / len(counts), float(statistics.median(counts))


def even_and_many_lined(spread):
    """Whether labels of this :func:`label_spread` are about equally frequent
    and many-lined: the wide root's labels, and those a tree softmax answers
    with its two readings (:data:`SCORING_MEAN`)."""
    evenness, median = spread
    return evenness >= WIDE_ROOT_MIN_EVENNESS and median >= WIDE_ROOT_MIN_MEDIAN_COUNT


def wide_root_arity(label_counts, spread=None):
    """The arity of a learned tree's wide root (two levels, see
    :data:`WIDE_ROOT_SHARE`) for these label counts (``spread``: their
    :func:`label_spread`, if already known), or 0 where the default
    ``sqrt(labels)`` tree is the better one (or as wide: up to 25 labels)."""
    if not even_and_many_lined(spread or label_spread(label_counts)):
        return 0
    n_labels = len(label_counts)
    wide = min(-(-n_labels // WIDE_ROOT_SHARE), AUTO_SOFTMAX_MAX_LABELS)
    return wide if wide > default_tree_arity(n_labels, 2) else 0


def tree_updates(loss, n_labels, epochs, labels_per_line=1.0, label_counts=None, arity=0):
    """``-treeUpdates -1``'s count: none for a tree of one node (``arity``
    at least the labels); :data:`PLT_TREE_UPDATES` for a
    probabilistic label tree; for a tree softmax (``loss`` "tree") one
    rebuild per :data:`STATS_PER_REBUILD` lines a label in the first half of
    training (the labelled lines: label occurrences over labels a line), at
    least 1, at most :data:`TREE_UPDATES`; :data:`TREE_UPDATES` where the
    labels were not counted, and for the other losses, which learn no tree
    (what their model files have always saved)."""
    if loss in ("tree", "plt") and 0 < n_labels <= arity:
        return 0  # one node: AssignLabels could only reorder its slots
    if loss == "plt":
        return PLT_TREE_UPDATES
    if loss != "tree" or label_counts is None:
        return TREE_UPDATES
    lines = math.fsum(label_counts) / max(labels_per_line, 1.0)
    per_label = lines * epochs / 2 / max(n_labels, 1)
    return int(min(TREE_UPDATES, max(1, per_label // STATS_PER_REBUILD)))
