"""The measurements docs/defaults.md shows beside the rules tables: the
ablations kept in docs/results/defaults-*.jsonl (benchmarks/ablate_rules.py,
ablate_label_counts.py and ablate_lm_rules.py's records), each with the
command that wrote it and the treexc version it ran at (:data:`ABLATIONS`),
read by the summary of every rule (``defaults_summary``).
"""

import json
from pathlib import Path

from .budget_evidence import BUDGET_ABLATIONS
from .linear_rules_evidence import EVEN_LABELS_ABLATION, FEW_LINES_ABLATION

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
NOW = "0.1.0+15d058d"  # the rows added since VERSION (the same training code)
LOADED = ("Their training CPU seconds (user + system, start-up included) were measured "
          "with them, at load average 11-16 on the 2 cores: compare those.")


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
     "file": "defaults-budget1000.jsonl", "common": EMBEDDING_COMMON,
     "version": f"{VERSION} (seeds 1 and 2: {NOW})",
     "command": _counts("gutenberg_books", 1000, EMBEDDING_COMMON,
                        BUDGET[BUDGET.index("--config 'e10"):], "defaults-budget1000.jsonl"),
     "note": "-epoch 5: the table \"by label count\" above. The tree leads at -epoch 10 "
             "on every seed (in 0.4x the CPU) and the two are level at 20, where the tree "
             "takes 0.4x the CPU. " + SHARED + " Seeds 1 and 2: " + LOADED},
    {"title": "auto-softmax at the well-trained flags: gutenberg_books cut to 1,000 labels",
     "file": "defaults-budget1000-lr1.jsonl", "common": WELL_TRAINED, "version": VERSION,
     "command": _counts("gutenberg_books", 1000, WELL_TRAINED, LR1,
                        "defaults-budget1000-lr1.jsonl"),
     "note": "Level at -lr 1 -epoch 20, the tree in less than half the time: above "
             "AUTO_SOFTMAX_MAX_LABELS the cheaper tree. " + SHARED},
    {"title": "auto-softmax on sets not used to choose: wn_hypernym cut to 300 labels",
     "file": "defaults-budget-wn300.jsonl", "common": EMBEDDING_COMMON,
     "version": f"{VERSION} (the `e20` rows: {NOW})",
     "command": _counts("wn_hypernym", 300, EMBEDDING_COMMON,
                        "--config 'lr1 e20 tree=-loss tree -lr 1 -epoch 20' --config 'lr1 "
                        "e20 softmax=-loss softmax -lr 1 -epoch 20' --config 'e5 tree=-loss "
                        "tree' --config 'e5 softmax=-loss softmax' --config 'e20 tree=-loss "
                        "tree -epoch 20' --config 'e20 softmax=-loss softmax -epoch 20'",
                        "defaults-budget-wn300.jsonl"),
     "note": "Not used to choose: the softmax leads on every seed at -lr 1 -epoch 20 (20 "
             "rate-epochs, auto-softmax), the tree on every seed at the defaults (auto-tree). "
             "At -epoch 20 (10 rate-epochs) the softmax leads too, on every seed, for 2x the "
             "CPU: where auto-tree misses. (evenness 0.74, a median of 39 lines a label.) "
             + SHARED + " " + LOADED},
    {"title": "auto-softmax on sets not used to choose: wn_hypernym cut to 1,000 labels",
     "file": "defaults-budget-wn1000.jsonl", "common": EMBEDDING_COMMON,
     "version": f"{VERSION} (the `e10` rows and `e5 tree cap` / `nocap`: {NOW})",
     "command": _counts("wn_hypernym", 1000, EMBEDDING_COMMON,
                        "--config 'e5 tree=-loss tree -epoch 5' --config 'e5 softmax=-loss "
                        "softmax -epoch 5' --config 'e20 tree=-loss tree -epoch 20' --config "
                        "'e20 softmax=-loss softmax -epoch 20' --config 'e10 tree=-loss tree "
                        "-epoch 10' --config 'e10 softmax=-loss softmax -epoch 10' --config "
                        "'e5 tree nocap=-loss tree -epoch 5 -massSlack 0' --config 'e5 tree "
                        "cap=-loss tree -epoch 5'", "defaults-budget-wn1000.jsonl"),
     "note": "Evenness 0.67, a median of 19 lines a label. At -epoch 10 (5 rate-epochs) the "
             "two are level (softmax +0.007) for 3.3x the CPU; at 20 the softmax leads on "
             "every seed: where auto-tree misses. `e5 tree cap`: the default learned tree "
             "(the mass cap) again, beside `e5 tree nocap` (-massSlack 0) in the same "
             "load. " + SHARED + " " + LOADED},
    {"title": "auto-softmax on sets not used to choose: wn_hypernym cut to 1,000 labels at "
              "the well-trained flags",
     "file": "defaults-budget-wn1000-lr1.jsonl", "common": WELL_TRAINED, "version": VERSION,
     "command": _counts("wn_hypernym", 1000, WELL_TRAINED, LR1,
                        "defaults-budget-wn1000-lr1.jsonl"),
     "note": SHARED},
    {"title": "auto-softmax on sets not used to choose: the 1,000 commonest next words",
     "file": "defaults-budget-next1000.jsonl", "common": EMBEDDING_COMMON,
     "version": f"{VERSION} (the rows' later seeds, `e5 tree nocap`: {NOW})",
     "command": _rules("next1000", EMBEDDING_COMMON,
                       "--config 'e5 tree=-loss tree -epoch 5' --config 'e5 softmax=-loss "
                       "softmax -epoch 5' --config 'e20 tree=-loss tree -epoch 20' --config "
                       "'e20 softmax=-loss softmax -epoch 20' --config 'e5 tree nocap=-loss "
                       "tree -epoch 5 -massSlack 0'", "defaults-budget-next1000.jsonl"),
     "note": "300,000 positions of gutenberg_lm whose word is among its 1,000 commonest "
             "(`benchmarks/make_next_word.py --size 300K --labels 1000 --valid-size 20000 "
             "--test-size 20000`; evenness 0.17, a median of 60 lines a label: the default "
             "rate 0.5). " + SHARED + " The softmax's and `e20 tree`'s seeds 1 and 2, `e5 tree`'s "
             "seed 2 and `e5 tree nocap`: " + NOW + "; " + LOADED},
    {"title": "auto-tree and auto-softmax on a set not used to choose: cooking's "
              "single-label lines",
     "file": "defaults-budget-cooking-single.jsonl", "common": EMBEDDING_COMMON,
     "version": NOW,
     "command": ("benchmarks/ablate_rules.py --train cooking.single.train.txt --test "
                 "cooking.single.eval.txt --common \"" + EMBEDDING_COMMON + "\" --config "
                 "'e5 tree=-loss tree -epoch 5' --config 'e5 softmax=-loss softmax -epoch 5' "
                 "--config 'e20 tree=-loss tree -epoch 20' --config 'e20 softmax=-loss "
                 "softmax -epoch 20' --config 'lr1 e20 tree=-loss tree -lr 1 -epoch 20' "
                 "--config 'lr1 e20 softmax=-loss softmax -lr 1 -epoch 20' --seeds 0,1,2 "
                 "--out docs/results/defaults-budget-cooking-single.jsonl"),
     "note": "The lines of cooking's training file with one label (3,026 lines, 462 labels, "
             "evenness 0.42, a median of 3 lines a label); tested on the one-label lines of "
             "its test and then valid files (752; `awk '{n=0; for (i=1; i<=NF; i++) if ($i ~ "
             "/^__label__/) n++; if (n==1) print}'`). Uneven labels as wn_hypernym's cuts, "
             "few-lined: "
             "at -epoch 20 (10 rate-epochs) the tree leads on every seed, where on "
             "wn_hypernym's cuts the softmax does (a rule on evenness alone would miss "
             "here). The test split is small (752 lines): about 0.017 P@1 of sampling "
             "noise. " + LOADED},
    {"title": "auto-softmax-uneven on a set not used to choose: 900 next words",
     "file": "defaults-budget-mid900.jsonl", "common": EMBEDDING_COMMON, "version": NOW,
     "threads": 1,
     "command": ("benchmarks/ablate_rules.py --train mid900.train.txt --test mid900.test.txt "
                 "--common \"" + EMBEDDING_COMMON + "\" --config 'e20 tree=-loss tree "
                 "-epoch 20' --config 'e20 softmax=-loss softmax -epoch 20' --seeds 0,1,2 "
                 "--threads 1 --out docs/results/defaults-budget-mid900.jsonl"),
     "note": "The 1,000 commonest next words less their 100 commonest: the lines of "
             "next1000.train.txt (above) whose label is not among its 100 most frequent, "
             "the first 60,000 of them (`benchmarks/drop_top_labels.py --train "
             "next1000.train.txt --test next1000.test.txt --drop 100 --lines 60000 --out "
             "mid900`; 900 labels, evenness 0.74, a median of 43 lines a "
             "label; the default rate 0.5), tested on next1000.test.txt's such lines "
             "(5,048). At -epoch 20 (10 rate-epochs) auto-softmax-uneven picks the softmax. "
             "P@1 is low on this task: the test split's standard error is about "
             "0.0024. " + LOADED},
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
ABLATIONS += (FEW_LINES_ABLATION, EVEN_LABELS_ABLATION)
SHAPE_VERSION = "0.1.0+4e6ee50"  # wide-root, scoring-mean, learned-arity at the defaults
WIDE_CONFIGS = ("--config default= --config 'scoring-tree=-scoring tree' --config "
                "'no-wide-root=-arity {arity} -massSlack 1'")
