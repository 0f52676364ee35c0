#!/usr/bin/env python3
"""fastText 0.9.2 models converted by `treexc convert`: same answers, and speed.

    python benchmarks/bench_convert.py                   # every case
    python benchmarks/bench_convert.py --only cooking_hs --repeat 5
    python benchmarks/bench_convert.py --quick           # small slices: checks the script

Cases: fastText trains a model (fasttext_run.py, -thread 2), `treexc convert`
converts it, then on the whole evaluation file

* answers: fastText's top 5 labels and probabilities of every line (its
  Python binding's predict, `f.predict(line, 5, 0.0)`, formatted as
  `predict-prob` prints them: `%.6g`) against `treexc predict-prob
  converted.bin FILE 5`: lines whose labels differ, and lines whose printed
  probabilities differ (both must be 0);
* speed, --repeat times interleaved, medians: `treexc predict converted.bin
  FILE` (whole command), the same on a 1-line file (start-up), `treexc
  predict model.bin FILE` on fastText's own file (read directly), `treexc
  test converted.bin FILE`, and `fasttext_run.py test model.bin FILE`
  (fastText's load_model and model.test(), timed inside the process, and
  the process's wall time).

  cooking_softmax, cooking_hs   the fastText tutorial split and flags
                                (-lr 1.0 -epoch 25 -wordNgrams 2), softmax and hs
  gutenberg_hs, gutenberg_softmax  gutenberg_books, -dim 50 -lr 0.5 -epoch 3

The table goes to stdout and to bench-results/convert.md.
"""

import json

from harness import (FASTTEXT_RUN, PYTHON, THREADS, TREEXC, Bench, DataSet, Section,
                     count_lines, head, median_of, run, secs, split_files)

CASES = ("cooking_softmax", "cooking_hs", "gutenberg_hs", "gutenberg_softmax")
COOKING = DataSet(
    "cooking", *split_files("cooking", "valid", "cooking.tutorial"),
    flags=dict(lr=1.0, epoch=25, wordNgrams=2, thread=THREADS),
    quick_lines=(3000, 500), quick_flags=dict(epoch=5, bucket=100000))
GUTENBERG = DataSet(
    "gutenberg", *split_files("gutenberg_books"),
    flags=dict(dim=50, lr=0.5, epoch=3, thread=THREADS),
    quick_lines=(3000, 1000), quick_flags=dict(epoch=1, bucket=100000))
DATASETS = {"cooking": COOKING, "gutenberg": GUTENBERG}
K = 5
HEADER = ["metric", "treexc (converted model)", "fastText 0.9.2", "treexc / fastText",
          "check"]


def fasttext_answers(model_path, test_path, k):
    """fastText's answer lines to every line of ``test_path``, as
    `predict-prob FILE k` prints them."""
    import fasttext  # imported here: only this step needs fastText in this process

    f = fasttext.load_model(str(model_path)).f
    with open(test_path, "rb") as t:
        data = t.read()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    out = []
    for i, line in enumerate(lines):
        # the last line of a file without a final newline has no </s>
        text = line + (b"\n" if i < len(lines) - 1 or data.endswith(b"\n") else b"")
        pairs = f.predict(text, k, 0.0, "strict")
        out.append(" ".join(f"{label} {prob:.6g}" for prob, label in pairs))
    return out


def compare(ours, theirs):
    """(lines whose labels differ, lines whose printed probabilities differ)."""
    labels = probs = 0
    for a, b in zip(ours, theirs):
        if a.split()[0::2] != b.split()[0::2]:
            labels += 1
        elif a != b:
            probs += 1
    return labels + abs(len(ours) - len(theirs)), probs


