"""docs/defaults.md, written from the rules tables of the plans
(``family_rules.RULES``, ``classify/plan_rules.RULES``, ``linear/plan.RULES``,
``lm/plan.RULES``) and the ablations kept
beside them (``ABLATIONS``): ``tests/test_defaults_doc.py`` fails when the
page is stale.  Rewrite it with

    .venv/bin/python -m treexc.cli.defaults_doc > docs/defaults.md
"""

import json
import statistics
import sys
from pathlib import Path

from .. import family_rules
from ..classify import plan_rules
from ..linear import plan as linear_plan
from ..lm import plan as lm_plan

RESULTS = Path(__file__).resolve().parents[2] / "docs" / "results"
TABLE2_COMMON = "-loss tree -arity 20 -dim 50 -lr 0.5 -epoch 5"
WN20_COMMON = "-loss tree -arity 20 -dim 50 -lr 0.5 -epoch 10"
# Each ablation: its title, what it shows, the results file
# (benchmarks/ablate_rules.py's records), the command that wrote it, and the
# treexc version (pyproject's version, `git describe --always`) it ran at.
ABLATIONS = (
    {"title": "The Table 2 regression: gutenberg_books at -arity 20",
     "file": "defaults-table2.jsonl", "common": TABLE2_COMMON,
     "version": "0.1.0+a51b491 (the rules before the plan; `depth3` is what "
                "depth-fit-arity now chooses at these flags)",
     "command": "benchmarks/ablate_rules.py --train gutenberg_books.train.txt --test "
                "gutenberg_books.test.txt --common \"" + TABLE2_COMMON + "\" --config "
                "today= --config 'scoring-tree=-scoring tree' --config "
                "'updates50=-treeUpdates 50' --config 'nocap=-maxDepth 0' --config "
                "'depth3=-maxDepth 3' --config 'depth3-scoring-tree=-maxDepth 3 -scoring "
                "tree' --config 'depth3-tree-u50=-maxDepth 3 -scoring tree -treeUpdates 50' "
                "--config 'nocap-tree-u50=-maxDepth 0 -scoring tree -treeUpdates 50' "
                "--fasttext softmax --seeds 0,1,2 --out docs/results/defaults-table2.jsonl",
     "note": "`today`: no depth limit with the mass cap, 6 rebuilds, `-scoring mean` (the "
             "rules before the plan); `depth3`: the least depth that holds the 2,972 labels, "
             "what depth-fit-arity now chooses (6 rebuilds, `-scoring mean`), above "
             "fastText's softmax on every seed. Rows with one seed ran at seed 0 only "
             "(the command runs all at three). The machine was shared by six engineers "
             "(load average 10-18 on 2 cores): the times are noisy."},
    {"title": "depth-fit-arity's evenness condition: wn_hypernym at -arity 20",
     "file": "defaults-wn20.jsonl", "common": WN20_COMMON,
     "version": "0.1.0+a51b491",
     "command": "benchmarks/ablate_rules.py --train wn_hypernym.train.txt --test "
                "wn_hypernym.test.txt --common \"-loss tree -arity 20 -dim 50 -lr 0.5 "
                "-epoch 10\" --config today= --config 'depth4=-maxDepth 4' --seeds 0,1,2 "
                "--out docs/results/defaults-wn20.jsonl",
     "note": "wn_hypernym's labels are uneven (evenness 0.52): the mass cap keeps "
             "frequent labels near the root. `depth4`, the least depth that holds its 8,737 "
             "labels at arity 20, is 0.007 below it on each seed, so depth-fit-arity fires "
             "only on labels about equally frequent (gutenberg_books: 0.97). Same shared "
             "machine."},
)


