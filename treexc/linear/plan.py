"""The linear family's plan: the model family (chosen above the families,
``supervised.choose_family``) and the linear model's own defaults (the
tree, its branches and leaves, the node classifiers, the beam), each with
the rule that set it (a name of :data:`RULES`, or ``given``) and why.

Two rules read the label counts of the counting pass (:class:`LabelStats`,
:data:`DATA_RULES`): few-lined labels get weaker regularisation and wider
leaves, equally frequent ones more trees; every other default is one
value, taken from ``LinearArgs`` (the root's passes, ``-rootMaxIter``,
among them: a rule of :data:`RULES` without a plan row).  Training trains what
:meth:`Plan.args` says; ``treexc supervised -plan`` prints the plan; the
model file keeps it and ``treexc dump model.bin args`` shows it.
"""

import statistics
from dataclasses import dataclass, fields, replace
from typing import Callable

from ..planning import EVEN_LABELS_MIN_EVENNESS, GIVEN, Choice, PlanRows, Rule, label_spread, shown
from .options import LinearArgs

_DEFAULT = {f.name: f.default for f in fields(LinearArgs)}

# -- the rules that read the data (DATA_RULES below says what they measured) ----
# where the median training line's label has fewer lines than this, labels are
# few-lined: a node classifier is underfitted at C 1, and one more level of cuts
# through such labels loses more than wider leaves cost
FEW_LINES_MAX_COUNT = 35
FEW_LINES_C, FEW_LINES_LEAF_SIZE = 2.0, 100
FEW_LINES_RULE = "few-lines"
FEW_LINES_EVIDENCE = (
    "P@1/P@5 and training CPU s, the defaults otherwise (-C 1 -leafSize 25) -> -C 2 -> "
    "-C 2 -leafSize 100: wn_hypernym (the median line's label has 11 lines, the median "
    "label 4; medians of 3 seeds) 0.4796/0.1364, 33.0 s -> 0.4881/0.1378, 37.8 s -> "
    "0.4937/0.1404, 44.7 s (each seed above -C 2 alone). Not used to choose, seed 0: "
    "gutenberg_books' first 20,000 training lines (8 lines) 0.1028/0.0333, 24.6 s -> "
    "0.1116/0.0359, 27.7 s -> 0.1207/0.0396, 35.1 s; its first 50,000 (19) "
    "0.2208/0.0653, 81.1 s -> 0.2270/0.0680, 92.8 s -> 0.2490/0.0739, 121.5 s. Where "
    "labels have many lines "
    "they lose: cooking (110; 3 seeds) 0.6965/0.2955 -> -C 2 0.6932/0.2926, -C 2 "
    "-leafSize 50 0.6878/0.2916, -C 1.5 0.6918/0.2926; 100,000 next words "
    "(benchmarks/make_next_word.py, 12,268 labels: a median label of 1 line, the median "
    "line's label 301) 0.1564/0.0646, 51.9 s -> 0.1451/0.0598, 55.1 s -> 0.1420/0.0584, "
    "70.8 s. The median label's count would have fired there and not on the 50,000 lines "
    "(17): P@k averages over lines, so the count a line's label has is what the rule "
    "reads. Threshold: the geometric middle of wn_hypernym's 11 and cooking's 110, the "
    "sets it was tuned on (docs/results/linear.md, \"Few-lined labels\"; docs/defaults.md, "
    "\"Ablations\").")
