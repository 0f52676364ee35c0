#!/usr/bin/env python3
"""Compare treexc with fastText 0.9.2, both run here, in the same benchmark.

    python benchmarks/bench_classify.py                     # every case
    python benchmarks/bench_classify.py --only cooking,predict
    python benchmarks/bench_classify.py --repeat 3          # median of 3 runs
    python benchmarks/bench_classify.py --quick             # small slices: checks the script

Cases (docs/results/classify.md says what each measures and its targets):
  cooking    P@1 and training time on the fastText tutorial split
  gutenberg  P@1, training time, words/sec/thread, peak memory on gutenberg_books
  predict    `treexc predict` / `treexc test` throughput vs fastText's model.test()
  startup    time to the first answer of `treexc predict`, and the one-time
             Numba compile cost (cold vs warm cache, package installed read-only)

treexc and fastText run as subprocesses (harness.py).  The table goes to
stdout and to bench-results/classify.md.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys

from harness import (FASTTEXT_RUN, PYTHON, REPO, THREADS, TREEXC, Bench, DataSet, Section,
                     count_lines, count_tokens, first_answer, flags_text, head,
                     median_of, p1, run, secs, split_files, verdict)

CASES = ("cooking", "gutenberg", "predict", "startup")
COOKING = DataSet(
    "cooking", *split_files("cooking", "valid", "cooking.tutorial"),
    flags=dict(lr=1.0, epoch=25, wordNgrams=2, dim=100, thread=THREADS),
    quick_lines=(3000, 500), quick_flags=dict(epoch=5, bucket=100000))
GUTENBERG = DataSet(
    "gutenberg", *split_files("gutenberg_books"),
    flags=dict(dim=50, lr=0.5, epoch=5, thread=THREADS),
    quick_lines=(3000, 1000), quick_flags=dict(epoch=1, bucket=100000))
COMPARE = ["metric", "treexc", "fastText 0.9.2", "treexc / fastText", "check"]


def rate(x):
    return f"{x:,.0f}"


def ratio(a, b):
    return f"{a / b:.2f}" if b else "n/a"


def within(a, b, tol=0.01):
    """Check that treexc's P@1 ``a`` is within ``tol`` of fastText's ``b``."""
    if abs(a - b) <= tol:
        return "ok"
    return f"NO ({abs(a - b):.3f} {'higher' if a > b else 'lower'})"


def training_rows(loss, tx, ft, check):
    """P@1 and training time of treexc (``tx``) and fastText (``ft``)."""
    return [[f"{loss}: P@1", p1(tx["p1"]), p1(ft["p1"]),
             f"{tx['p1'] - ft['p1']:+.3f} (difference)", check],
            [f"{loss}: train wall s (fastText: train_supervised)", secs(tx["train_s"]),
             secs(ft["train_s"]), ratio(tx["train_s"], ft["train_s"]), "lower is better"],
            [f"{loss}: train wall s (fastText: train + save_model)", secs(tx["train_s"]),
             secs(ft["train_save_s"]), ratio(tx["train_s"], ft["train_save_s"]),
             "lower is better"]]


class ClassifyBench(Bench):
    title = "treexc vs fastText 0.9.2: classification benchmark"

    def tiny_file(self):
        return head(self.file(COOKING.train), self.work / "tiny.txt", 300)

    def warm_cache(self):
        """Compile (or load from the cache) every kernel the cases use, so that
        no timed run pays for compilation."""
        tiny = self.tiny_file()
        for loss in ("softmax", "hs"):
            model = self.warm_model(tiny, ["-loss", loss, "-bucket", "1000", "-wordNgrams", "2"])
            run([TREEXC, "predict", model, "-"], stdin=tiny)

    def train_treexc(self, ds, loss):
        return self.treexc(ds, ["-loss", loss])

    def train_fasttext(self, ds, loss):
        return self.fasttext(ds, loss, save=True)

    # the cases
    def case_cooking(self):
        s = Section("cooking (tutorial split, P@1 on valid)", COMPARE)
        for loss in ("softmax", "hs"):
            tx, ft = self.train_treexc(COOKING, loss), self.train_fasttext(COOKING, loss)
            check = within(tx["p1"], ft["p1"])
            if loss == "softmax":
                check += "; >= 0.58: " + verdict(tx["p1"] >= 0.58)
            s.rows += training_rows(loss, tx, ft, self.checked(check))
        s.notes = [f"flags: {flags_text(self.flags(COOKING, loss='LOSS'))}",
                   "treexc: wall time of the whole `treexc supervised` command (start-up, "
                   "reading, training, writing .bin and .vec); fastText: train_supervised(), "
                   "and train_supervised() + save_model() (both .bin files are about 800 MB: "
                   "2M buckets x 100 dims).",
                   "targets: treexc softmax P@1 >= 0.58; both losses within 0.01 of fastText."]
        return s

    def case_gutenberg(self):
        s = Section("gutenberg_books (P@1 on test, training speed, memory)", COMPARE)
        train, _ = self.split(GUTENBERG)
        tokens = count_tokens(train)
        for loss in ("hs", "softmax"):
            tx, ft = self.train_treexc(GUTENBERG, loss), self.train_fasttext(GUTENBERG, loss)
            epochs = self.flags(GUTENBERG)["epoch"]
            wst_tx = tokens * epochs / tx["train_s"] / THREADS
            wst_ft = tokens * epochs / ft["train_s"] / THREADS
            s.rows += training_rows(loss, tx, ft, self.checked(within(tx["p1"], ft["p1"]))) + [
                [f"{loss}: words/sec/thread", rate(wst_tx), rate(wst_ft),
                 ratio(wst_tx, wst_ft), "higher is better"],
                [f"{loss}: peak memory MiB (ru_maxrss)", f"{tx['maxrss']:.0f}",
                 f"{ft['maxrss']:.0f}", ratio(tx["maxrss"], ft["maxrss"]), ""],
            ]
        s.notes = [f"flags: {flags_text(self.flags(GUTENBERG, loss='LOSS'))}",
                   "treexc: wall time of the whole `treexc supervised ... -verbose 0` command "
                   "(start-up with a warm compile cache, reading, training, writing .bin and "
                   ".vec); fastText: train_supervised(), and train_supervised() + save_model().",
                   f"words/sec/thread = {tokens:,} tokens (words, labels and </s>, as fastText "
                   f"counts them) x {self.flags(GUTENBERG)['epoch']} epochs / wall "
                   f"s / {THREADS} threads.",
                   "peak memory: ru_maxrss of the `treexc supervised` process, and of the "
                   "Python process that runs fastText's train, save and test.",
                   "target: P@1 within 0.01 of fastText."]
        return s

    def case_predict(self):
        s = Section("prediction (gutenberg_books test file)", COMPARE)
        _, test = self.split(GUTENBERG)
        n_lines = count_lines(test)
        one_line = head(test, self.work / "one-line.txt", 1)
        for loss in ("hs", "softmax"):
            model = self.train_treexc(GUTENBERG, loss)["model"]
            ft_model = self.train_fasttext(GUTENBERG, loss)["model"]
            runs = []
            for _ in range(self.repeat):
                full = run([TREEXC, "predict", model, "-"], stdin=test)
                n_out = full.out.count(b"\n")
                if n_out != n_lines:
                    raise RuntimeError(f"treexc predict ({loss}) wrote {n_out} lines "
                                       f"for {n_lines} input lines")
                one = run([TREEXC, "predict", model, "-"], stdin=one_line)
                tst = run([TREEXC, "test", model, str(test)])
                ft = run([PYTHON, FASTTEXT_RUN, "test", ft_model, str(test)])
                ft_fig = json.loads(ft.out)
                runs.append({"full": full.wall, "one": one.wall, "test": tst.wall,
                             "ft_proc": ft.wall, "ft_test": ft_fig["test_s"],
                             "ft_load": ft_fig["load_s"]})
            m = median_of(runs)
            ft_rate = n_lines / m["ft_test"]
            body = m["full"] - m["one"]
            body_rate = (n_lines - 1) / body if body > 0 else None
            s.rows += [
                [f"{loss}: predict lines/s, whole command", rate(n_lines / m["full"]),
                 rate(ft_rate), ratio(n_lines / m["full"], ft_rate),
                 f"one output line per input line: ok ({n_lines:,})"],
                [f"{loss}: predict lines/s, start-up excluded",
                 rate(body_rate) if body_rate else "n/a", rate(ft_rate),
                 ratio(body_rate, ft_rate) if body_rate else "n/a", "higher is better"],
                [f"{loss}: 1-line predict command s", secs(m["one"]), "", "", "start-up"],
                [f"{loss}: test command wall s", secs(m["test"]), secs(m["ft_proc"]),
                 ratio(m["test"], m["ft_proc"]), "lower is better"],
                [f"{loss}: test, model loaded, s", "", secs(m["ft_test"]), "",
                 f"fastText load_model: {secs(m['ft_load'])} s"],
            ]
        s.notes = ["treexc: `treexc predict model.bin - < test.txt` (stdout captured) and "
                   "`treexc test model.bin test.txt`, whole commands, warm compile cache; "
                   "'start-up excluded' subtracts the time of the same command on a 1-line "
                   "input.",
                   "fastText: model.test() on the same file with a model of the same loss "
                   "(predict() does not work with numpy 2); its 'test command' is a Python "
                   "process that imports fasttext, loads the model and tests.",
                   f"models: trained with the gutenberg flags "
                   f"({flags_text(self.flags(GUTENBERG, loss='LOSS'))})."]
        return s

    def case_startup(self):
        s = Section("start-up and compile cost", ["metric", "cold cache", "warm cache",
                                                  "cold - warm", "check"])
        model = self.train_treexc(GUTENBERG, "hs")["model"]
        line = b"the old man looked out over the sea and said nothing for a long while\n"
        self.once("warm", self.warm_cache)
        warm = statistics.median(first_answer([TREEXC, "predict", model, "-"], line)
                                 for _ in range(self.repeat))
        s.rows.append(["`treexc predict model.bin -`: first answer s", "", secs(warm), "",
                       "< 1 s: " + verdict(warm < 1.0)])

        ro = ReadOnlyInstall(self.work)
        train_cmd = [TREEXC, "supervised", "-input", str(self.tiny_file()), "-output", "tiny",
                     "-epoch", "1", "-dim", "10", "-bucket", "1000", "-wordNgrams", "2",
                     "-thread", str(THREADS), "-verbose", "0"]
        train_pairs, predict_pairs = [], []
        cached = {"supervised": [], "predict": []}
        for i in range(self.repeat):
            home = ro.new_home(f"train{i}")
            train_pairs.append([ro.run(run, train_cmd, home).wall for _ in range(2)])
            cached["supervised"].append(ro.where_cached(home))
            home = ro.new_home(f"predict{i}")
            predict_pairs.append([ro.run(first_answer, [TREEXC, "predict", model, "-"], home,
                                         line) for _ in range(2)])
            cached["predict"].append(ro.where_cached(home))
        for what, pairs in (("`treexc supervised` (300 lines, 1 epoch) wall s", train_pairs),
                            ("`treexc predict model.bin -`: first answer s", predict_pairs)):
            cold = statistics.median(p[0] for p in pairs)
            hot = statistics.median(p[1] for p in pairs)
            s.rows.append([what, secs(cold), secs(hot), secs(cold - hot), ""])
        user_wide = {cmd: min(c[0] for c in cs) for cmd, cs in cached.items()}
        in_package = max(c[1] for cs in cached.values() for c in cs)
        # a one-line predict runs no kernel (classify/firstlines.py): training compiles
        ok = user_wide["supervised"] > 0 and not in_package
        s.rows.append(["cache index files (.nbi) written by the cold run", "", "", "",
                       "~/.cache/numba: " + ", ".join(f"{n} ({cmd})" for cmd, n
                                                      in user_wide.items())
                       + f"; read-only package: {in_package}" + (" (ok)" if ok else " (NO)")])
        s.notes = ["warm cache: treexc as installed here, after a warm-up run.",
                   "cold cache: a copy of the treexc package made read-only (chmod -R a-w"
                   + (", run with CAP_DAC_OVERRIDE dropped through setpriv, as this runs as "
                      "root" if ro.setpriv else "") + "), imported through PYTHONPATH, "
                   "NUMBA_CACHE_DIR unset, HOME an empty temp folder: Numba then caches under "
                   "~/.cache/numba.  Each command is run twice on a fresh HOME: the first run "
                   "compiles, the second loads the cache.",
                   "the model is the gutenberg_books hs model; target: first answer < 1 s "
                   "with a warm cache."]
        return s


class ReadOnlyInstall:
    """A read-only copy of the treexc package, run with an empty user cache."""

    def __init__(self, work):
        self.root = work / "readonly"
        self.package = self.root / "treexc"
        shutil.copytree(REPO / "treexc", self.package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        subprocess.run(["chmod", "-R", "a-w", str(self.root)], check=True)
        # root writes anywhere unless it gives up CAP_DAC_OVERRIDE
        self.setpriv = os.geteuid() == 0 and shutil.which("setpriv")
        self.homes = work / "homes"
        self.homes.mkdir()
        imported = self.run(run, [PYTHON, "-c", "import treexc; print(treexc.__file__)"],
                            self.new_home("check")).out.decode().strip()
        if not imported.startswith(str(self.package)):
            raise RuntimeError(f"the read-only copy is not the treexc imported: {imported}")

    def new_home(self, name):
        home = self.homes / name
        home.mkdir()
        return home

    def run(self, how, cmd, home, *args):
        """``how(cmd, *args)`` (run or first_answer) with this copy, HOME ``home``."""
        env = {k: v for k, v in os.environ.items()
               if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "PYTHONPATH")}
        env.update(HOME=str(home), PYTHONPATH=str(self.root))
        setpriv = ["setpriv", "--bounding-set", "-dac_override,-fowner"] if self.setpriv else []
        return how(setpriv + cmd, *args, env=env, cwd=home)

    def where_cached(self, home):
        """(index files under HOME/.cache/numba, index files in the package)."""
        return (len(list((home / ".cache" / "numba").rglob("*.nbi"))),
                len(list(self.package.rglob("*.nbi"))))


if __name__ == "__main__":
    sys.exit(ClassifyBench.main(__doc__, CASES, "classify.md"))