class ConvertBench(Bench):
    tag = "convert"
    title = "treexc on fastText models converted by `treexc convert`"

    def warm_cache(self):
        """Compile (or load) the kernels of a converted model once, untimed."""
        ds = COOKING
        train, _ = self.split(ds)
        tiny = head(train, self.work / "tiny.txt", 200)
        run([PYTHON, FASTTEXT_RUN, "train", str(tiny),
             json.dumps(dict(epoch=1, dim=10, bucket=1000, wordNgrams=2, verbose=0)),
             "--save", str(self.work / "tiny.bin")])
        run([TREEXC, "convert", str(self.work / "tiny.bin"), str(self.work / "tiny-tx.bin")])
        run([TREEXC, "predict-prob", str(self.work / "tiny-tx.bin"), str(tiny), "3"])
        run([TREEXC, "test", str(self.work / "tiny-tx.bin"), str(tiny)])

    def case(self, name, loss):
        ds = DATASETS[name]
        self.once("warm", self.warm_cache)
        _, test = self.split(ds)
        ft = self.fasttext(ds, loss, save=True)
        ft_model = ft["model"]
        converted = self.work / f"{name}-{loss}-converted.bin"
        conv = run([TREEXC, "convert", ft_model, str(converted)])
        n_lines = count_lines(test)
        self.log(f"{name} {loss}: comparing answers on {n_lines} lines")
        ours = run([TREEXC, "predict-prob", str(converted), str(test), str(K)])
        ours = ours.out.decode("utf-8", "surrogateescape").splitlines()
        label_diff, prob_diff = compare(ours, fasttext_answers(ft_model, test, K))
        one_line = head(test, self.work / "one-line.txt", 1)
        runs = []
        for _ in range(self.repeat):
            full = run([TREEXC, "predict", str(converted), str(test)])
            one = run([TREEXC, "predict", str(converted), str(one_line)])
            direct = run([TREEXC, "predict", ft_model, str(test)])
            tst = run([TREEXC, "test", str(converted), str(test)])
            fr = run([PYTHON, FASTTEXT_RUN, "test", ft_model, str(test)])
            fig = json.loads(fr.out)
            runs.append({"full": full.wall, "one": one.wall, "direct": direct.wall,
                         "test": tst.wall, "ft_proc": fr.wall, "ft_test": fig["test_s"],
                         "ft_load": fig["load_s"], "ft_both": fig["load_s"] + fig["test_s"]})
        m = median_of(runs)
        flags = " ".join(f"-{k} {v}" for k, v in self.flags(ds, loss=loss).items())
        ok = "ok" if label_diff == 0 and prob_diff == 0 else "NO"
        body = m["full"] - m["one"]
        return Section(f"{name} {loss}: fastText `{flags}`", HEADER, rows=[
            [f"lines whose top-{K} labels differ", label_diff, "", "", ok + " (must be 0)"],
            [f"lines whose printed top-{K} probabilities differ", prob_diff, "", "",
             ok + " (must be 0)"],
            ["predict, whole command s", secs(m["full"]), secs(m["ft_test"]),
             f"{m['full'] / m['ft_test']:.2f}",
             "fastText: model.test() with the model loaded"],
            ["predict, whole command s, vs fastText load + test", secs(m["full"]),
             secs(m["ft_both"]), f"{m['full'] / m['ft_both']:.2f}",
             "fastText: load_model + model.test()"],
            ["predict s, start-up excluded", secs(body), secs(m["ft_test"]),
             f"{body / m['ft_test']:.2f}", "minus the 1-line command"],
            ["predict on fastText's .bin (read directly), s", secs(m["direct"]),
             secs(m["ft_both"]), f"{m['direct'] / m['ft_both']:.2f}", ""],
            ["test command s / fastText process s", secs(m["test"]), secs(m["ft_proc"]),
             f"{m['test'] / m['ft_proc']:.2f}", "whole processes"],
            ["convert s", secs(conv.wall), "", "", f"{n_lines:,} evaluation lines"],
        ], notes=[f"fastText trained in {secs(ft['train_s'])} s; test P@1 {ft['p1']:.3f}."])

    def case_cooking_softmax(self):
        return self.case("cooking", "softmax")

    def case_cooking_hs(self):
        return self.case("cooking", "hs")

    def case_gutenberg_hs(self):
        return self.case("gutenberg", "hs")

    def case_gutenberg_softmax(self):
        return self.case("gutenberg", "softmax")


if __name__ == "__main__":
    ConvertBench.main(__doc__, CASES, "convert.md")
