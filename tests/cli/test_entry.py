"""The ``treexc`` entry point (cli/entry.py): a small input to a small
linear model answered by Python alone (linear/pure.py) or by numpy
(linear/firstlines.py), without click, the same bytes as the full command
line (cli/main.py); everything else left to the full command, with its
messages and exit statuses."""

import dataclasses
import gzip
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import treexc
from treexc.cli import entry
from treexc.linear import firstlines, pure, pure_file

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "linear"))
from test_linear_first_answers import corpus, probe_lines  # noqa: E402

BASE = dict(model="linear", thread=1, seed=3, bucket=3000, arity=3, leafSize=3, ensemble=1)
MODELS = {
    "default": dict(),
    "beam1": dict(beam=1, arity=2, leafSize=2),
    "sigmoid": dict(scorer="sigmoid", solver="lr", beam=3),
    "ensemble": dict(ensemble=3, beam=2),  # numpy's: Python alone answers one tree
    "ngrams": dict(wordNgrams=3, bucket=40, minDf=1, arity=4, leafSize=5),
    "one_node": dict(arity=64, leafSize=64),
}
# the entry, reporting at exit which of the heavy modules were imported
ENTRY = """
import atexit, sys
def report():
    heavy = sorted({m.split(".")[0] for m in sys.modules} & {"numpy", "click", "rich", "numba"})
    sys.stderr.write("imported: " + ",".join(heavy) + "\\n")
atexit.register(report)
import treexc.cli.entry as e
rule = sys.argv.pop(1)
if rule != "default":
    e.PURE_BYTES = e.PURE_ARITY = float(rule)
sys.argv[0] = "treexc"
sys.exit(e.main())
"""
FULL = ("import sys; sys.argv = ['treexc'] + sys.argv[1:]; "
        "from treexc.cli.main import main; sys.exit(main())")
PURE, NUMPY = "inf", "0"  # PURE_BYTES and PURE_ARITY forcing one way or the other


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("entry")
    rng = np.random.default_rng(4)
    (folder / "train.txt").write_text("\n".join(corpus(rng, 600)) + "\n")
    out = {}
    for name, flags in MODELS.items():
        treexc.train_supervised(input=str(folder / "train.txt"),
                                **dict(BASE, **flags)).save_model(str(folder / f"{name}.bin"))
        out[name] = str(folder / f"{name}.bin")
    return out


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


def run_entry(args, pure, stdin=None):
    """``treexc ARGS`` by cli/entry.py, PURE_BYTES and PURE_ARITY set to
    ``pure``: (status, stdout, stderr, the heavy modules imported)."""
    r = subprocess.run([sys.executable, "-c", ENTRY, str(pure), *args], stdin=stdin,
                       capture_output=True)
    *err, imported = r.stderr.decode().splitlines()
    return r.returncode, r.stdout, "\n".join(err), imported.removeprefix("imported: ")


def run_full(args, stdin=None):
    r = subprocess.run([sys.executable, "-c", FULL, *args], stdin=stdin, capture_output=True)
    return r.returncode, r.stdout, r.stderr.decode().rstrip("\n")


def test_python_alone_gives_numpys_answers_to_the_bit(models):
    """linear/pure.py against linear/firstlines.py in one process: each
    line's labels and float64 log-scores, and test's figures, for beams,
    trees, the sigmoid, word n-grams, one node; k and thresholds."""
    rng = np.random.default_rng(8)
    text = b"\n".join([line.encode() for line in corpus(rng, 150)] + clean_lines()) + b"\n"
    for name, path in models.items():
        model, first = pure_file.load(path), firstlines.load(path)
        if name == "ensemble":
            assert model is None  # several trees: numpy's
            continue
        for k, threshold in ((1, 0.0), (3, 0.0), (-1, 0.0), (2, 0.3), (5, 0.01)):
            labels, scores, counts = first.predict(text, k, threshold)
            width, log_threshold = pure._k_and_log_threshold(model, k, threshold)
            scorer = pure.Scorer(model)
            for i, (_, _, feats) in enumerate(pure.lines_of(model, text)):
                got_labels, got_scores = scorer.top(*pure.row(model, feats), width,
                                                    log_threshold)
                assert got_labels == labels[i, :counts[i]].tolist(), (name, k, i)
                assert np.array(got_scores).tobytes() == scores[i, :counts[i]].tobytes()
            meter = first.evaluate(np.frombuffer(text, dtype=np.uint8), k, threshold)
            want = (f"N\t{meter.n_examples}\nP@{k}\t{meter.precision():.3g}\n"
                    f"R@{k}\t{meter.recall():.3g}\n").encode()
            assert pure.test_output(model, text, k, threshold) == want, (name, k)
        assert len(pure.lines_of(model, text)) == text.count(b"\n")
        assert len(pure.lines_of(model, text + b"w1 w2")) == text.count(b"\n") + 1


