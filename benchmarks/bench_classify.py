#!/usr/bin/env python3
"""Compare treexc with fastText 0.9.2, both run here, in the same benchmark.

    python benchmarks/bench_classify.py                     # every case
    python benchmarks/bench_classify.py --only cooking,predict
    python benchmarks/bench_classify.py --repeat 3          # median of 3 runs
    python benchmarks/bench_classify.py --quick             # small slices: checks the script

Cases (docs/benchmarks.md says what each measures and its targets):
  cooking    P@1 and training time on the fastText tutorial split
  gutenberg  P@1, training time, words/sec/thread, peak memory on gutenberg_books
  predict    `treexc predict` / `treexc test` throughput vs fastText's model.test()
  startup    time to the first answer of `treexc predict`, and the one-time
             Numba compile cost (cold vs warm cache, package installed read-only)

Every treexc figure is a `treexc` command run as a subprocess; fastText runs in
a subprocess too (benchmarks/fasttext_run.py), so that each one's peak memory
(ru_maxrss from wait4) is its own.  The table goes to stdout and to
bench-results/classify.md.
"""

import argparse
import gzip
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
TREEXC = str(Path(sys.executable).parent / "treexc")
FASTTEXT_RUN = str(Path(__file__).resolve().parent / "fasttext_run.py")
THREADS = 2
CASES = ("cooking", "gutenberg", "predict", "startup")


@dataclass
class DataSet:
    train: str          # paths relative to the unpacked data folder
    eval: str
    flags: dict         # fastText flags, without -loss
    quick_lines: tuple  # (train, eval) lines kept by --quick
    quick_flags: dict   # flags changed by --quick


COOKING = DataSet(
    train="cooking/cooking.tutorial.train.txt", eval="cooking/cooking.tutorial.valid.txt",
    flags=dict(lr=1.0, epoch=25, wordNgrams=2, dim=100, thread=THREADS),
    quick_lines=(3000, 500), quick_flags=dict(epoch=5, bucket=100000))
GUTENBERG = DataSet(
    train="gutenberg_books/gutenberg_books.train.txt",
    eval="gutenberg_books/gutenberg_books.test.txt",
    flags=dict(dim=50, lr=0.5, epoch=5, thread=THREADS),
    quick_lines=(3000, 1000), quick_flags=dict(epoch=1, bucket=100000))
DATA_SETS = {"cooking": COOKING, "gutenberg": GUTENBERG}


# -- running and timing subprocesses -------------------------------------------

@dataclass
class Run:
    wall: float       # seconds, from start to exit
    out: bytes
    err: bytes
    maxrss_mib: float  # peak resident memory of this process alone


def run(cmd, stdin=None, env=None, cwd=None):
    """Run ``cmd`` to its end (stdin from the file ``stdin``, if given); raise
    if it fails."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            open(stdin or os.devnull, "rb") as inp:
        start = time.perf_counter()
        p = subprocess.Popen(cmd, stdin=inp, stdout=out, stderr=err, env=env, cwd=cwd)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - start
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        result = Run(wall, out.read(), err.read(), usage.ru_maxrss / 1024)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} exited with {p.returncode}:\n"
                           + result.err.decode(errors="replace")[-2000:])
    return result


def first_answer(cmd, line, env=None, cwd=None):
    """Start ``cmd``, write one line to its stdin through a pipe (left open)
    and read one line back: seconds from the start to that answer."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                             env=env, cwd=cwd)
        p.stdin.write(line)
        p.stdin.flush()
        answer = p.stdout.readline()
        latency = time.perf_counter() - start
        p.stdin.close()
        p.stdout.read()
        p.wait()
        err.seek(0)
        if p.returncode != 0 or not answer:
            raise RuntimeError(f"{' '.join(cmd)} gave no answer (exit {p.returncode}):\n"
                               + err.read().decode(errors="replace")[-2000:])
    return latency


