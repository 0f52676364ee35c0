"""The measurements of three embedding-classifier rules by training budget
(docs/defaults.md's ablations, read by ``defaults_evidence``): learned-arity
at wn_hypernym's grid flags and wide-root on gutenberg_books
(benchmarks/ablate_rules.py's records), and scoring-mean's two readings of
a wide root by -epoch (benchmarks/ablate_readings.py's records)."""

EMBEDDING = "-model embedding"
WN_GRID = "-model embedding -lr 0.5 -epoch 10"  # wn_hypernym's grid flags
BUDGET_ABLATIONS = (
    {"title": "learned-arity at the well-trained flags: wn_hypernym",
     "file": "defaults-arity-wn-grid.jsonl", "common": WN_GRID,
     "version": "0.1.0+763c601", "threads": 1,
     "command": "benchmarks/ablate_rules.py --train wn_hypernym.train.txt --test "
                "wn_hypernym.test.txt --common \"" + WN_GRID + "\" --config 'd50 arity20=-dim "
                "50' --config 'd50 sqrt=-dim 50 -arity 94 -massSlack 1' --config 'd100 "
                "arity20=-dim 100' --config 'd100 sqrt=-dim 100 -arity 94 -massSlack 1' "
                "--seeds 0,1,2 --threads 1 --out docs/results/defaults-arity-wn-grid.jsonl",
     "note": "At the flags of docs/results/trees.md's grid (5 rate-epochs), both -dim: "
             "`arity20`: the plan of the version measured, its default arity 20 (the plan of "
             "`-arity 20 -massSlack 1` here, field for field), no depth limit, the mass "
             "cap, 1 rebuild; `sqrt`: the same plan at "
             "learned-arity's 94 (`-massSlack 1`: the cap as planned). learned-arity leads "
             "on every seed at -dim 50 and on two of three at -dim 100 (level on the third), "
             "where at the defaults (2.5 rate-epochs) the 20-ary tree is level. Their "
             "training CPU seconds (user + system, start-up included) were measured with "
             "them, at load average 3-5 on the 2 cores (another engineer's benchmarks): "
             "compare those."},
    {"title": "wide-root by training budget: gutenberg_books",
     "file": "defaults-wide-root-gb.jsonl", "common": EMBEDDING,
     "version": "0.1.0+dcb04c3", "threads": 1,
     "command": "benchmarks/ablate_rules.py --train gutenberg_books.train.txt --test "
                "gutenberg_books.test.txt --common \"-model embedding\" --config default= "
                "--config 'no-wide-root=-arity 55 -massSlack 1' --config 'e20=-epoch 20' "
                "--config 'e20-no-wide-root=-epoch 20 -arity 55 -massSlack 1' --seeds 0,1,2 "
                "--threads 1 --out docs/results/defaults-wide-root-gb.jsonl",
     "note": "gutenberg_books (evenness 0.97, a median of 79 lines a label). `default`: the "
             "plan of the version measured at the defaults (2.5 rate-epochs), the 595-ary "
             "wide root (depth 2, 6 rebuilds) read by the tree (scoring-tree); "
             "`no-wide-root`: the tree the plan picks without the wide-root rule, the plan "
             "now (a median from WIDE_ROOT_BUDGET_MEDIAN trained under "
             "SCORING_MEAN_MIN_BUDGET rate-epochs): the least arity whose square holds the "
             "labels (55), no depth limit, the mass cap (`-massSlack 1`, so that a given "
             "arity does not fire depth-fit-arity), the same rebuilds, read by the mean "
             "(scoring-mean); `e20`, `e20-no-wide-root`: the same two at -epoch 20 (10 "
             "rate-epochs: the wide root, read by the mean, is the plan then and now; 24 "
             "rebuilds). The records are of two runs of the command's steps (the -epoch 5 "
             "pair, then the -epoch 20 pair). Their training CPU seconds (user + system, "
             "start-up included) were measured with them at `nice 19` beside the "
             "benchmarks of docs/results/xmc.md (load average 2-3 on the 2 cores): compare "
             "those."},
)
READINGS_VERSION = "0.1.0+b74b6d9"  # the two readings by training budget
READINGS_NOTE = ("Each seed trains once (`-thread 1`) and its model is read both ways, "
                 "`NAME tree` and `NAME mean` (the loaded model's scoring set to each: the "
                 "weights do not depend on it), so each pair compares two readings of one "
                 "model; both rows give that training's seconds. {what} The records are of "
                 "these steps run by a shell loop; the command runs the same steps. Their "
                 "training CPU seconds (user + system, start-up included) were measured "
                 "with them, at load average 3-6 on the 2 cores (another engineer's "
                 "benchmarks): compare those.")
BUDGET_ABLATIONS += (
    {"title": "scoring-mean by training budget: gutenberg_books",
     "file": "defaults-scoring-budget-gb.jsonl", "common": EMBEDDING,
     "version": READINGS_VERSION, "threads": 1,
     "command": "benchmarks/ablate_readings.py --train gutenberg_books.train.txt --test "
                "gutenberg_books.test.txt --common \"-model embedding\" --config 'e5=' "
                "--config 'e10=-epoch 10' --config 'e20=-epoch 20' --config 't2=-loss tree "
                "-arity 20' --seeds 0,1,2 --out docs/results/defaults-scoring-budget-gb.jsonl",
     "note": READINGS_NOTE.format(what=(
         "`e5`, `e10`, `e20`: the 595-ary wide root at -epoch 5 (the default), 10 and 20 "
         "at the default rate 0.5 (2.5, 5 and 10 rate-epochs); `t2`: Table 2's shape at "
         "the defaults' budget and -dim 100, the 20-ary tree of depth 3 (depth-fit-arity)."))},
    {"title": "scoring-mean by training budget: gutenberg_books' every fourth line",
     "file": "defaults-scoring-budget-gb4.jsonl", "common": EMBEDDING,
     "version": READINGS_VERSION, "threads": 1,
     "command": "benchmarks/ablate_readings.py --train gb4.train.txt --test "
                "gutenberg_books.test.txt --common \"-model embedding\" --config "
                "'e10=-epoch 10' --config 'e20=-epoch 20' --config 'd50=-dim 50' --seeds "
                "0,1,2 --out docs/results/defaults-scoring-budget-gb4.jsonl",
     "note": READINGS_NOTE.format(what=(
         "gb4.train.txt as in \"wide-root and scoring-mean at the embedding model's "
         "defaults: gutenberg_books' every fourth line\" (the -epoch 5 pair: its `default` "
         "and `scoring-tree` rows); the 592-ary wide root at -epoch 10 and 20 (5 and 10 "
         "rate-epochs), and at -epoch 5 with -dim 50 (`d50`)."))},
)
