"""Continued training (-inputModel) against training on the union.

For each case: the training file split into its first and second half
(the split files are shuffled), then

* union: ``supervised -input train.txt FLAGS``;
* halves: ``supervised -input first.txt FLAGS``, then ``supervised -input
  second.txt -inputModel first.bin FLAGS`` (the same -epoch per half: every
  line is trained on as often as in the union);

and P@1 on the test split.  Usage (the virtualenv's python):

    python benchmarks/bench_continued.py [--only CASES] [--second "FLAGS"] [--seeds 1,2,3]

``--second`` adds flags to the continued run alone (e.g. "-lr 0.25").
``--seeds``: each run at ``-seed S`` for each seed, the medians reported,
at ``-thread 1`` (reproducible) unless ``--thread`` says otherwise;
without it one run at ``-thread 2``.
``--halves`` also reports P@1 on the first and the second half's own lines
(what the continued model forgot of the first).  Prints a markdown table;
the figures of docs/results/continued.md.
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import harness

CASES = {
    "cooking-softmax": ("cooking", "-loss softmax -lr 0.5 -epoch 25 -dim 50 -wordNgrams 2 "
                        "-bucket 200000"),
    "cooking-tree": ("cooking", "-loss tree -lr 0.5 -epoch 25 -dim 50 -wordNgrams 2 "
                     "-bucket 200000"),
    "cooking-plt": ("cooking", "-loss plt -lr 0.5 -epoch 25 -dim 50 -wordNgrams 2 "
                    "-bucket 200000"),
    "gutenberg_books-tree": ("gutenberg_books", "-loss tree -lr 0.5 -epoch 5 -dim 50"),
    "gutenberg_books-softmax": ("gutenberg_books", "-loss softmax -lr 0.5 -epoch 5 -dim 50"),
    "gutenberg_books-tree-lr1": ("gutenberg_books", "-loss tree -lr 1.0 -epoch 5 -dim 50"),
}


def treexc(*args):
    start = time.perf_counter()
    r = subprocess.run([harness.TREEXC, *args], capture_output=True, check=False)
    if r.returncode:
        raise SystemExit(f"treexc {' '.join(args)} failed: {r.stderr.decode()[-2000:]}")
    return r, time.perf_counter() - start


def p1(model, test):
    return harness.parse_p1(treexc("test", model, test)[0].stdout)


def run_case(case, unpacked, work, opts, seed):
    """``(union, first half, continued)``: P@1 on the test split (and with
    ``--halves`` on the first and the second half's lines), and the seconds."""
    ds, flags = CASES[case]
    train, test = harness.split_files(ds)
    if not (unpacked / train).exists():
        harness.unpack(harness.DATA, unpacked, train)
    lines = (unpacked / train).read_bytes().splitlines(keepends=True)
    first, second = Path(work, f"{ds}.first.txt"), Path(work, f"{ds}.second.txt")
    first.write_bytes(b"".join(lines[:len(lines) // 2]))
    second.write_bytes(b"".join(lines[len(lines) // 2:]))
    files = [str(unpacked / test)] + ([str(first), str(second)] if opts.halves else [])
    threads = opts.thread or (1 if seed is not None else harness.THREADS)
    runs = ["-thread", str(threads)] + (["-seed", str(seed)] if seed is not None else [])
    common = flags.split() + runs + ["-verbose", "0"]
    out = Path(work, case if seed is None else f"{case}-s{seed}")
    t_union = t_first = 0
    if not Path(f"{out}-union.bin").exists():
        _, t_union = treexc("supervised", "-input", str(unpacked / train), "-output",
                            f"{out}-union", *common)
    if not Path(f"{out}-first.bin").exists():
        _, t_first = treexc("supervised", "-input", str(first), "-output",
                            f"{out}-first", *common)
    _, t_second = treexc("supervised", "-input", str(second), "-inputModel",
                         f"{out}-first.bin", "-output", f"{out}-cont", *common,
                         *opts.second.split())
    scores = [[p1(f"{out}-{m}.bin", f) for f in files] for m in ("union", "first", "cont")]
    harness.log(f"{case} seed {seed}: union, first half, continued {scores}")
    return scores, t_union, t_first + t_second


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--only", default=",".join(CASES))
    p.add_argument("--second", default="", help="flags of the continued run alone")
    p.add_argument("--unpacked", default=harness.UNPACKED)
    p.add_argument("--work", default="", help="folder kept between runs: the union and "
                   "first-half models found there are reused (their times then 0)")
    p.add_argument("--seeds", default="", help="seeds of -thread 1 runs (medians)")
    p.add_argument("--thread", type=int, default=0, help="-thread of every run (0: 1 with "
                   "--seeds, else 2)")
    p.add_argument("--halves", action="store_true", help="also P@1 on each half's lines")
    opts = p.parse_args()
    unpacked = Path(opts.unpacked)
    seeds = [int(x) for x in opts.seeds.split(",")] if opts.seeds else [None]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-continued-") as temporary:
        work = opts.work or temporary
        for case in opts.only.split(","):
            runs = [run_case(case, unpacked, work, opts, seed) for seed in seeds]
            # medians over the seeds, of each model's P@1 on each file
            files = range(len(runs[0][0][0]))
            union, half, cont = ([statistics.median(r[0][m][f] for r in runs) for f in files]
                                 for m in range(3))
            diff = statistics.median(r[0][2][0] - r[0][0][0] for r in runs)
            rows.append([case, CASES[case][1] + (f" (second: {opts.second})" if opts.second
                                                 else ""),
                         *(" / ".join(f"{v:.3f}" for v in x) for x in (union, half, cont)),
                         f"{diff:+.3f}",
                         f"{statistics.median(r[1] for r in runs):.0f} / "
                         f"{statistics.median(r[2] for r in runs):.0f}"])
    print("\n".join(harness.table(["case", "flags", "P@1 union", "P@1 first half",
                                   "P@1 continued", "difference", "train s union / halves"],
                                  rows)))


if __name__ == "__main__":
    sys.exit(main())
