#!/usr/bin/env python3
"""Extreme classification at scale: the next-word task with up to
a quarter of a million labels, treexc's trees against fastText 0.9.2's hs.

    python benchmarks/make_next_word.py --size all --out /tmp/treexc-data/gutenberg_next_all
    python benchmarks/bench_scale.py --only next --next /tmp/treexc-data/gutenberg_next_all
    python benchmarks/bench_scale.py --only labels      # label-count scaling
    python benchmarks/bench_scale.py --only flat        # flat softmax, projected
    python benchmarks/bench_scale.py --quick            # 20,000 lines: checks the script

Cases (every run `-dim 50 -lr 0.5 -epoch 1 -thread 2`, one process each;
the data are `make_next_word.py` folders, NAME.train.txt and NAME.test.txt):
  next    on --next: treexc's learned 20-ary tree, 20-ary Huffman tree and
          binary hs, fastText's hs: P@1 and P@5 on the test file, training
          time and its share spent rebuilding the tree, test time (P@1),
          `treexc predict` lines/s (fastText: test lines / its test() time),
          peak memory (the process's ru_maxrss)
  labels  the learned 20-ary tree on --label-size examples whose label is
          among the K most frequent words, K in --label-counts (files made
          here with make_next_word.py --labels K): the labels the file
          holds, train s, rebuild s, peak memory, as K grows (and a plot,
          RESULTS.labels.png, when matplotlib is installed)
  flat    treexc's and fastText's flat softmax over every label of --next,
          trained on its first N = --flat-lines and 2N examples (plus lines
          naming every label, so the output layer is the full one): seconds
          per example from the difference (start-up cancels out), and that
          times the full training file's examples (the projected epoch)

The table goes to stdout and to bench-results/scale.md.
"""

import json
import re
from pathlib import Path

from harness import (FASTTEXT_RUN, PYTHON, REPO, THREADS, TREEXC, Bench, Section,
                     count_lines, exact_precision, flag_list, head, next_word_files, run,
                     secs)

CASES = ("next", "labels", "flat")
FLAGS = dict(dim=50, lr=0.5, epoch=1, thread=THREADS)
QUICK_LINES = 20000
MAKE_NEXT_WORD = REPO / "benchmarks" / "make_next_word.py"
REBUILDS = re.compile(rb"Tree rebuilds: (\d+) in ([0-9.]+) s")
TREEXC_ROWS = (("treexc learned tree", "20", ("-loss", "tree", "-arity", "20")),
               ("treexc M-ary Huffman", "20", ("-loss", "hs", "-arity", "20")),
               ("treexc binary hs (Huffman)", "2", ("-loss", "hs")))
HEADER = ["model", "arity", "P@1", "P@5", "train s", "rebuilds s (share)", "test s",
          "predict lines/s", "peak MiB"]


def distinct_labels(train):
    """Every distinct label of ``train`` (the leading ``__label__`` words of
    its lines), in order of first occurrence."""
    seen = {}
    with open(train, "rb") as f:
        for line in f:
            for word in line.split():
                if not word.startswith(b"__label__"):
                    break
                seen[word] = None
    return list(seen)


def label_lines(train, path, per_line=1000):
    """``train``'s distinct labels written ``per_line`` to a line without
    words, to ``path``."""
    names = distinct_labels(train)
    with open(path, "wb") as out:
        for i in range(0, len(names), per_line):
            out.write(b" ".join(names[i:i + per_line]) + b"\n")
    return path


