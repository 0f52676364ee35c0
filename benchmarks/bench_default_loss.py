#!/usr/bin/env python3
"""Which output layer should a user who passes no ``-loss`` get?

    python benchmarks/bench_default_loss.py                    # both cases
    python benchmarks/bench_default_loss.py --only crossover
    python benchmarks/bench_default_loss.py --sets wn_hypernym  # one data set's rows
    python benchmarks/bench_default_loss.py --quick            # small slices: checks the script

Cases (docs/benchmarks-trees.md, "Default loss", says what each measures):
  crossover  treexc's flat softmax against its learned tree on slices of
             gutenberg_books and wn_hypernym restricted to their K most
             frequent labels: P@1 and training time as K grows
  default    treexc with no -loss against fastText 0.9.2's hs and softmax, in
             the same run, at every flag setting of ../shared/data/README.md's
             reference table (the losses that row lists); target: treexc's
             P@1 >= the best fastText P@1 - 0.005

Every treexc figure is a ``treexc`` subprocess; fastText runs in a subprocess
too (benchmarks/fasttext_run.py).  The tables go to stdout and to
bench-results/default-loss.md.
"""

import collections
import json
import re
import sys
import tempfile
from pathlib import Path

from bench_classify import (FASTTEXT_RUN, PYTHON, TREEXC, DataFiles, Section, environment,
                            flag_list, head, parse_options, run, write_report)

CASES = ("crossover", "default")

# (data set, train, test, flags, fastText losses) as in ../shared/data/README.md
DEFAULT_ROWS = [
    ("cooking", "cooking/cooking.train.txt", "cooking/cooking.test.txt",
     dict(lr=0.5, epoch=25, dim=50, wordNgrams=2), ("hs", "softmax")),
    ("gutenberg_books", "gutenberg_books/gutenberg_books.train.txt",
     "gutenberg_books/gutenberg_books.test.txt", dict(lr=0.5, epoch=5, dim=50),
     ("hs", "softmax")),
    ("gutenberg_books", "gutenberg_books/gutenberg_books.train.txt",
     "gutenberg_books/gutenberg_books.test.txt", dict(lr=1.0, epoch=20, dim=50),
     ("hs", "softmax")),
    ("gutenberg_books", "gutenberg_books/gutenberg_books.train.txt",
     "gutenberg_books/gutenberg_books.test.txt", dict(lr=1.0, epoch=20, dim=200), ("hs",)),
    ("wn_hypernym", "wn_hypernym/wn_hypernym.train.txt", "wn_hypernym/wn_hypernym.test.txt",
     dict(lr=0.5, epoch=10, dim=50), ("hs", "softmax")),
    ("wn_hypernym", "wn_hypernym/wn_hypernym.train.txt", "wn_hypernym/wn_hypernym.test.txt",
     dict(lr=1.0, epoch=25, dim=50), ("hs",)),
    ("debian_tags", "debian_tags/debian_tags.train.txt", "debian_tags/debian_tags.test.txt",
     dict(lr=0.5, epoch=10, dim=50, wordNgrams=2), ("hs", "softmax")),
    ("agnews_testonly", "agnews_testonly/agnews_testonly.train.txt",
     "agnews_testonly/agnews_testonly.test.txt", dict(lr=0.5, epoch=10, dim=50, wordNgrams=2),
     ("hs", "softmax")),
]

# (data set, train, test, flags, label counts K) for the crossover
CROSSOVER_ROWS = [
    ("gutenberg_books", "gutenberg_books/gutenberg_books.train.txt",
     "gutenberg_books/gutenberg_books.test.txt", dict(lr=1.0, epoch=20, dim=50),
     (100, 300, 1000, 2972)),
    ("wn_hypernym", "wn_hypernym/wn_hypernym.train.txt", "wn_hypernym/wn_hypernym.test.txt",
     dict(lr=0.5, epoch=10, dim=50), (300, 1000, 3000, 8758)),
]
LABEL = re.compile(rb"__label__\S+")


def top_labels(path, k):
    counts = collections.Counter()
    with open(path, "rb") as f:
        for line in f:
            counts.update(LABEL.findall(line))
    return {label for label, _ in counts.most_common(k)}


def restrict(src, dest, keep):
    """The lines of ``src`` whose labels are all in ``keep``."""
    with open(src, "rb") as f, open(dest, "wb") as g:
        for line in f:
            if set(LABEL.findall(line)) <= keep:
                g.write(line)
    return dest


