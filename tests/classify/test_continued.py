"""Continued training (``-inputModel``): new words and labels entering a
model, trees growing, the shape options refused, linear and unreadable
models refused in one line, fastText models continued, reproducibility."""

import numpy as np
import pytest
from cli_util import ok, user_error

import treexc
from treexc.trees import growth
from treexc.trees.builders import huffman_tree
from treexc.trees.capacity import CLASSIFIER_FLAGS
from treexc.trees.learner import remap_rows

FLAGS = dict(dim=12, epoch=10, lr=0.5, thread=1, seed=3, verbose=0)


def _lines(rng, n, labels, words, prefix="w"):
    """Lines whose label is given by their first word (``labels`` ids)."""
    out = []
    for _ in range(n):
        ids = rng.integers(0, words, size=6)
        label = labels[ids[0] % len(labels)]
        out.append(f"__label__{label} " + " ".join(f"{prefix}{i}q" for i in ids))
    return out


@pytest.fixture(scope="module")
def halves(tmp_path_factory):
    """``first.txt``: labels 0..5 over words w*q; ``second.txt``: the same
    kind of lines and lines of a new label ``fresh`` told by new words."""
    folder = tmp_path_factory.mktemp("continued")
    rng = np.random.default_rng(5)
    first = _lines(rng, 500, list(range(6)), 60)
    second = _lines(rng, 400, list(range(6)), 60)
    second += [f"__label__fresh n{i % 7}q n{(i + 3) % 7}q n{(i + 5) % 7}q"
               for i in range(120)]
    order = rng.permutation(len(second))
    (folder / "first.txt").write_text("\n".join(first) + "\n")
    (folder / "second.txt").write_text("\n".join(second[i] for i in order) + "\n")
    return folder


def _continue(folder, name, loss, **flags):
    first = treexc.train_supervised(str(folder / "first.txt"), loss=loss, **FLAGS)
    path = str(folder / f"{name}.bin")
    first.save_model(path)
    return first, treexc.train_supervised(str(folder / "second.txt"), inputModel=path,
                                          **dict(FLAGS, **flags))


@pytest.mark.parametrize("loss", ["softmax", "hs", "tree", "plt", "ova", "ns"])
def test_new_words_and_labels_enter_and_are_predicted(halves, loss, tmp_path):
    first, model = _continue(halves, f"first-{loss}", loss)
    assert model.args.loss == loss and model.args.dim == FLAGS["dim"]
    old_words, old_labels = first.get_words(), first.get_labels()
    words, labels = model.get_words(), model.get_labels()
    assert words[:len(old_words)] == old_words  # old ids kept, new words after
    assert set(words[len(old_words):]) == {f"n{i}q" for i in range(7)}
    assert labels == old_labels + ["__label__fresh"]
    if model.tree is not None:
        assert model.tree.n_labels == 7
    assert model.predict("n1q n4q n6q")[0] == ("__label__fresh",)
    # the saved model loads and predicts the same
    path = str(tmp_path / "continued.bin")
    model.save_model(path)
    loaded = treexc.load_model(path)
    assert loaded.predict("n1q n4q n6q", k=3)[0] == model.predict("n1q n4q n6q", k=3)[0]
    assert loaded.get_labels() == labels


def test_old_rows_kept_before_training(halves):
    """With no new data to learn from (a rate of almost 0) the continued
    model is the input model plus the new rows: old words' and buckets'
    input rows and the old labels' output rows unchanged."""
    first, model = _continue(halves, "first-frozen", "softmax", lr=1e-12, epoch=1)
    nw = len(first.get_words())
    assert np.allclose(model.w_in[:nw], first.w_in[:nw], atol=1e-6)
    assert np.allclose(model.w_in[model.dictionary.nwords:], first.w_in[nw:], atol=1e-6)
    assert np.allclose(model.w_out[:first.nlabels], first.w_out, atol=1e-6)
    new = model.w_in[nw:model.dictionary.nwords]
    assert (np.abs(new) <= 1.0 / FLAGS["dim"]).all() and new.std() > 0


