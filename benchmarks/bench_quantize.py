#!/usr/bin/env python3
"""Quantized models: treexc quantize vs fastText 0.9.2's quantize.

    python benchmarks/bench_quantize.py                  # cooking and gutenberg
    python benchmarks/bench_quantize.py --only cooking
    python benchmarks/bench_quantize.py --quick          # small slices: checks the script

Per data set, both tools: train (docs/results/classify.md's flags for the set),
test, then quantize the saved model with `-cutoff 100000 -retrain -qnorm`
(retraining with the model's own epochs and learning rate, -thread 2) and
test again.  Reported: model file sizes, P@1 before and after, quantize
time (treexc: the whole `treexc quantize` command, start-up, reading the
.bin, retraining, k-means, writing the .ftz; fastText: `model.quantize()`
on the loaded model, plus `save_model()`).  Targets: treexc's
quantised model at most 1/10 of its unquantised size, its P@1 within 0.01
of the unquantised one's.  The table goes to stdout and to
bench-results/quantize.md.
"""

import json
import os
import sys

from harness import (FASTTEXT_RUN, PYTHON, THREADS, TREEXC, Bench, DataSet, Section,
                     fasttext_train, flag_list, flags_text, p1, parse_p1, run, secs,
                     split_files, verdict)

CASES = ("cooking", "gutenberg")
# cooking: the flags of docs/results/classify.md (bench_classify.py); gutenberg with
# -loss hs for both tools (its softmax over 2,972 labels takes fastText hours
# here), trained well (the tree grid's best flags), so that retraining's extra epochs do
# not hide what quantisation loses
COOKING = DataSet(
    "cooking", *split_files("cooking", "valid", "cooking.tutorial"),
    flags=dict(lr=1.0, epoch=25, wordNgrams=2, dim=100, thread=THREADS, loss="softmax"),
    quick_lines=(3000, 500), quick_flags=dict(epoch=5, bucket=100000))
GUTENBERG = DataSet(
    "gutenberg", *split_files("gutenberg_books"),
    flags=dict(dim=50, lr=1.0, epoch=20, thread=THREADS, loss="hs"),
    quick_lines=(3000, 1000), quick_flags=dict(epoch=1))
QUANTIZE = dict(cutoff=100000, retrain=True, qnorm=True, thread=THREADS)
QUICK_CUTOFF = 5000
HEADER = ["metric", "treexc", "fastText 0.9.2", "check"]


def mib(n):
    return f"{n / 2 ** 20:.2f}"


