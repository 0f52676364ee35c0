"""Bad-input audit: run hundreds of hostile inputs through the real ``treexc``
command (and, where it has an equivalent, through fastText 0.9.2) and
classify every outcome automatically.

    .venv/bin/python benchmarks/audit_bad_input.py                 # all cases
    .venv/bin/python benchmarks/audit_bad_input.py --only lm/      # a subset
    .venv/bin/python benchmarks/audit_bad_input.py --markdown docs/robustness.md
    .venv/bin/python benchmarks/audit_bad_input.py --workdir /tmp/audit --keep

Each case is one shell command run in a fixture folder (small files made at
the start: see FIXTURES), as a subprocess with a time limit and an address
space limit (RLIMIT_AS), so a hang or a runaway allocation is recorded, not
suffered.  The outcome of a case is one of:

ok               the right answer, or the input accepted as designed
clean error      non-zero exit, every stderr line starts with ``treexc:``
                 (one line, or a warning line before it), no traceback
usage error      non-zero exit with click's multi-line "Usage: ... Error:"
messy error      non-zero exit, no traceback, but not the one-line form
wrongly refused  a clean error for input that must be accepted
traceback        a Python traceback on stderr
crash            killed by a signal (SIGSEGV, SIGBUS, SIGABRT, ...)
hang             still running at the time limit
huge memory      MemoryError, "out of memory" or a peak RSS above the case's
                 limit (the peak of the whole process tree, from wait4)
silent wrong     exit 0 with a wrong answer, decided by the case's check
data loss        a previous model/.vec replaced or corrupted by a failed run,
                 an inconsistent .bin/.vec pair, or *.tmp files left behind

fastText 0.9.2 (the PyPI wheel has no command line) is called through its
Python API in a child process, with the same limits.  Cases are run one at
a time: the machine is shared.
"""

import argparse
import fnmatch
import glob
import gzip
import hashlib
import json
import os
import random
import re
import resource
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / ".venv" / "bin"
PYTHON = str(BIN / "python") if (BIN / "python").exists() else sys.executable
TIMEOUT = 60          # seconds per treexc case
FT_TIMEOUT = 30       # seconds per fastText case
MEM_LIMIT = 4 << 30   # RLIMIT_AS of every child
RSS_LIMIT_MB = 1024   # default "huge memory" peak RSS (MB) for a case

TRAIN = "-output out -epoch 1 -dim 10 -thread 1 -verbose 0"
FT_TRAIN = "epoch=1, dim=10, thread=1, verbose=0"


def train(extra=""):
    return with_flags(TRAIN, extra)


def with_flags(base, extra):
    """``base`` flags with those of ``extra`` put in place of its own (so a
    command shows each flag once), the others appended."""
    base = base.split()
    tokens = extra.split()
    rest = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if (t.startswith("-") and t[1:2].isalpha() and t in base and i + 1 < len(tokens)
                and base.index(t) + 1 < len(base)):
            base[base.index(t) + 1] = tokens[i + 1]
            i += 2
            continue
        rest.append(t)
        i += 1
    return " ".join(base + rest)
OUTCOMES = {
    "ok": "the right answer, or the input accepted as designed (a check of the output "
          "decides where there is one)",
    "clean error": "non-zero exit; every stderr line starts with `treexc:` (the error, "
                   "at most a warning line before it; a training run's progress at "
                   "-verbose 1 or 2 may come first); no traceback",
    "usage error": "non-zero exit with click's multi-line `Usage: ... Error: ...`",
    "messy error": "non-zero exit, no traceback, but not the one-line form",
    "wrongly refused": "a clean error for input that must be accepted",
    "traceback": "a Python traceback on stderr",
    "crash": "killed by a signal the harness did not send (SIGSEGV, SIGBUS, SIGABRT, ...)",
    "hang": f"still running at the time limit ({TIMEOUT} s), then killed",
    "huge memory": "MemoryError, `out of memory`, or a peak RSS of the process tree above "
                   f"the case's limit ({RSS_LIMIT_MB} MB unless the case says otherwise)",
    "silent wrong": "exit 0 with a wrong answer (decided by the case's check), or exit 0 "
                    "for input that must be refused",
    "data loss": "a previous out.bin/out.vec replaced or damaged by a run that failed or "
                 "was interrupted, a .bin/.vec pair that do not match, or *.tmp files left "
                 "behind",
    "n/a": "cannot be tried here (e.g. file permissions, as root)",
}
NOT_OK = ("traceback", "crash", "hang", "huge memory", "silent wrong", "data loss")
ORDER = ("ok", "clean error", "usage error", "messy error", "wrongly refused",
         "traceback", "crash", "hang", "huge memory", "silent wrong", "data loss", "n/a")


# -- cases --------------------------------------------------------------------------------

@dataclass
class Case:
    name: str
    cmd: str                      # shell command, run in the fixture folder
    expect: str = "error"         # "error", "ok" (must be accepted) or "either"
    check: object = None          # check(ctx, res) -> None or what is wrong (exit 0)
    ft: str = None                # fastText equivalent: Python code (fasttext as ft)
    ft_check: object = None       # ft_check(stdout) -> None or what is wrong
    protect: bool = False         # out.bin/out.vec hold a previous model to keep
    timeout: int = TIMEOUT
    fsize: int = None             # RLIMIT_FSIZE (bytes)
    rss_mb: int = RSS_LIMIT_MB
    signal: tuple = None          # (signal, seconds after start or "save")
    setup: object = None          # setup(ctx) before the run
    after: object = None          # after(ctx, res) -> None or what is wrong (any exit)
    api: bool = False             # a Python API call: judge the exception it raises
    ft_args: str = ""             # shell words after fastText's `python -c CODE`
    note: str = ""
    needs_nonroot: bool = False


CASES = []


def case(name, cmd, **kw):
    if any(c.name == name for c in CASES):
        raise SystemExit(f"duplicate case name {name}")
    CASES.append(Case(name, cmd, **kw))


@dataclass
class Result:
    rc: int = 0
    out: bytes = b""
    err: bytes = b""
    rss_mb: float = 0.0
    seconds: float = 0.0
    timed_out: bool = False
    signalled: bool = False


@dataclass
class Ctx:
    dir: Path
    ref: dict = field(default_factory=dict)   # reference outputs made at setup

    def path(self, name):
        return self.dir / name

    def read(self, name):
        return (self.dir / name).read_bytes()

    def write(self, name, data):
        if isinstance(data, str):
            data = data.encode()
        (self.dir / name).write_bytes(data)


# -- running ------------------------------------------------------------------------------

def _limits(fsize):
    def apply():
        # the signals' default actions, whatever the harness was started under
        # (nohup ignores SIGHUP, a background job SIGINT: children inherit that)
        for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_AS, (MEM_LIMIT, MEM_LIMIT))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    return apply


def environment():
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("LANG", "C.UTF-8")
    env.pop("PYTHONWARNINGS", None)
    return env


