"""The measurements docs/defaults.md shows beside the rules tables: the
ablations kept in docs/results/defaults-*.jsonl (benchmarks/ablate_rules.py,
ablate_label_counts.py and ablate_lm_rules.py's records), each with the
command that wrote it and the treexc version it ran at (:data:`ABLATIONS`),
and the summary, one row per rule of the embedding classifier and the
language model (:data:`SUMMARY`): its measured effect from those records,
or the figures its evidence cites, or why it is not ablated.
"""

import json
import statistics
from pathlib import Path

from .few_lines_evidence import FEW_LINES_ABLATION, FEW_LINES_FILE

RESULTS = Path(__file__).resolve().parents[2] / "docs" / "results"


def runs_of(name):
    """``{configuration: [record, ...]}`` of a results file (records by seed), in
    the order the file first names them; empty where it is missing."""
    path = RESULTS / name
    runs = {}
    if path.exists():
        with open(path) as f:
            for record in map(json.loads, f):
                runs.setdefault(record["config"], []).append(record)
    for records in runs.values():
        records.sort(key=lambda r: r["seed"])
    return runs


def metric_of(ablation):
    """``(record key, what it is)`` of an ablation's figure."""
    return (("ppl", "validation perplexity") if ablation.get("metric") == "ppl"
            else ("p1", "test P@1"))


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
    {"title": "auto-tree at the embedding model's defaults: gutenberg_books by label count",
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
             "which auto-tree now picks at these flags (2.5 rate-epochs). At the "
             "well-trained flags (`-lr 1 -epoch 20`) over few labels the softmax leads: the "
             "tables of 300 and 1,000 labels below. Fewer than 10 labels: not measured; the "
             "10-label cut's test split has about 100 lines (noisy). The "
             "machine was shared (load average 12-15 on 2 cores): the times are noisy."},
    {"title": "auto-tree at the embedding model's defaults: wn_hypernym",
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


VERSION = "0.1.0+07c72fe"
EMBEDDING_COMMON = "-model embedding"
WELL_TRAINED = "-model embedding -lr 1 -epoch 20"
BUDGET = ("--config 'e5 tree=-loss tree -epoch 5' --config 'e5 softmax=-loss softmax -epoch "
          "5' --config 'e10 tree=-loss tree -epoch 10' --config 'e10 softmax=-loss softmax "
          "-epoch 10' --config 'e20 tree=-loss tree -epoch 20' --config 'e20 softmax=-loss "
          "softmax -epoch 20'")
DEFAULT_SOFTMAX_TREE = ("--config default= --config 'softmax=-loss softmax' --config "
                        "'tree=-loss tree'")
LR1 = "--config 'lr1 e20 tree=-loss tree' --config 'lr1 e20 softmax=-loss softmax'"
SHARED = "The machine was shared (load average 13-24 on 2 cores): the times are noisy."


def _counts(train, counts, common, configs, out):
    return (f"benchmarks/ablate_label_counts.py --train {train}.train.txt --test "
            f"{train}.test.txt --counts {counts} --common \"{common}\" {configs} --seeds "
            f"0,1,2 --out docs/results/{out}")


def _rules(train, common, configs, out):
    return (f"benchmarks/ablate_rules.py --train {train}.train.txt --test {train}.test.txt "
            f"--common \"{common}\" {configs} --seeds 0,1,2 --out docs/results/{out}")


ABLATIONS += (
    {"title": "auto-softmax and the training budget: gutenberg_books cut to 300 labels",
     "file": "defaults-budget300.jsonl", "common": EMBEDDING_COMMON, "version": VERSION,
     "command": _counts("gutenberg_books", 300, EMBEDDING_COMMON, BUDGET,
                        "defaults-budget300.jsonl"),
     "note": "At the default rate (0.5) the learned tree leads at -epoch 5 and 10 and the "
             "two are level at 20, where the tree trains faster. " + SHARED},
    {"title": "auto-softmax at the well-trained flags: gutenberg_books cut to 300 labels",
     "file": "defaults-budget300-lr1.jsonl", "common": WELL_TRAINED, "version": VERSION,
     "command": _counts("gutenberg_books", 300, WELL_TRAINED, LR1,
                        "defaults-budget300-lr1.jsonl"),
     "note": "At -lr 1 -epoch 20 (20 rate-epochs) the flat softmax leads on every seed. "
             + SHARED},
    {"title": "auto-softmax and the training budget: gutenberg_books cut to 1,000 labels",
     "file": "defaults-budget1000.jsonl", "common": EMBEDDING_COMMON, "version": VERSION,
     "command": _counts("gutenberg_books", 1000, EMBEDDING_COMMON,
                        BUDGET[BUDGET.index("--config 'e10"):], "defaults-budget1000.jsonl"),
     "note": "-epoch 5: the table \"by label count\" above. The tree leads at -epoch 10 "
             "and the two are level at 20, where the tree takes 0.4x the time. Seed 0 "
             "only: the other seeds were not run. " + SHARED},
    {"title": "auto-softmax at the well-trained flags: gutenberg_books cut to 1,000 labels",
     "file": "defaults-budget1000-lr1.jsonl", "common": WELL_TRAINED, "version": VERSION,
     "command": _counts("gutenberg_books", 1000, WELL_TRAINED, LR1,
                        "defaults-budget1000-lr1.jsonl"),
     "note": "Level at -lr 1 -epoch 20, the tree in less than half the time: above "
             "AUTO_SOFTMAX_MAX_LABELS the cheaper tree. " + SHARED},
    {"title": "auto-softmax on sets not used to choose: wn_hypernym cut to 300 labels",
     "file": "defaults-budget-wn300.jsonl", "common": EMBEDDING_COMMON, "version": VERSION,
     "command": _counts("wn_hypernym", 300, EMBEDDING_COMMON,
                        "--config 'lr1 e20 tree=-loss tree -lr 1 -epoch 20' --config 'lr1 "
                        "e20 softmax=-loss softmax -lr 1 -epoch 20' --config 'e5 tree=-loss "
                        "tree' --config 'e5 softmax=-loss softmax'",
                        "defaults-budget-wn300.jsonl"),
     "note": "Not used to choose: the softmax leads on every seed at -lr 1 -epoch 20 (20 "
             "rate-epochs, auto-softmax), the tree on every seed at the defaults (auto-tree). "
             + SHARED},
    {"title": "auto-softmax on sets not used to choose: wn_hypernym cut to 1,000 labels",
     "file": "defaults-budget-wn1000.jsonl", "common": EMBEDDING_COMMON, "version": VERSION,
     "command": _counts("wn_hypernym", 1000, EMBEDDING_COMMON,
                        "--config 'e5 tree=-loss tree -epoch 5' --config 'e5 softmax=-loss "
                        "softmax -epoch 5' --config 'e20 tree=-loss tree -epoch 20' --config "
                        "'e20 softmax=-loss softmax -epoch 20'", "defaults-budget-wn1000.jsonl"),
     "note": SHARED},
    {"title": "auto-softmax on sets not used to choose: wn_hypernym cut to 1,000 labels at "
              "the well-trained flags",
     "file": "defaults-budget-wn1000-lr1.jsonl", "common": WELL_TRAINED, "version": VERSION,
     "command": _counts("wn_hypernym", 1000, WELL_TRAINED, LR1,
                        "defaults-budget-wn1000-lr1.jsonl"),
     "note": SHARED},
    {"title": "auto-softmax on sets not used to choose: the 1,000 commonest next words",
     "file": "defaults-budget-next1000.jsonl", "common": EMBEDDING_COMMON, "version": VERSION,
     "command": _rules("next1000", EMBEDDING_COMMON,
                       "--config 'e5 tree=-loss tree -epoch 5' --config 'e5 softmax=-loss "
                       "softmax -epoch 5' --config 'e20 tree=-loss tree -epoch 20' --config "
                       "'e20 softmax=-loss softmax -epoch 20'", "defaults-budget-next1000.jsonl"),
     "note": "300,000 positions of gutenberg_lm whose word is among its 1,000 commonest "
             "(`benchmarks/make_next_word.py --size 300K --labels 1000 --valid-size 20000 "
             "--test-size 20000`; evenness 0.17: the default rate 0.5). " + SHARED},
    {"title": "auto-plt at the embedding model's defaults: cooking",
     "file": "defaults-cooking.jsonl", "common": EMBEDDING_COMMON, "version": VERSION,
     "command": _rules("cooking", EMBEDDING_COMMON, DEFAULT_SOFTMAX_TREE,
                       "defaults-cooking.jsonl"),
     "note": "`default`: the PLT auto-plt picks (2.31 labels a line). " + SHARED},
    {"title": "auto-plt at the embedding model's defaults: debian_tags",
     "file": "defaults-debian_tags.jsonl", "common": EMBEDDING_COMMON, "version": VERSION,
     "command": _rules("debian_tags", EMBEDDING_COMMON, DEFAULT_SOFTMAX_TREE,
                       "defaults-debian_tags.jsonl"),
     "note": "`default`: the PLT auto-plt picks (3.67 labels a line). " + SHARED},
    {"title": "mass-cap at the embedding model's defaults: wn_hypernym",
     "file": "defaults-wn-cap.jsonl", "common": EMBEDDING_COMMON, "version": VERSION,
     "command": _rules("wn_hypernym", EMBEDDING_COMMON, "--config default= --config "
                       "'nocap=-massSlack 0'", "defaults-wn-cap.jsonl"),
     "note": "`default`: the learned 94-ary tree with no depth limit and the mass cap; "
             "`nocap`: neither. " + SHARED},
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
ABLATIONS += (FEW_LINES_ABLATION,)
LM_CONFIGS = ("--config default= --config 'nocap=-massSlack 0 -arity 200' --config "
              "'depth3=-depth 3' --config 'fitted=-arity {fitted}'")
for corpus, source, words, fitted in (("lm1m", "gutenberg_lm", "8,449", 130),):
    ABLATIONS += ({
        "title": f"the language model's shape: {corpus}", "metric": "ppl",
        "file": f"defaults-lm-{corpus}.jsonl", "common": "-epoch 1", "version": VERSION,
        "command": (f"benchmarks/ablate_lm_rules.py --train {corpus}/train.txt --valid "
                    f"{corpus}/valid.txt --common \"-epoch 1\" "
                    + LM_CONFIGS.format(fitted=fitted) + " --seeds 0,1,2 --out "
                    f"docs/results/defaults-lm-{corpus}.jsonl"),
        "note": (f"The first 1M tokens of {source}'s "
                 f"training file (validation: the first 100K tokens of its valid file), "
                 f"{words} words: the default 200-ary two-level tree with the mass cap; "
                 f"`nocap`: the same arity without it; `depth3`: three levels; `fitted`: "
                 f"the least arity whose square holds twice the words ({fitted}), below the "
                 f"floor of 200. " + SHARED)},)

# -- the summary: one row per rule ---------------------------------------------


def measured(*cases):
    """A summary cell from the records: ``(set, results file, the configuration
    with the rule, the one without)`` per set."""
    return ("measured", cases)


def cited(text, source):
    """A summary cell of figures an earlier measurement gave (``source``: where)."""
    return ("cited", text, source)


def unablated(why):
    """A summary cell of a rule nothing here measures, and why."""
    return ("none", why)


def _medians(records, metric):
    return (statistics.median(r[metric] for r in records),
            statistics.median(r["train_s"] for r in records))


def summary_cell(cell):
    """``(with / without, from)`` of a summary cell."""
    if cell[0] == "cited":
        return cell[1], cell[2]
    if cell[0] == "none":
        return "not ablated: " + cell[1], ""
    texts, sources = [], []
    for name, results, with_rule, without in cell[1]:
        runs = runs_of(results)
        if with_rule not in runs or without not in runs:
            texts.append(f"{name}: not measured yet")
            continue
        # the seeds both configurations ran
        common = {r["seed"] for r in runs[with_rule]} & {r["seed"] for r in runs[without]}
        if not common:
            texts.append(f"{name}: not measured yet")
            continue
        pair = [[r for r in runs[c] if r["seed"] in common] for c in (with_rule, without)]
        metric = "ppl" if "ppl" in pair[0][0] else "p1"
        digits = 2 if metric == "ppl" else 3
        (a, a_s), (b, b_s) = _medians(pair[0], metric), _medians(pair[1], metric)
        seeds = len(common)
        texts.append(f"{name} {a:.{digits}f} / {b:.{digits}f} ({a_s:.0f} s / {b_s:.0f} s"
                     + (f"; {seeds} seed{'s' if seeds > 1 else ''}" if seeds < 3 else "")
                     + ")")
        if results not in sources:
            sources.append(results)
    return "; ".join(texts), ", ".join(sources)


EMBEDDING, LM, LINEAR = "embedding", "lm", "linear"
RULE_EVIDENCE = "the rule's evidence"
SUMMARY = (
    (EMBEDDING, "auto-plt", "cooking, debian_tags", measured(
        ("cooking", "defaults-cooking.jsonl", "default", "softmax"),
        ("debian_tags", "defaults-debian_tags.jsonl", "default", "softmax"))),
    (EMBEDDING, "auto-arity-flag", "a given -arity", unablated("it reads a flag: an arity "
                                                              "asks for a tree")),
    (EMBEDDING, "auto-softmax", "gutenberg_books and wn_hypernym cut to 300 labels at -lr 1 "
     "-epoch 20", measured(
         ("gutenberg_books, 300 labels", "defaults-budget300-lr1.jsonl",
          "300 labels: lr1 e20 softmax", "300 labels: lr1 e20 tree"),
         ("wn_hypernym, 300 labels", "defaults-budget-wn300.jsonl",
          "300 labels: lr1 e20 softmax", "300 labels: lr1 e20 tree"))),
    (EMBEDDING, "auto-tree", "every single-label set at the defaults: gutenberg_books, "
     "wn_hypernym, their cuts", measured(
         ("gutenberg_books", "defaults-auto-softmax.jsonl", "2972 labels: tree",
          "2972 labels: softmax"),
         ("gutenberg_books, 300 labels", "defaults-budget300.jsonl", "300 labels: e5 tree",
          "300 labels: e5 softmax"),
         ("the same at -epoch 20", "defaults-budget300.jsonl", "300 labels: e20 tree",
          "300 labels: e20 softmax"),
         ("gutenberg_books, 1,000 labels, -epoch 20", "defaults-budget1000.jsonl",
          "1000 labels: e20 tree", "1000 labels: e20 softmax"),
         ("wn_hypernym", "defaults-auto-softmax-wn.jsonl", "tree", "softmax"),
         ("wn_hypernym, 1,000 labels", "defaults-budget-wn1000.jsonl",
          "1000 labels: e5 tree", "1000 labels: e5 softmax"),
         ("the same at -epoch 20 (where it misses)", "defaults-budget-wn1000.jsonl",
          "1000 labels: e20 tree", "1000 labels: e20 softmax"),
         ("the same at -lr 1 -epoch 20", "defaults-budget-wn1000-lr1.jsonl",
          "1000 labels: lr1 e20 tree", "1000 labels: lr1 e20 softmax"),
         ("gutenberg_books, 1,000 labels, -lr 1 -epoch 20", "defaults-budget1000-lr1.jsonl",
          "1000 labels: lr1 e20 tree", "1000 labels: lr1 e20 softmax"),
         ("1,000 next words", "defaults-budget-next1000.jsonl", "e5 tree", "e5 softmax"))),
    (EMBEDDING, "loss-own", "every set", unablated("the values the loss defines, or that "
                                                   "nothing reads")),
    (EMBEDDING, "wide-root", "gutenberg_books (the learned tree)", cited(
        "gutenberg_books 0.289, 0.294 / 0.272, 0.273; its every fourth line 0.097 / 0.090; "
        "the paragraphs' books 0.401, 0.403 / 0.381, 0.380 (seeds 0 and 1, one thread)",
        "docs/trees.md, \"A wide root for even, many-lined labels\"")),
    (EMBEDDING, "learned-arity", "wn_hypernym, cooking, debian_tags", cited(
        "at -lr 1 -epoch 20 against a 20-ary tree: gutenberg_books +0.02 valid P@1, "
        "wn_hypernym level; not measured at the defaults", "docs/trees.md")),
    (EMBEDDING, "one-node", "agnews_testonly (4 labels)", cited(
        "0.849 / 0.842 against the binary learned tree (medians of seeds 0-19)",
        RULE_EVIDENCE)),
    (EMBEDDING, "arity-clamp", "a given -arity wider than the labels", unablated(
        "the same tree less its empty slots (-arity 100000 over 732 labels took 1.6 GB)")),
    (EMBEDDING, "depth-auto", "wn_hypernym", unablated("the depth the mass cap shapes: see "
                                                       "mass-cap")),
    (EMBEDDING, "depth-fit-arity", "gutenberg_books at -arity 20 (Table 2's flags)", measured(
        ("gutenberg_books", "defaults-table2.jsonl", "depth3", "today"))),
    (EMBEDDING, "mass-cap", "wn_hypernym", measured(
        ("wn_hypernym", "defaults-wn-cap.jsonl", "default", "nocap"),
        ("wn_hypernym at -arity 20 -dim 50 -epoch 10", "defaults-wn20.jsonl", "today",
         "depth4"))),
    (EMBEDDING, "no-mass-cap", "a depth given, or no learned tree", unablated(
        "a depth limit shapes the tree itself")),
    (EMBEDDING, "rebuilds-by-lines", "wn_hypernym, gutenberg_books", cited(
        "against 50 rebuilds, medians of 3-5 seeds: cooking 0.562 / 0.543, wn_hypernym "
        "0.285 / 0.274, debian_tags 0.766 / 0.763, gutenberg_books 0.140 / 0.125",
        RULE_EVIDENCE)),
    (EMBEDDING, "plt-once", "cooking, debian_tags with -tree learned", cited(
        "cooking 0.625 / 0.608 against 50 rebuilds (medians of seeds 1-10)",
        "docs/trees.md, \"One rebuild, at the middle of training\"")),
    (EMBEDDING, "no-learned-tree", "every fixed tree", unablated("nothing to rebuild")),
    (EMBEDDING, "scoring-mean", "gutenberg_books (the learned tree)", cited(
        "595-ary wide root at -dim 100 0.3130 / 0.2995, at -dim 50 0.3027 / 0.2917 (one "
        "run each); uneven or few-lined labels lose (wn_hypernym 0.291 / 0.311), where it "
        "does not fire", "docs/trees.md, \"Two readings of one tree\"")),
    (EMBEDDING, "scoring-mean-given", "-scoring mean given", unablated("it reads a flag")),
    (EMBEDDING, "scoring-tree", "every other tree", unablated("the tree's own reading: "
                                                              "scoring-mean's other side")),
    (EMBEDDING, "default-rate", "every set but the next words", cited(
        "valid P@1 at 0.5 / fastText's 0.1: cooking 0.645 / 0.364, debian_tags 0.824 / "
        "0.771, agnews_testonly 0.884 / 0.714, wn_hypernym 0.271 / 0.077",
        "docs/results/classify.md, \"The default learning rate\"")),
    (EMBEDDING, "zipf-rate", "next-word sets", cited(
        "0.1 / 0.5: the next word 0.1067 / 0.1018, its 3,000 commonest words 0.1187 / "
        "0.1161, inputs 64 words long 0.0883 / 0.0869", RULE_EVIDENCE)),
    (EMBEDDING, "halve-on-divergence", "a run that diverges", unablated(
        "it fires only where training diverges")),
    (EMBEDDING, "learned-schedule", "every learned tree", cited(
        "the Huffman tree +0.004 on gutenberg_books, up to +0.018 on other sets",
        "docs/trees.md, \"The learning-rate schedule, apart from the tree\"")),
    (EMBEDDING, "linear-decay", "every tree not learned", unablated("fastText's schedule")),
    (LM, "dim-scaled-rate", "every corpus at -dim 200", cited(
        "0.05 / 0.1, validation perplexity, one epoch: KJV tree 41.46 / 43.15, first 1M "
        "tokens of gutenberg_lm 85.98 / 91.37, of gutenberg_small_lm 95.46 / 100.83",
        "docs/lm.md, \"Learning rate\"")),
    (LM, "depth-by-vocabulary", "every corpus up to 131,072 words (one corpus measured)", measured(
        ("first 1M tokens of gutenberg_lm", "defaults-lm-lm1m.jsonl", "default", "depth3"),)),
    (LM, "depth-fit-arity", "a given -arity", unablated("it reads a flag")),
    (LM, "mass-cap-two-levels", "every two-level tree", measured(
        ("first 1M tokens of gutenberg_lm", "defaults-lm-lm1m.jsonl", "default", "nocap"),)),
    (LM, "arity-fit-words", "every corpus under 20,000 words", measured(
        ("first 1M tokens of gutenberg_lm", "defaults-lm-lm1m.jsonl", "default", "fitted"),)),
    (LM, "root-rows", "every tree of a softmax root", cited(
        "4 rows / 1, validation perplexity, one epoch: KJV 40.66 / 43.33, first 1M tokens "
        "of gutenberg_lm 84.63 / 89.29, first 5M 80.66 / 88.47",
        "docs/lm.md, \"Several rows per root slot\"")),
    (LM, "rebuilds-per-epoch", "every learned tree", unablated(
        "the rebuilds the language model's schedule has always made")),
    (LM, "no-learned-tree", "a fixed tree", unablated("nothing to rebuild")),
    (LM, "no-tree", "-loss softmax", unablated("the flat softmax has no tree")),
    (LINEAR, "few-lines", "wn_hypernym, gutenberg_books' first 20,000 and 50,000 lines",
     measured(("wn_hypernym", FEW_LINES_FILE, "wn_hypernym: C 2, leaves of 100",
               "wn_hypernym: C 1"),
              ("gutenberg_books' first 20,000 lines", FEW_LINES_FILE,
               "gb20k: C 2, leaves of 100", "gb20k: C 1"),
              ("its first 50,000", FEW_LINES_FILE, "gb50k: C 2, leaves of 100",
               "gb50k: C 1"))),
)
