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

from ..planning import GIVEN, Choice, Rule, choices, plan_header, plan_lines, shown
from .options import LinearArgs

_DEFAULT = {f.name: f.default for f in fields(LinearArgs)}

# (plan field, LinearArgs field, rule, why the default, evidence)
_DEFAULTS = (
    ("tree", "tree", "kmeans-tree", "a fixed tree of balanced spherical k-means over the "
     "labels' tf-idf centroids",
     "The learned tree (-tree learned, one rebuild) did not beat the k-means tree in any of "
     "five runs nor in cooking's median of three seeds (0.701 against 0.702 P@1), and it "
     "retrains the changed nodes (docs/results/linear.md, \"Learned against fixed k-means "
     "tree\")."),
    ("arity", "arity", "arity-16", "branches of a node above the leaves, PECOS XR-Linear's",
     "PECOS XR-Linear's default; not ablated here."),
    ("leaf_size", "leafSize", "leaf-size", "labels of a last-level node at most, PECOS's",
     "Leaves of 400 gained 0.007-0.011 P@1 on cooking and wn_hypernym for 2.7 times the "
     "training time on wn_hypernym; on gutenberg_books they had not finished after 54 "
     "minutes, where leaves of 100 train in minutes (docs/results/linear.md, \"The tree's "
     "shape\")."),
    ("solver", "solver", "svm-nodes", "L2-loss SVM node classifiers (dual coordinate "
     "descent), PECOS's", "PECOS XR-Linear's default; -solver lr not measured on real data."),
    ("C", "C", "c-1", "inverse regularisation of the node classifiers, PECOS's",
     "PECOS XR-Linear's default; not ablated here."),
    ("prune", "prune", "prune-0.1", "node weights of smaller magnitude dropped, PECOS's",
     "PECOS XR-Linear's default; not ablated here."),
    ("beam", "beam", "beam-10", "nodes kept a level when predicting, PECOS's",
     "PECOS XR-Linear's default; not ablated here."),
    ("ensemble", "ensemble", "one-tree", "one tree",
     "Three trees bought 0.008 P@1 on cooking for three times the training; leaves of 400 "
     "bought more for less (docs/results/linear.md, \"Ensembles\")."),
)


@dataclass(frozen=True)
class Plan:
    model: Choice
    tree: Choice
    arity: Choice
    leaf_size: Choice
    solver: Choice
    C: Choice
    prune: Choice
    beam: Choice
    ensemble: Choice

    def items(self):
        return choices(self)

    def lines(self):
        return plan_lines(self)

    def header(self):
        return plan_header(self)


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