# where labels are about equally frequent (the classifier's bound, planning.py), every
# further tree still gained; where uneven, a third gained within noise
EVEN_LABELS_ENSEMBLE = 4
EVEN_LABELS_RULE = "even-labels"
EVEN_LABELS_EVIDENCE = (
    "P@1/P@5 and training CPU s, two trees (the default otherwise) -> three -> four: "
    "gutenberg_books (evenness 0.97, medians of 3 seeds) 0.4375/0.1196, 157 s -> "
    "0.4466/0.1232, 257 s -> 0.4525/0.1246, 298 s; its every fourth training line (0.95, "
    "seed 0) 0.2794/0.0799, 73 s -> 0.2878/0.0832, 103 s -> 0.2933/0.0852, 123 s. Not "
    "used to choose: the paragraphs' books (0.98; 3 seeds) 0.5483/0.1407, 47 s -> four "
    "trees 0.5575/0.1436, 88 s. Omikuji Bonsai's leaves of 100 with three trees, seed 0: "
    "gutenberg_books 0.4527/0.1235 for 521 s, the paragraphs' books 0.5497/0.1408 for "
    "155 s, below four trees of leaves of 25 on the set not used to choose. Where labels "
    "are uneven a third tree is within noise: cooking (0.38; 3 seeds) 0.6939/0.2951 -> "
    "0.6925/0.2977 (four 0.6945/0.2983), debian_tags (0.15) 0.8462/0.4599 -> "
    "0.8466/0.4598, wn_hypernym (0.52) 0.4935/0.1407 -> 0.4931/0.1422, the next words "
    "(0.02) 0.1697/0.0686 -> 0.1732/0.0695 for 1.3 times the training. "
    "EVEN_LABELS_MIN_EVENNESS: the classifier's bound of 'about equally frequent' "
    "(WIDE_ROOT_MIN_EVENNESS), between the uneven sets' 0.52 and the even ones' 0.95 "
    "(docs/defaults.md, \"even-labels\").")
C_1_EVIDENCE = (
    "PECOS's C. -C 0.5: cooking 0.6925/0.2953, wn_hypernym 0.4572/0.1319 against "
    "0.6965/0.2955 and 0.4798/0.1366 (cooking medians of 3 seeds, wn_hypernym seed 0, "
    "docs/defaults.md, \"Ablations\"); -C 2 and -C 1.5 lose on cooking and on 100,000 "
    "next words, whose lines have many-lined labels (few-lines)."
)

# the root's classifiers: one value, LinearArgs' -rootMaxIter (not a plan row)
ROOT_PASSES_RULE = "root-passes-5"
ROOT_PASSES_EVIDENCE = (
    "P@1/P@5 and training CPU s, -rootMaxIter 20 (every node at -maxIter 20) -> 5 -> 3: "
    "cooking (medians of 3 seeds) 0.697/0.295, 4.28 s -> 0.697/0.294, 3.45 s -> "
    "0.693/0.294, 3.27 s; wn_hypernym (3 seeds) 0.494/0.140, 73.1 s -> 0.493/0.141, "
    "49.2 s; gutenberg_books' first 50,000 lines at -C 1 -leafSize 25 (seed 0) "
    "0.231/0.0679, 147.0 s -> 0.231/0.0675, 96.9 s -> 0.226/0.0663, 74.2 s. Not used to "
    "choose, seed 0: debian_tags 0.846/0.460, 76.5 s -> 0.843/0.460, 55.8 s; 100,000 "
    "next words 0.156/0.0646, 75.9 s -> 0.158/0.0653, 48.4 s; agnews_testonly, a tree "
    "of one node, the same classifiers. The root's classifiers read every line and took "
    "14.2 passes against 6.8 below it, most of the training; five keep P@1/P@5 within "
    "0.003 for 19-36% less CPU, three lose 0.004-0.005 P@1 (docs/results/linear.md, "
    "\"The root's passes\").")

