"""The measurements of the linear model's rules that read the data
(``linear/plan.py``: few-lines, even-labels): the ablations docs/defaults.md
shows, their records in docs/results/defaults-linear-few-lines.jsonl and
defaults-linear-even-labels.jsonl (benchmarks/bench_linear.py's records,
gathered from one run per set)."""


def _commands(unpacked, rule, sets):
    """The bench's command lines of ``sets``: ``(name, seeds, variants)``."""
    return "\nPYTHONPATH=. .venv/bin/python ".join(
        f"benchmarks/bench_linear.py --unpacked {unpacked} --sets {name} --seeds {seeds} "
        f"--variants {variants} --out {rule}-{name}.jsonl" for name, seeds, variants in sets)


FEW_LINES_FILE = "defaults-linear-few-lines.jsonl"
FEW_LINES_SETS = (("wn_hypernym", "0,1,2", '"C 1: C=1" "C 2: C=2" "C 2, leaves of 100: C=2 '
                   'leafSize=100"'),
                  ("cooking", "0,1,2", '"C 1: C=1" "C 2: C=2" "C 2, leaves of 50: C=2 '
                   'leafSize=50" "C 1.5: C=1.5"'),
                  ("gb20k", "0", '"C 1: C=1" "C 2: C=2" "C 2, leaves of 100: C=2 leafSize=100"'),
                  ("gb50k", "0", '"C 1: C=1" "C 2: C=2" "C 2, leaves of 100: C=2 leafSize=100"'),
                  ("nw100k", "0", '"C 1: C=1" "C 2: C=2" "C 2, leaves of 100: C=2 '
                   'leafSize=100"'))
FEW_LINES_ABLATION = {
    "title": "few-lines: the linear model where labels have few lines",
    "file": FEW_LINES_FILE, "common": "-model linear",
    "version": "0.1.0+15d058d (the plan before few-lines: its defaults -C 1 -leafSize 25)",
    "command": _commands("/tmp/h2-data", "few-lines", FEW_LINES_SETS),
    "note": "C and the leaf size where the median training line's label has few lines "
            "(in brackets: its count, then the median label's). wn_hypernym (11, 4) and "
            "cooking (110, 14) were tuned on, over three seeds; not used to choose, at "
            "seed 0: gutenberg_books' first 20,000 training lines (8, 7) and first 50,000 "
            "(19, 17), both tested on its first 5,000 test lines (`head -N`), and 100,000 "
            "next words (301, 1; `benchmarks/make_next_word.py --size 100k --test-size 10k "
            "--splits train,test --name nw100k`). Each configuration's records were "
            "written as the bench's `--out` writes them and gathered into one file, each "
            "named by its set (wn_hypernym's `C 1` ran as that version's defaults, the "
            "same options). The default today is `C 2, leaves of 100` on wn_hypernym "
            "and on both gutenberg_books slices, and `C 1` on cooking and the next words. "
            "Compare the CPU seconds (`-thread 2`, load average 13-20)."}

EVEN_LABELS_FILE = "defaults-linear-even-labels.jsonl"
_TREES = '"two trees: ensemble=2" "three trees: ensemble=3" "four trees: ensemble=4"'
EVEN_LABELS_SETS = (
    ("gutenberg_books", "0,1,2", _TREES + ' "leaves of 100: leafSize=100" '
     '"leaves of 100, three trees: leafSize=100 ensemble=3"'),
    ("bookpar", "0,1,2", _TREES + ' "leaves of 100, three trees: leafSize=100 ensemble=3"'),
    ("gb4", "0", _TREES),
    ("gutenberg_next", "0", '"two trees: ensemble=2" "three trees: ensemble=3"'),
    ("wn_hypernym", "0", '"two trees: ensemble=2" "three trees: ensemble=3"'),
    ("cooking", "0,1,2", _TREES + ' "leaves of 100, three trees: leafSize=100 ensemble=3"'),
    ("debian_tags", "0", _TREES + ' "leaves of 100, three trees: leafSize=100 ensemble=3"'))
EVEN_LABELS_ABLATION = {
    "title": "even-labels: the linear model's trees where labels are equally frequent",
    "file": EVEN_LABELS_FILE, "common": "-model linear",
    "version": "0.1.0+c6d6a86 (the plan before even-labels: its default -ensemble 2)",
    "command": _commands("/tmp/data-xmcbench", "even-labels", EVEN_LABELS_SETS),
    "note": "The number of trees (and Omikuji Bonsai's leaves of 100) by the labels' "
            "evenness (in brackets: evenness, then the median count a label). About "
            "equally frequent: gutenberg_books (0.97, 79) and its every fourth training "
            "line (0.95, 19; `awk 'NR % 4 == 1'`, its test file as it is) were tuned on; "
            "the paragraphs' books (0.98, 150; `benchmarks/data/make_book_paragraphs.py "
            "--data /tmp/data-xmcbench/gutenberg_lm --out /tmp/data-xmcbench/bookpar`) "
            "was not used to choose. Uneven: cooking (0.38, 14), debian_tags (0.15, 24), "
            "wn_hypernym (0.52, 4) and the next words (0.02, 2). A configuration's records "
            "were written as the bench's `--out` writes them and gathered into one file, "
            "each named by its set; `two trees` is that version's default, the same "
            "options as no flag (some of its seeds ran without the flag); the leaves-of-100 "
            "configurations and the paragraphs' books' three trees ran at seed 0 only. "
            "Compare the CPU "
            "seconds (`-thread 2`, the machine otherwise idle but for the other runs of "
            "this table, one at a time)."}
