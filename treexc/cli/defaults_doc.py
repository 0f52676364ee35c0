"""docs/defaults.md, written from the rules tables of the plans
(``family_rules.RULES``, ``classify/plan_rules.RULES``, ``linear/plan.RULES``,
``lm/plan.RULES``) and the measurements kept beside them
(``defaults_evidence``: the ablations; ``defaults_summary``: every rule's row):
``tests/test_defaults_doc.py`` fails when the page is stale.  Rewrite it with

    .venv/bin/python -m treexc.cli.defaults_doc > docs/defaults.md
"""

import statistics
import sys

from .. import family_rules
from ..classify import plan_rules
from ..linear import plan as linear_plan
from ..lm import plan as lm_plan
from .defaults_evidence import ABLATIONS, metric_of, runs_of
from .defaults_summary import SUMMARY, summary_cell


def ablation_section(ablation):
    """The ablation's table: per configuration its seeds' figure (test P@1,
    or the language model's validation perplexity) and their median, and
    the median training seconds."""
    metric, label = metric_of(ablation)
    lines = [f"### {ablation['title']}", "", ablation["note"], "",
             f"Measured at treexc {ablation['version']}, `-thread {ablation.get('threads', 2)}`, "
             f"{label}:", "",
             "```sh", "PYTHONPATH=. .venv/bin/python " + ablation["command"], "```", ""]
    runs = runs_of(ablation["file"])
    if not runs:
        return lines + ["(not measured yet)", ""]
    # benchmarks/bench_linear.py's records also have P@5 and training CPU seconds
    cpu = all("train_cpu_s" in r for records in runs.values() for r in records)
    # ablate_rules.py's records since it measured them: the training's CPU seconds
    own_cpu = not cpu and any("cpu_s" in r for records in runs.values() for r in records)
    lines += [f"| configuration | flags added | {label} by seed | median | "
              + ("P@5 median | train CPU s median | " if cpu else "")
              + ("train CPU s median | " if own_cpu else "") + "train s median |",
              "|---|---|---|---|" + ("---|---|" if cpu else "") + ("---|" if own_cpu else "")
              + "---|"]
    for config, records in runs.items():
        flags = records[0]["flags"]
        added = ("fastText " + flags["loss"] if isinstance(flags, dict)
                 else " ".join(flags[len(ablation["common"].split()):]))
        values = [r[metric] for r in records]
        digits = 2 if metric == "ppl" else 4
        lines.append(f"| {config} | {('`' + added + '`') if added else '(none)'} | "
                     + ", ".join(f"{v:.{digits}f}" for v in values)
                     + f" | {statistics.median(values):.{digits}f} | "
                     + (f"{statistics.median(r['p5'] for r in records):.4f} | "
                        f"{statistics.median(r['train_cpu_s'] for r in records):.1f} | "
                        if cpu else "")
                     + (_cpu_median(records) if own_cpu else "")
                     + f"{statistics.median(r['train_s'] for r in records):.1f} |")
    return lines + [""]


def _cpu_median(records):
    """The median training CPU seconds of the records that have them, and
    of how many seeds where not all do."""
    cpu = [r["cpu_s"] for r in records if "cpu_s" in r]
    if not cpu:
        return "- | "
    seeds = f" ({len(cpu)} seed{'s' if len(cpu) > 1 else ''})" if len(cpu) < len(records) else ""
    return f"{statistics.median(cpu):.1f}{seeds} | "


SUMMARY_HEAD = (
    "### Every rule, with and without", "",
    "One row per rule of the embedding classifier and the language model, and the linear "
    "model's rules that read the data: the shared sets "
    "where it fires at the defaults (or at the flags it was chosen for), and its effect: "
    "test P@1 (the language model: validation perplexity) with the rule / without it and "
    "the training seconds (CPU seconds where both were measured with them, else wall), "
    "medians of 3 seeds, from the tables below (named by their results file) or the "
    "figures its evidence cites (named by their page). A rule that "
    "reads a flag or sets a value nothing reads is marked so.", "",
    "| family | rule | fires on | with / without | from |", "|---|---|---|---|---|")


def summary_section():
    lines = list(SUMMARY_HEAD)
    for family, rule, fires, cell in SUMMARY:
        text, source = summary_cell(cell)
        lines.append(f"| {family} | `{rule}` | {fires} | {text} | {source} |")
    return lines + [""]