def test_reproducible_with_one_thread(halves, tmp_path):
    for run in ("a", "b"):
        ok(["supervised", "-input", halves / "first.txt", "-output", tmp_path / f"f{run}",
            "-loss", "tree", "-dim", "8", "-epoch", "3", "-thread", "1", "-seed", "4",
            "-verbose", "0"])
        ok(["supervised", "-input", halves / "second.txt", "-inputModel",
            tmp_path / f"f{run}.bin", "-output", tmp_path / f"c{run}", "-epoch", "3",
            "-thread", "1", "-seed", "4", "-verbose", "0"])
    assert (tmp_path / "ca.bin").read_bytes() == (tmp_path / "cb.bin").read_bytes()
    assert (tmp_path / "ca.vec").read_bytes() == (tmp_path / "cb.vec").read_bytes()


def test_shape_options_are_refused_when_they_differ(halves, tmp_path):
    first = str(halves / "shape.bin")
    treexc.train_supervised(str(halves / "first.txt"), loss="tree", **FLAGS).save_model(first)
    base = ["supervised", "-input", halves / "second.txt", "-inputModel", first,
            "-output", tmp_path / "m", "-verbose", "0"]
    for flag, value in (("-dim", "20"), ("-loss", "softmax"), ("-wordNgrams", "2"),
                        ("-arity", "3"), ("-minn", "2"), ("-maxDepth", "3")):
        user_error(base + [flag, value], flag, first, "the input model's")
    # the same values, or automatic ones, are accepted
    ok(base + ["-dim", "12", "-loss", "tree", "-epoch", "1"])
    ok(base + ["-loss", "auto", "-arity", "0", "-epoch", "1"])
    assert not (tmp_path / "x.bin").exists()


def test_unreadable_and_linear_models_are_refused(halves, tmp_path):
    base = ["supervised", "-input", halves / "second.txt", "-output", tmp_path / "m"]
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(b"not a model at all" * 10)
    user_error(base + ["-inputModel", garbage], str(garbage))
    user_error(base + ["-inputModel", tmp_path / "missing.bin"], "missing.bin")
    linear = tmp_path / "linear.bin"
    ok(["supervised", "-input", halves / "first.txt", "-output", tmp_path / "linear",
        "-model", "linear", "-verbose", "0"])
    user_error(base + ["-inputModel", linear], "linear model cannot be trained further",
               "together")
    first = tmp_path / "emb"
    ok(["supervised", "-input", halves / "first.txt", "-output", first, "-dim", "8",
        "-epoch", "1", "-wordNgrams", "2", "-bucket", "300", "-verbose", "0"])
    user_error(base + ["-inputModel", f"{first}.bin", "-model", "linear"], "-model linear")
    user_error(base + ["-inputModel", f"{first}.bin", "-C", "2"], "-C")
    user_error(["supervised", "-input", "-", "-output", tmp_path / "m", "-inputModel",
                f"{first}.bin"], "standard input", input="__label__a b\n")
    ok(["quantize", "-output", first])
    user_error(base + ["-inputModel", f"{first}.ftz"], "quantised")
    assert not (tmp_path / "m.bin").exists()


def test_input_model_spellings(halves, tmp_path):
    first = str(tmp_path / "first.bin")
    treexc.train_supervised(str(halves / "first.txt"), **FLAGS).save_model(first)
    a = treexc.train_supervised(str(halves / "second.txt"), input_model=first, **FLAGS)
    b = treexc.train_supervised(str(halves / "second.txt"), inputModel=first, **FLAGS)
    assert np.array_equal(a.w_in, b.w_in) and np.array_equal(a.w_out, b.w_out)
    with pytest.raises(treexc.TreexcError, match="same option"):
        treexc.train_supervised(str(halves / "second.txt"), inputModel=first,
                                input_model=first)


def test_a_fasttext_model_is_continued(halves, tmp_path):
    fasttext = pytest.importorskip("fasttext", reason="fasttext (fasttext-wheel) is not "
                                                      "installed")
    for loss in ("softmax", "hs", "ova"):
        ft = fasttext.train_supervised(str(halves / "first.txt"), loss=loss, dim=12, epoch=10,
                                       lr=0.5, thread=1, seed=3, wordNgrams=2, bucket=5000,
                                       minn=2, maxn=3, verbose=0)
        path = str(tmp_path / f"ft-{loss}.bin")
        ft.save_model(path)
        model = treexc.train_supervised(str(halves / "second.txt"), inputModel=path, **FLAGS)
        assert model.args.wordNgrams == 2 and model.args.bucket == 5000
        assert model.args.maxn == 3 and model.scoring == ""  # treexc's arithmetic now
        assert model.get_labels()[:6] == list(ft.get_labels())
        assert model.get_labels()[-1] == "__label__fresh"
        assert model.predict("n1q n4q n6q")[0] == ("__label__fresh",)
        user_error(["supervised", "-input", halves / "second.txt", "-inputModel", path,
                    "-output", tmp_path / "m", "-dim", "100"], "-dim", path)


