#!/usr/bin/env python3
"""Label weights on skewed labels: macro-F1 and P@1 with and without
``-weightBalanced``, for treexc's linear (default) and embedding models,
against fastText 0.9.2 (which has no weights) in the same run.

    python benchmarks/bench_weights.py                       # cooking, wn_hypernym
    python benchmarks/bench_weights.py --only cooking
    python benchmarks/bench_weights.py --quick               # small slices: checks the script

Rows: no weights, ``-weightBalanced``, and ``-labelWeights`` with a file
of the balanced weights to the power 0.5 (normalised the same way),
written here from the training file: a milder weighting.

Each row is a process of its own (``bench_weights.py worker ...``): it
trains (treexc through its command line, fastText through
``fasttext.train_supervised``) and scores the test split at k = 1,
threshold 0.  P@1: fastText's meter (correct predictions over predictions
made).  Macro-F1: the mean, over the model's labels that occur in the test
file or are predicted on it at least once, of ``2 * correct / (predicted +
gold)`` (a label's F1 at k = 1; 0 for a label never predicted): for treexc
from the per-label counts of its meter (what ``treexc test-label`` reads),
for fastText the same counts of treexc's meter on its saved model
(read by treexc, which predicts with fastText's arithmetic to the bit:
fastText 0.9.2's own ``test_label`` gives NaN recalls), its P@1 checked
against ``model.test``.  Results:
docs/results/weights.md.
"""

import json
import sys
import time
from pathlib import Path

import harness
from harness import PYTHON, THREADS, TREEXC, log, run

# both tools' flags for the embedding model (-model embedding's default
# loss is the plan's; fastText's listed per row)
FLAGS = {
    "cooking": dict(dim=50, lr=0.5, epoch=25, wordNgrams=2),
    "wn_hypernym": dict(dim=50, lr=0.5, epoch=5, wordNgrams=2),
}
QUICK_LINES = (3000, 500)
# (row name, tool, treexc flags or fastText's loss)
# the tempered weights of the -labelWeights rows: -weightBalanced's to this
# power, normalised as it is (mean line weight 1), written to a file
POWER = 0.5
SQRT = f"-labelWeights (balanced^{POWER})"
TREEXC_ROWS = [
    ("treexc linear (default)", "treexc", []),
    ("treexc linear -weightBalanced", "treexc", ["-weightBalanced"]),
    (f"treexc linear {SQRT}", "treexc", ["-labelWeights", "TEMPERED"]),
    ("treexc -model embedding", "treexc", ["-model", "embedding"]),
    ("treexc -model embedding -weightBalanced", "treexc",
     ["-model", "embedding", "-weightBalanced"]),
    (f"treexc -model embedding {SQRT}", "treexc",
     ["-model", "embedding", "-labelWeights", "TEMPERED"]),
]
ROWS = {
    "cooking": [*TREEXC_ROWS, ("fastText ova", "fasttext", "ova"),
                ("fastText softmax", "fasttext", "softmax")],
    "wn_hypernym": [*TREEXC_ROWS, ("fastText hs", "fasttext", "hs")],
}
CASES = tuple(ROWS)


def macro_f1(gold, predicted, correct):
    """Mean of ``2 c / (p + g)`` over the labels with ``p + g > 0``."""
    scores = [2.0 * c / (p + g) for g, p, c in zip(gold, predicted, correct) if p + g > 0]
    return sum(scores) / len(scores), len(scores)


def tempered_weights(train, out, power):
    """A -labelWeights file: -weightBalanced's weights of ``train`` to
    ``power``, normalised to a mean line weight of 1 (the line's mean)."""
    import numpy as np

    from treexc.text.label_weights import balanced_weights
    ids, off, labels = {}, [0], []
    with open(train, encoding="utf-8", errors="replace") as f:
        for line in f:
            labels += [ids.setdefault(w, len(ids)) for w in line.split()
                       if w.startswith("__label__")]
            off.append(len(labels))
    off, labels = np.array(off), np.array(labels, dtype=np.int64)
    w = balanced_weights(off, labels, len(ids)) ** power
    mean = np.mean([w[np.unique(labels[a:b])].mean()
                    for a, b in zip(off[:-1], off[1:]) if b > a])
    with open(out, "w") as f:
        f.writelines(f"{name} {w[i] / mean:.6g}\n" for name, i in ids.items())
    return out