HEAD = """# Defaults: what model a user gets, and why

Every automatic choice of `treexc supervised` and `treexc lm` is made once,
before anything is built, by a plan: a pure function of what the user
typed and the counts of the counting pass. `supervised`'s first row is the model family
(`-model auto`: `supervised.py`, the rules in `family_rules.py`), then the
family's own rows: the embedding classifier's (`classify/plan.py`) or the
linear model's (`linear/plan.py`); the language model's plan is
`lm/plan.py`. Each row says the rule that set it and why. To see the plan
of a training file without training:

```sh
treexc supervised -input train.txt -plan
treexc supervised -input train.txt -model embedding -plan
treexc lm -input corpus.txt -plan
treexc dump model.bin args        # a trained model's plan, kept in its file
```

(`treexc.plan_supervised(input, **flags)` and `treexc.plan_lm(...)` return
it in Python; a trained model's is its `plan`.) The linear model's plan
reads the label counts of the counting pass (of sparse lines, the labels
as read); two rules read them (`few-lines`, `even-labels`). The embedding model's reads
the file once: the counting kernel keeps each line's labels
in the same pass over the bytes (`text/count_kernels.py`), from which
`text/label_lines.py` gives the labels a line. On gutenberg_books'
training file (100 MB unpacked) it took 1.008 times the counting pass
alone in wall seconds and 0.947 times in CPU seconds (medians of 5
alternating runs in one process: 3.12 s against 3.09 s; CPU 1.45 s against
1.53 s), where the labels a line read by a second scan of each piece had
taken 1.467 and 1.656 times (7.01 s against 4.78 s; CPU 2.67 s against
1.61 s), on the shared 2-core machine at load average 10-13; treexc
0.1.0+1b22d48 (the second scan: 0.1.0+21d241a):
`PYTHONPATH=. .venv/bin/python benchmarks/plan_time.py
gutenberg_books.train.txt --repeat 5`. The whole command
(`treexc supervised -input gutenberg_books.train.txt -model embedding
-plan`, start-up included) took 6.2-7.0 s wall, 2.3-2.5 s user CPU, over three
runs. A field the user set is `given`. The two commands share the tree
flags' vocabulary: `-depth 0` is automatic, `-massSlack` is the mass cap
(`-1` automatic, `0` none), `-arity 0` is fitted to the labels or words,
`-treeUpdates` counts rebuilds in all inside the learning span (`-1`
automatic, `0` none; `lm -treeUpdatesPerEpoch` is the language model's
older per-epoch count, the same plan and model file).

This page is written from the rules tables; do not edit it by hand
(`.venv/bin/python -m treexc.cli.defaults_doc > docs/defaults.md`).
"""


def rule_section(rule):
    lines = [f"### `{rule.name}`", "", f"* **sets:** {rule.sets}", f"* **when:** {rule.when}",
             f"* **value:** {rule.value}"]
    if rule.constants:
        lines.append("* **constants:** " + ", ".join(f"`{name} = {value:g}`"
                                                    if isinstance(value, float) else
                                                    f"`{name} = {value}`"
                                                    for name, value in rule.constants))
    lines += [f"* **evidence:** {rule.evidence}", ""]
    return lines


def page():
    lines = [HEAD, "## `treexc supervised`: the model family", "",
             "The first row of either family's plan (`family_rules.py`).", ""]
    for rule in family_rules.RULES:
        lines += rule_section(rule)
    lines += ["## `treexc supervised`: the embedding classifier's rules", ""]
    for rule in plan_rules.RULES:
        lines += rule_section(rule)
    lines += ["## `treexc supervised`: the linear model's defaults", "",
              "Two rules read the label counts: few-lined labels get a weaker "
              "regularisation and wider leaves (`few-lines`), about equally frequent ones "
              "more trees (`even-labels`); each other default is one value "
              "(`linear/plan.py`).",
              ""]
    for rule in linear_plan.RULES:
        lines += rule_section(rule)
    lines += ["## `treexc lm`: the language model's rules", ""]
    for rule in lm_plan.RULES:
        lines += rule_section(rule)
    lines += ["## Ablations", ""] + summary_section()
    for ablation in ABLATIONS:
        lines += ablation_section(ablation)
    return "\n".join(lines).rstrip("\n") + "\n"


if __name__ == "__main__":
    sys.stdout.write(page())
