"""Where a classifier's right top-1 answers lie, by the frequency of the
true label (git log of docs/).

    python experiments/answer_bands.py TRAIN.txt TEST.txt MODEL.bin [MODEL.bin ...] \
        [--bands 10,116,500,3000]

Ranks the labels of TRAIN.txt by their count (0 = the commonest) and cuts
the ranks into bands at ``--bands``.  For each model, prints how many test
lines it answers rightly whose label falls in each band, and how many of
its answers fall in each band (a line's first label is its true one; the
P@1 here counts every test line, so lines with a label the training file
lacks count as wrong, unlike ``treexc test``).  Two models with the same
P@1 can get it from different labels: this says which.
"""

import argparse
import collections

import treexc
from treexc.io.textio import read_text


def text_lines(path):
    return bytes(read_text(path)).decode("utf-8", "surrogateescape").splitlines()


def first_labels(lines, prefix):
    """The first label of each line (None for a line without)."""
    return [next((t for t in line.split() if t.startswith(prefix)), None) for line in lines]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("train")
    parser.add_argument("test")
    parser.add_argument("models", nargs="+")
    parser.add_argument("--bands", default="10,116,500,3000",
                        help="rank boundaries of the bands (default: 10,116,500,3000)")
    parser.add_argument("--label", default="__label__")
    a = parser.parse_args()
    counts = collections.Counter(lab for lab in first_labels(text_lines(a.train), a.label)
                                 if lab)
    rank = {label: r for r, (label, _) in enumerate(counts.most_common())}
    cuts = [int(x) for x in a.bands.split(",")]
    names = ([f"ranks 0-{cuts[0] - 1}"]
             + [f"{lo}-{hi - 1}" for lo, hi in zip(cuts, cuts[1:])] + [f"{cuts[-1]}+"])

    def band(label):
        r = rank.get(label, len(rank))
        return next((i for i, c in enumerate(cuts) if r < c), len(cuts))

    lines = text_lines(a.test)
    truth = first_labels(lines, a.label)
    per_band = collections.Counter(band(t) for t in truth if t)
    print("| model | " + " | ".join(f"right, {n}" for n in names) + " | right, all | P@1 |")
    print("|---" * (len(names) + 3) + "|")
    answered = {}
    for path in a.models:
        model = treexc.load_model(path)
        labels, _ = model.predict(lines, k=1)
        right = collections.Counter()
        answered[path] = collections.Counter()
        for t, got in zip(truth, labels):
            top = got[0] if got else None
            if top is not None:
                answered[path][band(top)] += 1
            if t is not None and top == t:
                right[band(t)] += 1
        total = sum(right.values())
        print(f"| {path} | " + " | ".join(f"{right[i]:,}" for i in range(len(names)))
              + f" | {total:,} | {total / len(truth):.4f} |")
    print()
    print("| model | " + " | ".join(f"answers in {n}" for n in names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for path in a.models:
        print(f"| {path} | " + " | ".join(f"{answered[path][i]:,}" for i in range(len(names)))
              + " |")
    print("\ntest lines by band of their label: "
          + ", ".join(f"{n} {per_band[i]:,}" for i, n in enumerate(names)))


if __name__ == "__main__":
    main()
