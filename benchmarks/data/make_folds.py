"""Cross-validation folds of a labelled set.

    python benchmarks/data/make_folds.py OUT/NAME D.train.txt D.valid.txt D.test.txt --folds 5

Joins the files' lines, shuffles them once (``--seed``, 0 by default) and
writes ``OUT/NAME.foldF.train.txt`` and ``OUT/NAME.foldF.test.txt`` for
each fold F: the test file is every ``folds``-th line (or group of lines)
of the shuffled set, the training file the rest.  Every line is held out
exactly once, so ``tree_schedule.py --hits`` over the folds, joined by
``paired_lines.py`` (comma-separated files), compares two configurations
on all the set's lines instead of one test split's few thousand: a
difference of a tenth of a point of P@1 that one split cannot resolve.

``--group J`` keeps near-duplicate lines in one fold: two lines whose
word sets (labels left out) have a Jaccard similarity of at least J are
one group, and groups (connected) go to folds whole.  A set whose own
split keeps near-duplicates apart (debian_tags: a test line's most
similar training line has Jaccard 0.20 at the median; a random fold's,
0.49) is otherwise easier in cross-validation than on its own split.
"""

import argparse
import collections
import os

import numpy as np


def near_duplicate_groups(lines, threshold, rare=50, candidates=20):
    """A group id per line: lines whose word sets have Jaccard similarity at
    least ``threshold`` are joined (union-find).  Candidates of a line are
    the ``candidates`` lines sharing most of its rare words (in at most
    ``rare`` lines): near-duplicates share their rare words."""
    words = [frozenset(w for w in line.split() if not w.startswith(b"__label__"))
             for line in lines]
    df = collections.Counter(w for s in words for w in s)
    index = collections.defaultdict(list)
    for i, s in enumerate(words):
        for w in s:
            if df[w] <= rare:
                index[w].append(i)
    parent = list(range(len(lines)))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, s in enumerate(words):
        shared = collections.Counter(j for w in s if df[w] <= rare for j in index[w] if j != i)
        for j, _ in shared.most_common(candidates):
            if len(s & words[j]) >= threshold * len(s | words[j]):
                parent[root(i)] = root(j)
    return [root(i) for i in range(len(lines))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="output prefix: OUT/NAME")
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--group", type=float, metavar="J",
                        help="keep lines with word-set Jaccard >= J in one fold")
    a = parser.parse_args()
    if a.folds < 2:
        parser.error("--folds must be at least 2")
    lines = []
    for path in a.inputs:
        with open(path, "rb") as f:
            lines.extend(line if line.endswith(b"\n") else line + b"\n" for line in f)
    rng = np.random.default_rng(a.seed)
    order = rng.permutation(len(lines))
    if a.group is None:
        fold_of = np.empty(len(lines), dtype=np.int64)
        fold_of[order] = np.arange(len(lines)) % a.folds
    else:
        group = np.array(near_duplicate_groups(lines, a.group))
        ids = np.unique(group)
        fold_of_group = dict(zip(rng.permutation(ids).tolist(), np.arange(len(ids)) % a.folds))
        fold_of = np.array([fold_of_group[g] for g in group])
        print(f"{len(ids)} groups of near-duplicates over {len(lines)} lines")
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    for fold in range(a.folds):
        with open(f"{a.out}.fold{fold}.train.txt", "wb") as train, \
                open(f"{a.out}.fold{fold}.test.txt", "wb") as test:
            for i in order:
                (test if fold_of[i] == fold else train).write(lines[i])
        print(f"fold {fold}: {(fold_of != fold).sum()} training lines, "
              f"{(fold_of == fold).sum()} test lines")


if __name__ == "__main__":
    main()