def median_of(runs):
    """Median of each key of a list of dicts of numbers."""
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def flag_list(flags):
    return [x for name, value in flags.items() for x in (f"-{name}", str(value))]


# -- data ----------------------------------------------------------------------

def count_tokens(path):
    """fastText's token count of a training file: words and labels, plus the
    end-of-line token </s> of every line."""
    n = 0
    with open(path, "rb") as f:
        for line in f:
            n += len(line.split()) + 1
    return n


def count_lines(path):
    with open(path, "rb") as f:
        data = f.read()
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def head(src, dest, n):
    with open(src, "rb") as f, open(dest, "wb") as g:
        for i, line in enumerate(f):
            if i == n:
                break
            g.write(line)
    return dest


# -- results -------------------------------------------------------------------

@dataclass
class Section:
    title: str
    header: list
    rows: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    def markdown(self):
        lines = [f"## {self.title}", "", "| " + " | ".join(self.header) + " |",
                 "|" + "---|" * len(self.header)]
        lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in self.rows]
        if self.notes:
            lines += [""] + [f"- {n}" for n in self.notes]
        return "\n".join(lines) + "\n"


COMPARE = ["metric", "treexc", "fastText 0.9.2", "treexc / fastText", "check"]


def secs(x):
    return f"{x:.2f}"


def rate(x):
    return f"{x:,.0f}"


def ratio(a, b):
    return f"{a / b:.2f}" if b else "n/a"


def p_at_1(x):
    return f"{x:.3f}"


def within(a, b, tol=0.01):
    """Check that treexc's P@1 ``a`` is within ``tol`` of fastText's ``b``."""
    if abs(a - b) <= tol:
        return "ok"
    return f"NO ({abs(a - b):.3f} {'higher' if a > b else 'lower'})"


# -- data files --------------------------------------------------------------------

class DataFiles:
    """Data files unpacked on first use (``--data`` into ``--unpacked``), and
    each data set's (train, eval) pair, cut to its first lines with
    ``--quick``."""

    def __init__(self, opts, work):
        self.opts = opts
        self.work = work
        self.sliced = {}  # data set name -> (train, eval) with --quick

    def file(self, rel):
        path = Path(self.opts.unpacked) / rel
        if not path.exists():
            unpack(Path(self.opts.data), Path(self.opts.unpacked), rel)
        return path

    def split(self, name, ds):
        """(train, eval) paths of data set ``ds`` called ``name``."""
        train, evalf = self.file(ds.train), self.file(ds.eval)
        if not self.opts.quick:
            return train, evalf
        if name not in self.sliced:
            n_train, n_eval = ds.quick_lines
            self.sliced[name] = (head(train, self.work / f"{name}-quick.train.txt", n_train),
                                 head(evalf, self.work / f"{name}-quick.eval.txt", n_eval))
        return self.sliced[name]


# -- the benchmark ---------------------------------------------------------------

