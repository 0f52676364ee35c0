"""What the benchmark scripts share: timing `treexc` and fastText
subprocesses, the data files, the common options, the markdown report.  The
scripts (bench_*.py) hold their cases and ``import harness`` (``python
benchmarks/bench_x.py`` puts this folder first on ``sys.path``).  Every timed
command is a process of its own, so that its peak memory (``ru_maxrss`` from
``wait4``) and CPU time are its own; fastText runs in fasttext_run.py.
"""

import argparse
import gzip
import itertools
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import namedtuple
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
TREEXC = str(Path(sys.executable).parent / "treexc")
FASTTEXT_RUN = str(Path(__file__).resolve().parent / "fasttext_run.py")
DATA = REPO.parent / "shared" / "data"      # the gzipped data sets and unpack.sh
UNPACKED = "/tmp/treexc-data"
THREADS = 2


def log(message, tag="bench"):
    print(f"[{tag}] {message}", file=sys.stderr, flush=True)


# -- running and timing subprocesses -------------------------------------------

# wall seconds from start to exit, stdout, stderr, peak memory (ru_maxrss) and
# user + system seconds of the process alone
Run = namedtuple("Run", "wall out err maxrss_mib cpu returncode", defaults=(0,))


def run(cmd, stdin=None, env=None, cwd=None, input=None, capture=True, check=True,
        timeout=None):
    """Run ``cmd`` to its end (stdin: the file ``stdin`` or the bytes ``input``
    through a pipe; output captured unless ``capture=False``); raise if it
    fails (unless not ``check``: the caller reads ``returncode``) or runs
    past ``timeout`` seconds (then it is killed, and raises whatever
    ``check``)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            open(stdin or os.devnull, "rb") as inp:
        start = time.perf_counter()
        p = subprocess.Popen(cmd, stdin=inp if input is None else subprocess.PIPE,
                             stdout=out if capture else None, stderr=err if capture else None,
                             env=env, cwd=cwd)
        timer = threading.Timer(timeout, p.kill) if timeout else None
        if timer:
            timer.start()
        if input is not None:
            try:
                p.stdin.write(input)
                p.stdin.close()
            except BrokenPipeError:   # it did not read it all
                pass
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - start
        if timer:
            timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        result = Run(wall, out.read(), err.read(), usage.ru_maxrss / 1024,
                     usage.ru_utime + usage.ru_stime, p.returncode)
    if timeout and wall >= timeout and p.returncode != 0:
        raise RuntimeError(f"did not finish within {timeout:g} s (killed)")
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} exited with {p.returncode}:\n"
                           + result.err.decode(errors="replace")[-2000:])
    return result


def first_answer(cmd, line, env=None, cwd=None):
    """Seconds from the start of ``cmd`` to its answer to one line written to
    its stdin (a pipe left open)."""
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


def flags_text(flags):
    return " ".join(flag_list(flags))


def parse_precision(output, k):
    """P@k from `treexc test` output (its ``P@k\tVALUE`` line)."""
    for line in output.decode().splitlines():
        if line.startswith(f"P@{k}\t"):
            return float(line.split("\t")[1])
    raise RuntimeError(f"no P@{k} line in treexc test output: {output!r}")


def parse_p1(output):
    return parse_precision(output, 1)


def exact_precision(model, test, ks):
    """P@k for each k of ``ks`` to full precision, through the Python API's
    ``test`` (the same meter as `treexc test`, which prints three decimals,
    as fastText): one process, the model loaded once."""
    r = run([PYTHON, "-c", "import sys, treexc; m = treexc.load_model(sys.argv[1]); "
             "[print(m.test(sys.argv[2], int(k))[1]) for k in sys.argv[3:]]",
             str(model), str(test), *map(str, ks)])
    return [float(x) for x in r.out.split()]


def fasttext_train(train, evalf, flags, repeat=1, save=None):
    """Median figures of ``repeat`` runs of `fasttext_run.py train` (``flags``:
    train_supervised keywords), with the process's peak memory."""
    runs = []
    for _ in range(repeat):
        r = run([PYTHON, FASTTEXT_RUN, "train", str(train), json.dumps(flags),
                 "--test", str(evalf)] + (["--save", str(save)] if save else []))
        f = json.loads(r.out)
        runs.append({**f, "maxrss": r.maxrss_mib,
                     "train_save_s": f["train_s"] + f.get("save_s", 0)})
    return {**median_of(runs), "model": str(save) if save else None}


