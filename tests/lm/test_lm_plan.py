"""The language model's plan (lm/plan.py), table-driven over vocabulary
sizes: one row per rule and per interaction, each naming the fields it
checks as ``field: (value, rule)``.  No text, no training."""

import pytest

from treexc.errors import TreexcError
from treexc.lm.options import make_lm_args
from treexc.lm.plan import RULES, learning_span, plan, rebuild_batches
from treexc.planning import GIVEN

ROWS = [
    ("the defaults: two levels, the cap, room for twice the words", {}, 10_000,
     {"lr": (0.05, "dim-scaled-rate"), "depth": (2, "depth-by-vocabulary"),
      "mass_cap": (1.0, "mass-cap-two-levels"), "arity": (142, "arity-fit-words"),
      "root_rows": (4, "root-rows")}),                    # 142^2 >= 20,000 > 141^2
    ("a large vocabulary: three levels, no cap", {}, 200_000,
     {"depth": (3, "depth-by-vocabulary"), "mass_cap": (0.0, "mass-cap-two-levels"),
      "arity": (59, "arity-fit-words")}),                  # 59^3 >= 200,000 > 58^3
    ("a small vocabulary: the root fits it too", {}, 50,
     {"arity": (10, "arity-fit-words"), "depth": (2, "depth-by-vocabulary")}),  # 10^2 >= 100
    ("-dim 50: the base rate", {"dim": 50}, 10_000, {"lr": (0.1, "dim-scaled-rate")}),
    ("-lr given", {"lr": 0.3}, 10_000, {"lr": (0.3, GIVEN)}),
    ("-arity given: the least depth with room for the cap", {"arity": 300}, 10_000,
     {"arity": (300, GIVEN), "depth": (2, "depth-fit-arity"),
      "mass_cap": (1.0, "mass-cap-two-levels")}),           # 300^2 >= 20,000
    ("-arity given, deeper: no cap, so no room needed", {"arity": 50}, 10_000,
     {"depth": (3, "depth-fit-arity"), "mass_cap": (0.0, "mass-cap-two-levels")}),
    ("-arity with -massSlack 0: room for the words only", {"arity": 100, "massSlack": 0},
     10_000, {"depth": (2, "depth-fit-arity"), "mass_cap": (0.0, GIVEN)}),
    ("-depth given: the arity fits it; no cap below two levels", {"depth": 3}, 10_000,
     {"depth": (3, GIVEN), "arity": (22, "arity-fit-words"),   # 22^3 >= 10,000
      "mass_cap": (0.0, "mass-cap-two-levels")}),
    ("-massSlack 0 at two levels: room for the words only", {"massSlack": 0},
     10_000, {"arity": (100, "arity-fit-words"), "mass_cap": (0.0, GIVEN)}),
    ("-massSlack 2: the cap as given, room for it", {"massSlack": 2.0}, 30_000,
     {"mass_cap": (2.0, GIVEN), "arity": (245, "arity-fit-words")}),  # 245^2 >= 60,000
    ("a binary tree: one row a root slot", {"arity": 2}, 1_000,
     {"root_rows": (1, "root-rows"), "depth": (10, "depth-fit-arity")}),  # 2^10 >= 1,000
    ("-rootRows given", {"rootRows": 2}, 10_000, {"root_rows": (2, GIVEN)}),
    ("the flat softmax has no tree", {"loss": "softmax"}, 10_000,
     {"arity": (0, "no-tree"), "depth": (0, "no-tree"), "mass_cap": (-1.0, "no-tree"),
      "root_rows": (0, "no-tree"), "lr": (0.05, "dim-scaled-rate"),
      "tree_updates": (0, "no-tree")}),
    # rebuilds: in all, as supervised's -treeUpdates counts them
    ("the default rebuilds: 50 an epoch of the first half, its end excluded", {}, 10_000,
     {"tree_updates": (124, "rebuilds-per-epoch")}),          # 50 x 2.5 - 1
    ("-treeEpochs 1: the span", {"treeEpochs": 1.0}, 10_000,
     {"tree_updates": (49, "rebuilds-per-epoch")}),
    ("-treeUpdates given: in all", {"treeUpdates": 7}, 10_000, {"tree_updates": (7, GIVEN)}),
    ("-treeUpdates 0: none", {"treeUpdates": 0}, 10_000, {"tree_updates": (0, GIVEN)}),
    ("the older spelling: per epoch of the span", {"treeUpdatesPerEpoch": 5, "epoch": 2},
     10_000, {"tree_updates": (4, GIVEN)}),                    # 5 x 1 - 1
    ("the older spelling, a span not a whole number of its rebuilds",
     {"treeUpdatesPerEpoch": 5, "treeEpochs": 0.5}, 10_000,
     {"tree_updates": (2, GIVEN)}),                            # at 0.2, 0.4 epochs
    ("a fixed tree is not rebuilt", {"tree": "random"}, 10_000,
     {"tree_updates": (0, "no-learned-tree")}),
]