class Bench:
    def __init__(self, opts):
        self.opts = opts
        self.quick = opts.quick
        self.repeat = opts.repeat
        self.work = Path(tempfile.mkdtemp(prefix="treexc-bench-"))
        self.sections = []
        self.treexc_runs = {}    # (data set, loss) -> median figures
        self.fasttext_runs = {}
        self.warm = False
        self.data = DataFiles(opts, self.work)

    def files(self, name):
        return self.data.split(name, DATA_SETS[name])

    def flags(self, name, loss):
        ds = DATA_SETS[name]
        return {**ds.flags, **(ds.quick_flags if self.quick else {}), "loss": loss}

    # warming the compile cache
    def tiny_file(self):
        return head(self.data.file(COOKING.train), self.work / "tiny.txt", 300)

    def warm_cache(self):
        """Compile (or load from the cache) every kernel the cases use, so that
        no timed run pays for compilation."""
        if self.warm:
            return
        tiny = self.tiny_file()
        for loss in ("softmax", "hs"):
            model = self.work / f"warm-{loss}"
            run([TREEXC, "supervised", "-input", str(tiny), "-output", str(model),
                 "-loss", loss, "-epoch", "1", "-dim", "10", "-bucket", "1000",
                 "-wordNgrams", "2", "-thread", str(THREADS), "-verbose", "0"])
            run([TREEXC, "predict", f"{model}.bin", "-"], stdin=tiny)
            run([TREEXC, "test", f"{model}.bin", str(tiny)])
        self.warm = True

    # training, once per (data set, loss) and run
    def train_treexc(self, name, loss):
        """Median figures of --repeat runs of `treexc supervised` then `treexc test`."""
        key = (name, loss)
        if key not in self.treexc_runs:
            self.warm_cache()
            train, evalf = self.files(name)
            model = self.work / f"treexc-{name}-{loss}"
            runs = []
            for _ in range(self.repeat):
                t = run([TREEXC, "supervised", "-input", str(train), "-output", str(model),
                         *flag_list(self.flags(name, loss)), "-verbose", "0"])
                r = run([TREEXC, "test", f"{model}.bin", str(evalf)])
                runs.append({"train_s": t.wall, "maxrss": t.maxrss_mib,
                             "p1": parse_p1(r.out), "test_s": r.wall})
            self.treexc_runs[key] = {**median_of(runs), "model": f"{model}.bin"}
        return self.treexc_runs[key]

    def train_fasttext(self, name, loss, save=False):
        """Median figures of --repeat runs of fasttext_run.py train."""
        key = (name, loss)
        if key not in self.fasttext_runs:
            train, evalf = self.files(name)
            model = self.work / f"fasttext-{name}-{loss}.bin"
            flags = {**self.flags(name, loss), "verbose": 0}
            cmd = [PYTHON, FASTTEXT_RUN, "train", str(train), json.dumps(flags),
                   "--test", str(evalf)] + (["--save", str(model)] if save else [])
            runs = []
            for _ in range(self.repeat):
                r = run(cmd)
                figures = json.loads(r.out)
                runs.append({**figures, "maxrss": r.maxrss_mib,
                             "train_save_s": figures["train_s"] + figures.get("save_s", 0)})
            self.fasttext_runs[key] = {**median_of(runs), "model": str(model) if save else None}
        return self.fasttext_runs[key]

    # the cases
    def case_cooking(self):
        s = Section("cooking (tutorial split, P@1 on valid)", COMPARE)
        for loss in ("softmax", "hs"):
            tx = self.train_treexc("cooking", loss)
            ft = self.train_fasttext("cooking", loss, save=True)
            check = within(tx["p1"], ft["p1"])
            if loss == "softmax":
                check += "; >= 0.58: " + ("ok" if tx["p1"] >= 0.58 else "NO")
            s.rows.append([f"{loss}: P@1", p_at_1(tx["p1"]), p_at_1(ft["p1"]),
                           f"{tx['p1'] - ft['p1']:+.3f} (difference)",
                           check if not self.quick else "not checked with --quick"])
            s.rows += [
                [f"{loss}: train wall s (fastText: train_supervised)", secs(tx["train_s"]),
                 secs(ft["train_s"]), ratio(tx["train_s"], ft["train_s"]), "lower is better"],
                [f"{loss}: train wall s (fastText: train + save_model)", secs(tx["train_s"]),
                 secs(ft["train_save_s"]), ratio(tx["train_s"], ft["train_save_s"]),
                 "lower is better"]]
        s.notes = [f"flags: {' '.join(flag_list(self.flags('cooking', 'LOSS')))}",
                   "treexc: wall time of the whole `treexc supervised` command (start-up, "
                   "reading, training, writing .bin and .vec); fastText: train_supervised(), "
                   "and train_supervised() + save_model() (both .bin files are about 800 MB: "
                   "2M buckets x 100 dims).",
                   "targets: treexc softmax P@1 >= 0.58; both losses within 0.01 of fastText."]
        return s

    def case_gutenberg(self):
        s = Section("gutenberg_books (P@1 on test, training speed, memory)", COMPARE)
        train, _ = self.files("gutenberg")
        tokens = count_tokens(train)
        for loss in ("hs", "softmax"):
            tx = self.train_treexc("gutenberg", loss)
            ft = self.train_fasttext("gutenberg", loss, save=True)
            epochs = self.flags("gutenberg", loss)["epoch"]
            wst_tx = tokens * epochs / tx["train_s"] / THREADS
            wst_ft = tokens * epochs / ft["train_s"] / THREADS
            s.rows += [
                [f"{loss}: P@1", p_at_1(tx["p1"]), p_at_1(ft["p1"]),
                 f"{tx['p1'] - ft['p1']:+.3f} (difference)",
                 within(tx["p1"], ft["p1"]) if not self.quick else "not checked with --quick"],
                [f"{loss}: train wall s (fastText: train_supervised)", secs(tx["train_s"]),
                 secs(ft["train_s"]), ratio(tx["train_s"], ft["train_s"]), "lower is better"],
                [f"{loss}: train wall s (fastText: train + save_model)", secs(tx["train_s"]),
                 secs(ft["train_save_s"]), ratio(tx["train_s"], ft["train_save_s"]),
                 "lower is better"],
                [f"{loss}: words/sec/thread", rate(wst_tx), rate(wst_ft),
                 ratio(wst_tx, wst_ft), "higher is better"],
                [f"{loss}: peak memory MiB (ru_maxrss)", f"{tx['maxrss']:.0f}",
                 f"{ft['maxrss']:.0f}", ratio(tx["maxrss"], ft["maxrss"]), ""],
            ]
        s.notes = [f"flags: {' '.join(flag_list(self.flags('gutenberg', 'LOSS')))}",
                   "treexc: wall time of the whole `treexc supervised ... -verbose 0` command "
                   "(start-up with a warm compile cache, reading, training, writing .bin and "
                   ".vec); fastText: train_supervised(), and train_supervised() + save_model().",
                   f"words/sec/thread = {tokens:,} tokens (words, labels and </s>, as fastText "
                   f"counts them) x {self.flags('gutenberg', 'hs')['epoch']} epochs / wall "
                   f"s / {THREADS} threads.",
                   "peak memory: ru_maxrss of the `treexc supervised` process, and of the "
                   "Python process that runs fastText's train, save and test.",
                   "target: P@1 within 0.01 of fastText."]
        return s

    def case_predict(self):
        s = Section("prediction (gutenberg_books test file)", COMPARE)
        _, test = self.files("gutenberg")
        n_lines = count_lines(test)
        one_line = head(test, self.work / "one-line.txt", 1)
        for loss in ("hs", "softmax"):
            model = self.train_treexc("gutenberg", loss)["model"]
            ft_model = self.train_fasttext("gutenberg", loss, save=True)["model"]
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
                   f"({' '.join(flag_list(self.flags('gutenberg', 'LOSS')))})."]
        return s

    def case_startup(self):
        s = Section("start-up and compile cost", ["metric", "cold cache", "warm cache",
                                                  "cold - warm", "check"])
        model = self.train_treexc("gutenberg", "hs")["model"]
        line = b"the old man looked out over the sea and said nothing for a long while\n"
        self.warm_cache()
        warm = statistics.median(first_answer([TREEXC, "predict", model, "-"], line)
                                 for _ in range(self.repeat))
        s.rows.append(["`treexc predict model.bin -`: first answer s", "", secs(warm), "",
                       "< 1 s: " + ("ok" if warm < 1.0 else "NO")])

        ro = ReadOnlyInstall(self.work)
        tiny = self.tiny_file()
        train_cmd = [TREEXC, "supervised", "-input", str(tiny), "-output", "tiny",
                     "-epoch", "1", "-dim", "10", "-bucket", "1000", "-wordNgrams", "2",
                     "-thread", str(THREADS), "-verbose", "0"]
        predict_cmd = [TREEXC, "predict", model, "-"]
        train_pairs, predict_pairs = [], []
        cached = {"supervised": [], "predict": []}
        for i in range(self.repeat):
            home = ro.new_home(f"train{i}")
            train_pairs.append([run(ro.wrap(train_cmd), env=ro.env(home), cwd=home).wall
                                for _ in range(2)])
            cached["supervised"].append(ro.where_cached(home))
            home = ro.new_home(f"predict{i}")
            predict_pairs.append([first_answer(ro.wrap(predict_cmd), line, env=ro.env(home),
                                               cwd=home) for _ in range(2)])
            cached["predict"].append(ro.where_cached(home))
        for what, pairs in (("`treexc supervised` (300 lines, 1 epoch) wall s", train_pairs),
                            ("`treexc predict model.bin -`: first answer s", predict_pairs)):
            cold = statistics.median(p[0] for p in pairs)
            hot = statistics.median(p[1] for p in pairs)
            s.rows.append([what, secs(cold), secs(hot), secs(cold - hot), ""])
        user_wide = {cmd: min(c[0] for c in cs) for cmd, cs in cached.items()}
        in_package = max(c[1] for cs in cached.values() for c in cs)
        ok = all(user_wide.values()) and not in_package
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

    # driver
    def run_cases(self, names):
        failed = False
        for name in names:
            print(f"[bench] {name} ...", file=sys.stderr, flush=True)
            start = time.perf_counter()
            try:
                section = getattr(self, f"case_{name}")()
            except Exception:
                failed = True
                section = Section(f"{name}: FAILED", ["error"],
                                  rows=[["<pre>" + traceback.format_exc().replace("\n", "<br>")
                                         .replace("|", "&#124;") + "</pre>"]])
            print(f"[bench] {name} done in {time.perf_counter() - start:.0f} s",
                  file=sys.stderr, flush=True)
            self.sections.append(section)
        return failed

    def cleanup(self):
        for p in self.work.rglob("*"):
            if p.is_dir():
                p.chmod(0o755)
        shutil.rmtree(self.work, ignore_errors=True)