class QuantizeBench(Bench):
    tag = "quantize"
    title = "treexc vs fastText 0.9.2: quantized models"

    def quantize_flags(self):
        return dict(QUANTIZE, cutoff=QUICK_CUTOFF) if self.quick else dict(QUANTIZE)

    def warm_cache(self):
        """Compile (or load) the kernels of training, quantize and test once."""
        train, _ = self.split(COOKING)
        tiny = self.work / "tiny.txt"
        with open(train, "rb") as f, open(tiny, "wb") as g:
            g.writelines(line for _, line in zip(range(600), f))
        model = self.work / "warm"
        run([TREEXC, "supervised", "-input", str(tiny), "-output", str(model), "-epoch", "1",
             "-dim", "10", "-wordNgrams", "2", "-bucket", "1000", "-verbose", "0",
             "-thread", str(THREADS)])
        run([TREEXC, "quantize", "-output", str(model), "-input", str(tiny), "-cutoff", "400",
             "-retrain", "-qnorm", "-verbose", "0", "-thread", str(THREADS)])
        run([TREEXC, "test", f"{model}.ftz", str(tiny)])

    def treexc_figures(self, ds):
        self.once("warm", self.warm_cache)
        train, evalf = self.split(ds)
        out = self.work / f"treexc-{ds.name}"
        flags = flag_list(self.flags(ds))
        self.log(f"treexc {ds.name}: supervised {' '.join(flags)}")
        t = run([TREEXC, "supervised", "-input", str(train), "-output", str(out), *flags,
                 "-verbose", "0"])
        before = parse_p1(run([TREEXC, "test", f"{out}.bin", str(evalf)]).out)
        q = self.quantize_flags()
        qflags = ["-cutoff", str(q["cutoff"]), "-retrain", "-qnorm", "-thread",
                  str(q["thread"])]
        self.log(f"treexc {ds.name}: quantize {' '.join(qflags)}")
        r = run([TREEXC, "quantize", "-output", str(out), "-input", str(train), *qflags,
                 "-verbose", "0"])
        after = parse_p1(run([TREEXC, "test", f"{out}.ftz", str(evalf)]).out)
        return {"train_s": t.wall, "p1": before, "size": os.path.getsize(f"{out}.bin"),
                "q_p1": after, "q_size": os.path.getsize(f"{out}.ftz"), "q_s": r.wall,
                "q_maxrss": r.maxrss_mib}

    def fasttext_figures(self, ds):
        train, evalf = self.split(ds)
        flags = self.flags(ds, verbose=0)
        model = self.work / f"fasttext-{ds.name}.bin"
        self.log(f"fastText {ds.name}: train {flags_text(flags)}")
        f = fasttext_train(train, evalf, flags, save=model)
        ftz = self.work / f"fasttext-{ds.name}.ftz"
        q = dict(self.quantize_flags(), input=str(train), verbose=0)
        self.log(f"fastText {ds.name}: quantize {q}")
        r = run([PYTHON, FASTTEXT_RUN, "quantize", str(model), json.dumps(q), str(evalf),
                 "--save", str(ftz)])
        g = json.loads(r.out)
        return {"train_s": f["train_s"], "p1": f["p1"], "size": os.path.getsize(model),
                "q_p1": g["p1"], "q_size": os.path.getsize(ftz),
                "q_s": g["quantize_s"] + g["save_s"], "q_maxrss": r.maxrss_mib}

    def case(self, ds, title):
        tx, ft = self.treexc_figures(ds), self.fasttext_figures(ds)
        shrink = tx["size"] / tx["q_size"]
        s = Section(title, HEADER)
        s.rows = [
            ["unquantised: P@1", p1(tx["p1"]), p1(ft["p1"]), ""],
            ["unquantised: .bin MiB", mib(tx["size"]), mib(ft["size"]), ""],
            # retraining may raise P@1 (more epochs): only a loss counts
            ["quantised: P@1", p1(tx["q_p1"]), p1(ft["q_p1"]),
             self.checked(f"at most 0.01 below unquantised: "
                          f"{verdict(tx['q_p1'] >= tx['p1'] - 0.01)} "
                          f"({tx['q_p1'] - tx['p1']:+.3f}; fastText "
                          f"{ft['q_p1'] - ft['p1']:+.3f})")],
            ["quantised: .ftz MiB", mib(tx["q_size"]), mib(ft["q_size"]),
             self.checked(f"<= 1/10 of unquantised: {verdict(shrink >= 10)} "
                          f"(1/{shrink:.1f}; fastText 1/{ft['size'] / ft['q_size']:.1f})")],
            ["quantize wall s", secs(tx["q_s"]), secs(ft["q_s"]), "lower is better"],
            ["quantize peak memory MiB", f"{tx['q_maxrss']:.0f}", f"{ft['q_maxrss']:.0f}",
             "fastText: the process that loads, quantizes, saves, tests"],
            ["train wall s (for reference)", secs(tx["train_s"]), secs(ft["train_s"]), ""],
        ]
        q = self.quantize_flags()
        s.notes = [f"training flags: {flags_text(self.flags(ds))}",
                   f"quantize: -cutoff {q['cutoff']} -retrain -qnorm -thread {q['thread']} "
                   "(fastText: model.quantize(input=train, cutoff=..., retrain=True, "
                   "qnorm=True, thread=2); both retrain with the model's epochs and lr)",
                   "quantize wall s: treexc, the whole `treexc quantize` command; fastText, "
                   "quantize() + save_model() on the loaded model."]
        return s

    def case_cooking(self):
        return self.case(COOKING, "cooking (tutorial split, P@1 on valid)")

    def case_gutenberg(self):
        return self.case(GUTENBERG, "gutenberg_books (P@1 on test)")


if __name__ == "__main__":
    sys.exit(QuantizeBench.main(__doc__, CASES, "quantize.md"))