def test_grafted_tree_keeps_old_nodes():
    """A fixed tree's new labels replace its rarest leaf by a Huffman tree
    over it and them; every old node keeps its place and its rows."""
    counts = np.array([50, 30, 20, 10, 5], dtype=np.float64)
    tree = huffman_tree(counts, 2)
    grown, old_id = growth.grafted(tree, np.concatenate([counts, [7, 3]]))
    assert grown.n_labels == 7 and grown.n_internal == tree.n_internal + 2
    rare = 4
    for label in range(5):  # old labels' paths unchanged, but the rarest one's
        a, b = tree.path_off[label], tree.path_off[label + 1]
        c, d = grown.path_off[label], grown.path_off[label + 1]
        if label == rare:
            assert d - c > b - a
            assert (grown.path_slot[c:c + b - a] == tree.path_slot[a:b]).all()
        else:
            assert (grown.path_slot[c:d] == tree.path_slot[a:b]).all()
    w = np.arange(tree.n_internal * 2 * 3, dtype=np.float32).reshape(-1, 3)
    moved = remap_rows(w, old_id, 2, tree.n_internal)
    kept = old_id >= 0
    assert kept.sum() == tree.n_internal
    assert (moved[np.repeat(np.flatnonzero(kept), 2) * 2 + np.tile([0, 1], kept.sum())]
            == w[np.repeat(old_id[kept], 2) * 2 + np.tile([0, 1], kept.sum())]).all()
    assert (moved[np.repeat(np.flatnonzero(~kept), 2) * 2 + np.tile([0, 1], 2)] == 0).all()


def test_assigned_places_new_labels_in_the_emptiest_child():
    """A learned tree's new labels, without statistics, go where
    AssignLabels puts such labels: the child with the fewest labels (here
    the root's empty slot); the old labels stay in their slots."""
    from treexc.trees.tree import tree_from_children
    # root: node 1 (labels 0, 1, 2) and node 2 (labels 3, 4); arity 3
    tree = tree_from_children(np.array([[6, 7, -1], [0, 1, 2], [3, 4, -1]]), 5)
    grown, old_id = growth.assigned(tree, np.ones(6), 0, 0.0, CLASSIFIER_FLAGS)
    assert growth.moved_labels(tree, grown) == 0
    c = grown.path_off[5]
    assert grown.path_off[6] - c == 1 and grown.path_slot[c] == 2
    assert old_id[0] == 0


def test_output_may_replace_the_input_model(halves, tmp_path):
    model = tmp_path / "daily"
    ok(["supervised", "-input", halves / "first.txt", "-output", model, "-dim", "8",
        "-epoch", "2", "-verbose", "0"])
    before = (tmp_path / "daily.bin").read_bytes()
    ok(["supervised", "-input", halves / "second.txt", "-inputModel", f"{model}.bin",
        "-output", model, "-epoch", "2", "-verbose", "0"])
    assert (tmp_path / "daily.bin").read_bytes() != before
    assert treexc.load_model(f"{model}.bin").get_labels()[-1] == "__label__fresh"


def test_a_full_tree_under_a_depth_limit_is_refused(halves, tmp_path):
    first = tmp_path / "full"
    ok(["supervised", "-input", halves / "first.txt", "-output", first, "-loss", "tree",
        "-arity", "6", "-depth", "1", "-dim", "8", "-epoch", "1", "-verbose", "0"])
    user_error(["supervised", "-input", halves / "second.txt", "-inputModel", f"{first}.bin",
                "-output", tmp_path / "m", "-verbose", "0"], f"{first}.bin", "holds 6 labels", "7",
               "train a new model")