# -- data ----------------------------------------------------------------------

# train and eval: paths in the unpacked data folder; flags: both tools' (the
# cases add the loss); quick_lines: (train, eval) lines kept by --quick, and
# quick_flags the flags it changes
DataSet = namedtuple("DataSet", "name train eval flags quick_lines quick_flags")


def split_files(name, eval_split="test", prefix=None):
    """(train, eval) paths of data set ``name`` in the unpacked folder."""
    prefix = prefix or name
    return f"{name}/{prefix}.train.txt", f"{name}/{prefix}.{eval_split}.txt"


def next_word_files(folder):
    """(train, test) of a make_next_word.py output folder."""
    folder = Path(folder)
    train = sorted(folder.glob("*.train.txt"))
    if len(train) != 1:
        raise SystemExit(f"{folder}: expected one NAME.train.txt (make_next_word.py --out)")
    return train[0], Path(str(train[0])[:-len(".train.txt")] + ".test.txt")


def count_tokens(path):
    """fastText's token count of a file: words, labels and one </s> a line."""
    with open(path, "rb") as f:
        return sum(len(line.split()) + 1 for line in f)


def count_lines(path):
    with open(path, "rb") as f:
        data = f.read()
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def head(src, dest, n):
    with open(src, "rb") as f, open(dest, "wb") as g:
        g.writelines(itertools.islice(f, n))
    return dest


def unpack(data_dir, dest, rel):
    """Unpack file ``rel``'s data set (without unpack.sh: the file alone)."""
    name = rel.split("/")[0]
    script = data_dir / "unpack.sh"
    log(f"unpacking {name} into {dest}")
    if script.exists():
        subprocess.run(["bash", str(script), str(dest), name], check=True,
                       stdout=subprocess.DEVNULL)
    else:
        (dest / name).mkdir(parents=True, exist_ok=True)
        with gzip.open(data_dir / (rel + ".gz"), "rb") as f, open(dest / rel, "wb") as g:
            shutil.copyfileobj(f, g)


# -- options and results -------------------------------------------------------

def parser(description, options):
    """A parser of ``options``: (flag, default (False: a switch), help) triples."""
    p = argparse.ArgumentParser(description=description)
    for flag, default, help in options:
        if default is False:
            p.add_argument(flag, action="store_true", help=help)
        else:
            p.add_argument(flag, type=type(default), default=default, help=help)
    return p


def parse_options(doc, cases, results_name, results_help="", extra=()):
    """The options of the scripts with cases (docs/benchmarks*.md), ``extra`` first."""
    p = parser(doc.split("\n")[0], [
        *extra,
        ("--only", ",".join(cases), f"comma-separated cases among {', '.join(cases)} [all]"),
        ("--repeat", 1, "runs per figure; the median is reported [1]"),
        ("--quick", False, "small slices of the data and fewer epochs, to check the script"),
        ("--data", str(DATA), "folder of the gzipped data sets [../shared/data]"),
        ("--unpacked", UNPACKED, f"where the data sets are (or get) unpacked [{UNPACKED}]"),
        ("--results", str(REPO / "bench-results" / results_name),
         f"markdown results file [bench-results/{results_name}]" + results_help),
        ("--keep", False, "keep the models (temp folder)")])
    opts = p.parse_args()
    opts.only = [c.strip() for c in opts.only.split(",") if c.strip()]
    unknown = [c for c in opts.only if c not in cases]
    if unknown or opts.repeat < 1:
        p.error(f"unknown case(s) {', '.join(unknown)}" if unknown else "--repeat must be >= 1")
    if not Path(TREEXC).exists():
        p.error(f"{TREEXC} not found: run with the virtualenv's python (make bench)")
    return opts


