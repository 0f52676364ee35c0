"""The time of ``-plan`` (the counting pass with the labels a line, then the
plan) against the counting pass alone (what training's token cache does
first: ``TokenCounter`` over the file's pieces, then the dictionary), in one
process, alternating, after a warm-up; prints each and their ratio.

    plan_time.py TRAIN [--repeat 3]
"""

import argparse
import statistics
import time

import numpy as np

from treexc.classify.options import make_args
from treexc.classify.training import plan_of_input
from treexc.io.textio import ByteCheck, read_line_chunks
from treexc.text.dictionary import TokenCounter, dictionary_from_counts


def counting_pass(args):
    counter = TokenCounter()
    for _, piece in read_line_chunks(args.input, ByteCheck()):
        counter.add(np.frombuffer(piece, dtype=np.uint8))
    return dictionary_from_counts(counter.counted(), args, args.input)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("train")
    parser.add_argument("--repeat", type=int, default=3)
    a = parser.parse_args()
    args = make_args(input=a.train)
    plan_of_input(args)  # warm: kernels loaded, file in the page cache
    counting_pass(args)
    count_s, plan_s = [], []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        counting_pass(args)
        count_s.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        plan_of_input(args)
        plan_s.append(time.perf_counter() - t0)
    c, p = statistics.median(count_s), statistics.median(plan_s)
    print(f"counting pass: {c:.2f} s (median of {a.repeat}: {count_s})")
    print(f"-plan:         {p:.2f} s ({plan_s})")
    print(f"ratio: {p / c:.3f}; each run's: {[round(y / x, 3) for x, y in zip(count_s, plan_s)]}")


if __name__ == "__main__":
    main()
