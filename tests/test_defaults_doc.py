"""docs/defaults.md is what the rules tables and the kept ablations write
(treexc/cli/defaults_doc.py): a rule, a constant or a measurement changed
without the page fails here."""

from pathlib import Path

from treexc.classify.plan_rules import RULES
from treexc.cli.defaults_doc import page

DOC = Path(__file__).resolve().parents[1] / "docs" / "defaults.md"


def test_the_defaults_page_is_written_from_the_rules_tables():
    assert DOC.read_text() == page(), (
        "docs/defaults.md is stale: .venv/bin/python -m treexc.cli.defaults_doc "
        "> docs/defaults.md")


def test_every_rule_and_constant_is_on_the_page():
    text = page()
    for rule in RULES:
        assert f"### `{rule.name}`" in text
        for name, _ in rule.constants:
            assert f"`{name} = " in text


def test_every_embedding_and_lm_rule_has_one_summary_row():
    from treexc.cli.defaults_summary import SUMMARY, summary_cell
    from treexc.linear.plan import DATA_RULES
    from treexc.lm.plan import RULES as LM_RULES

    rows = [(family, rule) for family, rule, _, _ in SUMMARY]
    assert len(rows) == len(set(rows))
    assert sorted(rows) == sorted([("embedding", r.name) for r in RULES]
                                  + [("lm", r.name) for r in LM_RULES]
                                  + [("linear", r.name) for r in DATA_RULES])
    for *_, cell in SUMMARY:
        text, _ = summary_cell(cell)
        assert text and "not measured yet" not in text, text
