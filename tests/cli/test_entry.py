"""The ``treexc`` entry point (cli/entry.py): a small input to a linear
model answered by numpy (linear/firstlines.py) without click, the same
bytes as the full command line (cli/main.py); everything else left to the
full command, with its messages and exit statuses."""

import gzip
import subprocess
import sys
from pathlib import Path

import numpy as np

import treexc

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "linear"))
from test_linear_first_answers import corpus, models, probe_lines  # noqa: E402,F401

# the entry, reporting at exit which of the heavy modules were imported
ENTRY = """
import atexit, sys
def report():
    heavy = sorted({m.split(".")[0] for m in sys.modules} & {"numpy", "click", "rich", "numba"})
    sys.stderr.write("imported: " + ",".join(heavy) + "\\n")
atexit.register(report)
import treexc.cli.entry as e
sys.argv[0] = "treexc"
sys.exit(e.main())
"""
FULL = ("import sys; sys.argv = ['treexc'] + sys.argv[1:]; "
        "from treexc.cli.main import main; sys.exit(main())")


def clean_lines():
    """probe_lines without NUL or invalid UTF-8 (left to the full command)."""
    lines = []
    for line in probe_lines():
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if b"\0" not in line:
            lines.append(line)
    return lines


def run_entry(args, stdin=None):
    """``treexc ARGS`` by cli/entry.py: (status, stdout, stderr, the heavy
    modules imported)."""
    r = subprocess.run([sys.executable, "-c", ENTRY, *args], stdin=stdin,
                       capture_output=True)
    *err, imported = r.stderr.decode().splitlines()
    return r.returncode, r.stdout, "\n".join(err), imported.removeprefix("imported: ")


def run_full(args, stdin=None):
    r = subprocess.run([sys.executable, "-c", FULL, *args], stdin=stdin, capture_output=True)
    return r.returncode, r.stdout, r.stderr.decode().rstrip("\n")


def test_small_answers_are_the_full_commands(models, tmp_path):
    """The whole command: the same bytes and status as the full command
    line, with numpy and without click, rich or numba."""
    rng = np.random.default_rng(6)
    small = tmp_path / "small.txt"
    small.write_bytes(b"\n".join([line.encode() for line in corpus(rng, 60)]
                                 + clean_lines()) + b"\n")
    queries = (["test", "{m}", "{f}"], ["test", "{m}", "{f}", "-1", "0.2"],
               ["predict", "{m}", "{f}", "3"], ["predict-prob", "{m}", "{f}", "2", "0.05"],
               ["predict", "{m}", "{f}"])
    for name, path in models.items():
        for query in queries:
            args = [a.format(m=path, f=small) for a in query]
            want = run_full(args)
            assert want[0] == 0 and want[1], (name, args, want)
            code, out, err, imported = run_entry(args)
            assert (code, out, err) == want, (name, args)
            assert imported == "numpy", (name, args, imported)
    # standard input: a regular file is answered here
    with open(small, "rb") as f:
        assert run_entry(["predict", models["default"], "-", "2"], stdin=f)[1:4:2] \
            == (run_full(["predict", models["default"], str(small), "2"])[1], "numpy")
    with open(small, "rb") as f:
        assert run_entry(["predict", models["default"]], stdin=f)[1] \
            == run_full(["predict", models["default"], str(small)])[1]


def test_everything_else_is_the_full_commands(models, tmp_path):
    """Errors, flags, help, gzip, NUL and invalid UTF-8, a damaged model, an
    embedding model: the full command's output and status, byte for byte."""
    good = tmp_path / "good.txt"
    good.write_bytes(b"__label__l1 w1 w2\nw3 w4\n")
    (tmp_path / "nul.txt").write_bytes(b"__label__l1 w1\x00 w2\n")
    (tmp_path / "latin.txt").write_bytes(b"__label__l1 caf\xe9\n")
    (tmp_path / "gz.txt.gz").write_bytes(gzip.compress(good.read_bytes()))
    raw = bytearray(Path(models["default"]).read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    (tmp_path / "damaged.bin").write_bytes(bytes(raw))
    (tmp_path / "train.txt").write_bytes(good.read_bytes() * 20)
    embedding = treexc.train_supervised(input=str(tmp_path / "train.txt"), model="embedding",
                                        dim=4, epoch=1, thread=1, verbose=0)
    embedding.save_model(str(tmp_path / "embedding.bin"))
    m, g = models["default"], str(good)
    cases = [["test", m, str(tmp_path / "missing.txt")], ["test", m, g, "0"],
             ["test", m, g, "1", "2"], ["test", m, g, "x"], ["test", m, g, "1", "nan"],
             ["test", m, g, "1", "0", "extra"], ["test", m], ["test", m, g, "-h"],
             ["test", m, g, "-metrics", "ndcg"], ["predict", m, g, "--", "3"],
             ["test", m, str(tmp_path / "nul.txt")], ["test", m, str(tmp_path / "latin.txt")],
             ["test", m, str(tmp_path / "gz.txt.gz")], ["test", str(tmp_path / "damaged.bin"), g],
             ["test", str(tmp_path / "embedding.bin"), g], ["test", str(tmp_path), g],
             ["predict", m, g, "1", "0", "-daskOutput", str(tmp_path)], ["predict", "--help"]]
    for args in cases:
        want = run_full(args)
        got = run_entry(args)
        assert got[:3] == want, (args, got, want)
