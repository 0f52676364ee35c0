"""The rules of the classifier's plan (``classify/plan.py``), each with its
constants and the measurements that keep it: one table, :data:`RULES`,
from which docs/defaults.md is written (``treexc/cli/defaults_doc.py``),
and what the rules read of the labels (``planning.label_spread``: evenness
and the median count; the learned tree's default arity).
"""

from ..loss.registry import loss
from ..options import TREES
from ..planning import EVEN_LABELS_MIN_EVENNESS, Rule, label_spread


# -- constants (RULES below says what each rule measured) -----------------------
AUTO_PLT_MIN_LABELS_PER_LINE = 1.5
# -loss auto's flat softmax: few labels trained long (rate x epochs, the rate -lr 0 trains at)
AUTO_SOFTMAX_MAX_LABELS, AUTO_SOFTMAX_MIN_BUDGET = 548, 20
# ... sooner and over more of them where labels are uneven (evenness from
# AUTO_SOFTMAX_MIN_EVENNESS to below WIDE_ROOT_MIN_EVENNESS); both only on many-lined
# labels (a median count of WIDE_ROOT_MIN_MEDIAN_COUNT or more)
AUTO_SOFTMAX_MIN_EVENNESS = 0.34
AUTO_SOFTMAX_UNEVEN_MAX_LABELS, AUTO_SOFTMAX_UNEVEN_MIN_BUDGET = 1000, 10
# the widest flat softmax a rule trains (a wide root, autotune's softmax trials): up to it
# treexc's softmax still trains faster than fastText's
FLAT_SOFTMAX_MAX_LABELS = 4096
WIDE_ROOT_MIN_EVENNESS = EVEN_LABELS_MIN_EVENNESS
WIDE_ROOT_MIN_MEDIAN_COUNT, WIDE_ROOT_SHARE = 9, 5
SCORING_MEAN = "mean"  # a model file's "scoring": the geometric mean of the two readings
SCORING_MEAN_MAX_LABELS = WIDE_ROOT_SHARE * FLAT_SOFTMAX_MAX_LABELS
SCORING_MEAN_MIN_BUDGET = 10  # rate-epochs (-lr x -epoch) a wide root trains before the mean
# from this median count a wide root gains only when trained SCORING_MEAN_MIN_BUDGET rate-epochs
WIDE_ROOT_BUDGET_MEDIAN = 39
TREE_UPDATES, PLT_TREE_UPDATES = 50, 1
STATS_PER_REBUILD = 30
MASS_SLACK = 1.0       # -depth -1: a subtree holds at most MASS_SLACK/arity of the parent's mass
LEARNED_LR_HOLD = 0.5  # a learned tree: the rate constant for this fraction of training
DEFAULT_LR, ZIPF_LR, ZIPF_MAX_EVENNESS = 0.5, 0.1, 0.12
DEFAULT_LR_HALVINGS = 5
UNUSED_ARITY = 20      # losses without a tree of arity: what their model files have saved


def usual_tree(loss_name):
    """The -tree a loss means when none is given: ``learned`` for a tree
    rebuilt while training, else its starting tree's name."""
    entry = loss(loss_name)
    return "learned" if entry.learned and entry.learned_by_default else entry.tree