@pytest.mark.parametrize("flags,words,expected", [row[1:] for row in ROWS],
                         ids=[row[0] for row in ROWS])
def test_plan_row(flags, words, expected):
    planned = plan(make_lm_args(input="x", **flags), words)
    got = {field: (getattr(planned, field).value, getattr(planned, field).rule)
           for field in expected}
    assert got == expected


def test_every_rule_fires_in_some_row_and_none_is_unknown():
    names = {rule.name for rule in RULES}
    used = {choice.rule for _, flags, words, _ in ROWS
            for _, choice in plan(make_lm_args(input="x", **flags), words).items()}
    assert used - {GIVEN} == names


def test_the_options_stay_as_typed_and_the_plan_gives_the_trained_ones():
    typed = make_lm_args(input="x")
    trained = plan(typed, 10_000).args(typed)
    assert (typed.lr, typed.depth, typed.arity, typed.massSlack, typed.rootRows) == \
        (0.0, 0, 0, -1.0, 0)
    assert (trained.lr, trained.depth, trained.arity, trained.massSlack, trained.rootRows) == \
        (0.05, 2, 142, 1.0, 4)


def test_an_arity_wider_than_the_words_can_fill_is_refused():
    with pytest.raises(TreexcError, match="wider than a tree over 100 words can fill"):
        plan(make_lm_args(input="x", arity=201), 100)


@pytest.mark.parametrize("old,new", [
    ({"treeUpdatesPerEpoch": 5, "epoch": 2}, {"treeUpdates": 4, "epoch": 2}),
    ({"treeUpdatesPerEpoch": 50}, {"treeUpdates": 124}),
    ({"treeUpdatesPerEpoch": 50}, {}),
    ({"treeUpdatesPerEpoch": 3, "treeEpochs": 2.0}, {"treeUpdates": 5, "treeEpochs": 2.0}),
])
def test_the_older_rebuild_spelling_plans_the_same(old, new):
    """One plan (value, rule and why), so one model file (the header keeps it)."""
    a, b = (plan(make_lm_args(input="x", **flags), 10_000) for flags in (old, new))
    if "treeUpdates" in new:
        assert a == b
    assert a.tree_updates.value == b.tree_updates.value
    assert a.args(make_lm_args(input="x", **old)) == b.args(make_lm_args(input="x", **old))


def test_both_rebuild_spellings_at_once_are_refused():
    with pytest.raises(TreexcError, match="same option"):
        make_lm_args(input="x", treeUpdates=4, treeUpdatesPerEpoch=5)


def _per_epoch_batches(per_epoch, span, nb):
    """The batches the schedule of per_epoch rebuilds an epoch chose:
    k x nb // u into each epoch, at each epoch's start after the first,
    while inside the span."""
    out = set()
    for epoch in range(int(span) + 2):
        for k in range(per_epoch):
            b = k * nb // per_epoch
            if (epoch or k) and epoch + b / nb < span - 1e-9:
                out.add(epoch * nb + b)
    return out


@pytest.mark.parametrize("per_epoch,epochs,tree_epochs,nb", [
    (5, 2, 0, 37), (50, 5, 0, 1000), (50, 5, 0, 998), (3, 4, 0, 10), (7, 6, 0, 101),
    (2, 2, 0, 1), (10, 5, 0.3, 10), (10, 5, 0.7, 30), (4, 3, 1.25, 8)])
def test_rebuilds_in_all_fall_on_the_batches_of_the_per_epoch_schedule(per_epoch, epochs,
                                                                        tree_epochs, nb):
    """Where u x span is whole and the span ends on a batch, the older
    spelling's rebuilds fall on the batches they always did."""
    flags = dict(input="x", epoch=epochs, treeEpochs=tree_epochs)
    span = learning_span(make_lm_args(**flags))
    assert round(span * nb, 9) % 1 == 0  # the span ends on a batch
    planned = plan(make_lm_args(**flags, treeUpdatesPerEpoch=per_epoch), 1000)
    assert rebuild_batches(planned.tree_updates.value, span, nb) == \
        _per_epoch_batches(per_epoch, span, nb)