AUTO_SOFTMAX_COMMON = "-model embedding"
ABLATIONS += (
    {"title": "auto-softmax at the embedding model's defaults: gutenberg_books by label count",
     "file": "defaults-auto-softmax.jsonl", "common": AUTO_SOFTMAX_COMMON,
     "version": "0.1.0+6abfb0e",
     "command": "benchmarks/ablate_label_counts.py --train gutenberg_books.train.txt --test "
                "gutenberg_books.test.txt --counts 10,30,100,300,1000,0 --common \""
                + AUTO_SOFTMAX_COMMON + "\" --config 'tree=-loss tree' --config "
                "'softmax=-loss softmax' --seeds 0,1,2 --out "
                "docs/results/defaults-auto-softmax.jsonl",
     "note": "gutenberg_books cut to its K most frequent labels (the lines whose labels are "
             "all among them; 2,972: the whole set) at the defaults of `-model embedding` "
             "(`-dim 100`, `-epoch 5`, `-lr 0`). The learned tree scored above the flat "
             "softmax at every label count (medians 0.03-0.08 P@1 higher; on no seed "
             "lower), in about the same or less training time (half of it on the whole set), "
             "where auto-softmax (up to 4,096 labels) picks the softmax. This is the "
             "opposite of the well-trained flags the rule was chosen at (`-lr 1 -epoch 20`: "
             "the softmax 0.04-0.06 better, the rule's evidence), so the rule is kept until "
             "a rule that reads the training budget is measured. Fewer than 10 labels: not "
             "measured; the 10-label cut's test split has about 100 lines (noisy). The "
             "machine was shared (load average 12-15 on 2 cores): the times are noisy."},
    {"title": "auto-softmax at the embedding model's defaults: wn_hypernym",
     "file": "defaults-auto-softmax-wn.jsonl", "common": AUTO_SOFTMAX_COMMON,
     "version": "0.1.0+6abfb0e",
     "command": "benchmarks/ablate_rules.py --train wn_hypernym.train.txt --test "
                "wn_hypernym.test.txt --common \"" + AUTO_SOFTMAX_COMMON + "\" --config "
                "'tree=-loss tree' --config 'softmax=-loss softmax' --seeds 0,1,2 --out "
                "docs/results/defaults-auto-softmax-wn.jsonl",
     "note": "8,737 labels, above AUTO_SOFTMAX_MAX_LABELS: auto-tree picks the learned tree, "
             "here 0.08 P@1 above the flat softmax in under a tenth of the training time. "
             "Same shared machine."},
)


LINEAR_COMMON = "-model linear"
LINEAR_VARIANTS = ('"default: " "beam-5: beam=5" "beam-20: beam=20" "scorer-sigmoid: '
                   'scorer=sigmoid" "tree-learned: tree=learned" "arity-16: arity=16" '
                   '"arity-100: arity=100" "leafSize-100: leafSize=100" "solver-lr: '
                   'solver=lr" "solver-lr-sigmoid: solver=lr scorer=sigmoid" "C-0.5: C=0.5" '
                   '"C-2: C=2" "prune-0.05: prune=0.05" "prune-0.2: prune=0.2" "ensemble-1: '
                   'ensemble=1" "ensemble-3: ensemble=3" "C-1.5: C=1.5"')
WN_VARIANTS = ('"default: " "beam-5: beam=5" "beam-20: beam=20" "scorer-sigmoid: '
               'scorer=sigmoid" "tree-learned: tree=learned" "arity-16: arity=16" '
               '"leafSize-100: leafSize=100" "C-0.5: C=0.5" "C-2: C=2" "prune-0.05: '
               'prune=0.05" "prune-0.2: prune=0.2" "ensemble-1: ensemble=1" "ensemble-3: '
               'ensemble=3" "one-100x100: ensemble=1 arity=100 leafSize=100" "two-64x50: '
               'arity=64 leafSize=50" "two-100x100: arity=100 leafSize=100" "C-1.5: C=1.5"')