# (plan field, LinearArgs field, rule, why the default, evidence)
_DEFAULTS = (
    ("tree", "tree", "kmeans-tree", "a fixed tree of balanced spherical k-means over the "
     "labels' tf-idf centroids",
     "P@1/P@5, medians of 3 seeds, the learned tree (-tree learned, one rebuild) against "
     "the fixed one, and training CPU s: cooking 0.6939/0.2956 against 0.6939/0.2951, "
     "2.5 against 1.1 s; wn_hypernym 0.4932/0.1407 against 0.4935/0.1407, 20.9 against "
     "13.6 s; gutenberg_books 0.4378/0.1196 against 0.4375/0.1196, 324.9 against 203.5 s; "
     "debian_tags 0.8473/0.4590 against 0.8445/0.4583 (above on every seed, by 5 to 8 "
     "test lines), 35.6 against 17.5 s; gutenberg_next 0.1721/0.0686 against "
     "0.1710/0.0686 (above on every seed, by 2 to 18 test lines), 269.5 against 117.6 s; "
     "agnews_testonly one node, the same model. Level but on two sets, by a few lines, "
     "for 1.5 to 2.3 times the training: the fixed tree "
     "(docs/results/linear.md, \"Learned against fixed k-means tree\")."),
    ("arity", "arity", "arity-32", "branches of a node above the leaves",
     "With leaves of at most 25 labels and two trees, P@1/P@5: -arity 16 cooking "
     "0.6811/0.2957 against 0.6965/0.2955 (3 seeds), wn_hypernym 0.4762/0.1339 against "
     "0.4798/0.1366; -arity 100 is the same tree on cooking (30 leaves need fewer than "
     "32 branches). Bonsai's wider shape, -arity 100 -leafSize 100, scored 0.4885/0.1408 "
     "on wn_hypernym for 2.3 times the training CPU (105 against 45 s) and one such tree "
     "0.4825/0.1371 for 48 s, but one tree of leaves of 100 is below the default on "
     "cooking (0.6898) and gutenberg_books (0.421 against 0.4365) "
     "(docs/results/linear.md, \"Omikuji Bonsai's edge\"; docs/defaults.md, \"Ablations\": "
     "cooking medians of 3 seeds, wn_hypernym seed 0)."),
    ("leaf_size", "leafSize", "leaf-size-25", "labels of a last-level node at most",
     "-leafSize 100 (two trees): cooking 0.6985/0.2952 against 0.6965/0.2955 (3 seeds, "
     "within noise) for 1.3 times the training CPU (5.3 against 4.0 s), wn_hypernym "
     "0.4855/0.1404 against 0.4798/0.1366 for 1.4 times the training CPU (64.7 against "
     "44.9 s; few-lines widens them where labels have few lines); on gutenberg_books "
     "leaves of 100 would cost about 2.2 times the "
     "classifier work; one tree of "
     "leaves of 400 scored 0.7019/0.2947 on cooking but took 2.7 times the training on "
     "wn_hypernym (docs/results/linear.md, \"The tree's shape\"; docs/defaults.md, "
     "\"Ablations\": cooking medians of 3 seeds, wn_hypernym seed 0)."),
    ("solver", "solver", "svm-nodes", "L2-loss SVM node classifiers (dual coordinate "
     "descent), PECOS's",
     "-solver lr (logistic regression at C 1): cooking 0.5648/0.2421 against "
     "0.6965/0.2955 (3 seeds), 0.5655/0.2426 with -scorer sigmoid, at the same training "
     "CPU (docs/defaults.md, \"Ablations\": cooking medians of 3 seeds, wn_hypernym seed "
     "0)."),
    ("C", "C", "c-1", "inverse regularisation of the node classifiers, PECOS's",
     C_1_EVIDENCE),
    ("prune", "prune", "prune-0.1", "node weights of smaller magnitude dropped, PECOS's",
     "P@1/P@5 and model MB: -prune 0.2 cooking 0.6945/0.2959, 2.8 MB, wn_hypernym "
     "0.4704/0.1344, 21.3 MB; -prune 0.05 cooking 0.6939/0.2952, 5.8 MB, wn_hypernym "
     "0.4830/0.1370, 48.5 MB; the default 0.6965/0.2955, 4.2 MB and 0.4798/0.1366, 35.9 "
     "MB. 0.2 lost 0.009 P@1 on wn_hypernym; 0.05 is within noise (-0.003 on cooking, "
     "+0.003 on wn_hypernym) for a model 35-38% larger (docs/defaults.md, \"Ablations\": "
     "cooking medians of 3 seeds, wn_hypernym seed 0)."),
    ("beam", "beam", "beam-10", "nodes kept a level when predicting, PECOS's",
     "Prediction only, the default's models (P@1/P@5): -beam 5 cooking 0.6965/0.2941, "
     "wn_hypernym 0.4791/0.1361; -beam 20 0.6965/0.2953 and 0.4798/0.1366, the same as "
     "-beam 10 (0.6965/0.2955, 0.4798/0.1366) at twice the nodes a level; 5 loses a "
     "little P@5 on both (docs/defaults.md, \"Ablations\": cooking medians of 3 seeds, "
     "wn_hypernym seed 0)."),
    ("ensemble", "ensemble", "two-trees", "two trees of different seeds, their "
     "probabilities averaged (one where the tree is a single node)",
     "P@1/P@5 and training CPU s: one tree cooking 0.6838/0.2914, 1.8 s, wn_hypernym "
     "0.4780/0.1328, 25 s; two 0.6965/0.2955, 4.0 s and 0.4798/0.1366, 45 s (the plan "
     "before few-lines; docs/defaults.md, \"Ablations\": cooking medians of 3 seeds, "
     "wn_hypernym seed 0). The second tree buys 0.013 P@1 on cooking and 0.004 P@5 on "
     "wn_hypernym; a third, on labels of uneven frequency, is within noise (cooking, "
     "debian_tags, wn_hypernym, the next words: even-labels' evidence)."),
)