def treexc_p1(work, train, test, flags, loss=None):
    """(P@1, training seconds, what -verbose 2 said it chose) of one treexc run."""
    model = work / "model"
    loss_flags = ["-loss", loss] if loss else []
    trained = run([TREEXC, "supervised", "-input", str(train), "-output", str(model),
                   "-thread", "2", "-verbose", "2", *flag_list(flags), *loss_flags])
    tested = run([TREEXC, "test", str(model) + ".bin", str(test)])
    p1 = float(tested.out.split()[3])
    chose = re.search(rb"output layer: ([^\n]*)", trained.err)
    return p1, trained.wall, chose.group(1).decode() if chose else (loss or "")


def fasttext_p1(train, test, flags, loss):
    result = run([PYTHON, FASTTEXT_RUN, "train", str(train),
                  json.dumps(dict(flags, loss=loss, thread=2)), "--test", str(test)])
    figures = json.loads(result.out)
    return figures["p1"], figures["train_s"]


def chosen(opts, rows):
    """The rows of the data sets ``--sets`` names (all without it)."""
    sets = opts.sets.split(",") if opts.sets else None
    return [row for row in rows if sets is None or row[0] in sets]


def split(opts, data, work, train_rel, test_rel, flags, quick_lines):
    """(train, test, flags) of one row; with --quick the first lines and 1 epoch."""
    train, test = data.file(train_rel), data.file(test_rel)
    if opts.quick:
        train = head(train, work / "q.train", quick_lines[0])
        test = head(test, work / "q.test", quick_lines[1])
        flags = dict(flags, epoch=1)
    return train, test, flags


def crossover(opts, data, work):
    section = Section("Crossover: flat softmax vs learned tree by label count",
                      ["data set", "flags", "labels", "train lines", "softmax P@1",
                       "tree P@1", "softmax train s", "tree train s", "softmax / tree time"])
    for name, train_rel, test_rel, flags, ks in chosen(opts, CROSSOVER_ROWS):
        train, test, flags = split(opts, data, work, train_rel, test_rel, flags, (5000, 1000))
        ks = ks[:2] if opts.quick else ks
        for k in ks:
            keep = top_labels(train, k)
            sub_train = restrict(train, work / f"{name}-{k}.train", keep)
            sub_test = restrict(test, work / f"{name}-{k}.test", keep)
            lines = sum(1 for _ in open(sub_train, "rb"))
            soft, soft_s, _ = treexc_p1(work, sub_train, sub_test, flags, "softmax")
            tree, tree_s, _ = treexc_p1(work, sub_train, sub_test, flags, "tree")
            section.rows.append([name, " ".join(flag_list(flags)), len(keep), f"{lines:,}",
                                 f"{soft:.3f}", f"{tree:.3f}", f"{soft_s:.1f}", f"{tree_s:.1f}",
                                 f"{soft_s / tree_s:.1f}"])
            print(section.rows[-1], flush=True)
    return section


def default(opts, data, work):
    section = Section("The default loss against fastText 0.9.2",
                      ["data set", "flags", "treexc default", "P@1", "train s",
                       "fastText hs P@1", "fastText softmax P@1", "target", "check"])
    for name, train_rel, test_rel, flags, losses in chosen(opts, DEFAULT_ROWS):
        train, test, flags = split(opts, data, work, train_rel, test_rel, flags, (3000, 500))
        p1, train_s, chose = treexc_p1(work, train, test, flags)
        ft = {loss: fasttext_p1(train, test, flags, loss)[0] for loss in losses}
        target = max(ft.values()) - 0.005
        section.rows.append([name, " ".join(flag_list(flags)), chose, f"{p1:.3f}",
                             f"{train_s:.1f}", f"{ft['hs']:.3f}",
                             f"{ft['softmax']:.3f}" if "softmax" in ft else "(not run)",
                             f"{target:.3f}", "ok" if p1 >= target else "NO"])
        print(section.rows[-1], flush=True)
    return section


def main():
    opts = parse_options(__doc__, CASES, "default-loss.md", extra=[
        ("--sets", dict(default="", help="comma-separated data sets: only their rows [all]"))])
    work = Path(tempfile.mkdtemp(prefix="treexc-default-loss-"))
    data = DataFiles(opts, work)
    sections = []
    for case in opts.only:
        sections.append({"crossover": crossover, "default": default}[case](opts, data, work))
    write_report("treexc: the default output layer", opts, environment(opts), sections)


if __name__ == "__main__":
    sys.exit(main())
