#!/usr/bin/env python3
"""Which output layer should a user who passes no ``-loss`` get?

    python benchmarks/bench_default_loss.py                    # both cases
    python benchmarks/bench_default_loss.py --only crossover
    python benchmarks/bench_default_loss.py --sets wn_hypernym  # one data set's rows
    python benchmarks/bench_default_loss.py --quick            # small slices: checks the script

Cases (docs/results/trees.md says what each measures):
  crossover  treexc's softmax against its learned tree on gutenberg_books and
             wn_hypernym cut to their K most frequent labels, as K grows
  default    treexc with no -loss against fastText 0.9.2's hs and softmax at
             the flags of ../shared/data/README.md's reference table; target:
             P@1 >= the best fastText P@1 - 0.005

treexc and fastText run as subprocesses (harness.py).  The tables go to
stdout and to bench-results/default-loss.md.
"""

import collections
import re
import sys

from harness import (TREEXC, Bench, DataSet, Section, fasttext_train, flag_list, flags_text,
                     parse_p1, run, split_files, verdict)

CASES = ("crossover", "default")


def data_set(name, quick_lines, **flags):
    """Data set ``name`` at ``flags``; --quick: its first lines, 1 epoch."""
    return DataSet(name, *split_files(name), flags, quick_lines, dict(epoch=1))


# (data set and flags, fastText losses) as in ../shared/data/README.md
QUICK = (3000, 500)
DEFAULT_ROWS = [
    (data_set("cooking", QUICK, lr=0.5, epoch=25, dim=50, wordNgrams=2), ("hs", "softmax")),
    (data_set("gutenberg_books", QUICK, lr=0.5, epoch=5, dim=50), ("hs", "softmax")),
    (data_set("gutenberg_books", QUICK, lr=1.0, epoch=20, dim=50), ("hs", "softmax")),
    (data_set("gutenberg_books", QUICK, lr=1.0, epoch=20, dim=200), ("hs",)),
    (data_set("wn_hypernym", QUICK, lr=0.5, epoch=10, dim=50), ("hs", "softmax")),
    (data_set("wn_hypernym", QUICK, lr=1.0, epoch=25, dim=50), ("hs",)),
    (data_set("debian_tags", QUICK, lr=0.5, epoch=10, dim=50, wordNgrams=2), ("hs", "softmax")),
    (data_set("agnews_testonly", QUICK, lr=0.5, epoch=10, dim=50, wordNgrams=2),
     ("hs", "softmax")),
]
# (data set and flags, label counts K) for the crossover
CROSSOVER_ROWS = [
    (data_set("gutenberg_books", (5000, 1000), lr=1.0, epoch=20, dim=50), (100, 300, 1000, 2972)),
    (data_set("wn_hypernym", (5000, 1000), lr=0.5, epoch=10, dim=50), (300, 1000, 3000, 8758)),
]
LABEL = re.compile(rb"__label__\S+")


def top_labels(path, k):
    with open(path, "rb") as f:
        counts = collections.Counter(x for line in f for x in LABEL.findall(line))
    return {label for label, _ in counts.most_common(k)}


def restrict(src, dest, keep):
    """The lines of ``src`` whose labels are all in ``keep``."""
    with open(src, "rb") as f, open(dest, "wb") as g:
        for line in f:
            if set(LABEL.findall(line)) <= keep:
                g.write(line)
    return dest


class DefaultLossBench(Bench):
    tag = "default-loss"
    title = "treexc: the default output layer"

    def chosen(self, rows):
        """The rows of the data sets ``--sets`` names (all without it), each
        with its (train, test) files and flags."""
        sets = self.opts.sets.split(",") if self.opts.sets else None
        return [(ds.name, *self.split(ds), self.flags(ds), more) for ds, more in rows
                if sets is None or ds.name in sets]

    def treexc_p1(self, train, test, flags, loss=None):
        """(P@1, training seconds, what -verbose 2 said it chose) of one treexc run."""
        model = self.work / "model"
        loss_flags = ["-loss", loss] if loss else []
        trained = run([TREEXC, "supervised", "-input", str(train), "-output", str(model),
                       "-thread", "2", "-verbose", "2", *flag_list(flags), *loss_flags])
        tested = run([TREEXC, "test", str(model) + ".bin", str(test)])
        chose = re.search(rb"output layer: ([^\n]*)", trained.err)
        return (parse_p1(tested.out), trained.wall,
                chose.group(1).decode() if chose else (loss or ""))

    def case_crossover(self):
        section = Section("Crossover: flat softmax vs learned tree by label count",
                          ["data set", "flags", "labels", "train lines", "softmax P@1",
                           "tree P@1", "softmax train s", "tree train s", "softmax / tree time"])
        for name, train, test, flags, ks in self.chosen(CROSSOVER_ROWS):
            for k in ks[:2] if self.quick else ks:
                keep = top_labels(train, k)
                sub_train = restrict(train, self.work / f"{name}-{k}.train", keep)
                sub_test = restrict(test, self.work / f"{name}-{k}.test", keep)
                lines = sum(1 for _ in open(sub_train, "rb"))
                soft, soft_s, _ = self.treexc_p1(sub_train, sub_test, flags, "softmax")
                tree, tree_s, _ = self.treexc_p1(sub_train, sub_test, flags, "tree")
                section.rows.append([name, flags_text(flags), len(keep), f"{lines:,}",
                                     f"{soft:.3f}", f"{tree:.3f}", f"{soft_s:.1f}",
                                     f"{tree_s:.1f}", f"{soft_s / tree_s:.1f}"])
                print(section.rows[-1], flush=True)
        return section

    def case_default(self):
        section = Section("The default loss against fastText 0.9.2",
                          ["data set", "flags", "treexc default", "P@1", "train s",
                           "fastText hs P@1", "fastText softmax P@1", "target", "check"])
        for name, train, test, flags, losses in self.chosen(DEFAULT_ROWS):
            p1, train_s, chose = self.treexc_p1(train, test, flags)
            ft = {loss: fasttext_train(train, test, dict(flags, loss=loss, thread=2))["p1"]
                  for loss in losses}
            target = max(ft.values()) - 0.005
            section.rows.append([name, flags_text(flags), chose, f"{p1:.3f}",
                                 f"{train_s:.1f}", f"{ft['hs']:.3f}",
                                 f"{ft['softmax']:.3f}" if "softmax" in ft else "(not run)",
                                 f"{target:.3f}", verdict(p1 >= target)])
            print(section.rows[-1], flush=True)
        return section


if __name__ == "__main__":
    sys.exit(DefaultLossBench.main(__doc__, CASES, "default-loss.md", extra=[
        ("--sets", "", "comma-separated data sets: only their rows [all]")]))
