"""``-labelWeights`` and ``-weightBalanced`` end to end, for both
families: weight 1 everywhere trains the same weights as no weights, the
flags are saved (``dump args``), bad files are one-line errors."""

import numpy as np
import pytest

import treexc
from tests.cli_util import ok, user_error

LABELS = ("sports", "food", "music", "tech")


def weights_file(tmp_path, weights, name="weights.txt"):
    path = tmp_path / name
    path.write_text("".join(f"{'__label__' * (i % 2)}{label} {w}\n"
                            for i, (label, w) in enumerate(zip(LABELS, weights))))
    return str(path)


def node_arrays(model):
    return [a for scored in model.trees for a in
            (scored.weights.cols, scored.weights.slots, scored.weights.vals)]


EMBEDDING = dict(model="embedding", epoch=3, dim=8, thread=1, seed=5, verbose=0)


@pytest.mark.parametrize("loss", ["softmax", "hs", "ns", "ova", "plt", "tree"])
def test_embedding_weight_one_is_no_weights(tmp_path, topic_file, loss):
    data = topic_file(tmp_path / "train.txt")
    ones = weights_file(tmp_path, [1, 1, 1, 1])
    plain = treexc.train_supervised(input=data, loss=loss, **EMBEDDING)
    same = treexc.train_supervised(input=data, loss=loss, labelWeights=ones, **EMBEDDING)
    assert np.array_equal(plain.w_in, same.w_in) and np.array_equal(plain.w_out, same.w_out)
    other = treexc.train_supervised(input=data, loss=loss, weightBalanced=True, **EMBEDDING)
    assert not np.array_equal(plain.w_out, other.w_out)


def test_linear_weight_one_is_no_weights(tmp_path, topic_file):
    data = topic_file(tmp_path / "train.txt")
    flags = dict(arity=2, leafSize=2, thread=1, verbose=0)
    plain = treexc.train_supervised(input=data, **flags)
    same = treexc.train_supervised(input=data, labelWeights=weights_file(
        tmp_path, [1, 1, 1, 1]), **flags)
    assert all(np.array_equal(a, b) for a, b in zip(node_arrays(plain), node_arrays(same)))
    heavy = treexc.train_supervised(input=data, labelWeights=weights_file(
        tmp_path, [1, 8, 1, 1], "heavy.txt"), **flags)
    assert not all(np.array_equal(a, b) for a, b in zip(node_arrays(plain),
                                                        node_arrays(heavy)))


@pytest.mark.parametrize("family", [[], ["-model", "embedding", "-epoch", "2", "-dim", "8"]])
def test_flags_saved_and_shown_by_dump_args(tmp_path, topic_file, family):
    data = topic_file(tmp_path / "train.txt")
    out = tmp_path / "m"
    ok(["supervised", "-input", data, "-output", out, "-weightBalanced", "-verbose", "0",
        *family])
    shown = ok(["dump", f"{out}.bin", "args"]).stdout
    assert "weightBalanced" in shown
    wfile = weights_file(tmp_path, [2, 1, 1, 0.5])
    ok(["supervised", "-input", data, "-output", out, "-labelWeights", wfile, "-verbose", "0",
        *family])
    assert wfile in ok(["dump", f"{out}.bin", "args"]).stdout
    # prediction reads the model as ever
    assert ok(["predict", f"{out}.bin", "-"], input="ball goal team\n").stdout.startswith(
        "__label__")
    # a model without the flags does not save them (its header is what it was)
    ok(["supervised", "-input", data, "-output", out, "-verbose", "0", *family])
    assert "weightBalanced" not in ok(["dump", f"{out}.bin", "args"]).stdout


def test_weight_balanced_keeps_model_auto_linear(tmp_path, topic_file):
    data = topic_file(tmp_path / "train.txt")
    model = treexc.train_supervised(input=data, weightBalanced=True, verbose=0)
    assert hasattr(model, "trees")  # the linear family


@pytest.mark.parametrize("family", [[], ["-model", "embedding"]])
def test_bad_weights_file_is_one_line_naming_file_and_line(tmp_path, topic_file, family):
    data = topic_file(tmp_path / "train.txt")
    bad = tmp_path / "bad.txt"
    bad.write_text("__label__food 2\nmusic -3\n")
    user_error(["supervised", "-input", data, "-output", tmp_path / "m", "-labelWeights",
                bad, "-verbose", "0", *family], f"{bad}:2:", "finite and > 0")
    user_error(["supervised", "-input", data, "-output", tmp_path / "m", "-labelWeights",
                bad, "-weightBalanced", "-verbose", "0", *family], "give one")
    assert not (tmp_path / "m.bin").exists()


@pytest.mark.parametrize("loss", ["softmax", "plt"])
def test_weighted_runs_are_reproducible_with_one_thread(tmp_path, topic_file, loss):
    data = topic_file(tmp_path / "train.txt")
    wfile = weights_file(tmp_path, [0.3, 2.5, 1, 7])  # fractional: repetitions drawn
    files = []
    for run_ in range(2):
        out = tmp_path / f"m{run_}"
        ok(["supervised", "-input", data, "-output", out, "-model", "embedding", "-loss", loss,
            "-labelWeights", wfile, "-thread", "1", "-seed", "7", "-epoch", "2", "-dim", "8",
            "-verbose", "0"])
        files.append((tmp_path / f"m{run_}.bin").read_bytes())
    assert files[0] == files[1]