WIDE_NOTE = ("`default`: the plan at the version measured, the {wide}-ary wide root (depth "
             "2, {rebuilds}, `-scoring mean`); `scoring-tree`: the same training read by the "
             "tree alone, what the plan reads at these flags (scoring-tree: a wide root "
             "trained under SCORING_MEAN_MIN_BUDGET rate-epochs; `-scoring` is read only at "
             "prediction: with `-thread 1` and a seed its weights are the default's, so the "
             "pair compares two readings of one model); `no-wide-root`: the tree the "
             "plan picks without the wide-root rule, the least arity whose square holds the "
             "labels ({arity}) with no depth limit and the mass cap (`-massSlack 1`, so that "
             "a given arity does not fire depth-fit-arity), the same loss, rebuilds and "
             "scoring. " + LOADED.replace("11-16", "7-15"))
ARITY_NOTE = ("`default`: the PLT over the Huffman tree of the learned arity ({arity}, the "
              "least whose square holds the {labels} labels); `arity20`: the paper's 20-ary "
              "tree, the loss given as the one -loss auto picks (`-loss plt`: an arity alone "
              "would make -loss auto choose a tree softmax), so only the arity changes. "
              + LOADED.replace("11-16", "7-15"))
ABLATIONS += (
    {"title": "wide-root and scoring-mean at the embedding model's defaults: gutenberg_books' "
              "every fourth line",
     "file": "defaults-wide-root-gb4.jsonl", "common": EMBEDDING_COMMON,
     "version": SHAPE_VERSION, "threads": 1,
     "command": "benchmarks/ablate_rules.py --train gb4.train.txt --test "
                "gutenberg_books.test.txt --common \"-model embedding\" "
                + WIDE_CONFIGS.format(arity=55) + " --seeds 0,1,2 --threads 1 --out "
                "docs/results/defaults-wide-root-gb4.jsonl",
     "note": ("gb4.train.txt: gutenberg_books' training file's lines 1, 5, 9, ... (`awk "
              "'NR%4==1'`: 55,175 lines, 2,956 labels, evenness 0.95, a median of 19 lines "
              "a label), tested on gutenberg_books.test.txt. ")
             + WIDE_NOTE.format(wide=592, rebuilds="1 rebuild", arity=55)},
    {"title": "wide-root and scoring-mean at the embedding model's defaults: the paragraphs' "
              "books",
     "file": "defaults-wide-root-bookpar.jsonl", "common": EMBEDDING_COMMON,
     "version": SHAPE_VERSION, "threads": 1,
     "command": "benchmarks/ablate_rules.py --train bookpar.train.txt --test "
                "bookpar.test.txt --common \"-model embedding\" "
                + WIDE_CONFIGS.format(arity=28) + " --seeds 0,1,2 --threads 1 --out "
                "docs/results/defaults-wide-root-bookpar.jsonl",
     "note": ("bookpar: `benchmarks/data/make_book_paragraphs.py --out bookpar` (the book a "
              "paragraph of gutenberg_lm comes from: 109,730 training lines, 778 labels, "
              "evenness 0.98, a median of 150 lines a label; not used to choose). ")
             + WIDE_NOTE.format(wide=156, rebuilds="11 rebuilds", arity=28)
             + " The plan now trains `no-wide-root` here at the defaults (wide-root: a median "
             "from WIDE_ROOT_BUDGET_MEDIAN trained under SCORING_MEAN_MIN_BUDGET "
             "rate-epochs)."},
    {"title": "learned-arity at the embedding model's defaults: cooking",
     "file": "defaults-arity-cooking.jsonl", "common": EMBEDDING_COMMON,
     "version": SHAPE_VERSION,
     "command": _rules("cooking", EMBEDDING_COMMON, "--config default= --config "
                       "'arity20=-loss plt -arity 20'", "defaults-arity-cooking.jsonl"),
     "note": ARITY_NOTE.format(arity=28, labels="732")},
    {"title": "learned-arity at the embedding model's defaults: debian_tags",
     "file": "defaults-arity-debian_tags.jsonl", "common": EMBEDDING_COMMON,
     "version": SHAPE_VERSION,
     "command": _rules("debian_tags", EMBEDDING_COMMON, "--config default= --config "
                       "'arity20=-loss plt -arity 20'", "defaults-arity-debian_tags.jsonl"),
     "note": ARITY_NOTE.format(arity=25, labels="597")},
    {"title": "learned-arity at the embedding model's defaults: wn_hypernym",
     "file": "defaults-arity-wn.jsonl", "common": EMBEDDING_COMMON,
     "version": SHAPE_VERSION,
     "command": _rules("wn_hypernym", EMBEDDING_COMMON, "--config default= --config "
                       "'arity20=-loss tree -arity 20'", "defaults-arity-wn.jsonl"),
     "note": ("`default`: the learned tree softmax of the learned arity (94, the least whose "
              "square holds the 8,737 labels), no depth limit, the mass cap, 1 rebuild; "
              "`arity20`: the paper's 20-ary tree, the loss given as the one -loss auto "
              "picks (`-loss tree`), the same depth, cap and rebuilds. "
              + LOADED.replace("11-16", "7-15"))},
)
ABLATIONS += BUDGET_ABLATIONS
LM_CONFIGS = ("--config 'floor-200=-arity 200' --config 'nocap=-massSlack 0 -arity 200' "
              "--config 'depth3=-depth 3' --config 'fitted=-arity 130' --config "
              "'fitted-nocap=-massSlack 0 -arity 92'")
