"""The first answers of predict without Numba (classify/firstlines.py): the
kernels' labels and log-probabilities to the bit for every loss and both
readings of a tree, ties included; the same refusals of bad model files;
the Python API's ``load_model`` + ``predict`` and a short ``treexc
predict`` importing no Numba, the kernels taking over on big input with
the same answers."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import treexc
from treexc.classify import firstlines
from treexc.classify.model import load_model
from treexc.classify.predict import label_names
from treexc.errors import TreexcError
from treexc.io.first_answers import ModelBeforeKernels

IO_TESTS = Path(__file__).resolve().parent.parent / "io"  # test_model_mutation's folder

LOSSES = {"softmax": dict(loss="softmax"), "hs": dict(loss="hs"),
          "hs4": dict(loss="hs", arity=4),
          # the tree's own answers: these even labels would get -scoring mean
          "tree": dict(loss="tree", arity=4, treeUpdates=2, scoring="tree"),
          "ova": dict(loss="ova"), "ns": dict(loss="ns", neg=3),
          "plt": dict(loss="plt", arity=4), "plt2": dict(loss="plt", arity=2),
          "plt_learned": dict(loss="plt", tree="learned",
                                                               arity=5, treeUpdates=2),
          # both readings of one tree (loss.topk.mean_top_k)
          "mean": dict(loss="tree", arity=4, treeUpdates=2, scoring="mean"),
          "hs_mean": dict(loss="hs", scoring="mean")}
QUERIES = [(1, 0.0), (3, 0.0), (-1, 0.0), (2, 0.05), (5, 0.01)]


def corpus(rng, n_lines, n_labels=30):
    words = [f"w{i}" for i in range(150)] + ["café", "naïve", "日本語", "bread", "a"]
    lines = []
    for _ in range(n_lines):
        label = int(rng.integers(n_labels))
        picked = rng.choice(words[label * 5:label * 5 + 12], size=int(rng.integers(2, 8)))
        lines.append(f"__label__l{label} " + " ".join(picked) + " " + str(rng.choice(words)))
    return lines


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("first_answers")
    rng = np.random.default_rng(5)
    (folder / "train.txt").write_text("\n".join(corpus(rng, 900)) + "\n")
    out = {}
    for name, flags in LOSSES.items():
        model = treexc.train_supervised(input=str(folder / "train.txt"), dim=12, epoch=4,
                                        lr=0.5, thread=1, seed=2, wordNgrams=2, minn=2,
                                        maxn=4, bucket=2000, **flags)
        model.save_model(str(folder / f"{name}.bin"))
        out[name] = str(folder / f"{name}.bin")
    return out


def probe_lines():
    """A few hundred lines: labelled and not, known, unknown and mixed words,
    empty ones, control and invalid UTF-8 bytes, a literal </s>."""
    rng = np.random.default_rng(11)
    lines = [line.encode() for line in corpus(rng, 200)]
    lines += [" ".join(line.decode().split()[1:]).encode() for line in lines[:60]]
    lines += [b"", b" ", b"\t\r", b"zzz qqq unknown", b"__label__l3", b"__label__nope w3",
              b"</s>", b"w1 </s> w2", b"\xff\xfe w5 w6", b"w7\x00w8 \xc3", b"caf\xc3 na\xc3\xafve",
              b"\xe6\x97\xa5\xe6\x9c\xac w12", b"w3\vw4\fw5", b" ".join([b"w9"] * 300),
              b"bread a a a", b"x" * 500]
    return lines


def kernel_answer(model, piece, k, threshold):
    corpus_ = model.encode_text(np.frombuffer(piece, dtype=np.uint8))
    return model.predict_corpus(corpus_, k, threshold)


def same(got, want):
    """``(labels, log_probs, counts)`` equal to the bit."""
    return all(g.shape == w.shape and g.dtype == w.dtype and g.tobytes() == w.tobytes()
               for g, w in zip(got, want))


# the quick tier keeps three losses (a tree softmax, sigmoids, a PLT; the
# ties test below covers five more briefly); make test runs every loss
@pytest.mark.parametrize("name", [pytest.param(name, marks=() if name in ("hs4", "ns", "plt")
                                               else pytest.mark.slow) for name in LOSSES])
def test_same_answers_as_the_kernels(models, name):
    """Every line of the probe, one at a time and as one piece, each query:
    the kernels' arrays byte for byte (labels, float64 scores, counts)."""
    model = load_model(models[name])
    first = firstlines.load(models[name])
    assert first.labels == model.get_labels() and first.answers_text()
    lines = probe_lines()
    piece = b"\n".join(lines) + b"\n"
    for k, threshold in QUERIES + [(1000, 0.0), (0, 0.0)]:
        if k == 0:
            continue  # refused before either answers (classify.options.check_k_threshold)
        assert same(first.predict(piece, k, threshold), kernel_answer(model, piece, k,
                                                                       threshold)), (k, threshold)
    for i, line in enumerate(lines[::5]):
        one = line if i % 7 == 0 else line + b"\n"  # some without newline
        assert same(first.predict(one, 3, 0.0), kernel_answer(model, one, 3, 0.0)), line