def parse_p1(output):
    for line in output.decode().splitlines():
        if line.startswith("P@1\t"):
            return float(line.split("\t")[1])
    raise RuntimeError(f"no P@1 line in treexc test output: {output!r}")


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
        home = self.new_home("check")
        imported = run(self.wrap([PYTHON, "-c", "import treexc; print(treexc.__file__)"]),
                       env=self.env(home), cwd=home).out.decode().strip()
        if not imported.startswith(str(self.package)):
            raise RuntimeError(f"the read-only copy is not the treexc imported: {imported}")

    def wrap(self, cmd):
        if self.setpriv:
            return ["setpriv", "--bounding-set", "-dac_override,-fowner", *cmd]
        return cmd

    def new_home(self, name):
        home = self.homes / name
        home.mkdir()
        return home

    def env(self, home):
        env = {k: v for k, v in os.environ.items()
               if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "PYTHONPATH")}
        env.update(HOME=str(home), PYTHONPATH=str(self.root))
        return env

    def where_cached(self, home):
        """(index files under HOME/.cache/numba, index files in the package)."""
        return (len(list((home / ".cache" / "numba").rglob("*.nbi"))),
                len(list(self.package.rglob("*.nbi"))))


def unpack(data_dir, dest, rel):
    name = rel.split("/")[0]
    script = data_dir / "unpack.sh"
    print(f"[bench] unpacking {name} into {dest}", file=sys.stderr, flush=True)
    if script.exists():
        subprocess.run(["bash", str(script), str(dest), name], check=True,
                       stdout=subprocess.DEVNULL)
    else:
        (dest / name).mkdir(parents=True, exist_ok=True)
        with gzip.open(data_dir / (rel + ".gz"), "rb") as f, open(dest / rel, "wb") as g:
            shutil.copyfileobj(f, g)


