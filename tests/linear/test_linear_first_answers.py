"""The first answers of a linear model without Numba (linear/firstlines.py):
the kernels' rows and answers to the bit, ties included, for beams, scorers
and ensembles; the same refusals of damaged files; the Python API's
``load_model`` + ``predict`` and a short ``treexc predict`` importing no
Numba, the kernels taking over on big input with the same answers."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import treexc
from treexc.errors import TreexcError
from treexc.io.answers import format_predictions, label_names
from treexc.linear import firstlines
from treexc.io.first_answers import ModelBeforeKernels
from treexc.linear.model import load_linear

IO_TESTS = Path(__file__).resolve().parent.parent / "io"  # test_model_mutation's folder

BASE = dict(model="linear", thread=1, seed=2, bucket=3000, arity=3, leafSize=3)
MODELS = {
    "default": dict(),
    "beam1": dict(beam=1, arity=2, leafSize=2),
    "sigmoid": dict(scorer="sigmoid", solver="lr", beam=3),
    "ensemble": dict(ensemble=3, beam=2),
    "ngrams": dict(wordNgrams=3, bucket=40, minDf=1, arity=4, leafSize=5),
    "wide": dict(beam=1000, prune=0.5),  # the beam holds the whole tree
    "one_node": dict(arity=64, leafSize=64),  # every label a child of the root
}
QUERIES = [(1, 0.0), (3, 0.0), (-1, 0.0), (2, 0.3), (5, 0.01), (0, 0.0)]


def corpus(rng, n_lines, n_labels=40):
    words = [f"w{i}" for i in range(200)] + ["café", "naïve", "日本語", "bread", "a"]
    lines = []
    for _ in range(n_lines):
        labels = {int(rng.integers(n_labels)) for _ in range(int(rng.integers(1, 3)))}
        first = min(labels)
        picked = rng.choice(words[first * 5:first * 5 + 12], size=int(rng.integers(2, 9)))
        lines.append(" ".join(f"__label__l{j}" for j in sorted(labels)) + " "
                     + " ".join(picked) + " " + str(rng.choice(words)))
    return lines


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("linear_first_answers")
    rng = np.random.default_rng(7)
    (folder / "train.txt").write_text("\n".join(corpus(rng, 700)) + "\n")
    out = {}
    for name, flags in MODELS.items():
        model = treexc.train_supervised(input=str(folder / "train.txt"),
                                        **dict(BASE, **flags))
        model.save_model(str(folder / f"{name}.bin"))
        out[name] = str(folder / f"{name}.bin")
    return out


def probe_lines():
    """Labelled lines and not, known, unknown and repeated words, empty ones,
    control and invalid UTF-8 bytes, a literal </s>."""
    rng = np.random.default_rng(11)
    lines = [line.encode() for line in corpus(rng, 120)]
    lines += [b" ".join(line.split()[1:]) for line in lines[:40]]
    lines += [b"", b" ", b"\t\r", b"zzz qqq unknown", b"__label__l3", b"__label__nope w3",
              b"</s>", b"w1 </s> w2", b"\xff\xfe w5 w6", b"w7\x00w8 \xc3", b"caf\xc3 na\xc3\xafve",
              b"\xe6\x97\xa5\xe6\x9c\xac w12", b"w3\vw4\fw5", b" ".join([b"w9"] * 300),
              b"w1 w1 w1 w2 w2 w3", b"bread a a a", b"x" * 500]
    return lines


def same(a, b):
    """Arrays equal to the bit (float64 compared as their bytes)."""
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def kernel_answer(model, piece, k, threshold):
    rows = model.rows_of_text(np.frombuffer(piece, dtype=np.uint8))[1]
    return model.predict_rows(rows, k, threshold)


# the quick tier (make test-quick) keeps the cheapest model; make test runs all
@pytest.mark.parametrize("name", [pytest.param(name, marks=() if name == "beam1"
                                               else pytest.mark.slow) for name in MODELS])
def test_same_rows_and_answers_as_the_kernels(models, name):
    model = load_linear(models[name])
    first = firstlines.load(models[name])
    assert first.labels == model.get_labels()
    lines = probe_lines()
    piece = b"".join(line + b"\n" for line in lines)
    rows = model.rows_of_text(np.frombuffer(piece, dtype=np.uint8))[1]
    for i, line in enumerate(lines):
        cols, vals = first.row(line, True)
        a, b = rows.indptr[i], rows.indptr[i + 1]
        assert same(cols.astype(np.int32), rows.indices[a:b]), line
        assert same(vals, rows.data[a:b]), line
    for k, threshold in QUERIES:
        for i, line in enumerate(lines):
            one = line if i % 7 == 0 else line + b"\n"  # some without a newline
            got, want = first.predict(one, k, threshold), kernel_answer(model, one, k, threshold)
            assert all(same(g, w) for g, w in zip(got, want)), (name, k, threshold, line)
        got, want = first.predict(piece, k, threshold), kernel_answer(model, piece, k, threshold)
        assert all(same(g, w) for g, w in zip(got, want)), (name, k, threshold)
        names = label_names(first.labels)
        assert (format_predictions(names, *got, True)
                == format_predictions(names, *want, True))


@pytest.mark.parametrize("value", [0.0, 0.25, -2.0])
def test_ties_go_to_the_smaller_id(models, tmp_path, value):
    """Every weight the same: slots tie at every node, labels tie; the beam
    and the answer take the smaller ids first, as the kernels do."""
    from treexc.io import modelfile

    header, arrays = modelfile.load(models["ensemble"])
    arrays = {name: np.array(a) for name, a in arrays.items()}
    for name in arrays:
        if name.endswith(".vals"):
            arrays[name][:] = value
    path = str(tmp_path / "ties.bin")
    modelfile.save(path, header, arrays)
    model, first = load_linear(path), firstlines.load(path)
    piece = b"".join(line + b"\n" for line in probe_lines()[:60])
    for k, threshold in QUERIES:
        got, want = first.predict(piece, k, threshold), kernel_answer(model, piece, k, threshold)
        assert all(same(g, w) for g, w in zip(got, want)), (value, k, threshold)
    if value == 0.0:  # every margin 0: the best labels all tied, by id
        labels, scores, counts = first.predict(b"w1 w2\n", 4, 0.0)
        tied = scores[0] == scores[0, 0]
        assert counts[0] == 4 and tied[1]
        assert list(labels[0][tied]) == sorted(labels[0][tied])


@pytest.mark.parametrize("name", ["default", "ensemble"])
def test_same_refusals_as_the_normal_load(models, name, tmp_path):
    """Damaged and crafted files (test_model_mutation's mutations): refused
    with the same message by both loads, or loaded by both with the same
    answers."""
    if str(IO_TESTS) not in sys.path:  # as when pytest collects tests/io first
        sys.path.insert(0, str(IO_TESTS))
    from test_model_mutation import mutate

    original = open(models[name], "rb").read()
    rng = np.random.default_rng(3)
    path = tmp_path / "mutant.bin"
    outcomes = {"refused": 0, "loaded": 0}
    made = 0
    while made < 200:
        mutant, _ = mutate(original, rng)
        if mutant is None or mutant == original:
            continue
        made += 1
        path.write_bytes(mutant)
        try:
            model = load_linear(str(path))
        except TreexcError as e:
            with pytest.raises(TreexcError) as fast:
                firstlines.load(str(path))
            assert str(fast.value) == str(e)
            outcomes["refused"] += 1
            continue
        first = firstlines.load(str(path))
        piece = b"w1 w2 w3\nbread a\nzzz\n\n"
        got, want = first.predict(piece, 3, 0.0), kernel_answer(model, piece, 3, 0.0)
        assert all(same(g, w) for g, w in zip(got, want))
        outcomes["loaded"] += 1
    print(outcomes)
    assert outcomes["refused"] > 50


def test_columns_out_of_order_are_refused(models, tmp_path):
    """The beam's binary search needs each node's columns ascending: a file
    where they are not is refused by both loads alike."""
    from treexc.io import modelfile

    header, arrays = modelfile.load(models["default"])
    arrays = {name: np.array(a) for name, a in arrays.items()}
    off, cols = arrays["t0.node_off"], arrays["t0.cols"]
    node = int(np.flatnonzero(np.diff(off) >= 2)[0])
    a = int(off[node])
    cols[a], cols[a + 1] = cols[a + 1], cols[a]
    modelfile.save(str(tmp_path / "swapped.bin"), header, arrays)
    for load in (load_linear, firstlines.load):
        with pytest.raises(TreexcError, match="columns not ascending"):
            load(str(tmp_path / "swapped.bin"))


def test_the_api_answers_first_lines_without_the_kernels(models):
    """``treexc.load_model`` + ``predict``: numpy's answers, the kernels'
    values; the kernels' model once many lines have been asked, or any other
    member used."""
    kernels = load_linear(models["ensemble"])
    api = treexc.load_model(models["ensemble"])
    assert isinstance(api, ModelBeforeKernels) and api._model is None
    texts = [line.decode("utf-8", "surrogateescape") for line in probe_lines()
             if b"\n" not in line]
    for k, threshold in QUERIES[:5]:
        got, want = api.predict(texts[0], k, threshold), kernels.predict(texts[0], k, threshold)
        assert got[0] == want[0] and same(got[1], want[1])
    got, want = api.predict(texts[:20], 2), kernels.predict(texts[:20], 2)
    assert got[0] == want[0] and all(same(g, w) for g, w in zip(got[1], want[1]))
    assert api._model is None  # numpy answered all of it
    many = texts * (firstlines.FIRST_LINES // len(texts) + 1)
    got = api.predict(many, 3)  # past firstlines.FIRST_LINES: the kernels
    assert api._model is not None and got[0] == kernels.predict(many, 3)[0]
    one_by_one = treexc.load_model(models["ensemble"])
    for i in range(firstlines.FIRST_LINES):
        assert one_by_one.predict(texts[i % len(texts)], 2) is not None
    assert one_by_one._model is None
    got = one_by_one.predict(texts[1], 2)  # one line too many: the kernels from now on
    want = kernels.predict(texts[1], 2)
    assert one_by_one._model is not None and got[0] == want[0] and same(got[1], want[1])
    other = treexc.load_model(models["default"])
    assert other.get_labels() == load_linear(models["default"]).get_labels()
    other.note = "set"  # forwarded to the kernels' model
    assert other.kernel_model().note == "set" and "note" not in vars(other)
    with pytest.raises(TypeError):
        api.predict(b"bytes")
    import pickle

    again = pickle.loads(pickle.dumps(treexc.load_model(models["default"])))  # the kernels'
    assert again.predict(texts[:5], 3)[0] == other.predict(texts[:5], 3)[0]


SYS_MODULES = """
import atexit, sys
def report():
    loaded = [m for m in sys.modules if m == "numba" or m.startswith("numba.")]
    sys.stderr.write(f"numba modules: {len(loaded)}\\n")
atexit.register(report)
if sys.argv[1] == "api":
    import treexc
    model = treexc.load_model(sys.argv[2])
    for line in sys.stdin.read().splitlines():
        print(model.predict(line, 2))
else:
    sys.argv = ["treexc"] + sys.argv[1:]
    from treexc.cli.main import main
    main()
"""


def run_python(args, stdin):
    return subprocess.run([sys.executable, "-c", SYS_MODULES, *args], input=stdin,
                          capture_output=True, check=True)


def test_a_short_prediction_imports_no_numba(models):
    """A few lines through the CLI and the API: numpy only.  A big input:
    the kernels take over, with the same answers."""
    path = models["default"]
    lines = [line for line in probe_lines() if b"\x00" not in line and b"\r" not in line
             and b"\v" not in line and b"\f" not in line]
    for command in (["predict", path, "-", "2"], ["api", path]):
        short = run_python(command, b"w1 w2 w3\nbread a\n")
        assert short.stderr.endswith(b"numba modules: 0\n"), short.stderr
    big = b"\n".join(lines * (firstlines.FIRST_LINES // len(lines) + 1)) + b"\n"
    for command in (["predict", path, "-", "2"], ["predict-prob", path, "-", "2"]):
        whole = run_python(command, big)
        assert not whole.stderr.endswith(b"numba modules: 0\n")
        one = run_python(command, b"\n".join(lines[:5]) + b"\n")
        assert one.stderr.endswith(b"numba modules: 0\n")
        assert whole.stdout.startswith(one.stdout)


def test_batch_rows_and_meter_as_the_kernels(models):
    """``encode_lines`` (a whole file at once) gives the kernels' rows and
    corpus; ``evaluate`` and ``evaluate_ranking`` (treexc test, test-label)
    the kernels' meter and metrics, at every k and threshold, for every
    configuration: one node, trees, beams, the sigmoid, an ensemble."""
    assert firstlines.load(models["one_node"]).trees[0][0].shape[0] == 1
    rng = np.random.default_rng(5)
    text = "\n".join(corpus(rng, 300)).encode() + b"\n" + b"\n".join(probe_lines()) + b"\n"
    data = np.frombuffer(text, dtype=np.uint8)
    for name, path in models.items():
        model, first = load_linear(path), firstlines.load(path)
        want_corpus, want_rows = model.rows_of_text(data)
        rows, lines = first.encode_lines(text)
        assert same(rows.indptr, want_rows.indptr) and same(rows.vals, want_rows.data)
        assert same(rows.cols.astype(np.int32), want_rows.indices)
        for field in ("feat_off", "label_off", "labels"):
            assert same(getattr(lines, field), getattr(want_corpus, field)), (name, field)
        for k, threshold in QUERIES:
            if k == 0:  # no meter for k = 0 (the commands refuse it)
                continue
            got, want = first.evaluate(data, k, threshold), model.evaluate(data, k, threshold)
            assert vars(got).keys() == vars(want).keys()
            for field, value in vars(want).items():
                if isinstance(value, np.ndarray):
                    assert same(getattr(got, field), value), (name, k, threshold, field)
                else:
                    assert getattr(got, field) == value, (name, k, threshold, field)
            if k > 0:  # every label (-1): no ranking metrics either
                g = first.evaluate_ranking(data, k, threshold, ("ndcg", "psp"), 0.55, 1.5)[1]
                w = model.evaluate_ranking(data, k, threshold, ("ndcg", "psp"), 0.55, 1.5)[1]
                assert g == w, (name, k, threshold)
        assert first.get_labels() == model.get_labels() and first.nlabels == model.nlabels


def test_treexc_test_answers_a_small_file_without_numba(models, tmp_path):
    """`treexc test` and `test-label` of a file within
    ``firstlines.FIRST_LINES``: numpy alone; of a bigger one: the kernels;
    the same figures either way (a limit of 0 forces the kernels)."""
    small = tmp_path / "small.txt"
    rng = np.random.default_rng(9)
    small.write_text("\n".join(corpus(rng, 200)) + "\n")
    big = tmp_path / "big.txt"
    big.write_bytes(small.read_bytes() * (firstlines.FIRST_LINES // 200 + 1))
    forced = ("import sys; from treexc.linear import firstlines; "
              "firstlines.FIRST_LINES = 0; sys.argv[0] = 'treexc'; "
              "from treexc.cli.main import main; main()")
    for name in ("default", "ensemble", "sigmoid"):
        for command in (["test", models[name], str(small), "3"],
                        ["test", models[name], str(small), "2", "0.1", "-metrics", "ndcg,psp"],
                        ["test-label", models[name], str(small), "2"]):
            fast = run_python(command, b"")
            assert fast.stderr.endswith(b"numba modules: 0\n"), fast.stderr
            kernels = subprocess.run([sys.executable, "-c", forced, *command],
                                     capture_output=True, check=True)
            assert fast.stdout == kernels.stdout, (name, command)
        whole = run_python(["test", models[name], str(big), "3"], b"")
        assert not whole.stderr.endswith(b"numba modules: 0\n")
    as_array = lambda raw: np.frombuffer(raw, dtype=np.uint8)  # noqa: E731
    first, sigmoid = firstlines.load(models["default"]), firstlines.load(models["sigmoid"])
    assert first.answers_at_once(as_array(small.read_bytes()))
    assert not first.answers_at_once(as_array(big.read_bytes()))
    lines = firstlines.FIRST_LINES
    assert first.answers_at_once(as_array(b"w1\n" * lines))
    assert first.answers_at_once(as_array(b"w1\n" * (lines - 1) + b"w2"))
    assert not first.answers_at_once(as_array(b"w1\n" * lines + b"w2"))
    assert sigmoid.answers_at_once(as_array(b"w1\n" * firstlines.SIGMOID_LINES))
    assert not sigmoid.answers_at_once(as_array(b"w1\n" * (firstlines.SIGMOID_LINES + 1)))
    few_long = b"w1 " * (firstlines.FIRST_BYTES // 6) + b"\n"
    assert not first.answers_at_once(as_array(few_long * 2 + b"\n"))