ABLATIONS += (
    {"title": "The linear model's defaults: cooking",
     "file": "defaults-linear-cooking.jsonl", "common": LINEAR_COMMON,
     "version": "0.1.0+07c72fe",
     "command": "benchmarks/bench_linear.py --unpacked /tmp/treexc-data --sets cooking "
                "--seeds 0,1,2 --variants " + LINEAR_VARIANTS
                + " --out docs/results/defaults-linear-cooking.jsonl",
     "note": "Each linear default against its alternatives, the others at their defaults "
             "(736 labels, multi-label). `beam-*` and `scorer-sigmoid` change prediction "
             "only: they test the default's models again (its training figures). "
             "`arity-100` is the same model as the default here (736 labels in leaves of "
             "25 need 30 branches, fewer than 32). Train seconds are wall seconds of "
             "`-thread 2` on the shared 2-core machine (load average 13-22): compare the "
             "CPU seconds."},
    {"title": "The linear model's defaults: wn_hypernym",
     "file": "defaults-linear-wn.jsonl", "common": LINEAR_COMMON,
     "version": "0.1.0+07c72fe",
     "command": "benchmarks/bench_linear.py --unpacked /tmp/treexc-data --sets wn_hypernym "
                "--seeds 0 --variants " + WN_VARIANTS
                + " --out docs/results/defaults-linear-wn.jsonl",
     "note": "The same on wn_hypernym (8,737 labels, single-label, median 5 lines a label), "
             "seed 0 only: a training took 4-10 minutes of wall time on the loaded machine "
             "(load average 17-25), and `-solver lr` (0.13 P@1 below on cooking) was not run. "
             "`one-100x100`, `two-64x50` and `two-100x100`: one or two trees of 100 "
             "branches and leaves of 100 (Omikuji Bonsai's shape: one level of 88 leaves "
             "here), two of 64 and 50. Compare the CPU seconds."},
)


def ablation_section(ablation):
    """The ablation's table: per configuration its seeds' P@1 and their
    median, and the median training seconds."""
    path = RESULTS / ablation["file"]
    lines = [f"### {ablation['title']}", "", ablation["note"], "",
             f"Measured at treexc {ablation['version']}, `-thread 2`, test P@1:", "",
             "```sh", "PYTHONPATH=. .venv/bin/python " + ablation["command"], "```", ""]
    if not path.exists():
        return lines + ["(not measured yet)", ""]
    runs = {}
    with open(path) as f:
        for record in map(json.loads, f):
            runs.setdefault(record["config"], []).append(record)
    # benchmarks/bench_linear.py's records also have P@5 and training CPU seconds
    cpu = all("train_cpu_s" in r for records in runs.values() for r in records)
    lines += ["| configuration | flags added | P@1 by seed | P@1 median | "
              + ("P@5 median | train CPU s median | " if cpu else "") + "train s median |",
              "|---|---|---|---|" + ("---|---|" if cpu else "") + "---|"]
    for config, records in runs.items():
        records.sort(key=lambda r: r["seed"])
        flags = records[0]["flags"]
        added = ("fastText " + flags["loss"] if isinstance(flags, dict)
                 else " ".join(flags[len(ablation["common"].split()):]))
        p1 = [r["p1"] for r in records]
        extra = (f"{statistics.median(r['p5'] for r in records):.4f} | "
                 f"{statistics.median(r['train_cpu_s'] for r in records):.1f} | "
                 if cpu else "")
        lines.append(f"| {config} | {('`' + added + '`') if added else '(none)'} | "
                     + ", ".join(f"{p:.4f}" for p in p1)
                     + f" | {statistics.median(p1):.4f} | " + extra
                     + f"{statistics.median(r['train_s'] for r in records):.1f} |")
    return lines + [""]

HEAD = """# Defaults: what model a user gets, and why

Every automatic choice of `treexc supervised` and `treexc lm` is made once,
before anything is built, by a plan: a pure function of what the user
typed and, for the embedding classifier and the language model, the counts
of the counting pass. `supervised`'s first row is the model family
(`-model auto`: `supervised.py`, the rules in `family_rules.py`), then the
family's own rows: the embedding classifier's (`classify/plan.py`) or the
linear model's defaults (`linear/plan.py`); the language model's plan is
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
reads no file (its defaults read no statistic of the data). The embedding
model's reads the file once: the counting kernel keeps each line's labels
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
              "The linear model reads no statistic of the data: each default is one value "
              "(`linear/plan.py`).", ""]
    for rule in linear_plan.RULES:
        lines += rule_section(rule)
    lines += ["## `treexc lm`: the language model's rules", ""]
    for rule in lm_plan.RULES:
        lines += rule_section(rule)
    lines += ["## Ablations", ""]
    for ablation in ABLATIONS:
        lines += ablation_section(ablation)
    return "\n".join(lines).rstrip("\n") + "\n"


if __name__ == "__main__":
    sys.stdout.write(page())
