"""A single-label set less its most frequent labels: the lines of a training
file and of a test file whose label is not among the training file's
``--drop`` most frequent (``collections.Counter.most_common``: ties in the
order first seen), the first ``--lines`` of the training file's.

    drop_top_labels.py --train next1000.train.txt --test next1000.test.txt --drop 100 \
        --lines 60000 --out mid900

writes ``mid900.train.txt`` and ``mid900.test.txt`` (docs/defaults.md,
"auto-softmax-uneven on a set not used to choose").
"""

import argparse
import collections


def first_label(line):
    return line.split(maxsplit=1)[0] if line.strip() else ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--train", required=True)
    parser.add_argument("--test", required=True)
    parser.add_argument("--drop", type=int, required=True)
    parser.add_argument("--lines", type=int, default=0, help="training lines kept (0: all)")
    parser.add_argument("--out", required=True, help="output prefix")
    a = parser.parse_args()
    with open(a.train, encoding="utf-8") as f:
        counts = collections.Counter(first_label(line) for line in f)
    top = {label for label, _ in counts.most_common(a.drop)}
    for source, split, limit in ((a.train, "train", a.lines), (a.test, "test", 0)):
        kept = 0
        with open(source, encoding="utf-8") as f, \
                open(f"{a.out}.{split}.txt", "w", encoding="utf-8") as g:
            for line in f:
                if first_label(line) in top:
                    continue
                g.write(line)
                kept += 1
                if limit and kept >= limit:
                    break
        print(f"{a.out}.{split}.txt: {kept} lines")


if __name__ == "__main__":
    main()
