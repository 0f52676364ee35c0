"""Prediction throughput of an embedding model's kernels: the lines/s of
``Model.predict_corpus`` on a test file, k = 1 and 5, CPU seconds (medians of
runs), to compare two checkouts of treexc in one run.

    .venv/bin/python benchmarks/bench_predict_order.py MODEL TEST [--tree DIR]

``--tree DIR``: the treexc package in DIR (an older commit unpacked with
`git archive COMMIT treexc | tar -x -C DIR`) instead of this working tree."""

import argparse
import statistics
import sys
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("model")
    ap.add_argument("test")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tree", default=None)
    a = ap.parse_args()
    if a.tree:  # the editable install's import hook would find this working tree first
        sys.path.insert(0, a.tree)
        sys.meta_path[:] = [f for f in sys.meta_path
                            if "__editable__" not in str(getattr(f, "__module__", ""))]
    from treexc.classify.model import load_model
    from treexc.io.textio import read_bytes

    model = load_model(a.model)
    corpus = model.encode_text(np.frombuffer(read_bytes(a.test), dtype=np.uint8))
    for k in (1, 5):
        model.predict_corpus(corpus, k)  # the kernels loaded (or compiled) first
        times = []
        for _ in range(a.runs):
            t = time.process_time()
            model.predict_corpus(corpus, k)
            times.append(time.process_time() - t)
        s = statistics.median(times)
        print(f"{a.model} k={k}: {corpus.n_lines} lines, {s:.4f} s CPU, "
              f"{corpus.n_lines / s:,.0f} lines/s", flush=True)


if __name__ == "__main__":
    sys.exit(main())
