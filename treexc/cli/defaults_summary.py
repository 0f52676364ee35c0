"""The summary docs/defaults.md shows beside the rules tables: one row per
rule of the embedding classifier and the language model, and the linear
model's rules that read the data (:data:`SUMMARY`),
its measured effect from the ablations' records (``defaults_evidence``),
or the figures its evidence cites, or why it is not ablated.
"""

import statistics

from .defaults_evidence import runs_of
from .linear_rules_evidence import EVEN_LABELS_FILE, FEW_LINES_FILE


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
        # the training CPU seconds where both were measured with them (else wall seconds)
        cpu = next((key for key in ("cpu_s", "train_cpu_s")  # ablate_rules', bench_linear's
                    if all(key in r for r in pair[0] + pair[1])), None)
        if cpu:
            a_s, b_s = (statistics.median(r[cpu] for r in p) for p in pair)
            times = f"{a_s:.1f} / {b_s:.1f} CPU s"
        else:
            times = f"{a_s:.0f} s / {b_s:.0f} s"
        texts.append(f"{name} {a:.{digits}f} / {b:.{digits}f} ({times}"
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
    (EMBEDDING, "auto-softmax", "gutenberg_books cut to 300 labels at -lr 1 -epoch 20 (even "
     "labels)", measured(
         ("gutenberg_books, 300 labels", "defaults-budget300-lr1.jsonl",
          "300 labels: lr1 e20 softmax", "300 labels: lr1 e20 tree"),)),
    (EMBEDDING, "auto-softmax-uneven", "wn_hypernym cut to 300 and 1,000 labels at -epoch "
     "20; not used to choose: 900 next words at -epoch 20", measured(
         ("wn_hypernym, 1,000 labels", "defaults-budget-wn1000.jsonl",
          "1000 labels: e20 softmax", "1000 labels: e20 tree"),
         ("the same at -lr 1 -epoch 20", "defaults-budget-wn1000-lr1.jsonl",
          "1000 labels: lr1 e20 softmax", "1000 labels: lr1 e20 tree"),
         ("wn_hypernym, 300 labels", "defaults-budget-wn300.jsonl",
          "300 labels: e20 softmax", "300 labels: e20 tree"),
         ("the same at -lr 1 -epoch 20", "defaults-budget-wn300.jsonl",
          "300 labels: lr1 e20 softmax", "300 labels: lr1 e20 tree"),
         ("900 next words (not used to choose)", "defaults-budget-mid900.jsonl",
          "e20 softmax", "e20 tree"))),
    (EMBEDDING, "auto-tree", "every single-label set at the defaults: gutenberg_books, "
     "wn_hypernym, their cuts, cooking's single-label lines", measured(
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
         ("the same at -epoch 10", "defaults-budget-wn1000.jsonl",
          "1000 labels: e10 tree", "1000 labels: e10 softmax"),
         ("gutenberg_books, 1,000 labels, -lr 1 -epoch 20", "defaults-budget1000-lr1.jsonl",
          "1000 labels: lr1 e20 tree", "1000 labels: lr1 e20 softmax"),
         ("cooking's single-label lines", "defaults-budget-cooking-single.jsonl", "e5 tree",
          "e5 softmax"),
         ("the same at -epoch 20", "defaults-budget-cooking-single.jsonl", "e20 tree",
          "e20 softmax"),
         ("the same at -lr 1 -epoch 20 (few-lined: auto-softmax's median)",
          "defaults-budget-cooking-single.jsonl", "lr1 e20 tree", "lr1 e20 softmax"),
         ("1,000 next words", "defaults-budget-next1000.jsonl", "e5 tree", "e5 softmax"))),
    (EMBEDDING, "loss-own", "every set", unablated("the values the loss defines, or that "
                                                   "nothing reads")),
    (EMBEDDING, "wide-root", "gutenberg_books' every fourth line (even labels of a median "
     "of 19; the learned tree); gutenberg_books and the paragraphs' books trained 10 "
     "rate-epochs or more", measured(
        ("gutenberg_books' every fourth line", "defaults-wide-root-gb4.jsonl", "scoring-tree",
         "no-wide-root"),
        ("gutenberg_books at -epoch 20", "defaults-wide-root-gb.jsonl", "e20",
         "e20-no-wide-root"))),
    (EMBEDDING, "learned-arity", "wn_hypernym, cooking, debian_tags; gutenberg_books and the "
     "paragraphs' books at the defaults (a median from 39 trained under 10 rate-epochs: no "
     "wide root)", measured(
        ("gutenberg_books, against the wide root", "defaults-wide-root-gb.jsonl",
         "no-wide-root", "default"),
        ("the paragraphs' books, the same (not used to choose)",
         "defaults-wide-root-bookpar.jsonl", "no-wide-root", "scoring-tree"),
        ("cooking, against the paper's 20-ary tree", "defaults-arity-cooking.jsonl",
         "default", "arity20"),
        ("debian_tags, the same", "defaults-arity-debian_tags.jsonl", "default", "arity20"),
        ("wn_hypernym, the same", "defaults-arity-wn.jsonl", "default", "arity20"),
        ("wn_hypernym at the grid's flags (-lr 0.5 -epoch 10), -dim 50",
         "defaults-arity-wn-grid.jsonl", "d50 sqrt", "d50 arity20"),
        ("the same at -dim 100", "defaults-arity-wn-grid.jsonl", "d100 sqrt",
         "d100 arity20"))),
    (EMBEDDING, "one-node", "agnews_testonly (4 labels)", cited(
        "0.849 / 0.842 against the binary learned tree (medians of seeds 0-19)",
        RULE_EVIDENCE)),
    (EMBEDDING, "arity-clamp", "a given -arity wider than the labels", unablated(
        "the same tree less its empty slots (-arity 100000 over 732 labels took 1.6 GB)")),
    (EMBEDDING, "depth-auto", "wn_hypernym", unablated("the depth the mass cap shapes: see "
                                                       "mass-cap")),
    (EMBEDDING, "depth-fit-arity", "gutenberg_books at -arity 20 (Table 2's flags)", measured(
        ("gutenberg_books", "defaults-table2.jsonl", "depth3", "today"))),
    (EMBEDDING, "mass-cap", "wn_hypernym, its cuts, the next words (a learned tree over "
     "uneven labels)", measured(
        ("wn_hypernym", "defaults-wn-cap.jsonl", "default", "nocap"),
        ("wn_hypernym, 1,000 labels", "defaults-budget-wn1000.jsonl",
         "1000 labels: e5 tree cap", "1000 labels: e5 tree nocap"),
        ("1,000 next words", "defaults-budget-next1000.jsonl", "e5 tree", "e5 tree nocap"),
        ("wn_hypernym at -arity 20 -dim 50 -epoch 10, against the least depth (4)",
         "defaults-wn20.jsonl", "today", "depth4"))),
    (EMBEDDING, "no-mass-cap", "a depth given, or a tree not rebuilt (cooking, debian_tags: "
     "the PLT's Huffman tree)", cited(
        "cooking at the defaults: the same predictions with the cap as without "
        "(-massSlack 0; seed 0, one thread): nothing reads it on a tree not rebuilt",
        RULE_EVIDENCE)),
    (EMBEDDING, "rebuilds-by-lines", "wn_hypernym, gutenberg_books", cited(
        "against 50 rebuilds, medians of 3-5 seeds: cooking 0.562 / 0.543, wn_hypernym "
        "0.285 / 0.274, debian_tags 0.766 / 0.763, gutenberg_books 0.140 / 0.125",
        RULE_EVIDENCE)),
    (EMBEDDING, "plt-once", "cooking, debian_tags with -tree learned", cited(
        "cooking 0.625 / 0.608 against 50 rebuilds (medians of seeds 1-10)",
        "docs/trees.md, \"One rebuild, at the middle of training\"")),
    (EMBEDDING, "no-learned-tree", "every fixed tree", unablated("nothing to rebuild")),
    (EMBEDDING, "scoring-mean", "gutenberg_books' wide root trained 10 rate-epochs or more "
     "(-lr 1 -epoch 20: the rule's evidence), a given -arity or -depth over it (Table 2's "
     "flags)", measured(
        ("gutenberg_books' wide root at -epoch 20", "defaults-scoring-budget-gb.jsonl",
         "e20 mean", "e20 tree"),
        ("its every fourth line, the same", "defaults-scoring-budget-gb4.jsonl", "e20 mean",
         "e20 tree"),
        ("gutenberg_books at Table 2's flags (-arity 20 -dim 50 -lr 0.5 -epoch 5)",
         "defaults-table2.jsonl", "depth3", "depth3-scoring-tree"),
        ("the same shape at the defaults (-dim 100)", "defaults-scoring-budget-gb.jsonl",
         "t2 mean", "t2 tree"))),
    (EMBEDDING, "scoring-mean-given", "-scoring mean given", unablated("it reads a flag")),
    (EMBEDDING, "scoring-tree", "every other tree; the wide root at the defaults "
     "(gutenberg_books, its every fourth line, the paragraphs' books)", measured(
        ("gutenberg_books' wide root at the defaults", "defaults-scoring-budget-gb.jsonl",
         "e5 tree", "e5 mean"),
        ("at -epoch 10", "defaults-scoring-budget-gb.jsonl", "e10 tree", "e10 mean"),
        ("its every fourth line at the defaults", "defaults-wide-root-gb4.jsonl",
         "scoring-tree", "default"),
        ("at -epoch 10", "defaults-scoring-budget-gb4.jsonl", "e10 tree", "e10 mean"),
        ("the paragraphs' books at the defaults (not used to choose)",
         "defaults-wide-root-bookpar.jsonl", "scoring-tree", "default"))),
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
    (LM, "depth-by-vocabulary", "every corpus up to 131,072 words", measured(
        ("first 1M tokens of gutenberg_lm", "defaults-lm-lm1m.jsonl", "fitted", "depth3"),
        ("first 1M tokens of gutenberg_small_lm", "defaults-lm-small1m.jsonl", "fitted",
         "depth3"))),
    (LM, "depth-fit-arity", "a given -arity", unablated("it reads a flag")),
    (LM, "mass-cap-two-levels", "every two-level tree", measured(
        ("first 1M tokens of gutenberg_lm, the fitted arity (130 / 92)",
         "defaults-lm-lm1m.jsonl", "fitted", "fitted-nocap"),
        ("the same, 200-ary", "defaults-lm-lm1m.jsonl", "floor-200", "nocap"))),
    (LM, "arity-fit-words", "every tree -arity does not shape (against a floor of 200 at "
     "two levels, which fired under 20,000 words)", measured(
        ("first 1M tokens of gutenberg_lm", "defaults-lm-lm1m.jsonl", "fitted", "floor-200"),
        ("first 1M tokens of gutenberg_small_lm", "defaults-lm-small1m.jsonl", "fitted",
         "floor-200"))),
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
    (LINEAR, "even-labels", "gutenberg_books, its every fourth line, the paragraphs' books",
     measured(*((name, EVEN_LABELS_FILE, f"{key}: four trees", f"{key}: two trees")
                for name, key in (("gutenberg_books", "gutenberg_books"),
                                  ("its every fourth line", "gb4"),
                                  ("the paragraphs' books", "bookpar"))))),
)