@dataclass(frozen=True)
class LabelStats:
    """What the counting pass knows of the labels that the linear plan
    reads: how many there are, their median count (training lines, as the
    dictionary or the given rows count them), the count of the label of
    the median training line (each label weighted by its lines: what a
    line the model is tested on typically has behind its label), and their
    evenness (``planning.label_spread``: 1.0 when every label is as
    frequent)."""
    n_labels: int
    median_count: float
    line_median_count: int
    evenness: float = 0.0

    @classmethod
    def of(cls, label_counts):
        counts = sorted(int(c) for c in label_counts if c > 0)
        if not counts:
            return cls(0, 0.0, 0)
        half, seen = sum(counts) / 2, 0
        for count in counts:  # the smallest count whose labels hold half the lines
            seen += count
            if seen >= half:
                break
        return cls(len(counts), float(statistics.median(counts)), count,
                   label_spread(counts)[0])


@dataclass(frozen=True)
class Plan(PlanRows):
    model: Choice
    tree: Choice
    arity: Choice
    leaf_size: Choice
    solver: Choice
    C: Choice
    prune: Choice
    beam: Choice
    ensemble: Choice

    def args(self, typed):
        """The options the model is trained and saved with: ``typed`` with
        the planned values in place of the automatic ones."""
        return replace(typed, **{field: getattr(self, name).value
                                 for name, field, *_ in _DEFAULTS})


@dataclass(frozen=True)
class DataRule:
    """A rule that reads the :class:`LabelStats`: where ``fires(stats,
    leaf_size)`` holds (``leaf_size``: the plan's), it sets ``sets``
    (``(plan field, LinearArgs field, value)``), each field the user gave
    kept; ``why(stats)`` says why in the plan."""
    name: str
    sets: tuple
    when: str
    constants: tuple
    evidence: str
    fires: Callable
    why: Callable


def few_lined(stats, leaf_size=None):
    """Whether labels of these :class:`LabelStats` are few-lined (rule ``few-lines``)."""
    return stats is not None and 0 < stats.line_median_count < FEW_LINES_MAX_COUNT


def even_labels(stats, leaf_size):
    """Whether labels of these :class:`LabelStats` are about equally frequent,
    in a tree of more than one node (rule ``even-labels``)."""
    return (stats is not None and stats.evenness >= EVEN_LABELS_MIN_EVENNESS
            and stats.n_labels > leaf_size)


