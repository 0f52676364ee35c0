"""The language model's plan (lm/plan.py), table-driven over vocabulary
sizes: one row per rule and per interaction, each naming the fields it
checks as ``field: (value, rule)``.  No text, no training."""

import pytest

from treexc.errors import TreexcError
from treexc.lm.options import make_lm_args
from treexc.lm.plan import RULES, plan
from treexc.planning import GIVEN

ROWS = [
    ("the defaults: two levels, the cap, room for twice the words", {}, 10_000,
     {"lr": (0.05, "dim-scaled-rate"), "depth": (2, "depth-by-vocabulary"),
      "mass_cap": (1.0, "mass-cap-two-levels"), "arity": (200, "arity-fit-words"),
      "root_rows": (4, "root-rows")}),
    ("a large vocabulary: three levels, no cap", {}, 200_000,
     {"depth": (3, "depth-by-vocabulary"), "mass_cap": (0.0, "mass-cap-two-levels"),
      "arity": (59, "arity-fit-words")}),                  # 59^3 >= 200,000 > 58^3
    ("a small vocabulary: a slot a word at the root", {}, 50,
     {"arity": (50, "arity-fit-words"), "depth": (2, "depth-by-vocabulary")}),
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
    ("-massSlack 0 at two levels: no room needed, still at least 200", {"massSlack": 0},
     10_000, {"arity": (200, "arity-fit-words"), "mass_cap": (0.0, GIVEN)}),
    ("-massSlack 2: the cap as given, room for it", {"massSlack": 2.0}, 30_000,
     {"mass_cap": (2.0, GIVEN), "arity": (245, "arity-fit-words")}),  # 245^2 >= 60,000
    ("a binary tree: one row a root slot", {"arity": 2}, 1_000,
     {"root_rows": (1, "root-rows"), "depth": (10, "depth-fit-arity")}),  # 2^10 >= 1,000
    ("-rootRows given", {"rootRows": 2}, 10_000, {"root_rows": (2, GIVEN)}),
    ("the flat softmax has no tree", {"loss": "softmax"}, 10_000,
     {"arity": (0, "no-tree"), "depth": (0, "no-tree"), "mass_cap": (-1.0, "no-tree"),
      "root_rows": (0, "no-tree"), "lr": (0.05, "dim-scaled-rate")}),
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
        (0.05, 2, 200, 1.0, 4)


def test_an_arity_wider_than_the_words_can_fill_is_refused():
    with pytest.raises(TreexcError, match="wider than a tree over 100 words can fill"):
        plan(make_lm_args(input="x", arity=201), 100)