def test_small_answers_are_the_full_commands(models, tmp_path):
    """The whole command, each way forced: the same bytes and status as
    the full command line; Python alone imports neither numpy nor click,
    numpy's way no click; the default picks Python alone for a small file."""
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
            for way, imports in ((PURE, "" if name != "ensemble" else "numpy"),
                                 (NUMPY, "numpy")):
                code, out, err, imported = run_entry(args, way)
                assert (code, out, err) == want, (name, args, way)
                assert imported == imports, (name, args, way, imported)
    # the rule: Python alone for one node of few labels, numpy for a deeper tree
    few = tmp_path / "few.txt"
    few.write_text("\n".join(corpus(rng, 300, n_labels=4)) + "\n")
    treexc.train_supervised(input=str(few), **dict(BASE, arity=8, leafSize=8)).save_model(
        str(tmp_path / "few.bin"))
    assert pure_file.root_children(pure_file.linear_text_header(str(tmp_path / "few.bin"))) \
        <= entry.PURE_ARITY and small.stat().st_size <= entry.PURE_BYTES
    for path, imports in ((str(tmp_path / "few.bin"), ""), (models["default"], "numpy")):
        for query in (["test", path, str(small), "2"], ["predict-prob", path, str(small)]):
            code, out, err, imported = run_entry(query, "default")
            assert (code, out, err) == run_full(query) and imported == imports, query
    # standard input: a regular file is answered here (and left unread when not)
    with open(small, "rb") as f:
        assert run_entry(["predict", models["default"], "-", "2"], PURE, stdin=f)[1:4:2] \
            == (run_full(["predict", models["default"], str(small), "2"])[1], "")
    with open(small, "rb") as f:
        assert run_entry(["predict", models["default"]], PURE, stdin=f)[1] \
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
        got = run_entry(args, PURE)
        assert got[:3] == want, (args, got, want)


def test_option_rules_are_linear_args():
    """pure_file's copy of the saved options' checks and of the plan's
    fields is that of ``LinearArgs`` and ``Plan``."""
    from treexc.linear.options import LinearArgs
    from treexc.linear.plan import Plan

    rules = {}
    for field in dataclasses.fields(LinearArgs):
        if field.name == "thread":  # set on load, not read
            continue
        kind = field.type if isinstance(field.type, str) else field.type.__name__
        meta = field.metadata
        rules[field.name] = (kind, tuple(meta.get("choices") or ()), meta.get("above"),
                             meta.get("at_least"), meta.get("at_most"))
    assert {n: (k, tuple(c), *r) for n, (k, c, *r) in pure_file.OPTION_RULES.items()} == rules
    assert pure_file.PLAN_FIELDS == tuple(f.name for f in dataclasses.fields(Plan))
    defaults = LinearArgs()
    assert all(getattr(defaults, n) == v for n, v in pure_file.OPTION_DEFAULTS.items())


def test_a_file_the_full_reader_refuses_is_not_answered(models, tmp_path):
    """A model whose checksums hold but whose saved options, plan, or
    weights the full reader refuses: pure_file gives None (the full command
    then says why)."""
    import json
    import struct
    import zlib

    raw = Path(models["default"]).read_bytes()
    magic, version, _, length = struct.unpack_from("<8sIIQ", raw)
    header = json.loads(raw[24:24 + length])

    def rewritten(change):
        h = json.loads(json.dumps(header))
        change(h)
        text = json.dumps(h).encode()  # into the spare room before the first array
        path = tmp_path / "changed.bin"
        path.write_bytes(struct.pack("<8sIIQ", magic, version, zlib.crc32(text), len(text))
                         + text + raw[24 + len(text):])
        return str(path)

    assert pure_file.load(rewritten(lambda h: None)) is not None
    for change in (lambda h: h["args"].update(minCount=-1),
                   lambda h: h["args"].update(scorer="softmax"),
                   lambda h: h["args"].update(beam=True),
                   lambda h: h["args"].update(C=0.0),
                   lambda h: h["plan"].pop("beam"),
                   lambda h: h.update(n_cols=h["n_cols"] + 1),
                   lambda h: h.update(kind="embedding")):
        path = rewritten(change)
        assert pure_file.load(path) is None
        with pytest.raises(treexc.TreexcError):
            firstlines.load(path)


def test_columns_past_16_bits_are_joined_as_the_full_reader_joins_them():
    """A node's columns stored as low 16 bits and per-node counts of the
    high bits (stored.split_columns): pure_file gives the columns back."""
    from treexc.linear.stored import compact_weights
    from treexc.linear.node_training import NodeWeights

    rng = np.random.default_rng(2)
    n_nodes, arity, n_cols = 3, 4, 300_000
    node_cols = [np.sort(rng.choice(n_cols, size=50, replace=False)) for _ in range(n_nodes)]
    cols = np.concatenate(node_cols).astype(np.int32)
    node_off = np.array([0, 50, 100, 150], dtype=np.int64)
    entry_len = rng.integers(1, 3, size=len(cols))
    entry_off = np.concatenate([[0], np.cumsum(entry_len)]).astype(np.int64)
    slots = np.concatenate([rng.choice(arity, size=n, replace=False) for n in entry_len])
    vals = rng.standard_normal(len(slots)).astype(np.float32)
    weights = NodeWeights(node_off, cols, entry_off, slots.astype(np.int32), vals)
    stored = {f"t0.{name}": np.ascontiguousarray(a)
              for name, a in compact_weights(weights).items()}
    arrays = {name: (a.dtype.str, list(a.shape), memoryview(a.tobytes()))
              for name, a in stored.items()}
    assert int(cols.max()) >= 1 << 16 and stored["t0.cols"].dtype == np.uint16
    got = pure_file._weights(arrays, n_nodes, arity, n_cols)
    assert got[1] == cols.tolist() and got[0] == node_off.tolist()
    assert got[2] == entry_off.tolist() and got[3] == slots.tolist()
    assert got[4] == vals.tolist()