class ScaleBench(Bench):
    tag = "scale"
    title = "Extreme classification at scale: gutenberg_next"

    def data(self, folder):
        train, test = next_word_files(folder)
        if not self.quick:
            return train, test
        return (head(train, self.work / "quick.train.txt", QUICK_LINES),
                head(test, self.work / "quick.test.txt", QUICK_LINES // 10))

    def warm_cache(self):
        train, _ = self.data(self.opts.next)
        tiny = head(train, self.work / "tiny.txt", 2000)
        for _, _, flags in TREEXC_ROWS:
            self.warm_model(tiny, flags)
        model = self.warm_model(tiny, ("-loss", "softmax"))
        run([TREEXC, "predict", model, str(tiny)])

    def treexc_row(self, train, test, model_flags, **changed):
        """Train, then test (P@1, P@5) and predict ``test``; without ``test``
        only train."""
        self.once("warm", self.warm_cache)
        out = self.work / ("treexc" + "".join(model_flags).replace("-", "_"))
        flags = [*model_flags, *flag_list({**FLAGS, **changed})]
        self.log(f"treexc {train.name} {' '.join(flags)}")
        t = run([TREEXC, "supervised", "-input", str(train), "-output", str(out), *flags,
                 "-verbose", "1"])
        if test is None:
            return {"train_s": t.wall, "maxrss": t.maxrss_mib}
        m = REBUILDS.search(t.err)
        r1 = run([TREEXC, "test", f"{out}.bin", str(test)])  # its time: the whole command
        pr = run([TREEXC, "predict", f"{out}.bin", str(test)])
        n = count_lines(test)
        p1, p5 = exact_precision(f"{out}.bin", test, (1, 5))
        return {"train_s": t.wall, "maxrss": t.maxrss_mib, "p1": p1, "p5": p5,
                "test_s": r1.wall, "predict_lps": n / pr.wall,
                "rebuild_s": float(m.group(2)) if m else 0.0}

    def fasttext_row(self, train, test, loss, **changed):
        flags = {**FLAGS, **changed, "loss": loss, "verbose": 0}
        self.log(f"fastText {train.name} {flags}")
        r = run([PYTHON, FASTTEXT_RUN, "train", str(train), json.dumps(flags)]
                + (["--test", str(test), "--p5"] if test else []))
        f = {**json.loads(r.out), "maxrss": r.maxrss_mib}
        if test is not None:
            f["predict_lps"] = f["n"] / f["test_s"]
        return f

    def case_next(self):
        train, test = self.data(self.opts.next)
        rows = []
        for name, arity, flags in TREEXC_ROWS:
            f = self.treexc_row(train, test, flags)
            share = f"{secs(f['rebuild_s'])} ({100 * f['rebuild_s'] / f['train_s']:.1f}%)" \
                if flags[1] == "tree" else ""
            rows.append([name, arity, f"{f['p1']:.4f}", f"{f['p5']:.4f}", secs(f["train_s"]),
                         share, secs(f["test_s"]), f"{f['predict_lps']:,.0f}",
                         f"{f['maxrss']:.0f}"])
        ft = self.fasttext_row(train, test, "hs")
        rows.append(["fastText 0.9.2 hs", "2", f"{ft['p1']:.4f}", f"{ft['p5']:.4f}",
                     secs(ft["train_s"]), "", secs(ft["test_s"]),
                     f"{ft['predict_lps']:,.0f} (test())", f"{ft['maxrss']:.0f}"])
        n = count_lines(train)
        return Section(f"next word: {n:,} training examples ({train.parent.name}), "
                       f"`{' '.join(flag_list(FLAGS))}`", HEADER, rows, notes=[
                           "train s: whole `treexc supervised` command (reading the text, "
                           "the token cache, training, saving); fastText: train_supervised().",
                           "test s: whole `treexc test` command; fastText: model.test()."])

    def case_labels(self):
        counts = [int(k) for k in self.opts.label_counts.split(",")]
        size = QUICK_LINES if self.quick else self.opts.label_size
        rows, measured = [], []
        for k in counts:
            folder = self.work / f"labels{k}"
            self.log(f"make_next_word.py --size {size} --labels {k}")
            run([PYTHON, str(MAKE_NEXT_WORD), "--size", str(size), "--labels", str(k),
                 "--valid-size", "1000", "--test-size", "10000", "--out", str(folder)])
            train, test = next_word_files(folder)
            f = self.treexc_row(train, test, TREEXC_ROWS[0][2])
            # the labels the examples hold: fewer than K where K exceeds the
            # distinct next words of --label-size positions
            present = len(distinct_labels(train))
            measured.append((present, f))
            rows.append([f"{k:,}", f"{present:,}", secs(f["train_s"]), secs(f["rebuild_s"]),
                         f"{100 * f['rebuild_s'] / f['train_s']:.1f}%", f"{f['maxrss']:.0f}",
                         f"{f['p1']:.4f}"])
        self.plot_labels(measured, Path(self.opts.results).with_suffix(".labels.png"))
        shown = f"{size:,}" if isinstance(size, int) else size
        return Section(f"label count: learned 20-ary tree, {shown} examples each",
                       ["K (most frequent words)", "labels in the training file", "train s",
                        "rebuilds s", "rebuild share", "peak MiB", "P@1"], rows)

    def plot_labels(self, measured, path):
        """Training time, rebuild time and peak memory against the label
        count (log scale), to ``path``; skipped without matplotlib."""
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            self.log("matplotlib not installed: no label-count plot (pip install matplotlib)")
            return
        ks = [k for k, _ in measured]
        fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
        left.plot(ks, [f["train_s"] for _, f in measured], marker="o", label="training")
        left.plot(ks, [f["rebuild_s"] for _, f in measured], marker="o",
                  label="of which tree rebuilds")
        left.set(xscale="log", xlabel="labels in the training file", ylabel="seconds")
        left.legend()
        right.plot(ks, [f["maxrss"] for _, f in measured], marker="o")
        right.set(xscale="log", xlabel="labels in the training file",
                  ylabel="peak memory (MiB)")
        fig.suptitle("learned 20-ary tree, next word, equal examples")
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        self.log(f"wrote {path}")

    def case_flat(self):
        train, _ = self.data(self.opts.next)
        n_all = count_lines(train)
        lines = min(self.opts.flat_lines, n_all // 2)
        # N lines hold a few thousand labels: lines of labels and no words
        # (skipped as examples by both tools) give both dictionaries every
        # label of the training file, so the softmax is over all of them
        labels = label_lines(train, self.work / "all-labels.txt")
        times = {}
        for n in (lines, 2 * lines):
            part = self.work / f"flat{n}.train.txt"
            with open(part, "wb") as out:
                out.write(head(train, self.work / "head.txt", n).read_bytes())
                out.write(labels.read_bytes())
            # the slope between N and 2N examples: start-up, reading and the
            # label lines cancel out
            times[n] = (self.treexc_row(part, None, ("-loss", "softmax"))["train_s"],
                        self.fasttext_row(part, None, "softmax")["train_s"])
        rows = []
        for i, name in enumerate(("treexc flat softmax", "fastText 0.9.2 softmax")):
            per = (times[2 * lines][i] - times[lines][i]) / lines
            rows.append([name, secs(times[lines][i]), secs(times[2 * lines][i]),
                         f"{1e3 * per:.3f}", f"{per * n_all / 3600:.1f}"])
        return Section(f"flat softmax over all the labels: the first {lines:,} and "
                       f"{2 * lines:,} examples, projected to {n_all:,}",
                       ["model", f"train s, {lines:,}", f"train s, {2 * lines:,}",
                        "ms per example (the difference)", "projected epoch, hours"], rows,
                       notes=["treexc: whole `treexc supervised` commands; fastText: "
                              "train_supervised().",
                              "Each training file also holds every label of the full "
                              "training file, 1,000 to a line with no words."])

if __name__ == "__main__":
    ScaleBench.main(__doc__, CASES, "scale.md", extra=[
        ("--next", "/tmp/treexc-data/gutenberg_next_all",
         "make_next_word.py folder of the next and flat cases [%(default)s]"),
        ("--label-counts", "10000,30000,100000,256000", "the labels case's K values"),
        ("--label-size", "1M", "training examples of each labels-case file: a number, "
         "1M, 10M or all (make_next_word.py's --size)"),
        ("--flat-lines", 2000, "examples the flat case trains on")])
