"""A loss is its registry row (loss/registry.py): no module but the
registry and the plans (classify/plan.py, classify/plan_rules.py,
lm/plan.py) compares a loss's name as a string; what a loss does is a
field of its entry.  Checked on the package's own sources."""

import ast
from pathlib import Path

from treexc.loss.registry import ALIASES, AUTO, LOSSES
from treexc.lm.options import LOSSES as LM_LOSSES

PACKAGE = Path(__file__).resolve().parents[1] / "treexc"
ALLOWED = {"loss/registry.py", "classify/plan.py", "classify/plan_rules.py", "lm/plan.py"}
NAMES = {*LOSSES, *ALIASES, AUTO, *LM_LOSSES}


def names_in(node):
    """The loss names written as string constants in ``node`` (a tuple's too)."""
    if isinstance(node, ast.Constant) and node.value in NAMES:
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [n for elt in node.elts for n in names_in(elt)]
    return []


def comparisons(source):
    """``(line, text)`` of each comparison of something named ``...loss...``
    with a loss name, and of each ``LOSSES["name"]``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(names_in(o) for o in operands) and any(
                    "loss" in ast.unparse(o).lower() for o in operands if not names_in(o)):
                found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Subscript) and names_in(node.slice) \
                and "LOSSES" in ast.unparse(node.value):
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_no_loss_name_is_compared_outside_the_registry_and_the_plans():
    found = [f"{path.relative_to(PACKAGE)}:{line}: {text}"
             for path in sorted(PACKAGE.rglob("*.py"))
             if path.relative_to(PACKAGE).as_posix() not in ALLOWED
             for line, text in comparisons(path.read_text(encoding="utf-8"))]
    assert found == []


def test_the_check_finds_a_comparison():
    assert comparisons('if args.loss == "hs":\n    pass\n') == [(1, "args.loss == 'hs'")]
    assert comparisons('x = loss in ("tree", "plt")\n') == [(1, "loss in ('tree', 'plt')")]
    assert comparisons('e = LOSSES["hs"]\n') == [(1, "LOSSES['hs']")]
    assert comparisons('if args.scoring == "tree":\n    pass\n') == []
