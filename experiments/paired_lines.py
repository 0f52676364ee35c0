"""Two configurations compared line by line, over seeds.

    python experiments/paired_lines.py A.npz B.npz
    python experiments/paired_lines.py A-valid.npz,A-test.npz B-valid.npz,B-test.npz

A and B are ``tree_schedule.py --hits`` files of the same test file and
seeds; comma-separated files are one test set, their lines joined (e.g.
the validation and test splits, both held out). The median of each
configuration's per-seed P@k says how it does over training's randomness,
but not how much of a difference between the two the test file itself can
resolve: both are measured on the same few thousand lines. Here each
line's precision at k is averaged over the seeds (``correct / made``, the
line's share of P@k), the two configurations' averages are subtracted line
by line, and the mean difference is printed with its standard error over
lines (the paired test of the difference between two classifiers on one
test set). Also: how many seeds each configuration wins when paired by
seed.
"""

import sys

import numpy as np


def load(paths):
    """The hits of comma-separated ``paths``, their lines joined."""
    parts = [np.load(path) for path in paths.split(",")]
    return {key: np.concatenate([part[key] for part in parts], axis=1)
            for key in parts[0].files}


def main():
    a, b = load(sys.argv[1]), load(sys.argv[2])
    for key in sorted(k for k in a if k.startswith("correct")):
        k = key[len("correct"):]
        made_a, made_b = a[f"made{k}"], b[f"made{k}"]
        # per seed: fastText's P@k; per line: the seeds' mean share of it
        seeds_a = a[key].sum(1) / made_a.sum(1)
        seeds_b = b[key].sum(1) / made_b.sum(1)
        lines_a = (a[key] / np.maximum(made_a, 1)).mean(0)
        lines_b = (b[key] / np.maximum(made_b, 1)).mean(0)
        diff = lines_a - lines_b
        se = diff.std(ddof=1) / np.sqrt(len(diff))
        wins = (int((seeds_a > seeds_b).sum()), int((seeds_a < seeds_b).sum()))
        print(f"P@{k}: medians {np.median(seeds_a):.4f} / {np.median(seeds_b):.4f} over "
              f"{len(seeds_a)} / {len(seeds_b)} seeds; per line {lines_a.mean():.4f} - "
              f"{lines_b.mean():.4f} = {diff.mean():+.4f} +- {se:.4f} (standard error over "
              f"{len(diff)} lines); seeds won {wins[0]} / {wins[1]}")


if __name__ == "__main__":
    main()