@pytest.mark.parametrize("name", ["softmax", "hs4", "plt", "ova", "mean"])
def test_ties_go_to_the_smaller_label_id(models, name, tmp_path):
    """Output weights all zero, or rows repeated: every label (or every
    pair) scores the same; numpy and the kernels keep the same ``k``,
    smaller ids first, however the kernels' search met them."""
    rng = np.random.default_rng(4)
    for how in ("zero", "repeated"):
        model = load_model(models[name])
        w_out = model.w_out.copy()  # the loaded arrays are read-only
        if how == "zero":
            w_out[:] = 0.0
        else:
            w_out[1::2] = w_out[0::2][:len(w_out[1::2])]
            model.w_in = rng.normal(size=model.w_in.shape).astype(np.float32)
        model.w_out = w_out
        path = str(tmp_path / f"{how}.bin")
        model.save_model(path)
        first, again = firstlines.load(path), load_model(path)
        piece = b"\n".join(probe_lines()[:40]) + b"\n"
        for k in (1, 2, 5, -1):
            want = kernel_answer(again, piece, k, 0.0)
            assert same(first.predict(piece, k, 0.0), want), (how, k)
            if how == "zero" and name in ("softmax", "ova"):  # all tied: ids 0, 1, ...
                answered = want[0][want[2] > 0]
                assert (answered == np.arange(answered.shape[1])).all()


@pytest.mark.parametrize("name", ["tree", "ova"])
def test_same_refusals_as_the_normal_load(models, name, tmp_path):
    """Damaged and crafted files (test_model_mutation's mutations): refused
    with the same message, or loaded by both; then the answers are the
    kernels'."""
    if str(IO_TESTS) not in sys.path:  # as when pytest collects tests/io first
        sys.path.insert(0, str(IO_TESTS))
    from test_model_mutation import mutate

    classifier = open(models[name], "rb").read()
    rng = np.random.default_rng(3)
    path = tmp_path / "mutant.bin"
    outcomes = {"refused": 0, "loaded": 0}
    made = 0
    while made < 300:
        mutant, _ = mutate(classifier, rng)
        if mutant is None or mutant == classifier:
            continue
        made += 1
        path.write_bytes(mutant)
        try:
            model = load_model(str(path))
        except TreexcError as e:
            with pytest.raises(TreexcError) as fast:
                firstlines.load(str(path))
            assert str(fast.value) == str(e)
            outcomes["refused"] += 1
            continue
        first = firstlines.load(str(path))
        piece = b"w1 w2 w3\nbread a\nzzz\n\n"
        if first.answers_text():
            assert same(first.predict(piece, 3, 0.0), kernel_answer(model, piece, 3, 0.0))
        outcomes["loaded"] += 1
    print(outcomes)
    assert outcomes["refused"] > 100 and outcomes["loaded"] > 10


def test_the_api_answers_first_lines_without_the_kernels(models):
    """``treexc.load_model`` + ``predict``: numpy's answers, the kernels'
    values to the bit; the kernels' model once many lines have been asked,
    or any other member used."""
    kernels = load_model(models["tree"])
    api = treexc.load_model(models["tree"])
    assert isinstance(api, ModelBeforeKernels) and api._model is None
    assert repr(api) == f"<treexc embedding model, {len(kernels.get_labels())} labels>"
    texts = [line.decode("utf-8", "surrogateescape") for line in probe_lines()
             if b"\n" not in line]
    for k, threshold in QUERIES:
        got, want = api.predict(texts[0], k, threshold), kernels.predict(texts[0], k, threshold)
        assert got[0] == want[0] and got[1].tobytes() == want[1].tobytes()
    got, want = api.predict(texts[:20], 2), kernels.predict(texts[:20], 2)
    assert got[0] == want[0] and all(g.tobytes() == w.tobytes() for g, w in zip(got[1], want[1]))
    assert api._model is None  # numpy answered all of it
    first_lines = firstlines.load(models["tree"]).first_lines()
    assert first_lines == firstlines.FIRST_LINES  # a small model: the most lines
    many = texts * (first_lines // len(texts) + 1)
    got = api.predict(many, 3)  # past first_lines(): the kernels
    assert api._model is not None and got[0] == kernels.predict(many, 3)[0]
    other = treexc.load_model(models["ova"])
    assert other.get_labels() == load_model(models["ova"]).get_labels()
    other.note = "set"  # forwarded to the kernels' model
    assert other.kernel_model().note == "set" and "note" not in vars(other)
    with pytest.raises(TypeError):
        treexc.load_model(models["ova"]).predict(b"bytes")


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


def cli(args, stdin):
    return subprocess.run([sys.executable, "-c", SYS_MODULES, *args], input=stdin,
                          capture_output=True, check=True)


def test_a_short_prediction_imports_no_numba(models):
    """One line through the CLI and the API: numpy only.  A big input: the
    kernels take over, with the same answers."""
    path = models["hs"]
    lines = [line for line in probe_lines() if b"\x00" not in line]
    for command in (["predict", path, "-"], ["api", path]):
        short = cli(command, b"w1 w2 w3\nbread a\n")
        assert short.stderr.endswith(b"numba modules: 0\n"), short.stderr
    big = b"\n".join(lines * 6) + b"\n"
    for command in ("predict", "predict-prob"):
        whole = cli([command, path, "-", "2"], big)
        assert not whole.stderr.endswith(b"numba modules: 0\n")
        one = cli([command, path, "-", "2"], lines[0] + b"\n")
        assert whole.stdout.startswith(one.stdout)
