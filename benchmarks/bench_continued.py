"""Continued training (-inputModel) against training on the union.

For each case: the training file split into its first and second half
(the split files are shuffled), then

* union: ``supervised -input train.txt FLAGS``;
* halves: ``supervised -input first.txt FLAGS``, then ``supervised -input
  second.txt -inputModel first.bin FLAGS`` (the same -epoch per half: every
  line is trained on as often as in the union);

and P@1 on the test split.  Usage (the virtualenv's python):

    python benchmarks/bench_continued.py [--only CASES] [--second "FLAGS"]

``--second`` adds flags to the continued run alone (e.g. "-lr 0.25").
Prints a markdown table; the figures of docs/results/continued.md.
"""

import argparse
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


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--only", default=",".join(CASES))
    p.add_argument("--second", default="", help="flags of the continued run alone")
    p.add_argument("--unpacked", default=harness.UNPACKED)
    p.add_argument("--work", default="", help="folder kept between runs: the union and "
                   "first-half models found there are reused (their times then 0)")
    opts = p.parse_args()
    unpacked = Path(opts.unpacked)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-continued-") as temporary:
        work = opts.work or temporary
        for case in opts.only.split(","):
            ds, flags = CASES[case]
            train, test = harness.split_files(ds)
            if not (unpacked / train).exists():
                harness.unpack(harness.DATA, unpacked, train)
            lines = (unpacked / train).read_bytes().splitlines(keepends=True)
            first, second = Path(work, f"{ds}.first.txt"), Path(work, f"{ds}.second.txt")
            first.write_bytes(b"".join(lines[:len(lines) // 2]))
            second.write_bytes(b"".join(lines[len(lines) // 2:]))
            test = str(unpacked / test)
            common = flags.split() + ["-thread", str(harness.THREADS), "-verbose", "0"]
            second_flags = common + opts.second.split()
            out = Path(work, case)
            t_union = t_first = 0
            if not Path(f"{out}-union.bin").exists():
                _, t_union = treexc("supervised", "-input", str(unpacked / train), "-output",
                                    f"{out}-union", *common)
            if not Path(f"{out}-first.bin").exists():
                _, t_first = treexc("supervised", "-input", str(first), "-output",
                                    f"{out}-first", *common)
            _, t_second = treexc("supervised", "-input", str(second), "-inputModel",
                                 f"{out}-first.bin", "-output", f"{out}-cont", *second_flags)
            union, half, cont = (p1(f"{out}-{m}.bin", test) for m in ("union", "first", "cont"))
            harness.log(f"{case}: union {union:.3f}, first half {half:.3f}, continued "
                        f"{cont:.3f}")
            rows.append([case, flags + (f" (second: {' '.join(second_flags[len(common):])})"
                                        if len(second_flags) > len(common) else ""),
                         f"{union:.3f}", f"{half:.3f}", f"{cont:.3f}", f"{cont - union:+.3f}",
                         f"{t_union:.0f} / {t_first + t_second:.0f}"])
    print("\n".join(harness.table(["case", "flags", "P@1 union", "P@1 first half",
                                   "P@1 continued", "difference", "train s union / halves"],
                                  rows)))


if __name__ == "__main__":
    sys.exit(main())