# in order: even-labels reads the leaf size few-lines may have set
DATA_RULES = (
    DataRule(FEW_LINES_RULE, (("leaf_size", "leafSize", FEW_LINES_LEAF_SIZE),
                              ("C", "C", FEW_LINES_C)),
             "half the training lines have labels of fewer than FEW_LINES_MAX_COUNT lines "
             "(the count of the median line's label, labels weighted by their lines)",
             (("FEW_LINES_MAX_COUNT", FEW_LINES_MAX_COUNT),
              ("FEW_LINES_LEAF_SIZE", FEW_LINES_LEAF_SIZE), ("FEW_LINES_C", FEW_LINES_C)),
             FEW_LINES_EVIDENCE, few_lined,
             lambda stats: (f"half the training lines have labels of at most "
                            f"{stats.line_median_count} lines (below {FEW_LINES_MAX_COUNT}; "
                            f"{stats.n_labels} labels, a median of "
                            f"{shown(stats.median_count)} lines): few-lined labels, fitted "
                            "with weaker regularisation and wider leaves")),
    DataRule(EVEN_LABELS_RULE, (("ensemble", "ensemble", EVEN_LABELS_ENSEMBLE),),
             "the labels' evenness is EVEN_LABELS_MIN_EVENNESS or more (exp(entropy) / "
             "labels: the classifier's 'about equally frequent') and they are more than a "
             "leaf holds",
             (("EVEN_LABELS_MIN_EVENNESS", EVEN_LABELS_MIN_EVENNESS),
              ("EVEN_LABELS_ENSEMBLE", EVEN_LABELS_ENSEMBLE)),
             EVEN_LABELS_EVIDENCE, even_labels,
             lambda stats: (f"{stats.n_labels} about equally frequent labels (evenness "
                            f"{stats.evenness:.2f} >= {EVEN_LABELS_MIN_EVENNESS:g}): each "
                            "further tree's probabilities still gain")),
)


def plan(args, given, model, stats=None):
    """The :class:`Plan` of ``args`` (``LinearArgs``); ``given``: the
    LinearArgs fields the user set; ``model``: the family's Choice;
    ``stats``: the training data's :class:`LabelStats` (None: unknown,
    each default its one value)."""
    rows = {}
    for name, field, rule, why, _ in _DEFAULTS:
        value = getattr(args, field)
        rows[name] = (Choice(value, GIVEN, f"-{field} {shown(value)}") if field in given else
                      Choice(value, rule, f"-{field} {shown(value)}: {why}"))
    for rule in DATA_RULES:
        if rule.fires(stats, rows["leaf_size"].value):
            why = rule.why(stats)
            for name, field, value in rule.sets:
                if field not in given:
                    rows[name] = Choice(value, rule.name, f"-{field} {shown(value)}: {why}")
    return Plan(model=model, **rows)


def _rules():
    first_field = {rule.sets[0][0]: rule for rule in DATA_RULES}
    planned = {name for rule in DATA_RULES for name, *_ in rule.sets}
    for name, field, rule, _, evidence in _DEFAULTS:
        data_rule = first_field.get(name)
        if data_rule:  # a rule that reads the data, before its first field's default
            flags = [f"-{f}" for _, f, _ in data_rule.sets]
            yield Rule(data_rule.name, ", ".join(n for n, *_ in data_rule.sets),
                       f"{data_rule.when}; each of {', '.join(flags)} given is kept"
                       if len(flags) > 1 else f"{data_rule.when}; {flags[0]} given is kept",
                       ", ".join(f"{f} {shown(v)}" for _, f, v in data_rule.sets),
                       data_rule.constants, data_rule.evidence)
        when = f"-{field} not given" + (", otherwise" if name in planned else "")
        yield Rule(rule, name, when, shown(_DEFAULT[field]), (), evidence)
        if name == "C":  # the node classifiers' other default
            yield Rule(ROOT_PASSES_RULE, "-rootMaxIter (one value of LinearArgs, not a plan "
                       "row)", "-rootMaxIter not given; the root of a tree deeper than one "
                       "node (one that most training lines reach), at most -maxIter",
                       shown(_DEFAULT["rootMaxIter"]), (), ROOT_PASSES_EVIDENCE)


RULES = tuple(_rules())
