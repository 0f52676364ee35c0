"""What both families' plans (``classify/plan.py``, ``lm/plan.py``) are
made of: a :class:`Choice` (a value, the rule that set it, why) and a
:class:`Rule` (a row of a family's table of rules, with its constants and
the measurements behind it, from which docs/defaults.md is written), and
the label statistic both read (:func:`label_spread`)."""

import math
import statistics
from dataclasses import dataclass, fields

GIVEN = "given"  # the rule of a field the user set
# labels of a label_spread evenness from this are about equally frequent (both families' rules)
EVEN_LABELS_MIN_EVENNESS = 0.8


@dataclass(frozen=True)
class Choice:
    value: object
    rule: str
    why: str


@dataclass(frozen=True)
class Rule:
    name: str        # as the plan's fields name it
    sets: str        # the plan fields it sets
    when: str        # when it fires
    value: str       # what it sets them to
    constants: tuple  # ((name, value), ...): the figures it reads
    evidence: str    # why: the measurements (ablations) behind it


def shown(value):
    """A plan value as a command line would spell it."""
    if value == "":
        return "''"
    return f"{value:g}" if isinstance(value, float) else str(value)


def choices(plan):
    """``(field, Choice)`` of a plan dataclass, in its order."""
    return [(f.name, getattr(plan, f.name)) for f in fields(plan)]


def plan_lines(plan):
    """Every field, its value, rule and reason: ``-plan``'s output."""
    return [f"{name:<13} {shown(c.value):<9} {c.rule:<19} {c.why}" for name, c in choices(plan)]


def plan_header(plan):
    """The plan as a model file's header keeps it: ``{field: [value, rule, why]}``."""
    return {name: [c.value, c.rule, c.why] for name, c in choices(plan)}


class PlanRows:
    """What every family's frozen ``Plan`` dataclass (its fields Choices)
    shares: its rows in order, printed by ``-plan``, saved in a model file."""

    def items(self):
        """``(field, Choice)`` in the plan's order."""
        return choices(self)

    def lines(self):
        """Every field, its value, rule and reason: ``-plan``'s output."""
        return plan_lines(self)

    def header(self):
        """The plan as saved in a model file: ``{field: [value, rule, why]}``."""
        return plan_header(self)


def stored_plan(saved, plan_class, added=()):
    """The ``{field: [value, rule, why]}`` of a model file's header, checked
    (an untrusted file: ``ValueError`` unless it is what :func:`plan_header`
    writes for ``plan_class``, or a file written before its fields ``added``
    were, without them); None for a file saved without one."""
    if saved is None:
        return None
    names = [f.name for f in fields(plan_class)]
    older = [name for name in names if name not in added]
    if not isinstance(saved, dict) or list(saved) not in (names, older) or not all(
            isinstance(v, list) and len(v) == 3 and isinstance(v[0], (int, float, str))
            and isinstance(v[1], str) and isinstance(v[2], str) for v in saved.values()):
        raise ValueError("plan")
    return saved


def stored_plan_lines(saved):
    """``dump args``'s lines of a stored plan: ``plan FIELD VALUE RULE: WHY``."""
    return [f"plan {name} {shown(value)} {rule}: {why}"
            for name, (value, rule, why) in (saved or {}).items()]


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