def environment(opts):
    from importlib.metadata import version

    def v(pkg):
        try:
            return version(pkg)
        except Exception:
            return "?"

    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "?"
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "treexc"],
                           capture_output=True, text=True).stdout.strip()
    return [f"date: {time.strftime('%Y-%m-%d %H:%M:%S')}",
            f"treexc {v('treexc')} (commit {commit}{', treexc/ modified' if dirty else ''}), "
            f"fasttext-wheel {v('fasttext-wheel')}, numba {v('numba')}, numpy {v('numpy')}, "
            f"Python {platform.python_version()}",
            f"machine: {platform.machine()}, {os.cpu_count()} CPUs, load average at start "
            f"{os.getloadavg()[0]:.2f}; -thread {THREADS} for both tools",
            f"options: --only {','.join(opts.only)} --repeat {opts.repeat}"
            + (" --quick (small slices: the figures only check the script)" if opts.quick
               else "")
            + (" (median of the runs)" if opts.repeat > 1 else "")]


def parse_options(doc, cases, results_name, results_help="", extra=()):
    """The options the benchmark scripts take (see docs/benchmarks*.md), plus
    ``extra``: ``(flag, add_argument keywords)`` pairs of one script."""
    p = argparse.ArgumentParser(description=doc.split("\n")[0])
    for flag, kwargs in extra:
        p.add_argument(flag, **kwargs)
    p.add_argument("--only", default=",".join(cases),
                   help=f"comma-separated cases among {', '.join(cases)} [all]")
    p.add_argument("--repeat", type=int, default=1,
                   help="runs per figure; the median is reported [1]")
    p.add_argument("--quick", action="store_true",
                   help="small slices of the data and fewer epochs, to check the script")
    p.add_argument("--data", default=str(REPO.parent / "shared" / "data"),
                   help="folder of the gzipped data sets [../shared/data]")
    p.add_argument("--unpacked", default="/tmp/treexc-data",
                   help="where the data sets are (or get) unpacked [/tmp/treexc-data]")
    p.add_argument("--results", default=str(REPO / "bench-results" / results_name),
                   help=f"markdown results file [bench-results/{results_name}]"
                   + results_help)
    p.add_argument("--keep", action="store_true", help="keep the models (temp folder)")
    opts = p.parse_args()
    opts.only = [c.strip() for c in opts.only.split(",") if c.strip()]
    unknown = [c for c in opts.only if c not in cases]
    if unknown or opts.repeat < 1:
        p.error(f"unknown case(s) {', '.join(unknown)}" if unknown else "--repeat must be >= 1")
    if not Path(TREEXC).exists():
        p.error(f"{TREEXC} not found: run with the virtualenv's python (make bench)")
    return opts


def write_report(title, opts, env_lines, sections):
    """Write (and print) the results file: the title, the environment with
    the load average at the end, every section.  Returns its path."""
    env_lines = env_lines + [f"load average at end {os.getloadavg()[0]:.2f}"]
    text = (f"# {title}\n\n" + "".join(f"- {line}\n" for line in env_lines) + "\n"
            + "\n".join(s.markdown() for s in sections))
    results = Path(opts.results)
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(text)
    print(text)
    return results


def main():
    opts = parse_options(__doc__, CASES, "classify.md")

    bench = Bench(opts)
    env_lines = environment(opts)
    try:
        failed = bench.run_cases(opts.only)
    finally:
        if opts.keep:
            print(f"[bench] models kept in {bench.work}", file=sys.stderr)
        else:
            bench.cleanup()
    results = write_report("treexc vs fastText 0.9.2: classification benchmark", opts,
                           env_lines, bench.sections)
    print(f"[bench] written to {results}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
