#!/usr/bin/env python3
"""Autotune: treexc's search against fastText 0.9.2's, same budget, same data.

    python benchmarks/bench_autotune.py                       # both data sets, 300 s each
    python benchmarks/bench_autotune.py --only cooking --duration 60
    python benchmarks/bench_autotune.py --quick               # small slices, 20 s: checks the script

Cases (docs/results/classify.md, "Autotune"):
  cooking      tutorial split: train cooking.tutorial.train.txt, tune on
               cooking.tutorial.valid.txt, P@1 on cooking.test.txt
  wn_hypernym  train / valid / test
Each runs `treexc supervised -autotune-validation VALID -autotune-duration D`
then fastText's `train_supervised(autotuneValidationFile=VALID,
autotuneDuration=D)`, one after the other, both with the default metric (f1
of the top label) and -thread 2; the tuned models are tested on the test
part.  Target: treexc's P@1 >= fastText's.  The table goes to stdout and to
bench-results/autotune.md.
"""

import json
import os
import re
from pathlib import Path

from harness import (FASTTEXT_RUN, PYTHON, THREADS, TREEXC, Bench, DataSet, Section, p1,
                     parse_p1, run, secs, verdict)

CASES = ("cooking", "wn_hypernym")
DATA_SETS = {
    "cooking": DataSet("cooking", "cooking/cooking.tutorial.train.txt",
                       "cooking/cooking.tutorial.valid.txt", {}, (3000, 500), {}),
    "wn_hypernym": DataSet("wn_hypernym", "wn_hypernym/wn_hypernym.train.txt",
                           "wn_hypernym/wn_hypernym.valid.txt", {}, (5000, 1000), {}),
}
TEST_FILES = {"cooking": "cooking/cooking.test.txt",
              "wn_hypernym": "wn_hypernym/wn_hypernym.test.txt"}
TREEXC_TRIALS = re.compile(r"Best score: \S+ \(trial (\d+) of (\d+)\)")
TREEXC_FLAGS = re.compile(r"Best flags: (.*)")
FASTTEXT_TRIALS = re.compile(r"Trials:\s+(\d+)")


class AutotuneBench(Bench):
    tag = "bench-autotune"
    title = "Autotune: treexc against fastText 0.9.2, same budget"

    def warm_cache(self):
        """Compile every kernel a search may use before the timed runs (the
        one-time compilation would otherwise eat treexc's budget)."""
        tiny = self.work / "tiny.txt"
        tiny.write_text("".join(f"__label__{i % 20} w{i % 7} w{i % 11} w{i % 13} x\n"
                                for i in range(400)))
        for flags in (["-loss", "softmax"], ["-loss", "tree", "-minn", "2", "-maxn", "5",
                                             "-wordNgrams", "2", "-depth", "2"],
                      ["-loss", "tree", "-wordNgrams", "3"]):
            self.warm_model(tiny, flags)

    def case(self, name):
        self.once("warm", self.warm_cache)
        ds = DATA_SETS[name]
        train, valid = self.split(ds)
        test = self.file(TEST_FILES[name])
        if self.quick:
            test = valid
        duration = min(self.opts.duration, 20) if self.quick else self.opts.duration
        out = self.work / f"treexc-{name}"
        load_t = os.getloadavg()[0]
        self.log(f"treexc {name}: autotune {duration} s")
        t = run([TREEXC, "supervised", "-input", str(train), "-output", str(out),
                 "-autotune-validation", str(valid), "-autotune-duration", str(duration),
                 "-thread", str(THREADS), "-verbose", "1"])
        err = t.err.decode(errors="replace")
        trials = TREEXC_TRIALS.search(err)
        flags = TREEXC_FLAGS.search(err)
        tx_p1 = parse_p1(run([TREEXC, "test", f"{out}.bin", str(test)]).out)
        unseen = self.unseen_part(train, test)
        tx_unseen = parse_p1(run([TREEXC, "test", f"{out}.bin", str(unseen)]).out)
        load_f = os.getloadavg()[0]
        self.log(f"fastText {name}: autotune {duration} s")
        ft_model = self.work / f"fasttext-{name}.bin"
        f = run([PYTHON, FASTTEXT_RUN, "train", str(train),
                 json.dumps({"autotuneValidationFile": str(valid), "autotuneDuration": duration,
                             "thread": THREADS}), "--test", str(test), "--save", str(ft_model)],
                check=False)
        f_err = f.err.decode(errors="replace")
        ft_trials = FASTTEXT_TRIALS.findall(f_err)
        if f.returncode == 0:
            ft = json.loads(f.out)
            ft["unseen"] = json.loads(run([PYTHON, FASTTEXT_RUN, "test", str(ft_model),
                                           str(unseen)]).out)["p1"]
        else:  # e.g. "Didn't have enough time to train once": no model at all
            why = f_err.strip().splitlines()[-1] if f_err.strip() else f"exit {f.returncode}"
            self.log(f"fastText {name} failed: {why}")
            ft = {"p1": 0.0, "unseen": 0.0, "failed": why}
        rows = [["treexc", p1(tx_p1), p1(tx_unseen), trials.group(2) if trials else "?",
                 secs(t.wall),
                 f"{t.maxrss_mib:.0f}", f"{load_t:.1f}", flags.group(1) if flags else "?"],
                ["fastText 0.9.2", p1(ft["p1"]) if "failed" not in ft else f"none ({ft['failed']})",
                 p1(ft["unseen"]) if "failed" not in ft else "none", ft_trials[-1] if ft_trials else "?",
                 secs(f.wall), f"{f.maxrss_mib:.0f}", f"{load_f:.1f}", "(not printed)"]]
        ok = self.checked(verdict(tx_p1 >= ft["p1"]))
        return Section(f"Autotune, {name} ({duration} s budget)",
                       ["tool", "P@1 test", "P@1 test lines not in train", "trials", "wall s (search + save)", "peak MiB",
                        "load at start", "best flags"], rows,
                       notes=[f"train {ds.train}, tune on {ds.eval}, test "
                              f"{TEST_FILES[name] if not self.quick else ds.eval}",
                              f"target treexc P@1 >= fastText's: {ok}"])

    def unseen_part(self, train, test):
        """The lines of ``test`` that are not lines of ``train`` (most of
        cooking.test.txt is in cooking.tutorial.train.txt: the tutorial split
        cuts the whole data set in two)."""
        seen = set(Path(train).read_bytes().splitlines())
        lines = [x for x in Path(test).read_bytes().splitlines() if x not in seen]
        path = self.work / f"{Path(test).stem}.unseen.txt"
        path.write_bytes(b"".join(x + b"\n" for x in lines))
        self.log(f"{path.name}: {len(lines)} lines of {test} not in {train}")
        return path

    def case_cooking(self):
        return self.case("cooking")

    def case_wn_hypernym(self):
        return self.case("wn_hypernym")


if __name__ == "__main__":
    AutotuneBench.main(__doc__, CASES, "autotune.md",
                       extra=[("--duration", 300, "autotune budget in seconds, both tools [300]")])