def environment(opts):
    def v(pkg):
        try:
            return version(pkg)
        except Exception:
            return "?"

    def git(*args):
        return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True,
                              text=True).stdout.strip()
    dirty = ", treexc/ modified" if git("status", "--porcelain", "treexc") else ""
    return [f"date: {time.strftime('%Y-%m-%d %H:%M:%S')}",
            f"treexc {v('treexc')} (commit {git('rev-parse', '--short', 'HEAD') or '?'}{dirty}), "
            f"fasttext-wheel {v('fasttext-wheel')}, numba {v('numba')}, numpy {v('numpy')}, "
            f"Python {platform.python_version()}",
            f"machine: {platform.machine()}, {os.cpu_count()} CPUs, load average at start "
            f"{os.getloadavg()[0]:.2f}; -thread {THREADS} for both tools",
            f"options: --only {','.join(opts.only)} --repeat {opts.repeat}"
            + (" --quick (small slices: the figures only check the script)" if opts.quick
               else "")
            + (" (median of the runs)" if opts.repeat > 1 else "")]


def table(header, rows):
    """A markdown table, as a list of lines."""
    return (["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows])


@dataclass
class Section:
    """A section of a report: a table, ``notes`` as a list, markdown ``lines``."""
    title: str
    header: list = None
    rows: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    lines: list = field(default_factory=list)

    def markdown(self):
        lines = [f"## {self.title}", ""] + (table(self.header, self.rows) if self.header else [])
        if self.notes:
            lines += [""] + [f"- {n}" for n in self.notes]
        return "\n".join(lines + self.lines) + "\n"


def secs(x):
    return f"{x:.2f}"


def p1(x):
    return f"{x:.3f}"


def verdict(ok):
    return "ok" if ok else "NO"


# -- the driver ----------------------------------------------------------------

class Bench:
    """A benchmark: methods ``case_NAME`` return Sections; runs are shared
    between cases (``once``) in a temporary folder."""
    tag = "bench"      # of the progress lines on stderr
    title = ""         # of the report

    def __init__(self, opts):
        self.opts = opts
        self.quick = opts.quick
        self.repeat = opts.repeat
        self.work = Path(tempfile.mkdtemp(prefix=f"treexc-{self.tag}-"))
        self.sliced = {}    # (data set, lines) -> (train, eval) with --quick
        self.sections = []
        self.outputs = {}   # further files written next to the report: path -> text
        self.memo = {}
        self.env_lines = []  # the report's header lines (main)

    def log(self, message):
        log(message, self.tag)

    def file(self, rel):
        """A data file, unpacked on first use (``--data`` into ``--unpacked``)."""
        path = Path(self.opts.unpacked) / rel
        if not path.exists():
            unpack(Path(self.opts.data), Path(self.opts.unpacked), rel)
        return path

    def split(self, ds):
        """(train, eval) paths of DataSet ``ds``: with --quick, their first lines."""
        train, evalf = self.file(ds.train), self.file(ds.eval)
        if not self.quick:
            return train, evalf
        key = (ds.name, ds.quick_lines)
        if key not in self.sliced:
            n_train, n_eval = ds.quick_lines
            stem = f"{ds.name}-quick{n_train}"
            self.sliced[key] = (head(train, self.work / f"{stem}.train.txt", n_train),
                                head(evalf, self.work / f"{stem}.eval.txt", n_eval))
        return self.sliced[key]

    def flags(self, ds, **changed):
        """DataSet ``ds``'s flags (with --quick, its quick ones), ``changed``."""
        return {**ds.flags, **(ds.quick_flags if self.quick else {}), **changed}

    def once(self, key, compute):
        """``compute()``, once per ``key``: runs are shared between cases."""
        if key not in self.memo:
            self.memo[key] = compute()
        return self.memo[key]

    def checked(self, check):
        """A target's verdict; the figures of --quick are not checked."""
        return "not checked with --quick" if self.quick else check

    def warm_cache(self):
        """Compile (or load from the cache) every kernel of the timed commands
        (run once, before the first timed run)."""

    def warm_model(self, tiny, flags):
        """Train and test a tiny model, so that no timed run compiles kernels."""
        model = self.work / "warm"
        run([TREEXC, "supervised", "-input", str(tiny), "-output", str(model), *flags,
             "-epoch", "1", "-dim", "10", "-thread", str(THREADS), "-verbose", "0"])
        run([TREEXC, "test", f"{model}.bin", str(tiny)])
        return f"{model}.bin"

    def treexc(self, ds, model_flags, **changed):
        """Median figures of --repeat runs of `treexc supervised` (flags:
        ``model_flags``, then ``ds``'s with ``changed``) then `treexc test`."""
        flags = list(model_flags) + flag_list(self.flags(ds, **changed))
        out = self.work / ("treexc-" + ds.name + "".join(flags).replace("-", "_"))

        def train():
            self.once("warm", self.warm_cache)
            self.log(f"treexc {ds.name} {' '.join(flags)}")
            (train, evalf), runs = self.split(ds), []
            for _ in range(self.repeat):
                t = run([TREEXC, "supervised", "-input", str(train), "-output", str(out),
                         *flags, "-verbose", "0"])
                r = run([TREEXC, "test", f"{out}.bin", str(evalf)])
                runs.append({"train_s": t.wall, "maxrss": t.maxrss_mib, "p1": parse_p1(r.out),
                             "test_s": r.wall})
            return {**median_of(runs), "model": f"{out}.bin"}
        return self.once(("treexc", ds.name, *flags), train)

    def fasttext(self, ds, loss, save=False, **changed):
        """Median figures of --repeat runs of fasttext_run.py train (--save)."""
        flags = self.flags(ds, **changed, loss=loss, verbose=0)
        model = self.work / ("fasttext-" + ds.name + "".join(flag_list(flags)) + ".bin")

        def train():
            self.log(f"fastText {ds.name} {flags_text(flags)}")
            return fasttext_train(*self.split(ds), flags, self.repeat,
                                  save=model if save else None)
        return self.once(("fasttext", ds.name, *flag_list(flags)), train)

    def run_cases(self, names):
        failed = False
        for name in names:
            self.log(f"{name} ...")
            start = time.perf_counter()
            try:
                section = getattr(self, f"case_{name}")()
            except Exception:
                failed = True
                section = Section(f"{name}: FAILED", lines=["```", traceback.format_exc(), "```"])
            self.log(f"{name} done in {time.perf_counter() - start:.0f} s")
            self.sections.append(section)
            if len(self.sections) < len(names):  # a long run stopped keeps what it measured
                self.write_report([f"partial: {len(self.sections)} of {len(names)} cases"])
        return failed

    def write_report(self, extra_lines=()):
        """The report (and the further outputs) so far, written; its text."""
        text = (f"# {self.title}\n\n"
                + "".join(f"- {line}\n" for line in [*self.env_lines, *extra_lines]) + "\n"
                + "\n".join(s.markdown() for s in self.sections))
        Path(self.opts.results).parent.mkdir(parents=True, exist_ok=True)
        for path, out in [(self.opts.results, text), *self.outputs.items()]:
            Path(path).write_text(out)
        return text

    def cleanup(self):
        for p in self.work.rglob("*"):   # read-only copies (bench_classify's startup case)
            if p.is_dir():
                p.chmod(0o755)
        shutil.rmtree(self.work, ignore_errors=True)

    @classmethod
    def main(cls, doc, cases, results_name, results_help="", extra=()):
        """Parse the options, run the cases they name, write and print the report."""
        opts = parse_options(doc, cases, results_name, results_help, extra)
        bench = cls(opts)
        bench.env_lines = environment(opts)
        try:
            failed = bench.run_cases(opts.only)
        finally:
            if opts.keep:
                bench.log(f"models kept in {bench.work}")
            else:
                bench.cleanup()
        text = bench.write_report([f"load average at end {os.getloadavg()[0]:.2f}"])
        print(text)
        bench.log(f"written to {opts.results}")
        return 1 if failed else 0