def execute(cmd, cwd, timeout=TIMEOUT, fsize=None, sig=None, stdin_data=None):
    """Run ``bash -c cmd``; the peak RSS is the whole process tree's (wait4)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        stdin = subprocess.DEVNULL
        if stdin_data is not None:
            stdin = tempfile.TemporaryFile()
            stdin.write(stdin_data)
            stdin.seek(0)
        start = time.monotonic()
        p = subprocess.Popen(["bash", "-c", cmd], cwd=cwd, stdin=stdin, stdout=out, stderr=err,
                             preexec_fn=_limits(fsize), start_new_session=True,
                             env=environment())
        res = Result()
        sent = False
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            now = time.monotonic() - start
            if sig is not None and not sent:
                signum, when = sig
                due = (glob.glob(str(Path(cwd) / "out*.tmp")) or
                       glob.glob(str(Path(cwd) / ".out*.tmp")) or
                       glob.glob(str(Path(cwd) / "*.tmp*"))) if when == "save" else now >= when
                if due or (when == "save" and now > timeout / 2):
                    try:
                        os.killpg(p.pid, signum)
                    except ProcessLookupError:
                        pass
                    sent = res.signalled = True
            if now > timeout:
                res.timed_out = True
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                pid, status, usage = os.wait4(p.pid, 0)
                break
            time.sleep(0.005 if sig is not None and sig[1] == "save" and not sent else 0.02)
        p.returncode = os.waitstatus_to_exitcode(status)
        try:  # leftovers of the case's own process group (background jobs)
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        res.seconds = time.monotonic() - start
        res.rc = p.returncode
        res.rss_mb = usage.ru_maxrss / 1024
        out.seek(0)
        err.seek(0)
        res.out, res.err = out.read(), err.read()
        if stdin_data is not None:
            stdin.close()
    return res


CRASH_SIGNALS = {signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT, signal.SIGFPE,
                 signal.SIGILL, signal.SIGKILL, signal.SIGSYS}


def signal_of(res):
    """The signal that killed the command (bash reports 128 + n for a child)."""
    if res.rc < 0:
        return -res.rc
    if res.rc > 128 and (res.rc - 128) in CRASH_SIGNALS:
        return res.rc - 128
    return None


def memory_blown(res, rss_mb):
    err = res.err.decode("utf-8", "replace")
    if res.rss_mb > rss_mb:
        return f"peak RSS {res.rss_mb:.0f} MB"
    for marker in ("MemoryError", "std::bad_alloc", "out of memory", "Cannot allocate memory",
                   "Unable to allocate"):
        if marker in err:
            return marker
    return None


def first_line(data, width=110):
    """The line that says what happened: a traceback's last, else the first
    ``treexc:`` line that is not a warning, else the first."""
    text = data.decode("utf-8", "backslashreplace").strip()
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    said = [x for x in lines if x.startswith("treexc:") and not x.startswith("treexc: warning")]
    if "Traceback" in text:  # the exception line of the last traceback
        after = text.rsplit("Traceback", 1)[1].splitlines()
        raised = [x for x in after if x and not x[0].isspace() and ":" in x]
        line = raised[0] if raised else lines[-1]
    else:
        line = said[0] if said else lines[0]
    return line if len(line) <= width else line[:width - 3] + "..."


def error_form(res, cmd=""):
    err = res.err.decode("utf-8", "replace").strip()
    lines = [line for line in err.splitlines() if line.strip()]
    if lines and all(line.startswith("treexc:") for line in lines) and len(lines) <= 3:
        return "clean error"
    # a training run at -verbose 1 or 2 prints its progress before the error
    if (lines and lines[-1].startswith("treexc:") and " -verbose 0" not in cmd
            and any(f"treexc {c} " in cmd for c in ("supervised", "lm"))):
        return "clean error"
    if "Usage:" in err and any(line.startswith("Error:") for line in lines):
        return "usage error"
    return "messy error"


def classify(c, ctx, res):
    """(outcome, note) of a treexc run."""
    err = res.err.decode("utf-8", "replace")
    if res.timed_out:
        return "hang", f"killed after {c.timeout} s"
    blown = memory_blown(res, c.rss_mb)
    sig = signal_of(res)
    if sig is not None and not (res.signalled and c.signal and sig == c.signal[0]):
        if blown and sig == signal.SIGKILL:
            return "huge memory", blown
        return "crash", f"killed by {signal.Signals(sig).name}"
    if c.api:
        outcome, note = classify_api(res, blown)
        if outcome == "ok" and c.expect == "error":
            return "silent wrong", f"accepted: {note}"
        return outcome, note
    if blown:
        return "huge memory", f"{blown}: {first_line(res.err)}"
    if "Traceback" in err:
        return "traceback", first_line(res.err)
    loss = protect_check(c, ctx, res)
    if loss:
        return "data loss", loss
    if c.after:
        why = c.after(ctx, res)
        if why:
            return "data loss", why
    if res.signalled:
        return "ok", f"stopped by {signal.Signals(c.signal[0]).name}, exit {res.rc}; " \
                     f"{first_line(res.err) or 'nothing on stderr'}"
    if res.rc != 0:
        form = error_form(res, c.cmd)
        if form == "clean error" and c.expect == "ok":
            return "wrongly refused", first_line(res.err)
        return form, first_line(res.err)
    if c.check:
        why = c.check(ctx, res)
        if why:
            return "silent wrong", why
    elif c.expect == "error":
        return "silent wrong", "accepted (exit 0)"
    note = first_line(res.err)
    return "ok", note


def classify_api(res, blown):
    """A Python API call: a TreexcError/ValueError/TypeError with a one-line
    message is the clean outcome; any other exception is a traceback."""
    err = res.err.decode("utf-8", "replace").strip()
    if blown:
        return "huge memory", blown
    if res.rc == 0:
        return "ok", res.out.decode("utf-8", "replace").strip()[:100]
    last = err.splitlines()[-1] if err else ""
    for kind in ("treexc.errors.TreexcError:", "TreexcError:", "ValueError:", "TypeError:"):
        if last.startswith(kind) and "Traceback" in err:
            body = err.split("Traceback", 1)[1]
            if "During handling" not in body:
                return "clean error", last
    return "traceback", last[:110]


# -- previous models: data loss -----------------------------------------------------------

def sha(path):
    try:
        return hashlib.sha1(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def put_previous(ctx):
    for ext in ("bin", "vec"):
        shutil.copyfile(ctx.path(f"prev.{ext}"), ctx.path(f"out.{ext}"))


def bin_header(path):
    data = Path(path).read_bytes()
    magic, _, _, hl = struct.unpack("<8sIIQ", data[:24])
    return json.loads(data[24:24 + hl])


def vec_shape(path):
    with open(path, "rb") as f:
        count, dim = f.readline().split()
        rows = sum(1 for _ in f)
    return int(count), int(dim), rows


def set_consistent(ctx, stem="out"):
    """None if STEM.bin and STEM.vec belong together, else what is wrong."""
    b, v = ctx.path(stem + ".bin"), ctx.path(stem + ".vec")
    if not b.exists() or not v.exists():
        return f"{stem}.bin or {stem}.vec missing"
    try:
        h = bin_header(b)
        count, dim, rows = vec_shape(v)
    except Exception as e:  # noqa: BLE001 - any parse failure is a broken pair
        return f"unreadable {stem}.bin/.vec ({type(e).__name__})"
    if (h["args"]["dim"], h["nwords"]) != (dim, count) or rows != count:
        return (f"{stem}.bin (dim {h['args']['dim']}, {h['nwords']} words) and {stem}.vec "
                f"({count} x {dim}, {rows} rows) do not match")
    return None


def tmp_left(ctx):
    left = [p for p in os.listdir(ctx.dir) if ".tmp" in p or p.endswith("~")]
    return f"left {', '.join(sorted(left)[:3])}" if left else None


def protect_check(c, ctx, res):
    if not c.protect:
        return None
    prev = (ctx.ref["prev.bin"], ctx.ref["prev.vec"])
    now = (sha(ctx.path("out.bin")), sha(ctx.path("out.vec")))
    killed = res.signalled and c.signal[0] == signal.SIGKILL
    if res.rc != 0 or res.signalled:
        if now != prev:
            if now[0] == prev[0]:
                return "previous out.vec replaced or lost by a failed run"
            if now[1] == prev[1]:
                return "previous out.bin replaced or lost by a failed run"
            why = set_consistent(ctx)
            if why:
                return f"failed run replaced the previous set: {why}"
            if not killed:
                return "a run that failed or was interrupted published a new model"
    else:
        why = set_consistent(ctx)
        if why:
            return why
    return None if killed else tmp_left(ctx)


# -- checks (exit 0) ----------------------------------------------------------------------

NONFINITE = {b"nan", b"-nan", b"+nan", b"inf", b"-inf", b"+inf", b"infinity", b"-infinity"}


def nan_in(data):
    """A NaN or infinite number among the white-space separated tokens."""
    return any(t.lower() in NONFINITE for t in data.split())


def trained(ctx, res):
    why = set_consistent(ctx)
    if why:
        return why
    if nan_in(ctx.read("out.vec")):
        return "NaN/inf in out.vec"
    return None


def trained_finite(ctx, res):
    """Trained, and no NaN or infinite weight in the output matrix either."""
    why = trained(ctx, res)
    if why:
        return why
    r = execute("treexc dump out.bin output", ctx.dir)
    if r.rc != 0:
        return f"dump of the new model failed: {first_line(r.err)}"
    return "NaN/inf in the output matrix" if nan_in(r.out) else None


def trained_sane(ctx, res):
    """Trained, finite, and the new model loads and answers.  (Not "predicts
    more than one label": one epoch of the tree at -dim 10 may not.)"""
    why = trained_finite(ctx, res)
    if why:
        return why
    r = execute("treexc predict out.bin valid.txt", ctx.dir)
    if r.rc != 0:
        return f"predict on the new model failed: {first_line(r.err)}"
    answers = r.out.count(b"\n")
    if answers != 500:
        return f"{answers} answers for 500 lines"
    return None


def dict_without(*bad):
    def check(ctx, res):
        why = trained(ctx, res)
        if why:
            return why
        r = execute("treexc dump out.bin dict", ctx.dir)
        for b in bad:
            if b in r.out:
                return f"dictionary has a token with {b!r}"
        return None
    return check


def dict_has(token, kind):
    def check(ctx, res):
        why = trained(ctx, res)
        if why:
            return why
        r = execute("treexc dump out.bin dict", ctx.dir)
        for line in r.out.split(b"\n"):
            parts = line.rsplit(b" ", 2)
            if len(parts) == 3 and parts[0] == token:
                return None if parts[2] == kind.encode() else \
                    f"{token.decode()} is a {parts[2].decode()}, not a {kind}"
        return f"{token.decode()} missing from the dictionary"
    return check


def lines_out(n, same_as=None, nonempty=False):
    def check(ctx, res):
        got = res.out.count(b"\n")
        if got != n:
            return f"{got} output lines for {n} input lines"
        if same_as is not None:
            ref = ctx.ref[same_as]
            if res.out != ref:
                return f"output differs from {same_as}"
        if nan_in(res.out):
            return "NaN in output"
        return None
    return check


def same_output(ref_name):
    def check(ctx, res):
        if res.out != ctx.ref[ref_name]:
            return f"output differs from the intact model's ({ref_name})"
        return None
    return check


def no_nan(ctx, res):
    return "NaN/inf in output" if nan_in(res.out) else None


def quiet_ok(ctx, res):
    if res.err.strip():
        return f"stderr: {first_line(res.err)}"
    return None


def lm_trained(ctx, res):
    if not ctx.path("lmout.bin").exists():
        return "lmout.bin not written"
    r = execute("treexc test-lm lmout.bin lmvalid.txt -thread 1", ctx.dir)
    if r.rc != 0:
        return f"test-lm on the new model: {first_line(r.err)}"
    if nan_in(r.out):
        return f"perplexity {first_line(r.out)}"
    return None


def ft_no_nan(out):
    return "NaN in the model" if b"NONFINITE" in out else None


# -- fixtures -----------------------------------------------------------------------------

FIXTURES = {
    "good.txt": "first 3,000 lines of examples/cooking.train.txt.gz",
    "valid.txt": "first 500 lines of examples/cooking.valid.txt.gz",
    "big.txt": "good.txt five times (15,000 lines)",
    "lmtext.txt / lmvalid.txt": "good.txt / valid.txt without labels (language model)",
    "m.bin": "`treexc supervised -input good.txt -output m -epoch 1 -dim 10 -thread 1 -verbose 0`",
    "prev.bin, prev.vec": "the previous model copied to out.bin/out.vec before cases "
                          "that write -output out (same, -dim 8 -seed 1)",
    "m_ng2.bin": "as m.bin with -wordNgrams 2 -bucket 100000 -epoch 2",
    "m_sub.bin": "as m.bin with -minn 3 -maxn 6 -bucket 100000",
    "m_small.bin": "a tiny model (200 lines, -dim 2)",
    "lm.bin, lmflat.bin": "`treexc lm -input lmtext.txt -output lm -epoch 1 -dim 16 "
                          "-minCount 2 -thread 1 -verbose 0` (and -loss softmax)",
    "ft.bin": "fastText 0.9.2 model on good.txt (epoch 1, dim 10)",
    "*.gz": "good.txt gzipped; concat.gz: two gzip members; corrupt.gz: bytes flipped; "
            "trunc.gz: first half",
    "mbig.bin, mbig2.bin": "two models of one size, 88 MB (as m.bin with -bucket 2000000 "
                           "-wordNgrams 2, seeds 1 and 2); mb.bin: a copy of mbig.bin",
    "flood.txt": "65,536 distinct 96-letter words of one FNV-1a hash, 8 a line "
                 "(tests/text/fnv_flood.py)",
    "line200.txt": "one line of 200 MB (33 M five-letter words), then good.txt",
    "cdir": "the -cache folder of the cache cases, emptied or built before each",
}


def build_fixtures(ctx, with_fasttext, reuse=False):
    d = ctx.dir
    if reuse and all((d / f).exists() for f in ("lmflat.bin", "m_ns.bin", "ft.bin")):
        return reference_outputs(ctx)
    train = gzip.decompress((ROOT / "examples" / "cooking.train.txt.gz").read_bytes())
    valid = gzip.decompress((ROOT / "examples" / "cooking.valid.txt.gz").read_bytes())
    good = b"".join(train.splitlines(keepends=True)[:3000])
    val = b"".join(valid.splitlines(keepends=True)[:500])
    ctx.write("good.txt", good)
    ctx.write("valid.txt", val)
    ctx.write("big.txt", good * 5)

    def strip_labels(data):
        return b"\n".join(b" ".join(w for w in line.split() if not w.startswith(b"__label__"))
                          for line in data.splitlines()) + b"\n"

    ctx.write("lmtext.txt", strip_labels(good))
    ctx.write("lmvalid.txt", strip_labels(val))
    gz = gzip.compress(good)
    ctx.write("good.txt.gz", gz)
    ctx.write("gzdata.txt", gz)
    half = len(good) // 2
    cut = good.rfind(b"\n", 0, half) + 1
    ctx.write("concat.gz", gzip.compress(good[:cut]) +
              gzip.compress(good[cut:] + b"__label__onlyinsecondmember second member words\n"))
    bad = bytearray(gz)
    for i in range(len(bad) // 2, len(bad) // 2 + 40):
        bad[i] ^= 0x5A
    ctx.write("corrupt.gz", bytes(bad))
    ctx.write("trunc.gz", gz[:len(gz) // 2])
    ctx.write("valid_corrupt.gz", bytes(bad))
    ctx.write("valid.txt.gz", gzip.compress(val))
    sys.path.insert(0, str(ROOT / "tests" / "text"))
    import fnv_flood
    ctx.write("flood.txt", fnv_flood.training_text(fnv_flood.flood_words()))
    words = fnv_flood.random_words(5000, 5)
    picks = random.Random(0).choices(range(len(words)), k=200_000_000 // 6)
    with open(ctx.path("line200.txt"), "wb") as f:
        f.write(b"__label__long " + b" ".join(words[i] for i in picks) + b"\n" + good)

    steps = [
        ("m", "treexc supervised -input good.txt -output m -epoch 1 -dim 10 -thread 1 -verbose 0"),
        ("prev", "treexc supervised -input good.txt -output prev -epoch 1 -dim 8 -seed 1 "
                 "-thread 1 -verbose 0"),
        ("m_ng2", "treexc supervised -input good.txt -output m_ng2 -epoch 2 -dim 10 "
                  "-wordNgrams 2 -bucket 100000 -thread 1 -verbose 0"),
        ("m_sub", "treexc supervised -input good.txt -output m_sub -epoch 1 -dim 10 "
                  "-minn 3 -maxn 6 -bucket 100000 -thread 1 -verbose 0"),
        ("m_small", "head -200 good.txt > small.txt && treexc supervised -input small.txt "
                    "-output m_small -epoch 1 -dim 2 -thread 1 -verbose 0"),
        ("lm", "treexc lm -input lmtext.txt -output lm -epoch 1 -dim 16 -minCount 2 "
               "-thread 1 -verbose 0"),
        ("lmflat", "treexc lm -input lmtext.txt -output lmflat -loss softmax -epoch 1 "
                   "-dim 16 -minCount 2 -thread 1 -verbose 0"),
        # warm the kernels used by the cases (compilation is cached)
        ("warm", "treexc predict m.bin valid.txt 2 > /dev/null && treexc test m.bin valid.txt"
                 " > /dev/null && echo bread | treexc print-word-vectors m_sub.bin > /dev/null"
                 " && echo bread | treexc print-sentence-vectors m_ng2.bin > /dev/null"
                 " && treexc test-lm lm.bin lmvalid.txt -thread 1 > /dev/null"
                 " && echo the | treexc predict-next lm.bin - 2 > /dev/null"
                 " && treexc dump-tree m.bin -input valid.txt > /dev/null"
                 " && treexc dump-tree lm.bin > /dev/null"),
    ]
    for seed in (1, 2):  # two models of one size over 64 MiB (the mapped-model cases)
        steps.append((f"mbig{seed}", f"treexc supervised -input good.txt -output "
                                     f"mbig{'' if seed == 1 else seed} -epoch 1 -dim 10 "
                                     f"-bucket 2000000 -wordNgrams 2 -seed {seed} -thread 1 "
                                     f"-verbose 0"))
    for loss in ("softmax", "hs", "ova", "ns"):
        steps.append((f"m_{loss}", f"treexc supervised -input good.txt -output m_{loss} "
                                   f"-loss {loss} -epoch 1 -dim 10 -thread 1 -verbose 0"))
    for name, cmd in steps:
        t = time.monotonic()
        r = execute(cmd, d, timeout=600)
        print(f"  fixture {name}: exit {r.rc}, {time.monotonic() - t:.1f} s", flush=True)
        if r.rc != 0:
            print(r.err.decode("utf-8", "replace")[-2000:], file=sys.stderr)
            raise SystemExit(f"fixture {name} failed: {cmd}")
    if with_fasttext:
        r = execute(f"python -c \"import fasttext as ft; ft.train_supervised(input='good.txt', "
                    f"{FT_TRAIN}).save_model('ft.bin')\"", d, timeout=300)
        if r.rc != 0:
            raise SystemExit("fastText fixture failed: " + r.err.decode()[-500:])
    else:
        ctx.write("ft.bin", struct.pack("<ii", 793712314, 12) + b"\0" * 100)
    reference_outputs(ctx)


def reference_outputs(ctx):
    d = ctx.dir
    ctx.ref["prev.bin"] = sha(d / "prev.bin")
    ctx.ref["prev.vec"] = sha(d / "prev.vec")
    for name, cmd in [("pred_valid", "treexc predict m.bin valid.txt"),
                      ("pred_valid_k3", "treexc predict-prob m.bin valid.txt 3"),
                      ("pred_lm", "treexc predict-next lm.bin lmvalid.txt 3"),
                      ("test_lm", "treexc test-lm lm.bin lmvalid.txt -thread 1"),
                      ("pred_small", "head -3 valid.txt | treexc predict m.bin -")]:
        ctx.ref[name] = execute(cmd, d).out


# -- crafted and mutated model files ------------------------------------------------------

def read_model(path):
    data = bytearray(Path(path).read_bytes())
    magic, version, reserved, hl = struct.unpack("<8sIIQ", data[:24])
    header = json.loads(data[24:24 + hl])
    return data, header


def craft(ctx, src, dst, edit_header=None, arrays=None, preamble=None, raw_header=None,
          seal=True):
    """Copy model ``src`` to ``dst`` with header or array edits.  The header is
    rewritten in place (there is slack before the first array; if not, the
    arrays move down).  ``seal``: recompute the checksums (format version 2),
    as an attacker would, so the checks behind them are tested too."""
    import zlib

    import numpy as np

    data, header = read_model(ctx.path(src))
    first = min(a["offset"] for a in header["arrays"])
    if edit_header:
        edit_header(header)
    hb = raw_header if raw_header is not None else json.dumps(header).encode()
    if 24 + len(hb) + 256 > first and raw_header is None:
        shift = (24 + len(hb) + 4096 - first + 63) // 64 * 64
        for a in header["arrays"]:
            a["offset"] += shift
        data = data[:first] + bytearray(shift) + data[first:]
        first += shift
    for name, (index, fmt, value) in (arrays or {}).items():
        a = next(a for a in header["arrays"] if a["name"] == name)
        size = struct.calcsize(fmt)
        count = 1
        for n in a["shape"]:
            count *= n
        for i in (range(count) if index == "all" else [index]):
            struct.pack_into(fmt, data, a["offset"] + i * size, value)
    version = struct.unpack_from("<I", data, 8)[0]
    if seal and version >= 2 and raw_header is None:
        for a in header["arrays"]:
            if isinstance(a, dict) and "crc32" in a:
                try:
                    n = np.dtype(a["dtype"]).itemsize * int(np.prod(a["shape"]))
                    a["crc32"] = zlib.crc32(bytes(data[a["offset"]:a["offset"] + n]))
                except (TypeError, ValueError, OverflowError):
                    pass
    if raw_header is None:
        hb = json.dumps(header).encode()
    if 24 + len(hb) > first:  # a raw (broken) header: the file is broken anyway
        data = data[:24] + hb + data[first:]
    else:
        data[24:first] = hb + b"\0" * (first - 24 - len(hb))
    struct.pack_into("<Q", data, 16, len(hb))
    if seal and version >= 2:
        struct.pack_into("<I", data, 12, zlib.crc32(hb))
    if preamble:
        preamble(data)
    ctx.write(dst, bytes(data))


def mutate(ctx, src, dst, seed, flips, start=0, end=None):
    data = bytearray(ctx.read(src))
    rng = random.Random(seed)
    for _ in range(flips):
        i = rng.randrange(start, end if end is not None else len(data) - 8)
        data[i] ^= 1 << rng.randrange(8)
    ctx.write(dst, bytes(data))


def array_span(ctx, src, name):
    """(start, end) byte offsets of array ``name`` in model ``src``."""
    _, header = read_model(ctx.path(src))
    a = next(a for a in header["arrays"] if a["name"] == name)
    n = 1
    for s in a["shape"]:
        n *= s
    return a["offset"], a["offset"] + n * int(a["dtype"][-1])


def flip_bit(ctx, src, dst, name, index, bit):
    start, _ = array_span(ctx, src, name)
    data = bytearray(ctx.read(src))
    data[start + index] ^= 1 << bit
    ctx.write(dst, bytes(data))


# -- the cases ----------------------------------------------------------------------------

def ft_train(input_, extra=""):
    """fastText's train_supervised with FT_TRAIN's keywords, ``extra``'s in their place."""
    import re

    kw = dict(re.split(r"=", pair, maxsplit=1)
              for pair in re.split(r",\s*(?=\w+=)", FT_TRAIN + (", " + extra if extra else "")))
    args = ", ".join(f"{k}={v}" for k, v in kw.items())
    return (f"m = ft.train_supervised(input={input_!r}, {args}); "
            f"print(m.test('valid.txt')); import numpy as np; "
            f"print('NONFINITE' if not (np.isfinite(m.get_input_matrix()).all() and "
            f"np.isfinite(m.get_output_matrix()).all()) else 'finite')")


def train_cases():
    def tcase(name, input_, expect, data=None, ft=True, extra="", ft_extra="", ft_args="",
              **kw):
        setup = kw.pop("setup", None)

        def make(ctx, data=data, setup=setup):
            put_previous(ctx)
            if data is not None:
                ctx.write(input_, data() if callable(data) else data)
            if setup:
                setup(ctx)
        check = kw.pop("check", trained if expect != "error" else None)
        case(f"train/{name}", f"treexc supervised -input {input_} {train(extra)}".rstrip(),
             expect=expect, setup=make, protect=True, check=check,
             ft=(ft_train(ft if isinstance(ft, str) else input_, ft_extra) if ft else None),
             ft_args=ft_args, ft_check=ft_no_nan, **kw)

    tcase("empty file", "empty.txt", "error", b"")
    tcase("only labels", "onlylabels.txt", "error", b"__label__a\n__label__b __label__c\n" * 50)
    tcase("only spaces and blank lines", "blank.txt", "error", b"   \n\n\t \n  \r\n" * 50)
    tcase("no labels", "nolabels.txt", "error", b"some words here\nand more words\n" * 50)
    tcase("label-only lines among good ones", "someonly.txt", "ok",
          lambda: b"__label__a\n" + GOOD_HEAD + b"__label__b   \n" + GOOD_HEAD,
          note="skipped with one warning, as fastText")
    for where, data in [
            ("first byte", lambda: b"\xff" + GOOD_HEAD),
            ("middle of a line", lambda: GOOD_HEAD + b"__label__x caf\xe9 au lait\n" + GOOD_HEAD),
            ("inside a label", lambda: GOOD_HEAD + b"__label__b\xe9ad word\n" + GOOD_HEAD),
            ("truncated multibyte at end", lambda: GOOD_HEAD + "__label__a é".encode()[:-1]),
            ("latin-1 file", lambda: b" ".join(
                w if w.startswith(b"__label__") else w.replace(b"e", b"\xe9")
                for w in GOOD_HEAD.split(b" "))),
            ("overlong and surrogate sequences", lambda: GOOD_HEAD + b"__label__a \xc0\xaf "
             b"\xed\xa0\x80 x\n" + GOOD_HEAD)]:
        tcase(f"invalid UTF-8: {where}", "badutf8.txt", "ok", data,
              note="text is bytes (fastText accepts)")
    tcase("NUL byte in a line", "nul.txt", "either",
          lambda: GOOD_HEAD + b"__label__a wo\x00rd x\n" + GOOD_HEAD)
    tcase("binary garbage", "garbage.bin", "either",
          lambda: bytes(random.Random(1).randrange(256) for _ in range(200_000)))
    tcase("UTF-16 file", "utf16.txt", "either", lambda: GOOD_HEAD.decode().encode("utf-16"))
    tcase("UTF-8 BOM", "bom.txt", "ok", lambda: b"\xef\xbb\xbf" + GOOD_HEAD)
    tcase("CRLF line ends", "crlf.txt", "ok", lambda: GOOD_HEAD.replace(b"\n", b"\r\n"),
          check=dict_without(b"\r"), note="fastText: \\r is white space")
    tcase("CR-only line ends", "cr.txt", "either", lambda: GOOD_HEAD.replace(b"\n", b"\r"),
          note="fastText: one line with many labels")
    tcase("vertical tab and form feed separators", "vtff.txt", "ok",
          lambda: GOOD_HEAD.replace(b" ", b"\x0b", 200).replace(b" ", b"\x0c", 200),
          check=dict_without(b"\x0b", b"\x0c"), note="fastText splits at \\v and \\f")
    tcase("non-breaking spaces", "nbsp.txt", "ok",
          lambda: GOOD_HEAD.replace(b" ", "\u00a0".encode(), 100))
    tcase("no newline at end", "nonl.txt", "ok", lambda: GOOD_HEAD.rstrip(b"\n"))
    tcase("a 5 MB single token", "token5mb.txt", "either",
          lambda: GOOD_HEAD + b"__label__a " + b"x" * (5 << 20) + b"\n")
    tcase("a 50 MB single line", "line50mb.txt", "either",
          lambda: GOOD_HEAD + b"__label__a " + b"word " * (10 << 20) + b"\n", rss_mb=2048)
    tcase("100,000 words on one line", "longline.txt", "ok",
          lambda: GOOD_HEAD + b"__label__a " + b" ".join(b"w%d" % i for i in range(100_000)) + b"\n")
    tcase("a 100 kB label name", "longlabel.txt", "ok",
          lambda: GOOD_HEAD + b"__label__" + b"L" * 100_000 + b" some words\n")
    tcase("label with escape and control bytes", "esclabel.txt", "ok",
          lambda: GOOD_HEAD + b"__label__\x1b[31mred\x07 words here\n" + GOOD_HEAD)
    tcase("3,000 distinct labels", "manylabels.txt", "ok",
          lambda: b"".join(b"__label__L%d w%d common\n" % (i, i) for i in range(3000)))
    tcase("labels only, -label prefix that matches nothing", "good.txt", "error",
          extra=" -label @@", ft_extra="label='@@'")
    tcase("a treexc model as input", "m.bin", "either")
    tcase("gzip (.gz name)", "good.txt.gz", "ok", note="fastText reads the compressed bytes")
    tcase("gzip, two concatenated members", "concat.gz", "ok", ft=False,
          check=dict_has(b"__label__onlyinsecondmember", "label"))
    tcase("gzip, corrupt", "corrupt.gz", "error", ft=False)
    tcase("gzip, truncated", "trunc.gz", "error", ft=False)
    tcase("gzip without .gz name", "gzdata.txt", "ok", ft=False)
    tcase("directory", "adir", "error", setup=lambda ctx: ctx.path("adir").mkdir(exist_ok=True))
    tcase("missing file", "missing.txt", "error")
    tcase("/dev/null", "/dev/null", "error")
    tcase("/dev/zero", "/dev/zero", "error", timeout=60, rss_mb=2600,
          note="training text is held in memory: refused past half the available memory "
               "(2 GB under the 4 GB limit)")
    tcase("/dev/stdin redirected from a file", "/dev/stdin < good.txt", "ok", ft="/dev/stdin",
          ft_args="< good.txt")
    tcase("- (stdin)", "- < good.txt", "ok", ft=False)
    tcase("- (stdin), gzip data without a name", "- < good.txt.gz", "ok", ft=False)
    tcase("- (stdin) closed", "- <&-", "error", ft=False)
    tcase("- (stdin) from a pipe", "- < <(cat good.txt)", "ok", ft=False)
    tcase("process substitution", "<(cat good.txt)", "ok", ft="/dev/stdin",
          ft_args="< <(cat good.txt)", note="fastText: a pipe as stdin")
    tcase("process substitution, gzip data", "<(cat good.txt.gz)", "ok", ft=False)
    tcase("named pipe", "fifo", "ok",
          setup=lambda ctx: make_fifo(ctx, "fifo", "good.txt"))
    case("train/named pipe, nothing written", "timeout -s INT 10 treexc supervised -input "
         f"emptyfifo {TRAIN}", expect="either", setup=lambda ctx: (
             put_previous(ctx), make_fifo(ctx, "emptyfifo", None)),
         note="blocks until a writer opens the pipe, as cat does (timeout sends SIGINT)",
         check=lambda ctx, res: None)
    tcase("unreadable file (chmod 000)", "secret.txt", "error",
          setup=lambda ctx: (ctx.write("secret.txt", ctx.read("good.txt")),
                             os.chmod(ctx.path("secret.txt"), 0)), needs_nonroot=True)


GOOD_HEAD = b""   # first 1,000 lines of good.txt, set in main()


def make_fifo(ctx, name, source):
    p = ctx.path(name)
    if p.exists():
        p.unlink()
    os.mkfifo(p)
    if source is not None:
        # a writer in the background, started by the harness and reaped by bash's group kill
        WRITERS.append(subprocess.Popen(["bash", "-c", f"exec cat {source} > {name}"],
                                        cwd=ctx.dir, start_new_session=True))


WRITERS = []   # background writers of named pipes, ended after each case


def end_writers():
    while WRITERS:
        p = WRITERS.pop()
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        p.wait()


NUMERIC = {
    # flag: (kind, fastText has it)
    "lr": ("float", True), "lrUpdateRate": ("int", True), "dim": ("int", True),
    "ws": ("int", True), "epoch": ("int", True), "minCount": ("int", True),
    "minCountLabel": ("int", True), "neg": ("int", True), "wordNgrams": ("int", True),
    "bucket": ("int", True), "minn": ("int", True), "maxn": ("int", True),
    "thread": ("int", True), "t": ("float", True), "verbose": ("int", True),
    "seed": ("int", True), "arity": ("int", False), "treeUpdates": ("int", False),
    "maxDepth": ("int", False),
}


# flags a supervised run with the default loss and -wordNgrams 1 does not use
# (bucket: forced to 0 without n-grams, as fastText; minn: only with maxn; ws, t:
# word2vec options; verbose and seed: any value has a meaning)
UNUSED = ("ws", "t", "bucket", "minn", "verbose", "seed", "neg")


def flag_cases():
    huge = str(2 ** 63)
    for flag, (kind, ft_has) in NUMERIC.items():
        values = [("0", "0"), ("negative", "-1"), ("huge 2^63", huge),
                  ("fractional", "1.5"), ("non-numeric", "abc")]
        if kind == "float":
            values[3] = ("nan", "nan")
            values.append(("inf", "inf"))
        for label, value in values:
            # a huge value may be refused or work (clamped); it must not crash, hang
            # or save a model that cannot be loaded (trained_sane loads it)
            expect = "either"
            if label in ("non-numeric", "nan", "inf") or \
                    (label == "fractional" and kind == "int"):
                expect = "error"
            if label == "negative" and flag not in ("maxDepth", "treeUpdates", "verbose"):
                expect = "error"
            if flag in UNUSED and label != "non-numeric" and not (
                    label == "fractional" and kind == "int"):
                expect = "either"  # not used by a supervised run (fastText does not check)
            ft = None  # the Python API is typed: a string or 1.5 is a TypeError there
            if ft_has and label != "non-numeric" and (kind == "float" or
                                                      label in ("0", "negative")):
                pyval = {"nan": "float('nan')", "inf": "float('inf')"}.get(value, value)
                ft = ft_train("good.txt", f"{flag}={pyval}")
            case(f"flag/-{flag} {label}",
                 f"treexc supervised -input good.txt {train(f'-{flag} {value}')}",
                 expect=expect, setup=put_previous, protect=True,
                 check=trained_sane if expect != "error" else None,
                 ft=ft, ft_check=ft_no_nan, timeout=60)

    def fcase(name, extra, expect="error", ft=None, check=None, setup=put_previous,
              input_="good.txt", **kw):
        case(f"flag/{name}", f"treexc supervised -input {input_} {train(extra)}",
             expect=expect, setup=setup, protect=setup is put_previous,
             check=check or (trained_sane if expect != "error" else None), ft=ft,
             ft_check=ft_no_nan, **kw)

    fcase("unknown flag", "-foo 1", ft=ft_train("good.txt", "foo=1"))
    fcase("unknown flag close to a real one", "-wordNgram 2")
    fcase("flag without its value", "-dim")
    fcase("repeated flag", "-dim 4 -dim 6", expect="ok")
    fcase("stray positional argument", "extra")
    fcase("-loss unknown", "-loss bogus", ft=ft_train("good.txt", "loss='bogus'"))
    fcase("-loss empty", "-loss ''", ft=ft_train("good.txt", "loss=''"))
    fcase("-loss one-vs-all alias", "-loss one-vs-all", expect="ok", check=trained_finite)
    fcase("-bucket -1 with -wordNgrams 2", "-bucket -1 -wordNgrams 2",
          ft=ft_train("good.txt", "bucket=-1, wordNgrams=2"))
    fcase("-bucket 2^63 with -wordNgrams 2", f"-bucket {2 ** 63} -wordNgrams 2")
    fcase("-neg 2^63 with -loss ns", f"-neg {2 ** 63} -loss ns", expect="either")
    fcase("-minn 2^63 with -maxn 3", f"-minn {2 ** 63} -maxn 3")
    fcase("-label empty", "-label ''", ft=ft_train("good.txt", "label=''"))
    fcase("-label with a space", "-label '__label__ x'")
    fcase("-treeGradient unknown", "-treeGradient bogus")
    fcase("-saveOutput given a value", "-saveOutput 1")
    fcase("-pretrainedVectors missing", "-pretrainedVectors nope.vec",
          ft=ft_train("good.txt", "pretrainedVectors='nope.vec'"))
    fcase("-pretrainedVectors wrong dim", "-pretrainedVectors prev.vec",
          ft=ft_train("good.txt", "pretrainedVectors='prev.vec'"), note="prev.vec has dim 8")
    fcase("-pretrainedVectors malformed (short row)", "-pretrainedVectors short.vec",
          setup=lambda ctx: (put_previous(ctx),
                             ctx.write("short.vec", b"2 10\nbread 1 2 3\nsalt " +
                                       b"0.1 " * 10 + b"\n")),
          ft=ft_train("good.txt", "pretrainedVectors='short.vec'"))
    fcase("-pretrainedVectors malformed (text values)", "-pretrainedVectors text.vec",
          setup=lambda ctx: (put_previous(ctx),
                             ctx.write("text.vec", b"1 10\nbread " + b"abc " * 10 + b"\n")),
          ft=ft_train("good.txt", "pretrainedVectors='text.vec'"))
    fcase("-pretrainedVectors no header", "-pretrainedVectors nohead.vec",
          setup=lambda ctx: (put_previous(ctx),
                             ctx.write("nohead.vec", b"bread " + b"0.5 " * 10 + b"\n")),
          ft=ft_train("good.txt", "pretrainedVectors='nohead.vec'"))
    fcase("-pretrainedVectors empty file", "-pretrainedVectors empty.vec",
          setup=lambda ctx: (put_previous(ctx), ctx.write("empty.vec", b"")),
          ft=ft_train("good.txt", "pretrainedVectors='empty.vec'"))
    fcase("-pretrainedVectors header count larger than the rows", "-pretrainedVectors few.vec",
          setup=lambda ctx: (put_previous(ctx),
                             ctx.write("few.vec", b"1000000000 10\nbread " + b"0.5 " * 10 +
                                       b"\n")),
          ft=ft_train("good.txt", "pretrainedVectors='few.vec'"))
    fcase("-pretrainedVectors with NaN values", "-pretrainedVectors nan.vec",
          setup=lambda ctx: (put_previous(ctx),
                             ctx.write("nan.vec", b"1 10\nbread " + b"nan " * 10 + b"\n")),
          ft=ft_train("good.txt", "pretrainedVectors='nan.vec'"))
    fcase("-pretrainedVectors value beyond float32", "-pretrainedVectors big.vec",
          setup=lambda ctx: (put_previous(ctx),
                             ctx.write("big.vec", b"1 10\nbread 1e39 " + b"0.5 " * 9 + b"\n")),
          ft=ft_train("good.txt", "pretrainedVectors='big.vec'"))
    fcase("-pretrainedVectors containing label tokens", "-pretrainedVectors labels.vec",
          expect="either",
          setup=lambda ctx: (put_previous(ctx), ctx.write(
              "labels.vec", b"2 10\n__label__baking " + b"0.5 " * 10 + b"\nbread " +
              b"0.25 " * 10 + b"\n")),
          check=dict_has(b"__label__baking", "label"),
          ft=ft_train("good.txt", "pretrainedVectors='labels.vec'"),
          note="a label must stay a label")
    fcase("-pretrainedVectors a directory", "-pretrainedVectors adir",
          setup=lambda ctx: (put_previous(ctx), ctx.path("adir").mkdir(exist_ok=True)))
    fcase("-pretrainedVectors invalid UTF-8 word", "-pretrainedVectors badword.vec",
          expect="either",
          setup=lambda ctx: (put_previous(ctx), ctx.write(
              "badword.vec", b"1 10\nbr\xffead " + b"0.5 " * 10 + b"\n")))
    fcase("-output into a missing folder", "-output no/such/dir/out", setup=None)
    fcase("-output into a file used as a folder", "-output good.txt/out", setup=None)
    fcase("-output empty", "-output ''", setup=None)
    fcase("-output under /proc", "-output /proc/out", setup=None)
    fcase("-output a folder named OUTPUT.vec in the way", "",
          setup=lambda ctx: (shutil.copyfile(ctx.path("prev.bin"), ctx.path("out.bin")),
                             ctx.path("out.vec").mkdir()),
          after=lambda ctx, res: None if res.rc == 0 or sha(ctx.path("out.bin")) ==
          ctx.ref["prev.bin"] else "previous out.bin replaced by a run that failed",
          check=lambda ctx, res: "exit 0 with out.vec a folder")
    fcase("-output a folder named OUTPUT.bin in the way", "",
          setup=lambda ctx: (ctx.path("out.bin").mkdir(),
                             shutil.copyfile(ctx.path("prev.vec"), ctx.path("out.vec"))),
          after=lambda ctx, res: None if sha(ctx.path("out.vec")) == ctx.ref["prev.vec"]
          else "previous out.vec replaced by a run that failed",
          check=lambda ctx, res: "exit 0 with out.bin a folder")
    fcase("-thread 100000", "-thread 100000", expect="either", timeout=150,
          ft=ft_train("good.txt", "thread=100000"))
    fcase("-output naming a folder (trailing /)", "-output adir/",
          setup=lambda ctx: ctx.path("adir").mkdir(exist_ok=True),
          after=lambda ctx, res: None if not any(ctx.path("adir").glob(".*"))
          else "hidden files written in adir")
    fcase("-autotune-validation without labels", "-autotune-validation lmvalid.txt "
          "-autotune-duration 5")
    fcase("-bucket 0 with -wordNgrams 2", "-bucket 0 -wordNgrams 2",
          ft=ft_train("good.txt", "bucket=0, wordNgrams=2"))
    fcase("-bucket 0 with -maxn 3", "-bucket 0 -minn 2 -maxn 3",
          ft=ft_train("good.txt", "bucket=0, minn=2, maxn=3"))
    fcase("-dim 100000", "-dim 100000", expect="either", rss_mb=3500, timeout=150,
          input_="small.txt",
          ft=ft_train("small.txt", "dim=100000"),
          note="refuse up front or finish (small.txt: 200 lines)")
    fcase("-bucket 2^40 with -wordNgrams 2", f"-bucket {2 ** 40} -wordNgrams 2",
          expect="either", ft=ft_train("good.txt", f"bucket={2 ** 40}, wordNgrams=2"))
    fcase("-arity 1", "-arity 1")
    fcase("-arity 2000000000", "-arity 2000000000", expect="ok", rss_mb=2048,
          note="cut to the label count")
    fcase("-arity 3 with -loss softmax (unused)", "-arity 3 -loss softmax", expect="ok")
    fcase("-minCount huge: no words remain", "-minCount 100000000",
          ft=ft_train("good.txt", "minCount=100000000"))
    fcase("-minCountLabel huge: no labels remain", "-minCountLabel 100000000",
          ft=ft_train("good.txt", "minCountLabel=100000000"))
    fcase("-maxDepth 1 with 700 labels", "-maxDepth 1", expect="either")
    fcase("-maxDepth -2", "-maxDepth -2")
    fcase("-minn 5 -maxn 3", "-minn 5 -maxn 3 -bucket 1000",
          ft=ft_train("good.txt", "minn=5, maxn=3, bucket=1000"), expect="either")
    fcase("-maxn 1000", "-minn 1 -maxn 1000 -bucket 1000", expect="either",
          ft=ft_train("good.txt", "minn=1, maxn=1000, bucket=1000"))
    fcase("-wordNgrams 100", "-wordNgrams 100 -bucket 1000", expect="either",
          ft=ft_train("good.txt", "wordNgrams=100, bucket=1000"))
    fcase("-epoch 1000 on 2 lines", "", expect="either",
          setup=lambda ctx: put_previous(ctx))
    CASES[-1].cmd = f"head -2 good.txt > two.txt && treexc supervised -input two.txt " \
                    f"{train('-epoch 1000')}"
    CASES[-1].check = trained
    # numerical blow-up: fastText stops with "Encountered NaN."
    for loss in ("softmax", "hs", "ova", "ns", "tree"):
        ftl = f", loss={loss!r}" if loss != "tree" else None
        fcase(f"-lr 10 -loss {loss}", f"-lr 10 -loss {loss}", expect="either",
              check=trained_finite,
              ft=ft_train("good.txt", f"lr=10{ftl}") if ftl else None)
    fcase("-lr 2 -loss ova", "-lr 2 -loss ova", expect="either", check=trained_finite,
          ft=ft_train("good.txt", "lr=2, loss='ova'"))
    fcase("-lr 1e30 -loss softmax", "-lr 1e30 -loss softmax", expect="either",
          check=trained_finite,
          ft=ft_train("good.txt", "lr=1e30, loss='softmax'"))


def output_cases():
    def after_full(ctx, res):
        return tmp_left(ctx)
    def between(ctx):  # a file size limit the .bin fits under and the .vec does not
        b, v = (os.path.getsize(ctx.path(f"m_softmax.{e}")) for e in ("bin", "vec"))
        return (b + v) // 2 if v > b * 1.1 else None
    case("output/.vec fails: file size limit (RLIMIT_FSIZE)",
         f"treexc supervised -input good.txt {TRAIN} -loss softmax", fsize=between,
         setup=put_previous, protect=True, note="the .bin fits, the .vec does not")
    case("output/-saveOutput -loss softmax names rows by label",
         f"treexc supervised -input good.txt {train('-loss softmax -saveOutput')}", expect="ok",
         setup=put_previous, protect=True, check=output_rows_are_labels)
    case("output/.bin fails: file size limit (RLIMIT_FSIZE)",
         f"treexc supervised -input good.txt {TRAIN}", fsize=100_000, setup=put_previous,
         protect=True, note="ulimit -f 97")
    case("output/-saveOutput with a folder named OUTPUT.output in the way",
         f"treexc supervised -input good.txt {TRAIN} -saveOutput",
         setup=lambda ctx: (put_previous(ctx), ctx.path("out.output").mkdir()),
         protect=True, note="the .bin and .vec are written, the .output cannot be")
    case("output/-output on a full filesystem (1 MB tmpfs)",
         f"treexc supervised -input good.txt {TRAIN.replace('-output out', '-output full/out')}",
         setup=setup_tmpfs, after=check_tmpfs, note="mount -t tmpfs -o size=1m tmpfs full; "
         "holds a previous full/out.bin, full/out.vec")
    case("output/predict > /dev/full", "treexc predict m.bin valid.txt > /dev/full")
    case("output/predict-prob > /dev/full", "treexc predict-prob m.bin valid.txt 3 > /dev/full")
    case("output/test > /dev/full", "treexc test m.bin valid.txt > /dev/full")
    case("output/test-label > /dev/full", "treexc test-label m.bin valid.txt > /dev/full")
    case("output/dump input > /dev/full", "treexc dump m.bin input > /dev/full")
    case("output/dump-tree > /dev/full", "treexc dump-tree m.bin > /dev/full")
    case("output/print-word-vectors > /dev/full",
         "echo bread salt | treexc print-word-vectors m.bin > /dev/full")
    case("output/print-sentence-vectors > /dev/full",
         "treexc print-sentence-vectors m.bin < valid.txt > /dev/full")
    case("output/predict-next > /dev/full", "treexc predict-next lm.bin lmvalid.txt > /dev/full")
    case("output/test-lm > /dev/full", "treexc test-lm lm.bin lmvalid.txt > /dev/full")
    case("output/supervised -verbose 1 > /dev/full (stdout unused)",
         f"treexc supervised -input good.txt {TRAIN.replace('-verbose 0', '-verbose 1')} "
         f"> /dev/full", expect="ok", check=trained)
    case("output/lm -verbose 1 > /dev/full", "treexc lm -input lmtext.txt -output lmout "
         "-epoch 1 -dim 16 -minCount 2 -thread 1 -verbose 1 > /dev/full", expect="either",
         check=lm_trained, note="results go to stdout")
    case("output/predict with stdout closed", "treexc predict m.bin valid.txt >&-")
    case("output/test with stdout closed", "treexc test m.bin valid.txt >&-")
    case("output/print-word-vectors with stdout closed",
         "echo bread | treexc print-word-vectors m.bin >&-")
    for cmd in ["treexc predict m.bin big.txt", "treexc predict-prob m.bin big.txt 5",
                "treexc print-sentence-vectors m.bin < big.txt",
                "treexc dump m.bin input", "treexc test-label m.bin big.txt 1",
                "treexc predict-next lm.bin lmtext.txt 5"]:
        case(f"output/{cmd.split()[1]} | head -1",
             f"set -o pipefail; {cmd} | head -1 > /dev/null", expect="ok", check=quiet_ok,
             note="a closed pipe is a quiet exit")
    case("output/predict to a size-limited file", "treexc predict m.bin big.txt > pred.txt",
         fsize=20_000, note="ulimit -f 19")


def output_rows_are_labels(ctx, res):
    why = trained(ctx, res)
    if why:
        return why
    rows = ctx.read("out.output").split(b"\n")[1:]
    names = [r.split(b" ", 1)[0] for r in rows if r]
    if not names or not all(n.startswith(b"__label__") for n in names):
        return f"rows named {names[0][:30]!r}..., not by label" if names else "no rows"
    return None


def setup_tmpfs(ctx):
    full = ctx.path("full")
    full.mkdir(exist_ok=True)
    if os.geteuid() == 0 and not os.path.ismount(full):
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(full)],
                           capture_output=True)
        if r.returncode != 0:
            raise NotApplicable("cannot mount a tmpfs")
    else:
        raise NotApplicable("mounting a tmpfs needs root")
    for ext in ("bin", "vec"):
        shutil.copyfile(ctx.path(f"prev.{ext}"), full / f"out.{ext}")


class NotApplicable(Exception):
    pass


def check_tmpfs(ctx, res):
    full = ctx.path("full")
    if not os.path.ismount(full):
        return None
    try:
        now = (sha(full / "out.bin"), sha(full / "out.vec"))
        if res.rc != 0 and now != (ctx.ref["prev.bin"], ctx.ref["prev.vec"]):
            return "previous full/out.bin/.vec changed by a failed run"
        left = [p for p in os.listdir(full) if ".tmp" in p]
        return f"left {left[0]}" if left else None
    finally:
        subprocess.run(["umount", str(full)], capture_output=True)


def predict_cases():
    n_valid = 500
    for cmd in ("predict", "predict-prob"):
        case(f"predict/{cmd} missing model", f"treexc {cmd} missing.bin valid.txt")
        case(f"predict/{cmd} non-seekable input: pipe to -",
             f"cat valid.txt | treexc {cmd} m.bin -", expect="ok", check=lines_out(n_valid))
        case(f"predict/{cmd} non-seekable input: process substitution",
             f"treexc {cmd} m.bin <(cat valid.txt)", expect="ok", check=lines_out(n_valid))
        case(f"predict/{cmd} non-seekable input: /dev/stdin from a pipe",
             f"cat valid.txt | treexc {cmd} m.bin /dev/stdin", expect="ok",
             check=lines_out(n_valid))
        case(f"predict/{cmd} named pipe", f"treexc {cmd} m.bin vfifo", expect="ok",
             check=lines_out(n_valid), setup=lambda ctx: make_fifo(ctx, "vfifo", "valid.txt"))
    ft_test = "m = ft.load_model('ft.bin'); print(m.test({!r}))"
    pcase = lambda name, cmd, **kw: case(f"predict/{name}", cmd, **kw)  # noqa: E731
    pcase("empty model file", "treexc predict empty.bin valid.txt",
          setup=lambda ctx: ctx.write("empty.bin", b""),
          ft="ft.load_model('empty.bin')")
    pcase("text file as model", "treexc predict good.txt valid.txt",
          ft="ft.load_model('good.txt')")
    pcase("fastText .bin as model", "treexc predict ft.bin valid.txt", expect="ok",
          note="read as the treexc model it converts to")
    pcase("treexc model to fastText", "treexc predict m.bin valid.txt", expect="ok",
          check=same_output("pred_valid"), ft="ft.load_model('m.bin')",
          note="the fastText column: fastText loading a treexc .bin")
    pcase("directory as model", "treexc predict adir valid.txt",
          setup=lambda ctx: ctx.path("adir").mkdir(exist_ok=True))
    pcase("/dev/null as model", "treexc predict /dev/null valid.txt",
          ft="ft.load_model('/dev/null')")
    pcase("/dev/zero as model", "treexc predict /dev/zero valid.txt")
    pcase("model from a pipe", "treexc predict <(cat m.bin) valid.txt", expect="either",
          check=same_output("pred_valid"))
    pcase("a .vec file as model", "treexc predict prev.vec valid.txt",
          ft="ft.load_model('prev.vec')")
    pcase("a .gz model", "treexc predict mgz.bin valid.txt",
          setup=lambda ctx: ctx.write("mgz.bin", gzip.compress(ctx.read("m.bin"))))
    for k, expect in [("0", "error"), ("-1", "ok"), (str(2 ** 63), "either"), ("1000000", "ok"),
                      ("abc", "error"), ("1.5", "error")]:
        pcase(f"k {k}", f"treexc predict m.bin valid.txt {k}", expect=expect,
              check=lines_out(n_valid) if expect != "error" else None,
              ft=None if k in ("abc", "1.5") or k.startswith("9") else ft_test.format("valid.txt")
              .replace("))", f", k={k}))"),
              note="fastText: -1 = all labels" if k == "-1" else "")
    for t, expect in [("-0.5", "error"), ("1.5", "error"), ("nan", "error"), ("inf", "error"),
                      ("abc", "error"), ("1", "ok")]:
        pcase(f"threshold {t}", f"treexc predict m.bin valid.txt 1 {t}", expect=expect,
              check=lines_out(n_valid) if expect == "ok" else None)
    pcase("input with invalid UTF-8", "treexc predict m.bin badvalid.txt", expect="ok",
          setup=lambda ctx: ctx.write("badvalid.txt", ctx.read("valid.txt")[:5000] +
                                      b"caf\xe9 \xff\xfe bread\n" + ctx.read("valid.txt")[5000:]),
          check=lambda ctx, res: lines_out(ctx.read("badvalid.txt").count(b"\n"))(ctx, res),
          ft=ft_test.format("badvalid.txt"), note="one answer per line")
    pcase("stdin with invalid UTF-8 after good lines",
          "(head -3 valid.txt; printf 'caf\\xe9\\n'; head -3 valid.txt) | treexc predict m.bin -",
          expect="ok", check=lines_out(7))
    pcase("input with NUL bytes", "treexc predict m.bin nulvalid.txt", expect="ok",
          setup=lambda ctx: ctx.write("nulvalid.txt", b"bread\x00 flour\n\x00\nsalt\n"),
          check=lines_out(3), ft=ft_test.format("nulvalid.txt"))
    pcase("input with empty lines", "treexc predict m.bin emptylines.txt", expect="ok",
          setup=lambda ctx: ctx.write("emptylines.txt", b"\n\nbread\n\n \n"),
          check=lines_out(5), ft=ft_test.format("emptylines.txt"))
    pcase("input with a 10 MB line", "treexc predict m.bin longvalid.txt", expect="ok",
          setup=lambda ctx: ctx.write("longvalid.txt", b"bread " * ((10 << 20) // 6) +
                                      b"\nsalt\n"),
          check=lines_out(2), ft=ft_test.format("longvalid.txt"))
    pcase("input with a 100 MB line first", "treexc predict m.bin long100.txt", expect="ok",
          setup=lambda ctx: ctx.write("long100.txt", b"bread " * ((100 << 20) // 6) +
                                      b"\nsalt\n"),
          check=lines_out(2), note="was 39 s and 3 GB (numpy's first answers)")
    pcase("input with CRLF line ends", "treexc predict m.bin crlfvalid.txt", expect="ok",
          setup=lambda ctx: ctx.write("crlfvalid.txt",
                                      ctx.read("valid.txt").replace(b"\n", b"\r\n")),
          check=lines_out(n_valid, same_as="pred_valid"), ft=ft_test.format("crlfvalid.txt"))
    pcase("input without final newline", "printf 'bread flour' | treexc predict m.bin -",
          expect="ok", check=lines_out(1))
    pcase("input gzip via stdin", "treexc predict m.bin - < valid.txt.gz", expect="ok",
          check=lines_out(n_valid, same_as="pred_valid"))
    pcase("input gzip via pipe", "cat valid.txt.gz | treexc predict m.bin -", expect="ok",
          check=lines_out(n_valid, same_as="pred_valid"))
    pcase("input corrupt .gz", "treexc predict m.bin valid_corrupt.gz")
    pcase("input truncated .gz via pipe", "head -c 3000 valid.txt.gz | treexc predict m.bin -")
    pcase("input missing", "treexc predict m.bin missing.txt",
          ft=ft_test.format("missing.txt"))
    pcase("input a directory", "treexc predict m.bin adir",
          setup=lambda ctx: ctx.path("adir").mkdir(exist_ok=True))
    pcase("input /dev/null", "treexc predict m.bin /dev/null", expect="ok", check=lines_out(0))
    pcase("model replaced (cp) while predict runs",
          "(sleep 1.5; head -3 valid.txt; sleep 2.5; head -3 valid.txt) | treexc predict "
          "inuse.bin - & sleep 2.5; cp m_small.bin inuse.bin; wait $!",
          setup=lambda ctx: shutil.copyfile(ctx.path("m.bin"), ctx.path("inuse.bin")),
          expect="either", check=lines_out(6))
    pcase("model replaced (mv) while predict runs",
          "(sleep 1.5; head -3 valid.txt; sleep 2.5; head -3 valid.txt) | treexc predict "
          "inuse.bin - & sleep 2.5; cp m_small.bin new.bin; mv new.bin inuse.bin; wait $!",
          setup=lambda ctx: shutil.copyfile(ctx.path("m.bin"), ctx.path("inuse.bin")),
          expect="ok", check=lines_out(6))
    # test / test-label
    case("test/no labels in the file", "treexc test m.bin lmvalid.txt", expect="either",
         check=lambda ctx, res: None, ft=ft_test.format("lmvalid.txt"),
         note="N 0: precision undefined")
    case("test/empty file", "treexc test m.bin /dev/null", expect="either",
         check=lambda ctx, res: None, ft="m = ft.load_model('ft.bin'); print(m.test('/dev/null'))")
    case("test/missing file", "treexc test m.bin missing.txt", ft=ft_test.format("missing.txt"))
    case("test/no file argument", "treexc test m.bin")
    case("test/k 0", "treexc test m.bin valid.txt 0",
         ft="m = ft.load_model('ft.bin'); print(m.test('valid.txt', k=0))")
    case("test/k -1", "treexc test m.bin valid.txt -1", expect="either", check=no_nan,
         ft="m = ft.load_model('ft.bin'); print(m.test('valid.txt', k=-1))")
    case("test/threshold nan", "treexc test m.bin valid.txt 1 nan")
    case("test/input with invalid UTF-8", "treexc test m.bin badvalid.txt", expect="ok",
         check=no_nan, ft=ft_test.format("badvalid.txt"),
         setup=lambda ctx: ctx.write("badvalid.txt", ctx.read("valid.txt")[:5000] +
                                     b"__label__baking caf\xe9\n" + ctx.read("valid.txt")[5000:]))
    case("test/from a pipe", "cat valid.txt | treexc test m.bin -", expect="ok", check=no_nan)
    case("test/corrupt .gz", "treexc test m.bin valid_corrupt.gz")
    case("test-label/no labels in the file", "treexc test-label m.bin lmvalid.txt",
         expect="either", check=lambda ctx, res: None)
    case("test-label/k huge", f"treexc test-label m.bin valid.txt {2 ** 62}", expect="either",
         check=lambda ctx, res: None)


def model_file_cases():
    """Crafted and mutated classifier files."""
    def mcase(name, dst, make, cmd="treexc predict {} valid.txt", expect="error", check=None,
              **kw):
        case(f"model/{name}", cmd.format(dst), setup=make, expect=expect, check=check, **kw)

    big = 2 ** 63 - 1
    mcase("truncated in the header", "trunc1.bin",
          lambda ctx: ctx.write("trunc1.bin", ctx.read("m.bin")[:200]),
          ft="ft.load_model('trunc1.bin')")
    mcase("truncated in the arrays", "trunc2.bin",
          lambda ctx: ctx.write("trunc2.bin", ctx.read("m.bin")[:len(ctx.read("m.bin")) // 2]))
    mcase("end marker missing", "trunc3.bin",
          lambda ctx: ctx.write("trunc3.bin", ctx.read("m.bin")[:-8]))
    mcase("fastText .bin truncated (fastText side)", "trunc1.bin",
          lambda ctx: ctx.write("ft_trunc.bin", ctx.read("ft.bin")[:len(ctx.read("ft.bin")) // 3]),
          cmd="treexc predict ft_trunc.bin valid.txt",
          ft="m = ft.load_model('ft_trunc.bin'); print(m.test('valid.txt'))")
    mcase("entry_off[0] = 2^63-1 (overflow)", "off.bin",
          lambda ctx: craft(ctx, "m.bin", "off.bin", arrays={"entry_off": (0, "<q", big)}),
          note="wraps past the bound check")
    mcase("entry_off[0] = 2^63-1, dump dict", "off.bin",
          lambda ctx: craft(ctx, "m.bin", "off.bin", arrays={"entry_off": (0, "<q", big)}),
          cmd="treexc dump {} dict")
    mcase("entry_off[0] = 2^63-1, print-word-vectors", "off.bin",
          lambda ctx: craft(ctx, "m.bin", "off.bin", arrays={"entry_off": (0, "<q", big)}),
          cmd="echo bread | treexc print-word-vectors {}")
    mcase("entry_off[0] = 2^63-1, Python API", "off.bin",
          lambda ctx: craft(ctx, "m.bin", "off.bin", arrays={"entry_off": (0, "<q", big)}),
          cmd="python -c \"import treexc; print(treexc.load_model('{}').predict('bread'))\"",
          api=True)
    mcase("entry_len[5] = 2^31-1", "len.bin",
          lambda ctx: craft(ctx, "m.bin", "len.bin", arrays={"entry_len": (5, "<i", 2 ** 31 - 1)}))
    mcase("entry_len[5] = -1", "len2.bin",
          lambda ctx: craft(ctx, "m.bin", "len2.bin", arrays={"entry_len": (5, "<i", -1)}))
    mcase("children[0][0] = 10^9 (tree out of range)", "kids.bin",
          lambda ctx: craft(ctx, "m.bin", "kids.bin", arrays={"children": (0, "<i", 10 ** 9)}))
    mcase("children cycle (root as its own child)", "cycle.bin",
          lambda ctx: craft(ctx, "m.bin", "cycle.bin",
                            arrays={"children": (0, "<i", n_labels(ctx, "m.bin"))}))
    mcase("children: one label at two leaves", "twice.bin",
          lambda ctx: craft(ctx, "m.bin", "twice.bin",
                            arrays={"children": (0, "<i", children_at(ctx, "m.bin", 1))}))
    mcase("counts negative", "counts.bin",
          lambda ctx: craft(ctx, "m.bin", "counts.bin", arrays={"counts": (3, "<q", -5)}),
          expect="either", check=no_nan)
    mcase("w_out all NaN", "nan.bin",
          lambda ctx: craft(ctx, "m.bin", "nan.bin", arrays={"w_out": ("all", "<f", float("nan"))}),
          expect="either", check=lambda ctx, res: "answers from a NaN model")
    mcase("w_in one +inf", "inf.bin",
          lambda ctx: craft(ctx, "m.bin", "inf.bin", arrays={"w_in": (7, "<f", float("inf"))}),
          expect="either", check=same_output("pred_valid"))
    mcase("one bit flipped in w_out", "flip1.bin",
          lambda ctx: flip_bit(ctx, "m.bin", "flip1.bin", "w_out", 403, 6),
          expect="either", check=same_output("pred_valid"),
          note="an exponent bit: silently different answers unless checksummed")
    mcase("one bit flipped in the vocabulary", "flip2.bin",
          lambda ctx: flip_bit(ctx, "m.bin", "flip2.bin", "pool", 100, 2),
          expect="either", check=same_output("pred_valid"))
    for seed in (1, 2, 3):
        mcase(f"20 random bit flips (seed {seed})", f"mut{seed}.bin",
              lambda ctx, seed=seed: mutate(ctx, "m.bin", f"mut{seed}.bin", seed, 20),
              expect="either", check=same_output("pred_valid"))
    mcase("header: version 99", "v99.bin",
          lambda ctx: craft(ctx, "m.bin", "v99.bin",
                            preamble=lambda d: struct.pack_into("<I", d, 8, 99)))
    mcase("header: header length 2^63", "hl.bin",
          lambda ctx: craft(ctx, "m.bin", "hl.bin",
                            preamble=lambda d: struct.pack_into("<Q", d, 16, 2 ** 63)))
    mcase("header: dim 1e308", "dim.bin",
          lambda ctx: craft(ctx, "m.bin", "dim.bin",
                            edit_header=lambda h: h["args"].update(dim=1e308)))
    mcase("header: dim infinite", "diminf.bin",
          lambda ctx: craft(ctx, "m.bin", "diminf.bin",
                            raw_header=json.dumps(read_model(ctx.path("m.bin"))[1])
                            .replace('"dim": 10', '"dim": Infinity').encode()))
    mcase("header: dim as a string", "dimstr.bin",
          lambda ctx: craft(ctx, "m.bin", "dimstr.bin",
                            edit_header=lambda h: h["args"].update(dim="10")))
    mcase("header: label as a list", "labellist.bin",
          lambda ctx: craft(ctx, "m.bin", "labellist.bin",
                            edit_header=lambda h: h["args"].update(label=["__label__"])))
    mcase("header: loss unknown", "lossx.bin",
          lambda ctx: craft(ctx, "m.bin", "lossx.bin",
                            edit_header=lambda h: h["args"].update(loss="bogus")))
    mcase("header: nwords negative", "nw.bin",
          lambda ctx: craft(ctx, "m.bin", "nw.bin", edit_header=lambda h: h.update(nwords=-1)))
    mcase("header: nwords 2^63", "nw2.bin",
          lambda ctx: craft(ctx, "m.bin", "nw2.bin", edit_header=lambda h: h.update(nwords=2 ** 63)))
    mcase("header: kind lm on classifier arrays", "kind.bin",
          lambda ctx: craft(ctx, "m.bin", "kind.bin", edit_header=lambda h: h.update(kind="lm")),
          cmd="treexc test-lm {} lmvalid.txt")
    mcase("header: deeply nested JSON", "deep.bin",
          lambda ctx: craft(ctx, "m.bin", "deep.bin", raw_header=b"[" * 100000 + b"]" * 100000))
    mcase("header: not JSON", "notjson.bin",
          lambda ctx: craft(ctx, "m.bin", "notjson.bin", raw_header=b"\xff\xfe garbage"))
    mcase("header: w_in of rank 1", "rank.bin",
          lambda ctx: craft(ctx, "m.bin", "rank.bin", edit_header=lambda h: next(
              a for a in h["arrays"] if a["name"] == "w_in").update(shape=[40400])))
    mcase("header: w_in of rank 3", "rank3.bin",
          lambda ctx: craft(ctx, "m.bin", "rank3.bin", edit_header=lambda h: next(
              a for a in h["arrays"] if a["name"] == "w_in").update(shape=[4040, 10, 1])))
    mcase("header: w_in typed as strings (<U4)", "str.bin",
          lambda ctx: craft(ctx, "m.bin", "str.bin", edit_header=lambda h: next(
              a for a in h["arrays"] if a["name"] == "w_in").update(dtype="<U1")))
    mcase("header: w_in float64", "f8.bin",
          lambda ctx: craft(ctx, "m.bin", "f8.bin", edit_header=lambda h: next(
              a for a in h["arrays"] if a["name"] == "w_in").update(dtype="<f8", shape=[2020, 10])))
    mcase("header: 2,000 extra arrays", "many.bin",
          lambda ctx: craft(ctx, "m.bin", "many.bin", edit_header=lambda h: h["arrays"].extend(
              {"name": f"x{i}", "dtype": "<f4", "shape": [1], "crc32": 0,
               "offset": h["arrays"][-1]["offset"]} for i in range(2000))),
          expect="either", check=same_output("pred_valid"))
    mcase("header: array shape 2^40 (huge allocation)", "hugeshape.bin",
          lambda ctx: craft(ctx, "m.bin", "hugeshape.bin", edit_header=lambda h: next(
              a for a in h["arrays"] if a["name"] == "w_out").update(shape=[2 ** 40, 10])))
    mcase("header: negative offset", "negoff.bin",
          lambda ctx: craft(ctx, "m.bin", "negoff.bin", edit_header=lambda h: next(
              a for a in h["arrays"] if a["name"] == "w_out").update(offset=-64)))
    mcase("duplicate dictionary entries (all the same word)", "dup.bin",
          lambda ctx: craft_duplicates(ctx, "m.bin", "dup.bin"), expect="either",
          check=lambda ctx, res: None, timeout=60, note="quadratic hash table")
    mcase("300,000 duplicate dictionary entries", "dup300k.bin",
          lambda ctx: (big_vocabulary_model(ctx), craft_duplicates(ctx, "m_vocab.bin",
                                                                   "dup300k.bin")),
          expect="either", check=lambda ctx, res: None, timeout=60,
          note="a quadratic hash table build would spin for minutes")
    for cmd in ("test {} valid.txt", "test-label {} valid.txt", "dump {} args",
                "dump {} output", "dump-tree {}",
                "print-sentence-vectors {} < valid.txt"):
        mcase("entry_off overflow: " + " ".join(w for w in cmd.split() if w != "{}"), "off.bin",
              lambda ctx: craft(ctx, "m.bin", "off.bin",
                                arrays={"entry_off": (0, "<q", big)}),
              cmd="treexc " + cmd)
    mcase("NaN model: test", "nan.bin",
          lambda ctx: craft(ctx, "m.bin", "nan.bin",
                            arrays={"w_out": ("all", "<f", float("nan"))}),
          cmd="treexc test {} valid.txt", expect="either",
          check=lambda ctx, res: "results from a NaN model")
    mcase("NaN model, -loss softmax: predict", "nansm.bin",
          lambda ctx: craft(ctx, "m_softmax.bin", "nansm.bin",
                            arrays={"w_out": ("all", "<f", float("nan"))}),
          expect="either", check=lambda ctx, res: "answers from a NaN model")
    mcase("LM file to predict", "lm.bin", lambda ctx: None)
    mcase("LM file to dump args", "lm.bin", lambda ctx: None, cmd="treexc dump {} args")


def n_labels(ctx, src):
    _, header = read_model(ctx.path(src))
    entries = next(a for a in header["arrays"] if a["name"] == "entry_off")["shape"][0]
    return entries - header["nwords"]


def children_at(ctx, src, index):
    """A different slot's value of the root than slot 0's (a label or node id)."""
    start, _ = array_span(ctx, src, "children")
    data = ctx.read(src)
    return struct.unpack_from("<i", data, start + 4 * index)[0]


def craft_duplicates(ctx, src, dst):
    data, header = read_model(ctx.path(src))
    a = {x["name"]: x for x in header["arrays"]}
    nwords = header["nwords"]
    off0 = struct.unpack_from("<q", data, a["entry_off"]["offset"])[0]
    len0 = struct.unpack_from("<i", data, a["entry_len"]["offset"])[0]
    for i in range(nwords):
        struct.pack_into("<q", data, a["entry_off"]["offset"] + 8 * i, off0)
        struct.pack_into("<i", data, a["entry_len"]["offset"] + 4 * i, len0)
    ctx.write(dst, bytes(data))
    craft(ctx, dst, dst)  # valid checksums: the loader's own checks must catch it


def big_vocabulary_model(ctx):
    """m_vocab.bin: 300,000 distinct words (dim 2), made once."""
    if not ctx.path("m_vocab.bin").exists():
        ctx.write("vocab.txt", b"".join(b"__label__%d w%d x%d y%d\n" % (i % 50, i, i, i)
                                        for i in range(100_000)))
        r = execute("treexc supervised -input vocab.txt -output m_vocab -dim 2 -epoch 1 "
                    "-thread 1 -verbose 0 -loss softmax", ctx.dir, timeout=300)
        if r.rc != 0:
            raise NotApplicable("could not train m_vocab.bin: " + first_line(r.err))


def lm_cases():
    LM = "-output lmout -epoch 1 -dim 16 -minCount 2 -thread 1 -verbose 0"

    def lcase(name, extra, expect="error", input_="lmtext.txt", **kw):
        kw.setdefault("check", lm_trained if expect != "error" else None)
        case(f"lm/{name}", f"treexc lm -input {input_} {with_flags(LM, extra)}".rstrip(),
             expect=expect,
             **kw)

    lcase("-context 0", "-context 0")
    lcase("-context -1", "-context -1")
    lcase("-batch 0", "-batch 0")
    lcase("-batch -1", "-batch -1")
    # 0 (and -massSlack -1) stand for the default rule (docs/lm.md); below them: refused
    lcase("-depth 0", "-depth 0", expect="ok", note="0: the default shape's depth")
    lcase("-depth -1", "-depth -1")
    lcase("-depth 100", "-depth 100", expect="either")
    lcase("-arity 1", "-arity 1")
    lcase("-arity 100000", "-arity 100000", expect="either", rss_mb=2048)
    lcase("-dim 0", "-dim 0")
    lcase("-dim 100000", "-dim 100000", expect="either", rss_mb=2048)
    lcase("-epoch 0", "-epoch 0", expect="either")
    lcase("-lr 0", "-lr 0", expect="ok", note="0: the default rate for -dim")
    lcase("-lr -1", "-lr -1")
    lcase("-lr nan", "-lr nan")
    lcase("-lr 1e30 -loss softmax", "-lr 1e30 -loss softmax", expect="either",)
    lcase("-lr 100", "-lr 100", expect="either")
    lcase("-lr 100 -loss softmax", "-lr 100 -loss softmax", expect="either")
    lcase("-minCount huge: no words", "-minCount 100000000", expect="either")
    lcase("-loss unknown", "-loss bogus")
    lcase("-tree unknown", "-tree bogus")
    lcase("-tree cluster -clusterEpoch 0", "-tree cluster -clusterEpoch 0", expect="either")
    lcase("-evalPerEpoch 0", "-evalPerEpoch 0 -valid lmvalid.txt", expect="either")
    lcase("-massSlack -1", "-massSlack -1", expect="ok",
          note="-1: the cap on a two-level tree only, the default")
    lcase("-massSlack -2", "-massSlack -2")
    lcase("-treeEpochs -1", "-treeEpochs -1")
    lcase("-leafRows 5", "-leafRows 5")
    lcase("-thread -1", "-thread -1")
    lcase("-thread 100000 on a small file", "-thread 100000", expect="either")
    lcase("-seed -1", "-seed -1", expect="either")
    lcase("-dim 1.5", "-dim 1.5")
    lcase("unknown flag", "-foo 1")
    lcase("missing input", "", input_="missing.txt")
    lcase("empty input", "", input_="/dev/null")
    lcase("input with invalid UTF-8", "", input_="badlm.txt", expect="ok",
          setup=lambda ctx: ctx.write("badlm.txt", ctx.read("lmtext.txt") + b"caf\xe9 au lait\n"))
    lcase("input from a pipe", "", input_="<(cat lmtext.txt)", expect="ok")
    lcase("input gzip from stdin", "", input_="- < lmtext.txt.gz", expect="ok",
          setup=lambda ctx: ctx.write("lmtext.txt.gz", gzip.compress(ctx.read("lmtext.txt"))))
    lcase("-valid missing", "-valid missing.txt")
    lcase("-valid of empty lines only", "-valid blanklm.txt",
          setup=lambda ctx: ctx.write("blanklm.txt", b"\n\n\n"))
    lcase("-valid with invalid UTF-8", "-valid badlm.txt", expect="ok",
          setup=lambda ctx: ctx.write("badlm.txt", ctx.read("lmtext.txt") + b"caf\xe9\n"))
    lcase("-log into a missing folder", "-log no/such/log.jsonl")
    lcase("-log is a folder", "-log adir", setup=lambda ctx: ctx.path("adir").mkdir(exist_ok=True))
    lcase("-output into a missing folder", "-output no/such/lm")
    lcase("-log is the training text", "-log lmcopy.txt", input_="lmcopy.txt",
          setup=lambda ctx: shutil.copyfile(ctx.path("lmtext.txt"), ctx.path("lmcopy.txt")),
          after=lambda ctx, res: None if ctx.read("lmcopy.txt") == ctx.read("lmtext.txt")
          else "the training text replaced by the log")
    lcase("-log is OUTPUT.bin", "-log lmout.bin")
    lcase("-log is a named pipe", "-log logfifo", setup=lambda ctx: make_fifo(ctx, "logfifo", None),
          after=lambda ctx, res: None if stat.S_ISFIFO(os.stat(ctx.path("logfifo")).st_mode)
          else "the named pipe replaced by a regular file")
    case("lm/-verbose 2 progress into a log file", f"treexc lm -input big.txt "
         f"{with_flags(LM, '-verbose 2 -epoch 2')} 2> progress.log; cat progress.log",
         expect="ok", check=few_progress_lines,
         note="at most a line every few seconds in a log")
    case("lm/SIGINT at 3, 4, 5 and 6 s (four runs; the tree is rebuilt in between)",
         "for d in 3 4 5 6; do timeout -s INT $d treexc lm -input lmtext.txt "
         f"{with_flags(LM, '-epoch 50')}; echo \"exit $?\"; done",
         expect="ok", setup=lambda ctx: shutil.copyfile(ctx.path("lm.bin"), ctx.path("lmout.bin")),
         check=lambda ctx, res: None if res.out.split() == [b"exit", b"130"] * 4 or
         res.out.count(b"exit 124") + res.out.count(b"exit 130") == 4 and
         res.err.count(b"treexc: interrupted") == 4 else
         f"{res.out.decode().split()}; stderr: {first_line(res.err)}",
         after=lambda ctx, res: None if sha(ctx.path("lmout.bin")) == sha(ctx.path("lm.bin"))
         else "previous lmout.bin replaced by an interrupted run", timeout=90,
         note="a signal inside a kernel call (the tree rebuild) once ended in a SystemError "
              "traceback")
    case("lm/SIGINT during training keeps the previous lmout.bin",
         f"treexc lm -input lmtext.txt {with_flags(LM, '-epoch 50')}",
         signal=(signal.SIGINT, 4.0),
         setup=lambda ctx: shutil.copyfile(ctx.path("lm.bin"), ctx.path("lmout.bin")),
         after=lambda ctx, res: None if sha(ctx.path("lmout.bin")) == sha(ctx.path("lm.bin"))
         else "previous lmout.bin replaced by an interrupted run")

    def lmfile(name, make, cmds=("test-lm {} lmvalid.txt", "predict-next {} lmvalid.txt 3",
                                 "dump-tree {}"), expect="error", check=None):
        for cmd in cmds:
            case(f"lmfile/{name}: {cmd.split()[0]}", "treexc " + cmd.format(f"lmx_{slug(name)}.bin"),
                 setup=lambda ctx, make=make, n=name: make(ctx, f"lmx_{slug(n)}.bin"),
                 expect=expect, check=check)

    big = 2 ** 63 - 1
    lmfile("entry_off[0] = 2^63-1", lambda ctx, dst: craft(
        ctx, "lm.bin", dst, arrays={"entry_off": (0, "<q", big)}))
    lmfile("entry_off[3] = 10^6 (past the pool)", lambda ctx, dst: craft(
        ctx, "lm.bin", dst, arrays={"entry_off": (3, "<q", 10 ** 6)}))
    lmfile("entry_len[3] = 2^31-1", lambda ctx, dst: craft(
        ctx, "lm.bin", dst, arrays={"entry_len": (3, "<i", 2 ** 31 - 1)}))
    lmfile("header context 0", lambda ctx, dst: craft(
        ctx, "lm.bin", dst, edit_header=lambda h: h["args"].update(context=0)),
        cmds=("test-lm {} lmvalid.txt", "predict-next {} lmvalid.txt 3"))
    lmfile("header batch 0", lambda ctx, dst: craft(
        ctx, "lm.bin", dst, edit_header=lambda h: h["args"].update(batch=0)),
        cmds=("test-lm {} lmvalid.txt",), expect="either", check=same_output("test_lm"))
    lmfile("header batch -1", lambda ctx, dst: craft(
        ctx, "lm.bin", dst, edit_header=lambda h: h["args"].update(batch=-1)),
        cmds=("test-lm {} lmvalid.txt",), expect="either", check=same_output("test_lm"))
    lmfile("header dim 16.5", lambda ctx, dst: craft(
        ctx, "lm.bin", dst, edit_header=lambda h: h["args"].update(dim=16.5)),
        cmds=("test-lm {} lmvalid.txt",))
    lmfile("children out of range", lambda ctx, dst: craft(
        ctx, "lm.bin", dst, arrays={"children": (0, "<i", 10 ** 9)}),
        cmds=("test-lm {} lmvalid.txt", "dump-tree {}"))
    lmfile("W all NaN", lambda ctx, dst: craft(
        ctx, "lm.bin", dst, arrays={"W": ("all", "<f", float("nan"))}),
        cmds=("test-lm {} lmvalid.txt", "predict-next {} lmvalid.txt 3"), expect="either",
        check=lambda ctx, res: "results from a NaN model")
    lmfile("truncated", lambda ctx, dst: ctx.write(dst, ctx.read("lm.bin")[:100_000]))
    for seed in (1, 2, 3):
        lmfile(f"20 random bit flips (seed {seed})",
               lambda ctx, dst, seed=seed: mutate(ctx, "lm.bin", dst, seed, 20),
               cmds=("test-lm {} lmvalid.txt",), expect="either", check=same_output("test_lm"))
    lmfile("20 random bit flips in the vocabulary",
           lambda ctx, dst: mutate(ctx, "lm.bin", dst, 7, 20, *array_span(ctx, "lm.bin", "pool")),
           cmds=("predict-next {} lmvalid.txt 3",), expect="either",
           check=same_output("pred_lm"))
    lmfile("classifier file", lambda ctx, dst: shutil.copyfile(ctx.path("m.bin"), ctx.path(dst)),
           cmds=("test-lm {} lmvalid.txt", "predict-next {} lmvalid.txt 3"))
    case("lmfile/flat LM: dump-tree", "treexc dump-tree lmflat.bin", expect="either",
         check=lambda ctx, res: None)
    case("lmfile/predict-next k 0", "treexc predict-next lm.bin lmvalid.txt 0")
    case("lmfile/predict-next k huge", f"treexc predict-next lm.bin lmvalid.txt {2 ** 62}",
         expect="either", check=lines_out(500))
    case("lmfile/predict-next from a pipe", "cat lmvalid.txt | treexc predict-next lm.bin - 3",
         expect="ok", check=lines_out(500, same_as="pred_lm"))
    case("lmfile/predict-next on a 100 MB line", "python -c \"print('the old man ' * 8000000)\" "
         "| treexc predict-next lm.bin - 3", expect="ok", check=lines_out(1),
         note="was 114 s and 3.7 GB on 150 MB (every word of the line looked up)")
    case("lmfile/predict-next process substitution",
         "treexc predict-next lm.bin <(cat lmvalid.txt) 3", expect="ok",
         check=lines_out(500, same_as="pred_lm"))
    case("lmfile/predict-next invalid UTF-8 and NUL", "printf 'the \\xff\\x00 old\\n\\nman\\n' | "
         "treexc predict-next lm.bin - 3", expect="ok", check=lines_out(3))
    case("lmfile/test-lm from a pipe", "cat lmvalid.txt | treexc test-lm lm.bin - -thread 1",
         expect="ok", check=same_output("test_lm"))
    case("lmfile/test-lm on an empty file", "treexc test-lm lm.bin /dev/null", expect="either",
         check=no_nan)
    case("lmfile/test-lm -thread -1", "treexc test-lm lm.bin lmvalid.txt -thread -1",
         expect="either", check=same_output("test_lm"))
    case("lmfile/test-lm -thread 100000", "treexc test-lm lm.bin lmvalid.txt -thread 100000",
         expect="either", check=same_output("test_lm"))
    case("lmfile/test-lm corrupt .gz", "treexc test-lm lm.bin valid_corrupt.gz")


def few_progress_lines(ctx, res):
    lines = res.out.count(b"\n") + res.out.count(b"\r")
    return None if lines <= 30 else f"{lines} lines of progress in the log"


def slug(text):
    return "".join(c if c.isalnum() else "_" for c in text)[:40]


def plot_cases():
    def pcase(name, cmd, setup=None, **kw):
        case(f"plot/{name}", cmd, setup=setup, **kw)
    pcase("non-UTF-8 log", "treexc plot latin.jsonl -o p.png",
          setup=lambda ctx: ctx.write("latin.jsonl", b'{"epoch": 1, "valid_ppl": 3, "run": "\xe9"}\n'))
    pcase("non-JSON log", "treexc plot good.txt -o p.png")
    pcase("empty log", "treexc plot /dev/null -o p.png")
    pcase("missing log", "treexc plot missing.jsonl -o p.png")
    pcase("directory as log", "treexc plot adir -o p.png",
          setup=lambda ctx: ctx.path("adir").mkdir(exist_ok=True))
    pcase("JSON that is not a record", "treexc plot list.jsonl -o p.png",
          setup=lambda ctx: ctx.write("list.jsonl", b"[1, 2, 3]\n"))
    pcase("epoch NaN", "treexc plot nanlog.jsonl -o p.png", expect="either",
          setup=lambda ctx: ctx.write("nanlog.jsonl", b'{"epoch": NaN, "valid_ppl": NaN}\n'),
          check=lambda ctx, res: None)
    pcase("deeply nested JSON", "treexc plot deep.jsonl -o p.png",
          setup=lambda ctx: ctx.write("deep.jsonl", b"[" * 100000 + b"]" * 100000 + b"\n"))
    def with_matplotlib(ctx):
        r = subprocess.run([PYTHON, "-c", "import matplotlib"], capture_output=True)
        if r.returncode != 0:
            raise NotApplicable("matplotlib is not installed (treexc[plot])")
        ctx.write("ok.jsonl", b'{"epoch": 1, "valid_ppl": 3}\n')
    pcase("-o into a missing folder", "treexc plot ok.jsonl -o no/such/p.png",
          setup=with_matplotlib)
    pcase("-o unknown extension", "treexc plot ok.jsonl -o p.xyz", setup=with_matplotlib)


def vector_cases():
    case("vectors/print-word-vectors: word vector = .vec row (-wordNgrams 2)",
         "echo bread | treexc print-word-vectors m_ng2.bin", expect="ok",
         check=vec_row_matches("m_ng2.vec", "bread"),
         ft=None)
    case("vectors/print-word-vectors: unknown word, -maxn 0, is zeros",
         "echo qqqzzzunknown | treexc print-word-vectors m_ng2.bin", expect="ok",
         check=zero_vector, note="fastText prints zeros")
    case("vectors/print-word-vectors on a 5 MB word (char n-grams)",
         "head -c 5000000 /dev/zero | tr '\\0' x | treexc print-word-vectors m_sub.bin",
         expect="either", check=lines_out(1), rss_mb=700, note="1.6 GB seen")
    case("vectors/print-word-vectors invalid UTF-8 word",
         "printf 'br\\xffead salt\\n' | treexc print-word-vectors m.bin", expect="ok",
         check=lines_out(2))
    case("vectors/print-word-vectors NUL in a word",
         "printf 'br\\x00ead salt\\n' | treexc print-word-vectors m.bin", expect="either",
         check=lambda ctx, res: None)
    case("vectors/print-word-vectors empty stdin", "treexc print-word-vectors m.bin < /dev/null",
         expect="ok", check=lines_out(0))
    case("vectors/print-word-vectors fastText model", "echo bread | treexc print-word-vectors ft.bin",
         expect="ok", note="read as the treexc model it converts to")
    case("vectors/print-word-vectors missing model", "echo bread | treexc print-word-vectors x.bin")
    case("vectors/print-ngrams of a label", "treexc print-ngrams m.bin __label__baking")
    case("vectors/nn k 0", "echo bread | treexc nn m.bin 0")
    case("vectors/analogies input ending inside a triplet",
         "echo 'bread salt' | treexc analogies m.bin 3", expect="ok",
         check=lambda ctx, res: None if b"inside a triplet" in res.err else "no warning")
    case("vectors/convert OUTPUT is the fastText model it reads",
         "cp ft.bin ftcopy.bin && treexc convert ftcopy.bin ftcopy.bin",
         after=lambda ctx, res: None if ctx.read("ftcopy.bin") == ctx.read("ft.bin")
         else "the fastText model replaced")
    case("vectors/print-word-vectors LM file", "echo bread | treexc print-word-vectors lm.bin",
         expect="either", check=lines_out(1))
    case("vectors/print-sentence-vectors invalid UTF-8",
         "printf 'caf\\xe9 bread\\nsalt\\n' | treexc print-sentence-vectors m.bin", expect="ok",
         check=lines_out(2))
    case("vectors/print-sentence-vectors empty lines",
         "printf '\\n\\n \\n' | treexc print-sentence-vectors m.bin", expect="ok",
         check=lines_out(3))
    case("vectors/print-sentence-vectors 10 MB line",
         "python -c \"print('bread ' * 1700000)\" | treexc print-sentence-vectors m.bin",
         expect="ok", check=lines_out(1))
    case("dump/unknown what", "treexc dump m.bin bogus")
    case("dump/missing model", "treexc dump missing.bin args")
    case("dump/dict of a model with escape-byte labels",
         "treexc supervised -input esc2.txt -output esc -epoch 1 -dim 4 -thread 1 -verbose 0 && "
         "treexc dump esc.bin dict | tail -3", expect="either",
         setup=lambda ctx: ctx.write("esc2.txt", b"__label__a\x1b[2Jx word\n__label__b"
                                     b"\x07\x08 other\n" * 3),
         check=lambda ctx, res: "raw ESC printed" if b"\x1b" in res.out else None,
         note="labels with escape bytes printed raw")
    case("dump-tree/softmax model (no tree)", "treexc dump-tree m_softmax.bin", expect="either",
         check=lambda ctx, res: None)
    case("dump-tree/-input missing", "treexc dump-tree m.bin -input missing.txt")
    case("dump-tree/-input invalid UTF-8", "treexc dump-tree m.bin -input badvalid.txt",
         expect="ok", setup=lambda ctx: ctx.write(
             "badvalid.txt", ctx.read("valid.txt")[:5000] + b"__label__baking caf\xe9\n"),
         check=no_nan)
    case("dump-tree/-input corrupt .gz", "treexc dump-tree m.bin -input valid_corrupt.gz")
    case("dump-tree/-format bogus", "treexc dump-tree m.bin -format bogus")
    case("dump-tree/-top -1", "treexc dump-tree m.bin -top -1")
    case("cli/no command", "treexc 2>&1 | head -3", expect="ok",
         check=lambda ctx, res: None if b"Usage:" in res.out else "no usage shown")
    case("cli/unknown command", "treexc bogus")
    case("cli/--version", "treexc --version", expect="ok", check=lambda ctx, res: None)
    case("cli/-version", "treexc -version", expect="ok", check=lambda ctx, res: None,)
    case("cli/test --help", "treexc test --help", expect="ok",
         check=lambda ctx, res: None if b"threshold" in res.out.lower() else
         "help does not explain the threshold")


def vec_row_matches(vec, word):
    def check(ctx, res):
        got = res.out.split()
        for line in ctx.read(vec).split(b"\n")[1:]:
            if line.startswith(word + b" ") if isinstance(word, bytes) else \
                    line.startswith(word.encode() + b" "):
                want = [float(x) for x in line.split()[1:]]
                have = [float(x) for x in got[1:]]
                if len(want) != len(have) or any(abs(a - b) > 1e-3 for a, b in zip(want, have)):
                    return f"vector of {word} differs from its .vec row"
                return None
        return f"{word} not in {vec}"
    return check


def zero_vector(ctx, res):
    values = [float(x) for x in res.out.split()[1:]]
    return None if values and all(v == 0 for v in values) else "non-zero vector for an unknown word"


def signal_cases():
    big_save = "-bucket 2000000 -wordNgrams 2 -dim 50"
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL):
        n = sig.name
        # epochs enough to be still training when the signal comes on a fast
        # machine (20 took 1.3 s on one)
        case(f"signal/{n} during training",
             f"treexc supervised -input big.txt {train('-epoch 1000')}", signal=(sig, 3.0),
             setup=put_previous, protect=True, note="previous out.bin/.vec kept, no *.tmp")
        case(f"signal/{n} during the save",
             f"treexc supervised -input good.txt {train(big_save)}", signal=(sig, "save"),
             setup=put_previous, protect=True, rss_mb=3000,
             note="sent when the first *.tmp appears; a 400 MB .bin")
    case("signal/stale *.tmp of a run killed in its save is removed by the next run",
         f"treexc supervised -input good.txt {train(big_save)} & p=$!; "
         f"until ls out.*tmp* >/dev/null 2>&1 || ! kill -0 $p 2>/dev/null; do sleep 0.01; done; "
         f"kill -9 $p; wait $p; treexc supervised -input good.txt {TRAIN}", expect="ok",
         check=trained, setup=put_previous, rss_mb=3000,
         after=lambda ctx, res: tmp_left(ctx))
    for i, gap in enumerate((0, 0.3, 0.8), 1):
        case(f"concurrent/two runs on one -output, round {i}",
             f"treexc supervised -input good.txt {TRAIN} & sleep {gap}; treexc supervised"
             f" -input good.txt {train('-dim 12')} & wait",
             expect="ok", setup=put_previous, check=lambda ctx, res: set_consistent(ctx),
             after=lambda ctx, res: set_consistent(ctx) or tmp_left(ctx),
             note="one complete set")


def api_cases():
    def acase(name, code, expect="error", ft=None, **kw):
        case(f"api/{name}", f"python -c \"import treexc; {code}\"", expect=expect, api=True,
             ft=ft, **kw)

    load = "m = treexc.load_model('m.bin'); "
    acase("train_supervised missing file", "treexc.train_supervised(input='missing.txt')",
          ft="ft.train_supervised(input='missing.txt')")
    acase("train_supervised dim=-1", "treexc.train_supervised(input='good.txt', dim=-1)",
          ft="ft.train_supervised(input='good.txt', dim=-1, epoch=1, verbose=0)")
    acase("train_supervised dim='abc'", "treexc.train_supervised(input='good.txt', dim='abc')",
          ft="ft.train_supervised(input='good.txt', dim='abc')")
    acase("train_supervised unknown keyword", "treexc.train_supervised(input='good.txt', bogus=1)",
          ft="ft.train_supervised(input='good.txt', bogus=1)")
    acase("train_supervised input=None", "treexc.train_supervised(input=None)",
          ft="ft.train_supervised(input=None)")
    acase("train_supervised epoch=1.5 (a model its loader refused)",
          "treexc.train_supervised(input='good.txt', epoch=1.5, verbose=0).save_model('e.bin'); "
          "treexc.load_model('e.bin')")
    acase("train_supervised input=123 (read file descriptor 123)",
          "treexc.train_supervised(input=123)")
    acase("load_model missing", "treexc.load_model('missing.bin')",
          ft="ft.load_model('missing.bin')")
    acase("load_model a text file", "treexc.load_model('good.txt')",
          ft="ft.load_model('good.txt')")
    acase("predict with a list", load + "print(m.predict(['bread flour', 'knife']))",
          expect="either", ft="m = ft.load_model('ft.bin'); print(m.f.multilinePredict("
                              "['bread flour', 'knife'], 1, 0.0, 'strict'))")
    acase("predict k=0", load + "print(m.predict('bread', k=0))", expect="either",
          ft="m = ft.load_model('ft.bin'); print(m.f.predict('bread\\n', 0, 0.0, 'strict'))")
    acase("predict k=-1", load + "print(m.predict('bread', k=-1))", expect="either",
          ft="m = ft.load_model('ft.bin'); print(len(m.f.predict('bread\\n', -1, 0.0, 'strict')))")
    acase("predict a line with a newline", load + "print(m.predict('bread\\nflour'))",
          ft="m = ft.load_model('ft.bin'); m.predict('bread\\nflour')")
    acase("predict an int", load + "print(m.predict(123))", ft="m = ft.load_model('ft.bin'); "
          "m.predict(123)")
    acase("predict bytes", load + "print(m.predict(b'bread'))", expect="either")
    acase("predict threshold 2", load + "print(m.predict('bread', threshold=2))", expect="either",
          ft="m = ft.load_model('ft.bin'); print(m.f.predict('bread\\n', 1, 2.0, 'strict'))")
    acase("test missing file", load + "m.test('missing.txt')",
          ft="m = ft.load_model('ft.bin'); m.test('missing.txt')")
    acase("get_word_vector empty string", load + "print(m.get_word_vector('').sum())",
          expect="either", ft="m = ft.load_model('ft.bin'); print(m.get_word_vector('').sum())")
    acase("get_word_vector None", load + "m.get_word_vector(None)",
          ft="m = ft.load_model('ft.bin'); m.get_word_vector(None)")
    acase("save_model into a missing folder", load + "m.save_model('no/such/m.bin')",
          ft="m = ft.load_model('ft.bin'); m.save_model('no/such/m.bin')")
    acase("save_model over itself while mapped", load + "m.save_model('self.bin'); "
          "m2 = treexc.load_model('self.bin'); m2.save_model('self.bin'); "
          "print(treexc.load_model('self.bin').predict('bread'))", expect="ok",
          setup=lambda ctx: shutil.copyfile(ctx.path("m.bin"), ctx.path("self.bin")))


# -- token cache, mapped models, hash flooding ---------------------------------------------

def fresh_cache(ctx):
    """An empty ``cdir`` (the -cache folder of the cache cases)."""
    shutil.rmtree(ctx.path("cdir"), ignore_errors=True)
    ctx.path("cdir").mkdir()


def built_cache(ctx, src="good.txt"):
    """``cdir`` holding the cache of ``src``; returns its base path (no suffix)."""
    fresh_cache(ctx)
    r = execute(f"treexc supervised -input {src} -cache cdir {TRAIN}", ctx.dir)
    if r.rc != 0:
        raise SystemExit("cache fixture failed: " + r.err.decode()[-500:])
    (index,) = glob.glob(str(ctx.path("cdir") / "*.index"))
    return index[:-len(".index")]


FORGE = """
import sys
import numpy as np
from treexc.io import modelfile
base, name, value = sys.argv[1], sys.argv[2], int(sys.argv[3])
header, arrays = modelfile.load(base + '.index')
entry = next(e for e in header['directory'] if e['name'] == name)
dtype = np.dtype(entry['dtype'])
with open(base + '.tokens', 'r+b') as f:
    f.seek(entry['offset'] + 17 * dtype.itemsize)
    f.write(np.array([value], dtype=dtype).tobytes())
    f.seek(entry['offset'])
    entry['crc32'] = modelfile.crc32(np.frombuffer(f.read(dtype.itemsize * entry['shape'][0]),
                                                   dtype=dtype))
modelfile.save(base + '.index', header, {k: np.array(v) for k, v in arrays.items()})
"""


def forged_cache(name, value):
    def setup(ctx):
        base = built_cache(ctx)
        r = execute(f"python -c {shell_quote(FORGE)} {base} {name} {value}", ctx.dir)
        if r.rc != 0:
            raise SystemExit("forging failed: " + r.err.decode()[-500:])
    return setup


def said(fragment):
    """A check: stderr says ``fragment`` (and the model was written)."""
    def check(ctx, res):
        if fragment not in res.err.decode("utf-8", "replace"):
            return f"stderr does not say {fragment!r}"
        return trained(ctx, res)
    return check


def cache_left(n_files):
    def check(ctx, res):
        left = sorted(os.listdir(ctx.path("cdir")))
        return None if len(left) == n_files else f"cdir holds {left}"
    return check


WHEN_CACHED = ("until ls cdir/*.index >/dev/null 2>&1 || ! kill -0 $p 2>/dev/null; "
               "do sleep 0.05; done; sleep 1; ")
EDIT_KEEP_MTIME = ("import os; st = os.stat('e.txt'); d = open('e.txt', 'rb').read(); "
                   "open('e.txt', 'r+b').write(d.replace(b' the ', b' thx ', 1)); "
                   "os.utime('e.txt', ns=(st.st_atime_ns, st.st_mtime_ns))")


def cache_cases():
    for name, value in (("feats", 10 ** 8), ("feats", -5), ("labels", 10 ** 6),
                        ("feat_off", 10 ** 9), ("ntokens", -7)):
        case(f"cache/forged {name} {value}, checksums valid",
             f"treexc supervised -input good.txt -cache cdir {train('-verbose 2')}",
             expect="ok", setup=forged_cache(name, value), check=said("out of range"),
             note="refused when opened and rebuilt (ids checked against the dictionary)")
    long_run = train("-epoch 200")
    case("cache/64 KB of random bytes written into KEY.tokens while training reads it",
         f"treexc supervised -input big.txt -cache cdir {long_run} & p=$!; {WHEN_CACHED}"
         f"python -c \"import glob, os; f = open(glob.glob('cdir/*.tokens')[0], 'r+b'); "
         f"f.seek(4096); f.write(os.urandom(65536))\"; wait $p", setup=fresh_cache,
         note="in place, after the checks at opening")
    case("cache/cp of a same-size file over KEY.tokens while training reads it",
         f"treexc supervised -input big.txt -cache cdir {long_run} & p=$!; {WHEN_CACHED}"
         f"t=$(ls cdir/*.tokens); head -c $(stat -c %s $t) /dev/urandom > r.bin; cp r.bin $t; "
         f"wait $p", setup=fresh_cache)
    case("cache/truncate KEY.tokens while -order file training maps it",
         f"treexc supervised -input big.txt -cache cdir {train('-epoch 200 -order file')} & "
         f"p=$!; {WHEN_CACHED}truncate -s 4096 cdir/*.tokens; wait $p", setup=fresh_cache,
         note="SIGBUS of the mapping: one line (io/bus_error)")
    case("cache/input edited keeping size and mtime (touch -r, cp -p)",
         f"cp good.txt e.txt && treexc supervised -input e.txt -cache cdir {TRAIN} && "
         f"python -c \"{EDIT_KEEP_MTIME}\" && treexc supervised -input e.txt -cache cdir "
         f"{TRAIN} && treexc dump out.bin dict | grep -c '^thx '", expect="ok",
         setup=fresh_cache, check=lambda ctx, res: None if res.out.strip() not in (b"", b"0")
         else "the old cache was reused", note="the key holds the inode and change time")
    case("cache/three runs sharing one -cache folder, started together",
         " ".join(f"treexc supervised -input big.txt -output out_{d} -cache cdir "
                  f"{train(f'-dim {d}').replace('-output out ', '')} & p{d}=$!;"
                  for d in (8, 9, 10)) + " wait $p8 && wait $p9 && wait $p10",
         expect="ok", setup=fresh_cache, check=cache_left(2),
         note="each builds under its own names and publishes once")
    case("cache/SIGKILL during a cache build: the next run removes its part files",
         f"treexc supervised -input big.txt -cache cdir {TRAIN} & p=$!; for i in $(seq 2000); "
         f"do ls cdir/*.part >/dev/null 2>&1 && break; sleep 0.005; done; kill -9 $p; "
         f"wait $p; treexc supervised -input good.txt -cache cdir {TRAIN}", expect="ok",
         setup=fresh_cache, check=lambda ctx, res: trained(ctx, res) or (
             None if not glob.glob(str(ctx.path("cdir") / "*.part")) else "part files left"))


def same_halves(ctx, res):
    """predict-prob of the input twice over (pred.txt): both halves answered by
    one model (the two models' probabilities differ)."""
    lines = ctx.read("pred.txt").splitlines()
    half = len(lines) // 2
    return None if lines and lines[:half] == lines[half:] else "the answers changed mid-stream"


def mapped_cases():
    # the file is changed once the first answers are out (the model is loaded)
    stream = ("(cat valid.txt; sleep 8; cat valid.txt) | treexc predict-prob mb.bin - 3 "
              "> pred.txt & p=$!; for i in $(seq 600); do [ -s pred.txt ] && break; "
              "sleep 0.05; done; {action}; wait $p")
    swap = "cp mbig2.bin mb.bin"
    put = lambda ctx: shutil.copyfile(ctx.path("mbig.bin"), ctx.path("mb.bin"))  # noqa: E731
    case("model/cp of a same-size model over one predict is reading (read into memory)",
         stream.format(action=swap), expect="ok", setup=put, check=same_halves,
         note="the old model answers to the end, whole")
    case("model/cp over a mapped model (TREEXC_MAP_MODELS=1)",
         "export TREEXC_MAP_MODELS=1; " + stream.format(action=swap), setup=put,
         note="detected between pieces of input: one line")
    case("model/truncate a mapped model in use (TREEXC_MAP_MODELS=1)",
         "export TREEXC_MAP_MODELS=1; " + stream.format(action="truncate -s 4096 mb.bin"),
         setup=put, note="detected between pieces, or a bus error: one line, not SIGBUS")
    case("model/a new model renamed over a mapped one (TREEXC_MAP_MODELS=1)",
         "export TREEXC_MAP_MODELS=1; " + stream.format(
             action="cp mbig2.bin mb.new && mv mb.new mb.bin"),
         expect="ok", setup=put, check=same_halves, note="the mapping keeps the old file")
    case("api/load_model, then cp of another model over the file",
         "python -c \"import shutil, treexc; m = treexc.load_model('mb.bin'); "
         "a = str(m.predict('bread flour', k=3)); shutil.copyfile('mbig2.bin', 'mb.bin'); "
         "assert str(m.predict('bread flour', k=3)) == a; print(a)\"", expect="ok", api=True,
         setup=put)
    case("api/mapped load_model, then a truncation (TREEXC_MAP_MODELS=1)",
         "export TREEXC_MAP_MODELS=1; python -c \"import os, treexc; "
         "m = treexc.load_model('mb.bin'); os.truncate('mb.bin', 4096); "
         "print(m.get_input_matrix().sum())\"", setup=put,
         note="the bus error: one line, exit 1")


def bound_cases():
    case("bound/65,536 words of one FNV-1a hash (hash flooding)",
         f"treexc supervised -input flood.txt {TRAIN}", expect="ok", check=trained,
         ft=ft_train("flood.txt"), ft_check=lambda out: None,
         note="6.4 MB (tests/text/fnv_flood.py); random words of the same length: about "
              "the same time (benchmarks/bench_hash_flood.py)")
    case("bound/-loss ns -neg 1000000", f"treexc supervised -input good.txt "
         f"{train('-loss ns -neg 1000000')}", ft=ft_train("good.txt", "loss='ns', neg=1000000"),
         note="refused with its reason")
    case("bound/a 200 MB line", f"treexc supervised -input line200.txt {TRAIN}",
         expect="ok", check=trained, rss_mb=1024, note="one line of 33 M words, then good.txt")
    case("flag/-autotune-validation with only labels training never had",
         f"sed 's/__label__/__label__zz/g' valid.txt > unk.txt; treexc supervised -input "
         f"good.txt {train('-autotune-validation unk.txt -autotune-duration 5')}",
         note="every trial would score 0")
    case("signal/SIGTERM while quantize saves",
         "treexc quantize -output mq -dsub 2", signal=(signal.SIGTERM, "save"), expect="either",
         setup=lambda ctx: [shutil.copyfile(ctx.path(f"m_ng2.{e}"), ctx.path(f"mq.{e}"))
                            for e in ("bin", "vec")],
         after=lambda ctx, res: quantize_all_or_nothing(ctx, res))


def quantize_all_or_nothing(ctx, res):
    """A run stopped by the signal publishes nothing; one that published exits 0."""
    published = ctx.path("mq.ftz").exists()
    if published and res.rc != 0:
        return f"published mq.ftz and exited {res.rc}"
    if not published and res.rc == 0:
        return "exit 0 without mq.ftz"
    try:
        ctx.path("mq.ftz").unlink()
    except OSError:
        pass
    return tmp_left(ctx)


def build_cases():
    CASES.clear()
    train_cases()
    flag_cases()
    output_cases()
    predict_cases()
    model_file_cases()
    lm_cases()
    plot_cases()
    vector_cases()
    signal_cases()
    api_cases()
    cache_cases()
    mapped_cases()
    bound_cases()
    return CASES


# -- fastText -----------------------------------------------------------------------------

FT_WRAPPER = """
import sys
try:
    import fasttext as ft
    {code}
except Exception as e:
    msg = str(e).strip().splitlines()
    print("FTERR " + type(e).__name__ + ": " + (msg[0] if msg else ""), file=sys.stderr)
    sys.exit(3)
"""


def run_fasttext(c, ctx):
    script = FT_WRAPPER.format(code=c.ft)
    res = execute(f"python -c {shell_quote(script)} {c.ft_args}", ctx.dir, timeout=FT_TIMEOUT)
    err = res.err.decode("utf-8", "replace")
    if res.timed_out:
        return "hang"
    sig = signal_of(res)
    if sig is not None:
        return f"crash ({signal.Signals(sig).name})"
    if memory_blown(res, c.rss_mb):
        return "huge memory"
    if res.rc != 0:
        line = next((x for x in err.splitlines() if x.startswith("FTERR")), None)
        if line:
            return "error: " + line[6:][:70]
        return "error: " + first_line(res.err, 70)
    if c.ft_check:
        why = c.ft_check(res.out)
        if why:
            return f"silent wrong: {why}"
    return "ok"


def shell_quote(s):
    return "'" + s.replace("'", "'\"'\"'") + "'"


# -- main ---------------------------------------------------------------------------------

def clean_between(ctx):
    end_writers()
    for p in list(ctx.dir.iterdir()):
        name = p.name
        if (name.startswith("out.") or name.startswith("out_") or name.startswith("lmout")
                or name in ("out", "pred.txt", "p.png", "p.xyz", "esc.bin", "esc.vec")
                or ".tmp" in name or name.startswith(".out")):
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
            else:
                try:
                    p.unlink()
                except OSError:
                    pass
    full = ctx.dir / "full"
    if os.path.ismount(full):
        subprocess.run(["umount", str(full)], capture_output=True)
    for name in ("secret.txt",):
        if (ctx.dir / name).exists():
            os.chmod(ctx.dir / name, 0o644)


def run_case(c, ctx, with_fasttext):
    clean_between(ctx)
    if c.needs_nonroot and os.geteuid() == 0:
        return "n/a", "running as root: file permissions do not apply", None, Result(), None
    if not with_fasttext and c.expect == "ok" and re.search(r"\bft\.bin\b", c.cmd):
        # --no-fasttext writes ft.bin as a stand-in header, not a model
        return "n/a", "needs fastText's model: run without --no-fasttext", None, Result(), None
    try:
        if c.setup:
            c.setup(ctx)
    except NotApplicable as e:
        return "n/a", str(e), None, Result(), None
    fsize = c.fsize(ctx) if callable(c.fsize) else c.fsize
    if callable(c.fsize) and fsize is None:
        return "n/a", "no file size separates the .bin from the .vec", None, Result(), None
    res = execute(c.cmd, ctx.dir, timeout=c.timeout, fsize=fsize, sig=c.signal)
    outcome, note = classify(c, ctx, res)
    ft = None
    if with_fasttext and c.ft:
        clean_between(ctx)
        if c.setup:
            c.setup(ctx)
        ft = run_fasttext(c, ctx)
    return outcome, note, ft, res, fsize


def command_for_doc(c, fsize):
    cmd = c.cmd
    if fsize is not None:
        cmd = f"(ulimit -f {fsize // 1024}; {cmd})"
    if c.signal:
        sig, when = c.signal
        when = "when the first *.tmp appears" if when == "save" else f"after {when:g} s"
        cmd = f"{cmd}  # kill -{sig.name[3:]} {when}"
    return cmd


def md_escape(text):
    return (text.replace("|", "\\|").replace("\n", " ").replace("\r", "\\r")
            .replace("\x1b", "\\e"))


def write_markdown(path, rows, elapsed, with_fasttext):
    counts = {}
    for r in rows:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    ft_counts = {}
    for r in rows:
        key = r["ft"].split(":")[0].split(" (")[0] if r["ft"] else "n/a"
        ft_counts[key] = ft_counts.get(key, 0) + 1
    lines = [
        "# Robustness: bad input, side by side with fastText 0.9.2",
        "",
        f"Generated by `benchmarks/audit_bad_input.py`: {len(rows)} cases, measured at "
        f"treexc {treexc_version()} on a shared 2-core machine.  Reproduce: "
        "`.venv/bin/python benchmarks/audit_bad_input.py --markdown docs/robustness.md` "
        "(about 30 minutes on a busy 2-core machine; `--no-fasttext` skips fastText, "
        "`--ft-cache FILE` reuses its answers, `--rerun JSON` runs again only the cases "
        "an earlier `--json` run did not pass); one case: `--only 'train/empty*'`.  "
        "The cases are the table `CASES` of that script (name, shell command, expected "
        "outcome, and the check of the output where there is one).",
        "",
        "## Counts",
        "",
        "| treexc outcome | cases |",
        "|---|---|",
    ]
    for k in ORDER:
        if counts.get(k):
            lines.append(f"| {k} | {counts[k]} |")
    lines += ["", "| fastText 0.9.2 outcome | cases |", "|---|---|"]
    for k, v in sorted(ft_counts.items(), key=lambda kv: -kv[1]):
        lines.append(f"| {k} | {v} |")
    bad = [r for r in rows if r["outcome"] in NOT_OK + ("wrongly refused",)]
    lines += ["", "## Cases left to fix", ""]
    if bad:
        lines += ["| case | command | treexc outcome | notes |", "|---|---|---|---|"]
        for r in bad:
            lines.append(f"| {md_escape(r['name'])} | `{md_escape(r['cmd'])}` | "
                         f"**{r['outcome']}** | {md_escape(r['note'])} |")
    else:
        lines.append("None: no crash, hang, traceback, silent wrong, data loss or wrongly "
                     "refused input.")
    lines += ["", POLICIES.strip()]
    usage = [r for r in rows if r["outcome"] in ("usage error", "messy error")]
    if usage:
        lines += ["", "## Errors not in the one-line form", "",
                  "Refused with a non-zero exit and no traceback, but with click's "
                  "multi-line usage message (or another form) instead of one "
                  "`treexc: ...` line:", ""]
        for r in usage:
            lines.append(f"- {md_escape(r['name'])} ({r['outcome']}): `{md_escape(r['cmd'])}`")
    lines += [
        "", "## How outcomes are decided", "",
        "Every command runs in a fixture folder (below) under `bash -c` with `.venv/bin` "
        f"first on the PATH, with a {TIMEOUT} s limit (fastText {FT_TIMEOUT} s) and "
        f"`ulimit -v` of {MEM_LIMIT >> 30} GB; peak memory is the process tree's (`wait4`). "
        "To run a command by hand, make the fixtures with `--workdir DIR --only NOTHING` "
        "and `cd DIR`.",
        "",
    ]
    for word, what in OUTCOMES.items():
        lines.append(f"- **{word}**: {what}")
    lines += ["", "fastText runs its Python API (`import fasttext as ft`; the wheel has no "
              "command line, and its `predict()` fails with numpy 2, so prediction cases "
              "use `test()`), as the code in the last column of the full table; "
              "`error: ...` is the exception it raised; n/a: fastText has no such command "
              "or input.", "",
              "## Fixtures", "", "| file | what |", "|---|---|"]
    for k, v in FIXTURES.items():
        lines.append(f"| {k} | {md_escape(v)} |")
    lines += ["", "## All cases", "",
              "| # | case | command | treexc | fastText 0.9.2 | notes |",
              "|---|---|---|---|---|---|"]
    for i, r in enumerate(rows, 1):
        note = r["note"]
        if r["case_note"]:
            note = f"{r['case_note']}; {note}" if note else r["case_note"]
        if r["ft_code"]:
            note += f" (fastText: `{md_escape(r['ft_code'][:120])}`)"
        lines.append(f"| {i} | {md_escape(r['name'])} | `{md_escape(r['cmd'])}` | "
                     f"{r['outcome']} | {md_escape(r['ft'] or 'n/a')} | {md_escape(note)} |")
    Path(path).write_text("\n".join(lines) + "\n")


def treexc_version():
    """pyproject's version and ``git describe --always`` (marked when treexc/
    has uncommitted changes)."""
    version = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(),
                        re.MULTILINE).group(1)
    r = subprocess.run(["git", "describe", "--always"], cwd=ROOT, capture_output=True,
                       text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "treexc"], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()
    return f"{version}+{r.stdout.strip()}{' (uncommitted changes in treexc/)' if dirty else ''}"


# What the page says besides the cases: the policies the cache, model and
# flood cases test, with the figures of the benchmarks that measure them.
POLICIES = """
## Files another process may change

**Mapped models.**  A model file is read whole into memory, every checksum
verified, whatever its size (as fastText does): a file overwritten in place
while a command or a `load_model` holds it (`cp` over it) changes nothing in
that process, which answers with the old model to the end.  Mapping is asked
for with the environment variable `TREEXC_MAP_MODELS=1`: files over 64 MiB
are then mapped (they open at once and processes share their pages).  A
mapped file must be replaced by renaming a new file over it (treexc writes
every output that way); an in-place rewrite is detected between pieces of
input (4 MiB) by the file's inode, size and modification time and stops the
command with one line, and a page of a truncated file ends the process with
one line (a SIGBUS handler) instead of a bare bus error.  The cost of
reading into memory, an 804 MB model (`-dim 100 -bucket 2000000
-wordNgrams 2` on cooking), `treexc predict` of 100 lines, three runs each,
interleaved: 6.8 / 6.8 / 7.5 s and 822 MB peak read into memory, 4.9 / 5.2 /
8.9 s and 934 MB mapped (the weight scan at loading maps every page in, so
a mapped process shows the file in its RSS too; those pages are shared).

**The token cache.**  A `-cache` folder may be shared between jobs or
users, so a cache that matches its input is still not trusted: opening it
checks every token id against the dictionary's sizes and every offset
against its arrays (a forged cache with valid checksums is rebuilt); the
training kernel checks each line's offsets and ids before it indexes with
them; after every window (and every 0.1 s) the data file's inode, size and
modification time are compared with those it had when checked, so a cache
rewritten while training reads it stops the run with one line.  A cache is
matched to its input by path, size, modification time, inode and change
time, so an edit that keeps the size and modification time (`touch -r`,
`cp -p`, `rsync -t`) is seen.  Runs sharing a folder build under names of
their own and publish by rename; the build files of a killed run are
removed by the next run on the host.  On gutenberg_books (`-loss hs -epoch 2
-dim 50 -thread 1`, interleaved with the code before the checks, shared
machine) training ran at 5.48 / 4.82 M words/sec/thread against 4.57 /
4.66: within the noise.

**Hash flooding.**  The vocabulary's table is probed by SipHash-1-3 under a
key drawn when the process starts, not by FNV-1a (which stays for the
hashed n-gram buckets, so models are byte for byte the same).  65,536
distinct 96-letter words of one FNV-1a hash (`tests/text/fnv_flood.py`,
made in about a second), 6.4 MB, `-epoch 1 -dim 10 -thread 1`, from
`.venv/bin/python benchmarks/bench_hash_flood.py`:

| tool | random words (s) | flood (s) | flood / random |
|---|---|---|---|
| treexc | 7.5 | 6.0 | 0.80 |
| fastText 0.9.2 | 3.8 | > 300 (killed) | - |

Probed by FNV-1a (the code before the keyed probe) the same file took
281 s.
"""


def main():
    global GOOD_HEAD
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", action="append", help="run the cases whose name contains "
                    "PATTERN (or matches it as a glob); repeat it for several")
    ap.add_argument("--markdown", help="write the table to this file")
    ap.add_argument("--json", help="write the results as JSON")
    ap.add_argument("--workdir", help="fixture folder (default: a temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep the fixture folder")
    ap.add_argument("--reuse-fixtures", action="store_true",
                    help="reuse the models already in --workdir (when treexc's format "
                         "has not changed)")
    ap.add_argument("--no-fasttext", action="store_true", help="skip fastText")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--ft-cache", help="JSON file of fastText outcomes to reuse and extend "
                                       "(fastText's answers do not change between runs)")
    ap.add_argument("--from-json", help="only write --markdown from this --json file (or "
                                        "several, separated by commas)")
    ap.add_argument("--rerun", help="a --json file of an earlier run: run again only its "
                                    "cases that were not ok or clean error, keep the rest")
    a = ap.parse_args()

    cases = build_cases()
    if a.from_json:  # several files: the rows of each, in the cases' order
        data = {r["name"]: r for f in a.from_json.split(",")
                for r in json.loads(Path(f).read_text())}
        data = [dict(data[c.name], case_note=c.note) for c in cases if c.name in data]
        write_markdown(a.markdown, data, sum(r["seconds"] for r in data), True)
        return 0
    previous = {}
    if a.rerun:
        previous = {r["name"]: r for r in json.loads(Path(a.rerun).read_text())}
        keep = ("ok", "clean error", "n/a")
        ft_known = json.loads(Path(a.ft_cache).read_text()) if (
            a.ft_cache and Path(a.ft_cache).exists()) else {}
        cases = [c for c in cases if c.name not in previous
                 or previous[c.name]["outcome"] not in keep
                 or (c.ft and not a.no_fasttext and f"{c.name}\n{c.ft}" not in ft_known)]
    if a.only:
        cases = [c for c in cases if any(p in c.name or fnmatch.fnmatch(c.name, p)
                                         for p in a.only)]
    if a.list:
        for c in cases:
            print(f"{c.name}\t{c.cmd}")
        print(f"{len(cases)} cases")
        return
    with_ft = not a.no_fasttext
    if with_ft:
        try:
            subprocess.run([PYTHON, "-c", "import fasttext"], check=True, capture_output=True)
        except subprocess.CalledProcessError:
            print("fasttext is not installed: fastText column skipped", file=sys.stderr)
            with_ft = False
    workdir = Path(a.workdir) if a.workdir else Path(tempfile.mkdtemp(prefix="treexc-audit-"))
    workdir.mkdir(parents=True, exist_ok=True)
    ctx = Ctx(workdir.resolve())
    ft_cache = {}
    if a.ft_cache and Path(a.ft_cache).exists():
        ft_cache = json.loads(Path(a.ft_cache).read_text())
    start = time.monotonic()
    print(f"fixtures in {ctx.dir}", flush=True)
    build_fixtures(ctx, with_ft, a.reuse_fixtures)
    GOOD_HEAD = b"".join(ctx.read("good.txt").splitlines(keepends=True)[:1000])
    rows = []
    try:
        for i, c in enumerate(cases, 1):
            t = time.monotonic()
            key = f"{c.name}\n{c.ft}"
            cached = c.ft and key in ft_cache
            outcome, note, ft, res, fsize = run_case(c, ctx, with_ft and not cached)
            if cached:
                ft = ft_cache[key]
            elif ft:
                ft_cache[key] = ft
            rows.append({"name": c.name, "cmd": command_for_doc(c, fsize), "outcome": outcome,
                         "note": note, "ft": ft if c.ft else None, "case_note": c.note,
                         "ft_code": c.ft if (c.ft and with_ft) else None,
                         "seconds": round(res.seconds, 2), "rss_mb": round(res.rss_mb),
                         "rc": res.rc, "run_at": time.strftime("%H:%M UTC", time.gmtime())})
            flag = "  " if outcome in ("ok", "clean error", "n/a") else "!!"
            print(f"{flag} [{i}/{len(cases)}] {c.name}: {outcome} ({time.monotonic() - t:.1f} s,"
                  f" {res.rss_mb:.0f} MB) {note[:100]}" + (f" | fastText: {ft}" if ft else ""),
                  flush=True)
    finally:
        clean_between(ctx)
        elapsed = time.monotonic() - start
        if a.ft_cache and ft_cache:
            Path(a.ft_cache).write_text(json.dumps(ft_cache, indent=0))
        if previous:
            fresh = {r["name"]: r for r in rows}
            order = [c.name for c in build_cases()]
            merged = dict(previous)
            merged.update(fresh)
            rows = [merged[n] for n in order if n in merged]
        if a.markdown and rows:
            write_markdown(a.markdown, rows, elapsed, with_ft)
        if a.json and rows:
            Path(a.json).write_text(json.dumps(rows, indent=1))
        if not a.keep and not a.workdir:
            for p in ctx.dir.rglob("*"):
                if p.is_file() and not os.access(p, os.R_OK):
                    os.chmod(p, 0o644)
            shutil.rmtree(ctx.dir, ignore_errors=True)
    counts = {}
    for r in rows:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    print(f"{len(rows)} cases in {elapsed:.0f} s: " +
          ", ".join(f"{k} {counts[k]}" for k in ORDER if counts.get(k)))
    return 1 if any(r["outcome"] in NOT_OK for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