def worker(tool, data, train, test, spec, quick):
    """One row's figures, as a JSON object on stdout."""
    spec = json.loads(spec)
    flags = dict(FLAGS[data])
    if quick:
        flags["epoch"] = min(flags["epoch"], 5)
    if tool == "fasttext":
        import fasttext
        start = time.perf_counter()
        model = fasttext.train_supervised(input=train, loss=spec, thread=THREADS, verbose=0,
                                          **flags)
        train_s = time.perf_counter() - start
        _, p1, _ = model.test(test)
        saved = str(Path(test).parent / f"fasttext-{data}-{spec}.bin")
        model.save_model(saved)
        # fastText's test_label gives NaN recalls (0.9.2); its model read by treexc
        # predicts with fastText's arithmetic, to the bit (docs/fasttext.md)
        import treexc
        from treexc.io.textio import read_text
        meter = treexc.load_model(saved).evaluate(read_text(test), 1, 0.0, test)
        assert abs(meter.precision() - p1) < 1e-9, (meter.precision(), p1)
        f1, n = macro_f1(meter.label_gold, meter.label_predicted, meter.label_correct)
        return {"p1": p1, "macro_f1": f1, "labels": n, "train_s": train_s, "lr": flags["lr"]}
    import treexc
    from treexc.io.textio import read_text
    out = str(Path(test).parent / f"weights-{data}-{abs(hash(tuple(spec)))}")
    cmd = [TREEXC, "supervised", "-input", train, "-output", out, "-thread", str(THREADS),
           "-verbose", "0"]
    if "embedding" in spec:  # the embedding rows share fastText's flags but the rate:
        for k, v in flags.items():  # the plan's (halved where training diverges)
            if k != "lr":
                cmd += [f"-{k}", str(v)]
    cmd += spec
    start = time.perf_counter()
    run(cmd)
    train_s = time.perf_counter() - start
    model = treexc.load_model(out + ".bin")
    meter = model.evaluate(read_text(test), 1, 0.0, test)
    f1, n = macro_f1(meter.label_gold, meter.label_predicted, meter.label_correct)
    lr = getattr(model.args, "lr", None) if "embedding" in spec else None
    return {"p1": meter.precision(), "macro_f1": f1, "labels": n, "train_s": train_s,
            "lr": lr}


class WeightsBench(harness.Bench):
    tag = "weights"
    title = "Label weights on skewed labels: treexc with and without -weightBalanced, fastText"

    def case(self, data):
        train, test = harness.split_files(data)
        train, test = self.file(train), self.file(test)
        if self.quick:
            train = harness.head(train, self.work / f"{data}.train.txt", QUICK_LINES[0])
            test = harness.head(test, self.work / f"{data}.test.txt", QUICK_LINES[1])
        tempered = tempered_weights(train, self.work / f"{data}.weights.txt", POWER)
        self.once("warm", lambda: self.warm(train))
        rows = []
        for name, tool, spec in ROWS[data]:
            if tool == "treexc":
                spec = [str(tempered) if x == "TEMPERED" else x for x in spec]
            self.log(f"{data}: {name}")
            r = run([PYTHON, __file__, "worker", tool, data, str(train), str(test),
                     json.dumps(spec), "1" if self.quick else "0"])
            fig = json.loads(r.out)
            rows.append([name, f"{fig['macro_f1']:.4f}", f"{fig['p1']:.4f}",
                         f"{fig['labels']:,}", f"{fig['train_s']:.1f}",
                         "" if fig["lr"] is None else f"{fig['lr']:g}"])
        flags = " ".join(f"-{k} {v}" for k, v in FLAGS[data].items())
        return harness.Section(
            f"{data}", ["model", "macro-F1", "P@1", "labels scored", "train s", "lr"], rows,
            notes=[f"embedding rows (treexc -model embedding and fastText): {flags}, "
                   f"-thread {THREADS}, but treexc's rate is its plan's (-lr left out: "
                   "halved while training diverges), the lr column the one it trained at; "
                   "linear rows: the linear family's defaults"])

    def warm(self, train):
        """Compile (or load) the kernels of the timed runs on a few lines."""
        tiny = harness.head(train, self.work / "tiny.txt", 300)
        for flags in ([], ["-model", "embedding", "-epoch", "1"]):
            run([TREEXC, "supervised", "-input", str(tiny), "-output", str(self.work / "warm"),
                 "-weightBalanced", "-verbose", "0", *flags])

    def case_cooking(self):
        return self.case("cooking")

    def case_wn_hypernym(self):
        return self.case("wn_hypernym")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "worker":
        tool, data, train, test, spec, quick = sys.argv[2:8]
        print(json.dumps(worker(tool, data, train, test, spec, quick == "1")))
        sys.exit(0)
    sys.exit(WeightsBench.main(__doc__, CASES, "weights.md"))
