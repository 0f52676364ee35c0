"""The time of ``-plan`` (the counting pass with the labels a line, then the
plan) against the counting pass alone (what training's token cache does
first: ``TokenCounter`` over the file's pieces, then the dictionary), in one
process, alternating, after a warm-up; prints each and their ratio, in
wall and in CPU seconds (both single-threaded: CPU seconds are the steadier
figure on a loaded machine).

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
    times = {"count": [], "plan": [], "count_cpu": [], "plan_cpu": []}
    for _ in range(a.repeat):
        for name, run in (("count", counting_pass), ("plan", plan_of_input)):
            t0, c0 = time.perf_counter(), time.process_time()
            run(args)
            times[name].append(time.perf_counter() - t0)
            times[name + "_cpu"].append(time.process_time() - c0)
    for kind, unit in (("", "wall s"), ("_cpu", "CPU s")):
        count_s, plan_s = times["count" + kind], times["plan" + kind]
        c, p = statistics.median(count_s), statistics.median(plan_s)
        print(f"{unit}: counting pass {c:.2f} (median of {a.repeat}: "
              f"{[round(x, 2) for x in count_s]}), -plan {p:.2f} "
              f"({[round(x, 2) for x in plan_s]}), ratio {p / c:.3f}; each run's: "
              f"{[round(y / x, 3) for x, y in zip(count_s, plan_s)]}")


if __name__ == "__main__":
    main()
