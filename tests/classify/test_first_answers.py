"""The first answers of predict without Numba (classify/firstlines.py): the
same bytes as the kernels' for every loss, the same refusals of bad model
files, and no Numba imported by a short prediction."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import treexc
from treexc.classify import firstlines
from treexc.classify.model import load_model
from treexc.classify.predict import format_predictions, label_names
from treexc.errors import TreexcError

IO_TESTS = Path(__file__).resolve().parent.parent / "io"  # test_model_mutation's folder

LOSSES = {"softmax": dict(loss="softmax"), "hs": dict(loss="hs"),
          "hs4": dict(loss="hs", arity=4),
          # the tree's own answers: these even labels would get -scoring mean
          "tree": dict(loss="tree", arity=4, treeUpdates=2, scoring="tree"),
          "ova": dict(loss="ova"), "ns": dict(loss="ns", neg=3),
          "plt": dict(loss="plt", arity=4), "plt_learned": dict(loss="plt", tree="learned",
                                                               arity=5, treeUpdates=2)}
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


def kernel_answer(model, piece, k, threshold, with_prob, names):
    corpus_ = model.encode_text(np.frombuffer(piece, dtype=np.uint8))
    return format_predictions(names, *model.predict_corpus(corpus_, k, threshold), with_prob)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(LOSSES))
def test_same_answers_as_the_kernels(models, name):
    model = load_model(models[name])
    first = firstlines.load(models[name])
    names = label_names(first.labels)
    assert first.labels == model.get_labels()
    lines = probe_lines()
    for k, threshold in QUERIES:
        # six printed digits are rarely decided (firstlines.py): fewer queries
        for with_prob in (False, True) if k in (1, 2) else (False,):
            decided = 0
            for i, line in enumerate(lines):
                piece = line if i % 7 == 0 else line + b"\n"  # some without newline
                answer = first.predict(piece, k, threshold, with_prob)
                if answer is None:
                    continue
                decided += 1
                got = format_predictions(names, *answer, with_prob)
                assert got == kernel_answer(model, piece, k, threshold, with_prob, names), \
                    (name, k, threshold, with_prob, line)
            if not with_prob and k == 1:
                assert decided >= 0.9 * len(lines), (name, decided)
            print(name, k, threshold, with_prob, f"{decided}/{len(lines)} decided")
    piece = b"\n".join(lines[:20]) + b"\n"
    answer = first.predict(piece, 1, 0.0, False)
    if answer is not None:
        assert (format_predictions(names, *answer, False)
                == kernel_answer(model, piece, 1, 0.0, False, names))


def test_two_readings_are_answered_by_the_kernels(models, tmp_path):
    """A -scoring mean model (loss.topk.mean_top_k) is not mirrored in numpy:
    its first answers come from the kernels, the same as later ones."""
    model = load_model(models["tree"])
    model.scoring = "mean"
    model.save_model(str(tmp_path / "mean.bin"))
    first = firstlines.load(str(tmp_path / "mean.bin"))
    assert first.predict(b"w3 w4\n", 1, 0.0, False) is None
    names = label_names(first.labels)
    piece = b"\n".join(probe_lines()[:20]) + b"\n"
    mean, tree = (kernel_answer(m, piece, 3, 0.0, True, names)
                  for m in (load_model(str(tmp_path / "mean.bin")), load_model(models["tree"])))
    assert mean != tree


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
        names = label_names(first.labels)
        piece = b"w1 w2 w3\nbread a\nzzz\n\n"
        answer = first.predict(piece, 3, 0.0, True)
        if answer is not None:
            assert (format_predictions(names, *answer, True)
                    == kernel_answer(model, piece, 3, 0.0, True, names))
        outcomes["loaded"] += 1
    print(outcomes)
    assert outcomes["refused"] > 100 and outcomes["loaded"] > 10


SYS_MODULES = """
import atexit, sys
def report():
    loaded = [m for m in sys.modules if m == "numba" or m.startswith("numba.")]
    sys.stderr.write(f"numba modules: {len(loaded)}\\n")
atexit.register(report)
sys.argv = ["treexc"] + sys.argv[1:]
from treexc.cli.main import main
main()
"""


def cli(args, stdin):
    return subprocess.run([sys.executable, "-c", SYS_MODULES, *args], input=stdin,
                          capture_output=True, check=True)


def test_a_short_prediction_imports_no_numba(models):
    """One line through the CLI: numpy only.  A big input: the kernels take
    over, with the same answers."""
    path = models["hs"]
    lines = [line for line in probe_lines() if b"\x00" not in line]
    short = cli(["predict", path, "-"], b"w1 w2 w3\n")
    assert short.stderr.endswith(b"numba modules: 0\n")
    big = b"\n".join(lines * 6) + b"\n"
    for command in ("predict", "predict-prob"):
        whole = cli([command, path, "-", "2"], big)
        assert not whole.stderr.endswith(b"numba modules: 0\n")
        one = cli([command, path, "-", "2"], lines[0] + b"\n")
        assert whole.stdout.startswith(one.stdout)