def takes_tree(loss_name):
    """Whether ``-tree`` can change the output tree of ``loss_name``
    (``auto``: whichever loss it chooses)."""
    return loss_name == "auto" or usual_tree(loss_name) in TREES


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
    tree has nothing to learn (rule ``one-node``); on agnews_testonly's
    4 labels it is the more accurate (test P@1 medians of seeds 0-19 at the
    default flags: 0.849 against the binary learned tree's 0.842 and the
    binary Huffman tree's 0.847)."""
    arity = default_tree_arity(n_labels, depth)
    levels, held = 1, arity
    while held < n_labels:
        levels, held = levels + 1, held * arity
    return max(n_labels, 2) if levels * arity >= n_labels else arity


def even_and_many_lined(spread):
    """Whether labels of this :func:`label_spread` are about equally frequent
    and many-lined: the wide root's labels, and those a tree softmax answers
    with its two readings (:data:`SCORING_MEAN`)."""
    evenness, median = spread
    return evenness >= WIDE_ROOT_MIN_EVENNESS and median >= WIDE_ROOT_MIN_MEDIAN_COUNT


def wide_root_arity(label_counts, budget, spread=None):
    """The arity of a learned tree's wide root (two levels, see
    :data:`WIDE_ROOT_SHARE`) for these label counts trained ``budget``
    rate-epochs (``spread``: their :func:`label_spread`, if already
    known), or 0 where the default ``sqrt(labels)`` tree is the better one
    (or as wide: up to 25 labels; or as good and cheaper: a median count
    from :data:`WIDE_ROOT_BUDGET_MEDIAN` trained under
    :data:`SCORING_MEAN_MIN_BUDGET` rate-epochs)."""
    spread = spread or label_spread(label_counts)
    if not even_and_many_lined(spread):
        return 0
    if spread[1] >= WIDE_ROOT_BUDGET_MEDIAN and budget < SCORING_MEAN_MIN_BUDGET:
        return 0
    n_labels = len(label_counts)
    wide = min(-(-n_labels // WIDE_ROOT_SHARE), FLAT_SOFTMAX_MAX_LABELS)
    return wide if wide > default_tree_arity(n_labels, 2) else 0


# measured by benchmarks/ablate_rules.py; docs/defaults.md, "Ablations"
TABLE2_EVIDENCE = (
    "The mass cap was chosen for the default sqrt(labels)-ary tree (docs/trees.md); under "
    "a given narrower arity over equally frequent labels, which give it no frequency "
    "structure to use, it grows deep trees. Test P@1, medians of seeds 0-2, -arity 20 "
    "-dim 50 -lr 0.5: gutenberg_books (evenness 0.97, -epoch 5, the paper's Table 2 "
    "flags): no limit with the mass cap 0.101, the least depth (3) 0.133 (fastText's "
    "softmax 0.116 in the same run, seed 0); wn_hypernym (evenness 0.52, -epoch 10), "
    "where it does not fire: the mass cap 0.285, the least depth (4) 0.278. "
    "docs/defaults.md, \"Ablations\".")

# measured by benchmarks/ablate_label_counts.py and ablate_rules.py; docs/defaults.md,
# "Ablations"
AUTO_SOFTMAX_EVIDENCE = (
    "The flat softmax gains on the learned tree only from long training over few labels. "
    "Test P@1, medians of 3 seeds, softmax / tree: gutenberg_books cut to its 300 most "
    "frequent labels at -lr 1 -epoch 20 (20 rate-epochs) 0.468 / 0.447 (1.4x the time); "
    "not used to choose: wn_hypernym cut to 300 labels 0.737 / 0.680 (2x; uneven labels, "
    "evenness 0.74: auto-softmax-uneven fires there now). At 1,000 "
    "labels of gutenberg_books the tree leads (tree / softmax 0.388 / 0.376) in less than "
    "half the time, and on all 2,972 the two are level (docs/results/trees.md's grid: "
    "0.3101 / 0.3207 at -dim 100, 0.3072 / 0.3006 at 50) for 10x: the label limit is the "
    "geometric middle of 300 and 1,000. The budget: the least measured where the softmax "
    "led; at 10 rate-epochs (the default rate, -epoch 20) the two are level on "
    "gutenberg_books (auto-tree). Many-lined labels only: on cooking's single-label lines "
    "(462 labels, a median of 3 lines a label; not used to choose the rest) the tree led at "
    "20 rate-epochs on every seed (tree / softmax 0.339 / 0.307), so a median under "
    "WIDE_ROOT_MIN_MEDIAN_COUNT (the wide root's many-lined) keeps the tree; the sets where "
    "the softmax led have medians of 39 (wn_hypernym's 300) and 86 (gutenberg_books' 300). "
    "docs/defaults.md, \"Ablations\".")
AUTO_SOFTMAX_UNEVEN_EVIDENCE = (
    "Where labels are uneven the learned tree is one of the mass cap, not a wide root, and "
    "it stops gaining from more training sooner (wn_hypernym's 1,000 labels: 0.551, 0.573, "
    "0.559 at -epoch 5, 10, 20) while the softmax still gains. Test P@1, medians of 3 "
    "seeds, softmax / tree, at 10 rate-epochs (the default rate, -epoch 20): wn_hypernym "
    "cut to 1,000 labels (evenness 0.67, median 19) 0.602 / 0.559 (5x the time), to 300 "
    "(0.74, 39) 0.725 / 0.686 (2x the CPU); at 5 rate-epochs level (1,000 labels 0.580 / "
    "0.573 for 3.3x the CPU): the budget is the least measured where the softmax led. The "
    "label limit: the most measured where it led. The evenness floor: the geometric middle "
    "of wn_hypernym's 1,000 (0.67) and the 1,000 commonest next words (0.17), where at 10 "
    "rate-epochs the tree was no worse (softmax / tree 0.090 / 0.093) for a ninth of the "
    "CPU (18 / 163 s). Not used to "
    "choose: 900 next words (the 1,000 commonest less their 100 commonest; evenness 0.74, "
    "median 43) at -epoch 20 0.032 / 0.027, higher on every seed, for 6x the CPU (29.6 / "
    "4.9 s). Few-lined labels keep the tree (auto-softmax): cooking's single-label "
    "lines (evenness 0.42, median 3) at -epoch 20 tree / softmax 0.323 / 0.292. "
    "docs/defaults.md, \"Ablations\".")
AUTO_TREE_EVIDENCE = (
    "At the embedding model's defaults (-epoch 5, 2.5 rate-epochs) the learned tree scored "
    "above the flat softmax at every label count measured, 10 to 2,972 labels of "
    "gutenberg_books (0.03-0.08 P@1; the whole set 0.144 / 0.117 in half the time), and at "
    "-epoch 10 (300 labels 0.343 / 0.298; 1,000 0.297 / 0.257); at -epoch 20 "
    "level (300 labels 0.416 / 0.422; 1,000 0.351 / 0.350) in 0.8x and 0.4x the "
    "time. Not used to choose, at the defaults: wn_hypernym cut to 300 labels 0.670 / "
    "0.622, to 1,000 0.551 / 0.443; all of wn_hypernym (8,737 labels) 0.280 / 0.203 in a "
    "tenth of the time; cooking's single-label lines 0.290 / 0.205; the 1,000 commonest "
    "next words level (0.119 / 0.122) in a sixth of the CPU. "
    "docs/defaults.md, \"Ablations\".")

# measured by benchmarks/ablate_readings.py; docs/defaults.md, "Ablations"
SCORING_MEAN_EVIDENCE = (
    "There a root slot's one row cannot say how well the input fits the labels under it; "
    "the flat reading brings the group's own rows into the answer. gutenberg_books, test "
    "P@1, tree -> mean, at -lr 1 -epoch 20 (20 rate-epochs): 595-ary wide root at -dim 100 "
    "0.2995 -> 0.3130 (the flat softmax: 0.316), at -dim 50 0.2917 -> 0.3027; 55-ary "
    "0.2707 -> 0.2791; its every fourth line 0.0951 -> 0.0986, the paragraphs' books 0.3992 "
    "-> 0.4041; where labels are uneven or few-lined it loses (wn_hypernym 0.311 -> 0.291, "
    "cooking 0.578 -> 0.509), and on a binary tree (agnews_testonly, 0.847 -> 0.797). "
    "docs/trees.md, \"Two readings of one tree\". On a wide root it gains only from longer "
    "training: test P@1, the same weights read both ways, tree / mean, medians of 3 seeds, "
    "one thread, the defaults' -dim 100 and rate 0.5: gutenberg_books at -epoch 5 (2.5 "
    "rate-epochs) 0.144 / 0.140 and at -epoch 10 (5) 0.234 / 0.232 (below on every seed), "
    "at -epoch 20 (10) 0.274 / 0.279 (above on every seed); its every fourth line 0.0284 / "
    "0.0271, 0.0595 / 0.0566 (below on every seed), 0.0798 / 0.0798 (not below on any "
    "seed); the paragraphs' books at -epoch 5 0.278 / 0.276. SCORING_MEAN_MIN_BUDGET: the "
    "least "
    "budget measured where the mean led on gutenberg_books and not below on its every "
    "fourth line. Other shapes gain at the defaults' budget, so the condition is the wide "
    "root's: Table 2's 20-ary tree of depth 3 on gutenberg_books (-lr 0.5 -epoch 5) 0.123 "
    "/ 0.133 at -dim 50 and 0.139 / 0.147 at -dim 100 (above on every seed); the wide "
    "root's loss there is not -dim's (the every fourth line at -dim 50: 0.0288 / 0.0275). "
    "docs/defaults.md, "
    "\"scoring-mean by training budget\".")

RULES = (
    Rule("auto-plt", "loss", "-loss auto and lines have AUTO_PLT_MIN_LABELS_PER_LINE labels "
         "or more on average", "plt (with the tree -tree names)",
         (("AUTO_PLT_MIN_LABELS_PER_LINE", AUTO_PLT_MIN_LABELS_PER_LINE),),
         "Lines with several labels are not exclusive: a probabilistic label tree estimates "
         "each label's own probability (what P@k ranks by) where the softmax estimates that "
         "of the one label drawn per update. cooking (2.3 labels a line) and debian_tags "
         "(3.7) gain 0.10-0.18 P@1 at the default flags and 0.03-0.06 at tuned ones; "
         "single-label sets are at 1.0 (wn_hypernym 1.02). docs/results/trees.md, "
         "\"The default output layer against fastText on multi-label data\"."),
    Rule("auto-arity-flag", "loss", "-loss auto and -arity given", "tree", (),
         "An arity asks for a tree; nothing measured."),
    Rule("auto-softmax", "loss", "-loss auto, single-label, labels not uneven (evenness "
         "below AUTO_SOFTMAX_MIN_EVENNESS or from WIDE_ROOT_MIN_EVENNESS) and many-lined "
         "(median count >= WIDE_ROOT_MIN_MEDIAN_COUNT), at most AUTO_SOFTMAX_MAX_LABELS "
         "labels, trained at least AUTO_SOFTMAX_MIN_BUDGET rate-epochs (the rate -lr 0 "
         "trains at, or -lr, times -epoch)", "softmax",
         (("AUTO_SOFTMAX_MAX_LABELS", AUTO_SOFTMAX_MAX_LABELS),
          ("AUTO_SOFTMAX_MIN_BUDGET", AUTO_SOFTMAX_MIN_BUDGET),
          ("AUTO_SOFTMAX_MIN_EVENNESS", AUTO_SOFTMAX_MIN_EVENNESS),
          ("WIDE_ROOT_MIN_EVENNESS", WIDE_ROOT_MIN_EVENNESS),
          ("WIDE_ROOT_MIN_MEDIAN_COUNT", WIDE_ROOT_MIN_MEDIAN_COUNT)), AUTO_SOFTMAX_EVIDENCE),
    Rule("auto-softmax-uneven", "loss", "-loss auto, single-label, labels uneven (evenness "
         "from AUTO_SOFTMAX_MIN_EVENNESS to below WIDE_ROOT_MIN_EVENNESS) and many-lined "
         "(median count >= WIDE_ROOT_MIN_MEDIAN_COUNT), at most "
         "AUTO_SOFTMAX_UNEVEN_MAX_LABELS labels, trained at least "
         "AUTO_SOFTMAX_UNEVEN_MIN_BUDGET rate-epochs", "softmax",
         (("AUTO_SOFTMAX_MIN_EVENNESS", AUTO_SOFTMAX_MIN_EVENNESS),
          ("WIDE_ROOT_MIN_EVENNESS", WIDE_ROOT_MIN_EVENNESS),
          ("AUTO_SOFTMAX_UNEVEN_MAX_LABELS", AUTO_SOFTMAX_UNEVEN_MAX_LABELS),
          ("AUTO_SOFTMAX_UNEVEN_MIN_BUDGET", AUTO_SOFTMAX_UNEVEN_MIN_BUDGET),
          ("WIDE_ROOT_MIN_MEDIAN_COUNT", WIDE_ROOT_MIN_MEDIAN_COUNT)),
         AUTO_SOFTMAX_UNEVEN_EVIDENCE),
    Rule("auto-tree", "loss", "-loss auto, single-label, otherwise (more labels, a shorter "
         "training, or few-lined labels)", "tree",
         (("AUTO_SOFTMAX_MAX_LABELS", AUTO_SOFTMAX_MAX_LABELS),
          ("AUTO_SOFTMAX_MIN_BUDGET", AUTO_SOFTMAX_MIN_BUDGET),
          ("AUTO_SOFTMAX_UNEVEN_MAX_LABELS", AUTO_SOFTMAX_UNEVEN_MAX_LABELS),
          ("AUTO_SOFTMAX_UNEVEN_MIN_BUDGET", AUTO_SOFTMAX_UNEVEN_MIN_BUDGET)),
         AUTO_TREE_EVIDENCE),
    Rule("loss-own", "tree, arity", "-tree (or -arity, for a loss without a learned tree) "
         "not given", "the loss's own tree ('' in model files); hs: arity 2; losses "
         "without a tree of arity: UNUSED_ARITY", (("UNUSED_ARITY", UNUSED_ARITY),),
         "fastText's hs is binary; the other value is unused (what model files save)."),
    Rule("wide-root", "arity, depth", "-loss tree (spread_shaped), neither -arity nor "
         "-depth given, evenness >= WIDE_ROOT_MIN_EVENNESS, median label count >= "
         "WIDE_ROOT_MIN_MEDIAN_COUNT, and labels/WIDE_ROOT_SHARE wider than sqrt(labels); "
         "from a median of WIDE_ROOT_BUDGET_MEDIAN, only trained SCORING_MEAN_MIN_BUDGET "
         "rate-epochs or more (the rate -lr 0 trains at, or -lr, times -epoch)",
         "arity ceil(labels / WIDE_ROOT_SHARE) (at most FLAT_SOFTMAX_MAX_LABELS), depth 2",
         (("WIDE_ROOT_MIN_EVENNESS", WIDE_ROOT_MIN_EVENNESS),
          ("WIDE_ROOT_MIN_MEDIAN_COUNT", WIDE_ROOT_MIN_MEDIAN_COUNT),
          ("WIDE_ROOT_SHARE", WIDE_ROOT_SHARE), ("FLAT_SOFTMAX_MAX_LABELS",
                                                  FLAT_SOFTMAX_MAX_LABELS),
          ("WIDE_ROOT_BUDGET_MEDIAN", WIDE_ROOT_BUDGET_MEDIAN),
          ("SCORING_MEAN_MIN_BUDGET", SCORING_MEAN_MIN_BUDGET)),
         "A node's classifier is linear in the hidden vector: where labels are many-lined and "
         "no frequency structure puts some alone near the root, wider groups win. Test P@1, "
         "the sqrt(labels) tree -> the wide root (one thread, seeds 0 and 1, -dim 50 -lr 1 "
         "-epoch 20): gutenberg_books (evenness 0.97, median 79) 0.272, 0.273 -> 0.289, 0.294; its "
         "training file cut to a quarter (0.95, 19; seed 0) 0.090 -> 0.097; a "
         "book-of-a-paragraph set from gutenberg_lm (0.98, 150; not used to choose) 0.381, "
         "0.380 -> 0.401, 0.403. Not where either is low: wn_hypernym's 1,000 commonest "
         "labels (0.68, 19) +0.007, within noise, for 1.6 times the time; wn_hypernym (0.52, "
         "4) -0.018; cooking (0.36, 14) -0.012; 3,000 next words (0.10, 56) level at 5x the "
         "time. Thresholds: the geometric middles of the nearest sets either side. "
         "docs/trees.md, \"A wide root for even, many-lined labels\". Many-lined labels "
         "need the longer training: at the embedding model's defaults (2.5 rate-epochs), "
         "test P@1, medians of 3 seeds, one thread, the wide root (the tree's reading) / "
         "the sqrt(labels) tree with the mass cap and the mean: gutenberg_books' every "
         "fourth line (median 19) 0.0284 / 0.0173 (above on every seed, 16.2 / 10.1 CPU s), "
         "but gutenberg_books (79) 0.144 / 0.145 (below on every seed, 33.8 / 17.1 CPU s) "
         "and the paragraphs' books (150; not used to choose) 0.278 / 0.281 (below on "
         "every seed, 14.6 / 13.2 CPU s); at 10 rate-epochs (-epoch 20) "
         "gutenberg_books 0.279 / 0.276 (above on two seeds, level on the third, for "
         "128.4 / 48.0 CPU s) (docs/defaults.md, \"wide-root by training budget: "
         "gutenberg_books\" and \"wide-root and scoring-mean at the embedding model's "
         "defaults\"). WIDE_ROOT_BUDGET_MEDIAN: the geometric middle of 19 and 79; the "
         "budget: the least measured where the wide root led on gutenberg_books (and "
         "where the mean reads it)."),
    Rule("learned-arity", "arity", "a learned tree (tree, plt), -arity not given, no wide "
         "root", "the least M with M^D >= labels, D = -depth or 2", (),
         "At well-trained flags two wide levels beat a deep 20-ary tree: gutenberg_books "
         "+0.02 P@1 on valid (docs/trees.md); wn_hypernym at the grid's flags (-lr 0.5 "
         "-epoch 10), test P@1, medians of 3 seeds, one thread, learned arity (94) / 20: "
         "-dim 50 0.298 / 0.284 (above on every seed), -dim 100 0.317 / 0.306 (above on two, "
         "level on the third), for 6.1 / 4.7 and 9.8 / 6.6 CPU s (docs/defaults.md, "
         "\"learned-arity at the well-trained flags\"). Wider than sqrt(labels) gained "
         "nothing but on even, many-lined labels (wide-root). At the embedding model's "
         "defaults (2.5 rate-epochs) the paper's 20-ary tree (the same loss) is level or "
         "just above it: learned arity / 20: cooking 0.622 / 0.629 and debian_tags 0.803 / "
         "0.807 (the PLT; 20 above on every seed, at about the same CPU seconds), "
         "wn_hypernym 0.281 / 0.283 (the tree softmax; 20 above on every seed, for 9.2 "
         "against 6.8 CPU s) (docs/defaults.md, \"learned-arity at the embedding model's "
         "defaults\"): 20 gains 0.002-0.007 at the defaults, learned-arity 0.011-0.014 "
         "at 5 rate-epochs, so the rule stays."),
    Rule("one-node", "arity, tree_updates", "a learned tree whose levels x M >= labels "
         "(up to 6 labels at depth 2)", "arity = labels (the flat softmax), no rebuilds", (),
         "A one-node tree saves nothing and has nothing to learn; on agnews_testonly's 4 "
         "labels it is the more accurate (test P@1 medians of seeds 0-19 at the default "
         "flags: 0.849 against the binary learned tree's 0.842 and the binary Huffman "
         "tree's 0.847)."),
    Rule("arity-clamp", "arity", "a tree's arity wider than its labels", "the label count "
         "(at least 2)", (), "Slots beyond the labels stay empty and each costs a row of "
         "weights and of AssignLabels' statistics (-arity 100000 over 732 labels took 1.6 "
         "GB); the tree built is the same less its empty slots."),
    Rule("depth-auto", "depth", "-depth not given (-1) and no rule above", "no depth limit; "
         "the starting tree the M-ary Huffman tree", (), "See mass-cap."),
    Rule("depth-fit-arity", "depth", "-loss tree (rebuilds by-lines), -arity given, neither "
         "-depth nor -massSlack, the tree learned, labels about equally frequent (evenness >= "
         "WIDE_ROOT_MIN_EVENNESS)", "the least depth D with arity^D >= labels (the labels "
         "dealt out evenly within it to start), no mass cap",
         (("WIDE_ROOT_MIN_EVENNESS", WIDE_ROOT_MIN_EVENNESS),), TABLE2_EVIDENCE),
    Rule("mass-cap", "mass_cap", "a tree rebuilt while training (a learned tree) at -depth "
         "-1", "a subtree of several labels holds at most MASS_SLACK/arity of its parent's "
         "label occurrences", (("MASS_SLACK", MASS_SLACK),),
         "Label frequency shapes depth as in a Huffman tree while the statistics shape the "
         "grouping (docs/trees.md). Test P@1 at the defaults (the learned tree of uneven "
         "labels), medians of 3 seeds, with / without (-massSlack 0: neither depth limit "
         "nor cap): wn_hypernym's 1,000 commonest labels 0.549 / 0.542 (higher on two seeds, "
         "equal on the third; 0.551 in an earlier run) at the same CPU (2.35 / 2.46 s); all "
         "of wn_hypernym 0.280 / 0.284 and "
         "the 1,000 commonest next words 0.119 / 0.120, within noise, the latter in less CPU "
         "(6.3 s, seed 2, against 9.1-9.3). Where level the cap is no dearer, so it stays. "
         "Under a given -arity 20 it held wn_hypernym's uneven labels better than the least "
         "depth (0.285 / 0.278); over even ones it grew deep trees (depth-fit-arity). "
         "docs/defaults.md, \"Ablations\"."),
    Rule("no-mass-cap", "mass_cap", "a depth given, or no tree rebuilt while training (a "
         "fixed tree; -loss plt's own Huffman tree)", "0: no cap", (),
         "A depth limit shapes the tree itself (-depth 0: neither limit nor cap); a tree "
         "not rebuilt has nothing for a cap to shape (cooking at the defaults, the PLT's "
         "Huffman tree: the same predictions with the cap and with -massSlack 0, seed 0, "
         "one thread)."),
    Rule("rebuilds-by-lines", "tree_updates", "-treeUpdates -1 and a tree softmax "
         "(rebuilds by-lines)", "one rebuild per STATS_PER_REBUILD lines a label in the "
         "first half of training, 1 to TREE_UPDATES",
         (("STATS_PER_REBUILD", STATS_PER_REBUILD), ("TREE_UPDATES", TREE_UPDATES)),
         "A rebuild on a few lines a label moves labels by noise into slots whose rows "
         "learnt others, and short runs do not recover: test P@1 at the default flags (5 "
         "epochs), the rule against 50 rebuilds, medians of 3-5 seeds: cooking 0.562 / "
         "0.543 (1 rebuild), wn_hypernym 0.285 / 0.274 (1), debian_tags 0.766 / 0.763 (3); "
         "not used to choose: gutenberg_books 0.140 / 0.125 (6), its every fourth line "
         "0.027 / 0.016 (1), the paragraphs' books 0.272 / 0.264 (11), 500K next words "
         "0.102 / 0.102 (1). At the grids' flags: cooking at 25 epochs 0.601 / 0.584 (7), "
         "gutenberg_books at 20 0.303 / 0.300 (24), but wn_hypernym at 10 0.298 / 0.306 "
         "(1)."),
    Rule("plt-once", "tree_updates", "-treeUpdates -1 and a learned PLT (rebuilds once)",
         "PLT_TREE_UPDATES", (("PLT_TREE_UPDATES", PLT_TREE_UPDATES),),
         "cooking, seeds 1-10, P@1 median 0.625 against 0.608 with 50 rebuilds and 0.618 "
         "for the Huffman tree it starts from (docs/trees.md, \"One rebuild, at the "
         "middle of training\")."),
    Rule("no-learned-tree", "tree_updates", "-treeUpdates -1 and no learned tree",
         "TREE_UPDATES (unused: what model files have always saved)", (), "Nothing to "
         "rebuild."),
    Rule("scoring-mean", "scoring", "-scoring auto, a learned tree softmax of arity above 2 "
         "and several nodes, labels even and many-lined (as wide-root), at most "
         "SCORING_MEAN_MAX_LABELS labels; a wide root only trained SCORING_MEAN_MIN_BUDGET "
         "rate-epochs or more (the rate -lr 0 trains at, or -lr, times -epoch)",
         "mean: the geometric mean of the tree's probabilities and the flat softmax of its "
         "path scores", (("SCORING_MEAN_MAX_LABELS", SCORING_MEAN_MAX_LABELS),
                         ("SCORING_MEAN_MIN_BUDGET", SCORING_MEAN_MIN_BUDGET)),
         SCORING_MEAN_EVIDENCE),
    Rule("scoring-mean-given", "scoring", "-scoring mean given over more than "
         "SCORING_MEAN_MAX_LABELS labels", "mean, as asked (said: it costs a flat softmax "
         "per prediction)", (("SCORING_MEAN_MAX_LABELS", SCORING_MEAN_MAX_LABELS),),
         "The mean scores every node of the tree."),
    Rule("scoring-tree", "scoring", "-scoring auto otherwise (a wide root trained under "
         "SCORING_MEAN_MIN_BUDGET rate-epochs among them)", "tree",
         (("SCORING_MEAN_MIN_BUDGET", SCORING_MEAN_MIN_BUDGET),),
         "The tree's own probabilities, at a tree's cost; where the mean does not gain, the "
         "cheaper reading (scoring-mean's figures)."),
    Rule("default-rate", "lr", "-lr 0, labels not Zipf-distributed (evenness >= "
         "ZIPF_MAX_EVENNESS)", "DEFAULT_LR", (("DEFAULT_LR", DEFAULT_LR),),
         "fastText's 0.1 under-trains with its own 5 epochs: valid P@1 at the default "
         "flags, -lr 0.1 / 0.25 / 0.5 / 1.0: cooking 0.364 / 0.575 / 0.645 / 0.509, "
         "debian_tags 0.771 / 0.820 / 0.824 / 0.824, agnews_testonly 0.714 / 0.867 / 0.884 "
         "/ 0.874, wn_hypernym 0.077 / 0.186 / 0.271 / 0.343, the book-of-a-paragraph set "
         "0.046 / 0.125 / 0.238 / 0.365; 2.0 diverged on three of the five. "
         "docs/results/classify.md, \"The default learning rate\"."),
    Rule("zipf-rate", "lr", "-lr 0, evenness below ZIPF_MAX_EVENNESS (labels distributed "
         "as words are)", "ZIPF_LR", (("ZIPF_LR", ZIPF_LR),
                                      ("ZIPF_MAX_EVENNESS", ZIPF_MAX_EVENNESS)),
         "A few labels take most lines and their rows move fastest: every output layer "
         "trains best at 0.1. Test P@1, 0.1 against 0.5: the next word (evenness 0.03) "
         "0.1067 / 0.1018, 0.167 / 0.145 with -wordNgrams 2, its 3,000 commonest words "
         "(0.096) 0.1187 / 0.1161; not used to choose: inputs 64 words long (0.03) 0.0883 / "
         "0.0869, five next words a line (0.015) 0.319 / diverged. Every other set's "
         "evenness is 0.146 (debian_tags) or more; a proxy, not the cause: the next word's "
         "1,000 commonest words (0.170) also train better at 0.1 (0.1316 / 0.1266)."),
    Rule("halve-on-divergence", "halvings", "-lr 0", "halved and training started again "
         "while it diverges, at most DEFAULT_LR_HALVINGS times",
         (("DEFAULT_LR_HALVINGS", DEFAULT_LR_HALVINGS),),
         "Past 0.5 / 2^5 = 0.016 a run that still diverges has another cause (e.g. "
         "-pretrainedVectors of huge values)."),
    Rule("learned-schedule", "lr_hold", "the tree is learned (rebuilt while training)",
         "the rate held constant for the first LEARNED_LR_HOLD of training, then decaying "
         "linearly", (("LEARNED_LR_HOLD", LEARNED_LR_HOLD),),
         "The paper's schedule: structure learned and lr constant in the first half, "
         "structure frozen and lr decaying in the second. It alone lifts the Huffman tree "
         "by 0.004 on gutenberg_books and up to 0.018 on other sets (docs/trees.md, \"The "
         "learning-rate schedule, apart from the tree\")."),
    Rule("linear-decay", "lr_hold", "no learned tree", "0: fastText's linear decay", (),
         "fastText's schedule."),
)
