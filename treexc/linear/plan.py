"""The linear family's plan: the model family (chosen above the families,
``supervised.choose_family``) and the linear model's own defaults (the
tree, its branches and leaves, the node classifiers, the beam), each with
the rule that set it (a name of :data:`RULES`, or ``given``) and why.

The linear model has no automatic rule that reads the data: each default
is one value, taken from ``LinearArgs``, so the plan is what the options
say.  ``treexc supervised -plan`` prints it; the model file keeps it and
``treexc dump model.bin args`` shows it.
"""

from dataclasses import dataclass, fields

from ..planning import GIVEN, Choice, PlanRows, Rule, shown
from .options import LinearArgs

_DEFAULT = {f.name: f.default for f in fields(LinearArgs)}

# (plan field, LinearArgs field, rule, why the default, evidence)
_DEFAULTS = (
    ("tree", "tree", "kmeans-tree", "a fixed tree of balanced spherical k-means over the "
     "labels' tf-idf centroids",
     "P@1/P@5, the learned tree (-tree learned, one rebuild) against the fixed one: "
     "cooking 0.6972/0.2961 against 0.6965/0.2955 (3 seeds) for 1.9 times the training "
     "CPU (7.5 against 4.0 s); wn_hypernym 0.4797/0.1366 against 0.4798/0.1366 (seed 0) "
     "for 1.8 times (79.9 against 44.9 s); debian_tags 0.8459 against 0.8462 (seed 0, "
     "docs/results/linear.md, \"Learned against fixed k-means tree\"): within noise, for "
     "about twice the training, so the cheaper fixed tree (docs/defaults.md, "
     "\"Ablations\": cooking medians of 3 seeds, wn_hypernym seed 0)."),
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
     "44.9 s); on gutenberg_books leaves of 100 would cost about 2.2 times the "
     "classifier work, where the default's training already exceeds PECOS's; one tree of "
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
     "P@1/P@5: -C 0.5 cooking 0.6925/0.2953, wn_hypernym 0.4572/0.1319; -C 1.5 cooking "
     "0.6918/0.2926, wn_hypernym 0.4891/0.1379 at the same training CPU (46.0 s); -C 2 "
     "cooking 0.6932/0.2926, below the default on each of the 3 seeds, wn_hypernym "
     "0.4909/0.1383 for 1.24 times the training CPU (55.8 against 44.9 s), debian_tags "
     "0.8480/0.4591 against 0.8462/0.4604 (seed 0) for 1.16 times (70.3 against 60.5 s); "
     "the default 0.6965/0.2955 and 0.4798/0.1366. Not used to choose: gutenberg_books' "
     "first 20,000 training lines (2,936 labels, a median of 7 lines), 0.1116/0.0359 "
     "against 0.1028/0.0333 for 1.09 times the training CPU (docs/results/linear.md, "
     "\"The node classifiers' C\"). C 2 gains where labels have few lines (a median of 4 "
     "training lines on wn_hypernym, 7 on the slice) and loses a little on cooking (14); "
     "the rule that would read it (C 2 below a median of about 10) needs the label "
     "counts before the plan, which the linear plan does not read yet, and C 1.5 "
     "everywhere (no extra training) is not yet measured on gutenberg_books whole, so C "
     "stays 1 (docs/defaults.md, \"Ablations\": cooking medians of 3 seeds, wn_hypernym "
     "seed 0)."),
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
     "0.4780/0.1328, 25 s; two 0.6965/0.2955, 4.0 s and 0.4798/0.1366, 45 s; three "
     "cooking 0.6905/0.2968, 6.0 s, wn_hypernym 0.4807/0.1376, 72 s. The second tree "
     "buys 0.013 P@1 on cooking and 0.004 P@5 on wn_hypernym; a third, nothing more on "
     "P@1 for 1.5 times the training (docs/defaults.md, \"Ablations\": cooking medians of "
     "3 seeds, wn_hypernym seed 0)."),
)


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


def plan(args, given, model):
    """The :class:`Plan` of ``args`` (``LinearArgs``); ``given``: the
    LinearArgs fields the user set; ``model``: the family's Choice."""
    rows = {}
    for name, field, rule, why, _ in _DEFAULTS:
        value = getattr(args, field)
        rows[name] = (Choice(value, GIVEN, f"-{field} {shown(value)}") if field in given else
                      Choice(value, rule, f"-{field} {shown(value)}: {why}"))
    return Plan(model=model, **rows)


RULES = tuple(Rule(rule, name, f"-{field} not given", shown(_DEFAULT[field]), (), evidence)
              for name, field, rule, _, evidence in _DEFAULTS)
