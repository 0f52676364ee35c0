"""The classifier's plan (classify/plan.py), its first row the family
(supervised.choose_family), and the linear model's (linear/plan.py),
table-driven over synthetic label statistics: one row per rule and per
interaction of rules, each naming the fields it checks as ``field:
(value, rule)``.  No training, no file: the plan is a pure function of the
typed flags and the counts (the last test: -plan over small files)."""

import pytest

import treexc
from treexc.classify.options import make_args
from treexc.classify.plan import ADDED, GIVEN, LabelStats, plan
from treexc.classify.plan import Plan as ClassifierPlan
from treexc.classify.plan_rules import RULES
from treexc.errors import TreexcError
from treexc.family_rules import RULES as FAMILY_RULES
from treexc.linear.options import make_linear_args
from treexc.linear.plan import RULES as LINEAR_RULES
from treexc.linear.plan import EVEN_LABELS_ENSEMBLE, FEW_LINES_MAX_COUNT
from treexc.linear.plan import LabelStats as LinearLabelStats
from treexc.linear.plan import plan as linear_plan
from treexc.planning import stored_plan
from treexc.supervised import choose_family, plan_lines

EVEN = [50] * 2972                        # evenness 1, median 50: a wide root's, trained long
EVEN_SHORT = [20] * 2972                  # evenness 1, median 20: a wide root's at any budget
FEW_LINED = [5] * 5000                    # even but a median of 5; above 4,096 labels
UNEVEN = [10 ** 5 // r for r in range(1, 1001)]   # evenness 0.18: not Zipf, not even
ZIPF = [10 ** 7 // r for r in range(1, 10001)]    # evenness 0.074
FEW = UNEVEN[:300]                         # at most AUTO_SOFTMAX_MAX_LABELS
FOUR = [100] * 4
MIDDLING = [int(3000 / r ** 0.6) for r in range(1, 801)]   # evenness 0.68, median 82
MIDDLING_MORE = [int(3000 / r ** 0.6) for r in range(1, 1201)]  # the same, 1,200 labels
UNEVEN_FEW_LINED = [int(30 / r ** 0.5) for r in range(1, 401)]  # evenness 0.71, median 2
FIFTY = [5] * 50

ROWS = [
    # -loss auto
    ("auto: few labels trained long, the flat softmax", {"lr": 1.0, "epoch": 20}, FEW,
     1.0, {"loss": ("softmax", "auto-softmax"), "arity": (20, "loss-own"),
           "tree_updates": (50, "no-learned-tree"), "scoring": ("tree", "scoring-tree"),
           "lr": (1.0, GIVEN), "halvings": (0, GIVEN), "lr_hold": (0.0, "linear-decay"),
           "mass_cap": (0.0, "no-mass-cap")}),
    ("auto: -lr 0's rate is the budget's", {"epoch": 40}, FEW, 1.0,
     {"loss": ("softmax", "auto-softmax"), "lr": (0.5, "default-rate"),
      "halvings": (5, "halve-on-divergence")}),
    ("auto: few labels at the defaults, the learned tree", {}, UNEVEN, 1.0,
     {"loss": ("tree", "auto-tree"), "arity": (32, "learned-arity"),
      "depth": (-1, "depth-auto"), "mass_cap": (1.0, "mass-cap"),
      "lr": (0.5, "default-rate"), "lr_hold": (0.5, "learned-schedule")}),
    ("auto: just under the budget, the learned tree", {"lr": 1.0, "epoch": 19}, FEW, 1.0,
     {"loss": ("tree", "auto-tree")}),
    ("auto: few-lined labels trained long, the learned tree", {"lr": 1.0, "epoch": 20},
     [5] * 300, 1.0, {"loss": ("tree", "auto-tree")}),
    ("auto: uneven labels, the flat softmax sooner", {"epoch": 20}, MIDDLING, 1.0,
     {"loss": ("softmax", "auto-softmax-uneven"), "lr": (0.5, "default-rate"),
      "mass_cap": (0.0, "no-mass-cap")}),
    ("auto: uneven labels just under their budget, the learned tree", {"epoch": 19},
     MIDDLING, 1.0, {"loss": ("tree", "auto-tree"), "mass_cap": (1.0, "mass-cap")}),
    ("auto: uneven labels, too many for the softmax", {"epoch": 20}, MIDDLING_MORE, 1.0,
     {"loss": ("tree", "auto-tree")}),
    ("auto: uneven, few-lined labels keep the tree", {"lr": 1.0, "epoch": 20},
     UNEVEN_FEW_LINED, 1.0, {"loss": ("tree", "auto-tree")}),
    ("auto: trained long over more labels, the learned tree", {"lr": 1.0, "epoch": 20},
     UNEVEN, 1.0, {"loss": ("tree", "auto-tree"), "arity": (32, "learned-arity")}),
    ("auto: many labels, the learned tree", {}, FEW_LINED, 1.0,
     {"loss": ("tree", "auto-tree"), "arity": (71, "learned-arity"),
      "depth": (-1, "depth-auto"), "mass_cap": (1.0, "mass-cap"),
      "tree_updates": (1, "rebuilds-by-lines"), "scoring": ("tree", "scoring-tree"),
      "lr_hold": (0.5, "learned-schedule")}),
    ("auto: multi-label, the PLT (a fixed Huffman tree)", {}, UNEVEN, 2.0,
     {"loss": ("plt", "auto-plt"), "tree": ("", "loss-own"), "arity": (32, "learned-arity"),
      "tree_updates": (1, "plt-once"), "lr_hold": (0.0, "linear-decay"),
      "depth": (-1, "depth-auto"), "mass_cap": (0.0, "no-mass-cap")}),
    ("auto: multi-label beats -tree", {"tree": "learned"}, UNEVEN, 1.5,
     {"loss": ("plt", "auto-plt"), "tree": ("learned", GIVEN),
      "lr_hold": (0.5, "learned-schedule")}),
    ("auto: -tree huffman is hs", {"tree": "huffman"}, UNEVEN, 1.0,
     {"loss": ("hs", GIVEN), "tree": ("", "loss-own"), "arity": (2, "loss-own")}),
    ("auto: -tree random is a fixed tree", {"tree": "random"}, FIFTY, 1.0,
     {"loss": ("tree", GIVEN), "tree": ("random", GIVEN),
      "arity": (8, "learned-arity"), "lr_hold": (0.0, "linear-decay")}),
    ("auto: -arity asks for a tree", {"arity": 8}, UNEVEN, 1.0,
     {"loss": ("tree", "auto-arity-flag"), "arity": (8, GIVEN),
      "depth": (-1, "depth-auto"), "mass_cap": (1.0, "mass-cap")}),
    ("auto: -arity over even labels: the depth fits it", {"arity": 8}, FEW_LINED, 1.0,
     {"loss": ("tree", "auto-arity-flag"), "depth": (5, "depth-fit-arity"),
      "mass_cap": (0.0, "no-mass-cap")}),
    # the shape of a tree softmax
    ("even labels of a median under 39 at the defaults: the wide root, the tree's reading",
     {"loss": "tree"}, EVEN_SHORT, 1.0,
     {"arity": (595, "wide-root"), "depth": (2, "wide-root"), "mass_cap": (0.0, "no-mass-cap"),
      "tree_updates": (1, "rebuilds-by-lines"), "scoring": ("tree", "scoring-tree")}),
    ("... just under 10 rate-epochs: the wide root, the tree's reading",
     {"loss": "tree", "epoch": 19}, EVEN_SHORT, 1.0,
     {"arity": (595, "wide-root"), "scoring": ("tree", "scoring-tree")}),
    ("even labels of a median from 39 at the defaults: sqrt(labels), the cap, the mean",
     {"loss": "tree"}, EVEN, 1.0,
     {"arity": (55, "learned-arity"), "depth": (-1, "depth-auto"),
      "mass_cap": (1.0, "mass-cap"), "tree_updates": (4, "rebuilds-by-lines"),
      "scoring": ("mean", "scoring-mean")}),
    ("... trained 10 rate-epochs: the wide root and the mean", {"loss": "tree", "epoch": 20},
     EVEN, 1.0, {"arity": (595, "wide-root"), "scoring": ("mean", "scoring-mean")}),
    ("... just under them: no wide root", {"loss": "tree", "epoch": 19}, EVEN, 1.0,
     {"arity": (55, "learned-arity"), "mass_cap": (1.0, "mass-cap")}),
    ("the budget is the rate times the epochs", {"loss": "tree", "lr": 1.0, "epoch": 10},
     EVEN, 1.0, {"scoring": ("mean", "scoring-mean")}),
    ("-depth 2 loses the wide root and the mass cap", {"loss": "tree", "depth": 2}, EVEN,
     1.0, {"arity": (55, "learned-arity"), "depth": (2, GIVEN), "mass_cap": (0.0, "no-mass-cap"),
           "scoring": ("mean", "scoring-mean")}),
    ("-arity 20 (Table 2): the least depth, no cap", {"loss": "tree", "arity": 20}, EVEN,
     1.0, {"arity": (20, GIVEN), "depth": (3, "depth-fit-arity"),
           "mass_cap": (0.0, "no-mass-cap"), "scoring": ("mean", "scoring-mean")}),
    ("-arity with -depth: both kept", {"loss": "tree", "arity": 20, "depth": 5}, EVEN, 1.0,
     {"depth": (5, GIVEN), "mass_cap": (0.0, "no-mass-cap")}),
    ("-depth 0 is automatic", {"loss": "tree", "depth": 0}, UNEVEN, 1.0,
     {"depth": (-1, "depth-auto"), "mass_cap": (1.0, "mass-cap"), "arity": (32, "learned-arity")}),
    ("-maxDepth 0 (the older spelling): no limit and no cap", {"loss": "tree", "maxDepth": 0},
     UNEVEN, 1.0, {"depth": (0, GIVEN), "mass_cap": (0.0, GIVEN)}),
    ("-massSlack 0: no limit and no cap", {"loss": "tree", "massSlack": 0}, UNEVEN, 1.0,
     {"depth": (0, GIVEN), "mass_cap": (0.0, GIVEN)}),
    ("-arity with -massSlack: the cap, no depth rule", {"loss": "tree", "arity": 20,
                                                        "massSlack": 1.0}, EVEN, 1.0,
     {"depth": (-1, "depth-auto"), "mass_cap": (1.0, GIVEN)}),
    ("uneven labels: sqrt(labels), the mass cap, the tree's reading", {"loss": "tree"},
     UNEVEN, 1.0, {"arity": (32, "learned-arity"), "depth": (-1, "depth-auto"),
                   "mass_cap": (1.0, "mass-cap"), "scoring": ("tree", "scoring-tree")}),
    ("a few labels: one node, nothing to rebuild", {"loss": "tree"}, FOUR, 1.0,
     {"arity": (4, "one-node"), "tree_updates": (0, "one-node"),
      "lr_hold": (0.0, "linear-decay"), "scoring": ("tree", "scoring-tree")}),
    ("a tree wider than its labels is cut to them", {"loss": "hs", "arity": 100000}, FIFTY,
     1.0, {"arity": (50, "arity-clamp"), "tree_updates": (50, "no-learned-tree")}),
    ("a clamped learned tree is one node", {"loss": "tree", "arity": 64}, [20] * 50, 1.0,
     {"arity": (50, "arity-clamp"), "depth": (1, "depth-fit-arity"),
      "tree_updates": (0, "one-node")}),
    ("rebuilds: at most TREE_UPDATES", {"loss": "tree", "epoch": 100}, [10 ** 5] * 30, 1.0,
     {"tree_updates": (50, "rebuilds-by-lines")}),
    ("rebuilds count lines, not label occurrences", {"loss": "tree", "epoch": 1},
     [360] * 10, 3.0, {"tree_updates": (2, "rebuilds-by-lines")}),
    ("-treeUpdates given", {"loss": "tree", "treeUpdates": 7}, UNEVEN, 1.0,
     {"tree_updates": (7, GIVEN), "lr_hold": (0.5, "learned-schedule")}),
    ("-treeUpdates 0: no learning, fastText's schedule", {"loss": "tree", "treeUpdates": 0},
     UNEVEN, 1.0, {"tree_updates": (0, GIVEN), "lr_hold": (0.0, "linear-decay")}),
    ("the PLT learned on request", {"loss": "plt", "tree": "learned"}, UNEVEN, 2.0,
     {"tree_updates": (1, "plt-once"), "lr_hold": (0.5, "learned-schedule"),
      "mass_cap": (1.0, "mass-cap")}),
    ("a fixed tree has no mass cap", {"loss": "tree", "tree": "huffman"}, UNEVEN, 1.0,
     {"mass_cap": (0.0, "no-mass-cap"), "lr_hold": (0.0, "linear-decay")}),
    ("one-vs-all has no tree", {"loss": "ova"}, UNEVEN, 1.0,
     {"arity": (20, "loss-own"), "tree": ("", "loss-own"), "scoring": ("tree", "scoring-tree")}),
    # the reading
    ("-scoring mean past its label limit: kept, and said", {"loss": "tree", "scoring": "mean"},
     [50] * 30000, 1.0, {"scoring": ("mean", "scoring-mean-given")}),
    ("-scoring tree given", {"loss": "tree", "scoring": "tree"}, EVEN_SHORT, 1.0,
     {"scoring": ("tree", GIVEN), "arity": (595, "wide-root")}),
    ("a binary tree has no mean", {"loss": "tree", "arity": 2}, EVEN, 1.0,
     {"scoring": ("tree", "scoring-tree")}),
    # the rate
    ("-lr 0 on Zipf-distributed labels: 0.1", {}, ZIPF, 1.0,
     {"lr": (0.1, "zipf-rate"), "halvings": (5, "halve-on-divergence")}),
    ("a given rate is kept, never halved", {"lr": 0.3}, ZIPF, 1.0,
     {"lr": (0.3, GIVEN), "halvings": (0, GIVEN)}),
]


@pytest.mark.parametrize("flags,counts,per_line,expected",
                         [row[1:] for row in ROWS], ids=[row[0] for row in ROWS])
def test_plan_row(flags, counts, per_line, expected):
    planned = plan(make_args(input="x", **flags), LabelStats.of(counts, per_line))
    got = {field: (getattr(planned, field).value, getattr(planned, field).rule)
           for field in expected}
    assert got == expected


def test_every_rule_is_a_row_of_the_table_and_the_table_has_no_dead_rows():
    names = [rule.name for rule in RULES]
    assert len(names) == len(set(names))
    used = set()
    for _, flags, counts, per_line, _ in ROWS:
        for _, choice in plan(make_args(input="x", **flags),
                              LabelStats.of(counts, per_line)).items():
            used.add(choice.rule)
            assert choice.why, choice
    assert used - {GIVEN} <= set(names), used - set(names)
    assert set(names) <= used, set(names) - used  # each rule fires in some row


def test_the_options_stay_as_typed_and_the_plan_gives_the_trained_ones():
    typed = make_args(input="x", loss="tree")
    planned = plan(typed, LabelStats.of(EVEN_SHORT))
    assert (typed.arity, typed.maxDepth, typed.treeUpdates, typed.lr) == (0, -1, -1, 0.0)
    trained = planned.args(typed)
    assert (trained.arity, trained.maxDepth, trained.treeUpdates, trained.scoring,
            trained.lr) == (595, 2, 1, "tree", 0.5)
    assert planned.header()["arity"] == [595, "wide-root", planned.arity.why]
    assert any(line.startswith("arity ") and "wide-root" in line for line in planned.lines())


@pytest.mark.parametrize("old,new", [
    ({"maxDepth": 0}, {"massSlack": 0}),             # no limit, no cap
    ({"maxDepth": -1}, {"depth": 0}),                # automatic
    ({"maxDepth": -1}, {"massSlack": 1}),            # the usual cap, said
    ({"maxDepth": 3}, {"depth": 3}),
    ({"maxDepth": 0, "arity": 20}, {"massSlack": 0, "arity": 20}),
])
def test_older_spellings_train_and_save_the_same_options(old, new):
    """Spellings of one model give one set of saved options (so the same
    model file bytes)."""
    stats = LabelStats.of(UNEVEN)

    def trained(flags):
        typed = make_args(input="x", loss="tree", **flags)
        return plan(typed, stats).args(typed)

    assert trained(old) == trained(new)


@pytest.mark.parametrize("old,new", [
    ({"maxDepth": 0}, {"massSlack": 0}),
    ({"loss": "hs"}, {"tree": "huffman"}),
    ({"loss": "tree"}, {"tree": "learned"}),
    ({"loss": "tree"}, {"loss": "tree", "tree": "learned"}),
    ({"loss": "ova"}, {"loss": "one-vs-all"}),
])
def test_an_older_spelling_plans_the_same(old, new):
    """One plan, so one model file (the header keeps the plan)."""
    stats = LabelStats.of(UNEVEN)
    assert plan(make_args(input="x", **old), stats) == plan(make_args(input="x", **new), stats)


def test_another_mass_cap_is_saved():
    typed = make_args(input="x", loss="tree", massSlack=2.0)
    assert (plan(typed, LabelStats.of(UNEVEN)).args(typed).maxDepth,
            plan(typed, LabelStats.of(UNEVEN)).args(typed).massSlack) == (-1, 2.0)


def test_the_lines_training_says_are_the_rules_that_chose_something():
    said = plan(make_args(input="x"), LabelStats.of(ZIPF)).report()
    assert said == ["output layer: tree of arity 100 (-loss auto: 10000 labels > 548, 0.5 "
                    "rate-epochs (-lr 0.1 x -epoch 5) < 20)",
                    "learning rate: 0.1 (-lr 0: Zipf-distributed labels, evenness 0.074 < "
                    "0.12; 0.5 otherwise)"]
    assert plan(make_args(input="x", loss="softmax", lr=0.5), LabelStats.of(UNEVEN)).report() \
        == []


def test_mean_scoring_needs_a_tree_softmax():
    with pytest.raises(TreexcError, match="-loss auto chose plt, not a tree softmax"):
        plan(make_args(input="x", scoring="mean"), LabelStats.of(UNEVEN, 2.0))


# the family: the first row of either family's plan (supervised.choose_family)
FAMILY_ROWS = [
    ("auto, no flag: the linear model", "auto", {}, ("linear", "auto-linear")),
    ("auto, a shared flag: still linear", "auto", {"wordNgrams": 3, "arity": 8},
     ("linear", "auto-linear")),
    ("auto, a linear flag", "auto", {"leafSize": 50}, ("linear", "auto-linear")),
    ("auto, -dim: the embedding model", "auto", {"dim": 50},
     ("embedding", "auto-embedding-flag")),
    ("auto, -tree huffman: the embedding model", "auto", {"tree": "huffman"},
     ("embedding", "auto-embedding-flag")),
    ("auto, an autotune flag", "auto", {"autotune-validation": "v.txt"},
     ("embedding", "auto-embedding-flag")),
    ("-model linear", "linear", {}, ("linear", GIVEN)),
    ("-model embedding", "embedding", {}, ("embedding", GIVEN)),
    ("-inputModel of an embedding model", ("auto", ("m.bin", "embedding")), {},
     ("embedding", "input-model")),
]


@pytest.mark.parametrize("model,flags,expected", [row[1:] for row in FAMILY_ROWS],
                         ids=[row[0] for row in FAMILY_ROWS])
def test_family_row(model, flags, expected):
    model, input_model = model if isinstance(model, tuple) else (model, None)
    family = choose_family(model, flags, input_model)
    assert (family.value, family.rule) == expected and family.why
    assert family.rule in {GIVEN} | {rule.name for rule in FAMILY_RULES}


def test_every_family_rule_fires_in_a_row():
    fired = set()
    for _, model, flags, _ in FAMILY_ROWS:
        model, input_model = model if isinstance(model, tuple) else (model, None)
        fired.add(choose_family(model, flags, input_model).rule)
    assert {rule.name for rule in FAMILY_RULES} <= fired


def test_the_family_is_the_first_row_of_the_embedding_plan_and_its_header():
    family = choose_family("auto", {"dim": 50})
    planned = plan(make_args(input="x", dim=50), LabelStats.of(UNEVEN), family)
    assert planned.model == family
    assert list(planned.header())[0] == "model"
    assert planned.header()["model"] == ["embedding", "auto-embedding-flag", family.why]
    assert planned.lines()[0].split()[:3] == ["model", "embedding", "auto-embedding-flag"]
    # what the plan trains does not depend on how the family was chosen
    given = plan(make_args(input="x", dim=50), LabelStats.of(UNEVEN))
    assert given.model.rule == GIVEN
    assert given.args(make_args(input="x", dim=50)) == planned.args(make_args(input="x",
                                                                                  dim=50))


def test_a_file_saved_before_the_family_row_keeps_its_plan():
    header = plan(make_args(input="x"), LabelStats.of(UNEVEN)).header()
    older = {name: row for name, row in header.items() if name != "model"}
    assert stored_plan(older, ClassifierPlan, ADDED) == older
    assert stored_plan(header, ClassifierPlan, ADDED) == header
    with pytest.raises(ValueError):  # any other field missing is a corrupt file
        stored_plan({n: r for n, r in header.items() if n != "loss"}, ClassifierPlan, ADDED)


LINEAR_DEFAULTS = {"tree": ("kmeans", "kmeans-tree"), "arity": (32, "arity-32"),
                   "leaf_size": (25, "leaf-size-25"), "solver": ("svm", "svm-nodes"),
                   "C": (1.0, "c-1"), "prune": (0.1, "prune-0.1"), "beam": (10, "beam-10"),
                   "ensemble": (2, "two-trees")}
FEW_C, FEW_LEAVES = (2.0, "few-lines"), (100, "few-lines")  # few-lined labels' rows
EVEN_TREES = (EVEN_LABELS_ENSEMBLE, "even-labels")  # equally frequent labels' row
MANY_LINED = [50] * 2972                   # every line's label has 50 lines
ZIPF_MANY_LINED = [int(2000 / r) for r in range(1, 600)]  # evenness 0.20, the median line's 117
JUST_EVEN = [100] * 300 + [25] * 300       # evenness 0.82
JUST_UNEVEN = [100] * 300 + [20] * 300     # evenness 0.78
BOUND = FEW_LINES_MAX_COUNT
AT_BOUND = [BOUND - 1] * 10 + [BOUND] * 11      # the median line's label: BOUND lines
BELOW_BOUND = [BOUND - 1] * 11 + [BOUND] * 8    # ... BOUND - 1
# a median label of one line, but most lines are those of the frequent labels (next words)
ZIPF_TAIL = [1] * 10000 + [1000] * 20
# a median of BOUND - 1 lines a label; the median line's label has 1000
FEW_RARE = [BOUND - 1] * 10 + [1000]

LINEAR_ROWS = [
    # (name, flags, label counts or None: no statistics, expected)
    ("the defaults, no statistics", {}, None, LINEAR_DEFAULTS),
    ("the defaults, uneven many-lined labels", {}, ZIPF_MANY_LINED, LINEAR_DEFAULTS),
    ("equally frequent labels: more trees", {}, MANY_LINED,
     dict(LINEAR_DEFAULTS, ensemble=EVEN_TREES)),
    ("evenness just above the bound: more trees", {}, JUST_EVEN, {"ensemble": EVEN_TREES}),
    ("... just below it: two", {}, JUST_UNEVEN, {"ensemble": (2, "two-trees")}),
    ("equally frequent labels in one leaf: one node, two", {}, [50] * 20,
     {"ensemble": (2, "two-trees")}),
    ("... in one given leaf", {"leafSize": 5000}, FEW_LINED, {"ensemble": (2, "two-trees")}),
    ("-ensemble given wins over even labels", {"ensemble": 3}, MANY_LINED,
     {"ensemble": (3, GIVEN)}),
    ("few-lined, equally frequent labels: C 2, leaves of 100, more trees", {}, FEW_LINED,
     dict(LINEAR_DEFAULTS, C=FEW_C, leaf_size=FEW_LEAVES, ensemble=EVEN_TREES)),
    ("the median line's label at the bound: the defaults", {}, AT_BOUND, LINEAR_DEFAULTS),
    ("... below it: few-lines", {}, BELOW_BOUND, {"C": FEW_C, "leaf_size": FEW_LEAVES}),
    ("rare labels with few of the lines: the defaults", {}, ZIPF_TAIL, LINEAR_DEFAULTS),
    ("a few-lined median label, not line: the defaults", {}, FEW_RARE, LINEAR_DEFAULTS),
    ("labels never seen do not count", {}, ZIPF_MANY_LINED + [0] * 10000, LINEAR_DEFAULTS),
    ("-C given wins over few lines", {"C": 0.5}, FEW_LINED,
     {"C": (0.5, GIVEN), "leaf_size": FEW_LEAVES}),
    ("-C 1 typed is given", {"C": 1.0}, FEW_LINED, {"C": (1.0, GIVEN)}),
    ("-leafSize given, C still planned", {"leafSize": 400, "beam": 20, "tree": "learned"},
     FEW_LINED, {"leaf_size": (400, GIVEN), "beam": (20, GIVEN), "tree": ("learned", GIVEN),
                 "arity": (32, "arity-32"), "C": FEW_C}),
    ("a default typed is given", {"C": 1.0}, None, {"C": (1.0, GIVEN)}),
]


@pytest.mark.parametrize("counts,expected", [
    ([], (0, 0.0, 0)), ([0, 0], (0, 0.0, 0)), ([7], (1, 7.0, 7)), ([1, 2, 3, 4], (4, 2.5, 3)),
    ([6, 1, 1, 1, 1, 1], (6, 1.0, 6)), ([1] * 10000 + [1000] * 20, (10020, 1.0, 1000)),
    ([2, 2, 0, 6], (3, 2.0, 6))])
def test_linear_label_stats(counts, expected):
    """The median count and the count of the median line's label (the least
    count whose labels, with all rarer, hold half the lines)."""
    stats = LinearLabelStats.of(counts)
    assert (stats.n_labels, stats.median_count, stats.line_median_count) == expected


@pytest.mark.parametrize("flags,counts,expected", [row[1:] for row in LINEAR_ROWS],
                         ids=[row[0] for row in LINEAR_ROWS])
def test_linear_plan_row(flags, counts, expected):
    family = choose_family("auto", flags)
    args = make_linear_args(input="x", output="y", **flags)
    stats = None if counts is None else LinearLabelStats.of(counts)
    planned = linear_plan(args, set(flags), family, stats)
    assert planned.model == family
    got = {field: (getattr(planned, field).value, getattr(planned, field).rule)
           for field in expected}
    assert got == expected
    assert all(choice.why for _, choice in planned.items())
    assert {choice.rule for _, choice in planned.items()} - {GIVEN, family.rule} \
        <= {rule.name for rule in LINEAR_RULES}
    assert list(planned.header())[0] == "model"
    # the options trained: the planned values, the typed ones otherwise unchanged
    trained = planned.args(args)
    assert trained.C == planned.C.value and trained.leafSize == planned.leaf_size.value
    assert (trained.input, trained.minDf) == (args.input, args.minDf)


def test_linear_plan_says_why_c_was_raised():
    why = linear_plan(make_linear_args(input="x", output="y"), set(),
                      choose_family("auto", {}), LinearLabelStats.of(FEW_LINED)).C.why
    assert f"labels of at most 5 lines (below {FEW_LINES_MAX_COUNT};" in why
    assert why.startswith("-C 2: ")


def _labelled_file(path, label_lines):
    """A fastText file of ``label_lines`` lines for each of its labels."""
    path.write_text("".join(f"__label__l{label} word{label} w{n % 3} common\n"
                            for label, lines in enumerate(label_lines) for n in range(lines)))
    return str(path)


def test_supervised_plan_of_the_linear_model_reads_the_label_counts(tmp_path):
    few = _labelled_file(tmp_path / "few.txt", [3] * 20)
    many = _labelled_file(tmp_path / "many.txt", [FEW_LINES_MAX_COUNT] * 20)
    lines = plan_lines({"input": few})
    assert lines[0].split()[:3] == ["model", "linear", "auto-linear"]
    assert any(line.split()[:3] == ["leaf_size", "100", "few-lines"] for line in lines)
    assert any(line.split()[:3] == ["C", "2", "few-lines"] for line in lines)
    assert any(line.split()[:3] == ["C", "1", "c-1"] for line in plan_lines({"input": many}))
    assert any(line.split()[:3] == ["leaf_size", "25", "leaf-size-25"]
               for line in plan_lines({"input": many}))
    # the Python API's: the same plan, the family first
    api = treexc.plan_supervised(few, beam=5)
    assert (api.model.value, api.beam.value, api.beam.rule) == ("linear", 5, GIVEN)
    assert (api.C.value, api.C.rule) == (2.0, "few-lines")
    assert treexc.plan_supervised(few, C=1).C.rule == GIVEN
    # sparse lines: their labels counted as read
    sparse = tmp_path / "few.sparse"
    sparse.write_text("".join(f"{label} 0:1 {label + 1}:0.5\n"
                              for label in range(20) for _ in range(3)))
    assert treexc.plan_supervised(str(sparse)).C.rule == "few-lines"
    with pytest.raises(TreexcError, match="no-such-file.txt"):
        plan_lines({"input": str(tmp_path / "no-such-file.txt")})