LM_SMALL_CONFIGS = ("--config 'floor-200=-arity 200' --config 'fitted=-arity 129' "
                    "--config 'depth3=-depth 3'")


def _lm(corpus, configs):
    return (f"benchmarks/ablate_lm_rules.py --train {corpus}/train.txt --valid "
            f"{corpus}/valid.txt --common \"-epoch 1\" {configs} --seeds 0,1,2 --out "
            f"docs/results/defaults-lm-{corpus}.jsonl")


LM_CORPUS = ("The first 1M tokens of {source}'s training file (validation: the first 100K "
             "tokens of its valid file), {words} words. ")
ABLATIONS += (
    {"title": "the language model's shape: lm1m", "metric": "ppl",
     "file": "defaults-lm-lm1m.jsonl", "common": "-epoch 1",
     "version": f"{VERSION} (seed 2 and `fitted-nocap`: {NOW})",
     "command": _lm("lm1m", LM_CONFIGS),
     "note": LM_CORPUS.format(source="gutenberg_lm", words="8,449") + (
         "`fitted`: the default, the least arity whose square holds twice the words (130), "
         "with the mass cap; `floor-200`: the 200-ary tree a floor of 200 at two levels gave "
         "(the default before it went: `-arity 200` plans the same tree, and its seeds 0-1 "
         "ran as `default=`); `nocap`: that tree without the cap; `fitted-nocap`: no cap and "
         "the least arity that holds the words (92); `depth3`: three levels. " + SHARED
         + " Seed 2's: " + LOADED)},
    {"title": "the language model's shape: small1m", "metric": "ppl",
     "file": "defaults-lm-small1m.jsonl", "common": "-epoch 1", "version": NOW,
     "command": _lm("small1m", LM_SMALL_CONFIGS),
     "note": LM_CORPUS.format(source="gutenberg_small_lm", words="8,256") + (
         "Not used to choose: `fitted` (129), the default, against `floor-200`; "
         "`depth3`: three levels (depth-by-vocabulary's other side, measured at "
         f"{SHAPE_VERSION}). " + LOADED)},
)
