"""The linear model end to end: the Python API, reproducibility, save and
load, the commands, and refused model files."""

import hashlib
import json
import struct

import numpy as np
import pytest
from cli_util import ok, run, user_error

import treexc
from treexc.io import modelfile
from treexc.linear.plan import EVEN_LABELS_ENSEMBLE

# two trees given: the fixture's four labels are equally frequent (rule even-labels)
FLAGS = dict(model="linear", thread=1, seed=3, arity=2, leafSize=2, ensemble=2)


@pytest.fixture(scope="module")
def work(tmp_path_factory, topic_lines):
    folder = tmp_path_factory.mktemp("linear")
    (folder / "train.txt").write_text("\n".join(topic_lines(300, 0)) + "\n")
    (folder / "test.txt").write_text("\n".join(topic_lines(80, 1)) + "\n")
    return folder


@pytest.fixture(scope="module")
def trained(work):
    model = treexc.train_supervised(str(work / "train.txt"), **FLAGS)
    model.save_model(str(work / "a.bin"))
    return model


def _sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def test_learns_the_topics(work, trained):
    n, p1, r1 = trained.test(str(work / "test.txt"))
    assert n == 80 and p1 > 0.9
    labels, probs = trained.predict("bread cheese dish", k=2)
    assert labels[0] == "__label__food" and probs[0] > probs[1] > 0
    many = trained.predict(["ball goal team", "song band drum"])
    assert [ls[0] for ls in many[0]] == ["__label__sport", "__label__music"]


def test_one_thread_and_a_seed_reproduce_the_file(work, trained):
    again = treexc.train_supervised(str(work / "train.txt"), **FLAGS)
    again.save_model(str(work / "b.bin"))
    assert _sha(work / "a.bin") == _sha(work / "b.bin")
    # nodes are independent, each with its own seed: threads change nothing
    two = treexc.train_supervised(str(work / "train.txt"), **dict(FLAGS, thread=2))
    two.save_model(str(work / "c.bin"))
    assert _sha(work / "a.bin") == _sha(work / "c.bin")
    other = treexc.train_supervised(str(work / "train.txt"), **dict(FLAGS, seed=4))
    other.save_model(str(work / "d.bin"))
    assert _sha(work / "a.bin") != _sha(work / "d.bin")


def test_save_load_round_trip(work, trained):
    loaded = treexc.load_model(str(work / "a.bin"))
    lines = ["ball goal team", "code bug test", "bread taste", "nothing known here"]
    a, b = trained.predict(lines, k=3), loaded.predict(lines, k=3)
    assert a[0] == b[0] and all(np.array_equal(x, y) for x, y in zip(a[1], b[1]))
    assert loaded.test(str(work / "test.txt"), 2) == trained.test(str(work / "test.txt"), 2)
    assert loaded.get_labels() == trained.get_labels()
    assert loaded.plan == trained.plan.header() and trained.plan.model.value == "linear"


def test_embedding_members_say_why(trained):
    with pytest.raises(treexc.TreexcError, match="linear model"):
        trained.get_word_vector("ball")


def test_auto_and_explicit_families(work):
    emb = treexc.train_supervised(str(work / "train.txt"), dim=4, epoch=1, thread=1)
    assert hasattr(emb, "get_word_vector") and emb.get_word_vector("ball").shape == (4,)
    lin = treexc.train_supervised(str(work / "train.txt"), thread=1)
    assert type(lin).__name__ == "LinearModel"
    with pytest.raises(treexc.TreexcError, match="-dim"):
        treexc.train_supervised(str(work / "train.txt"), model="linear", dim=4)
    with pytest.raises(treexc.TreexcError, match="-C"):
        treexc.train_supervised(str(work / "train.txt"), model="embedding", C=2.0)


def test_train_from_csr_arrays():
    rng = np.random.default_rng(0)
    n, d, n_labels = 200, 30, 6
    labels = rng.integers(0, n_labels, size=n)
    dense = rng.random((n, d)) * (rng.random((n, d)) < 0.2)
    dense[np.arange(n), labels] += 2.0  # column = label: learnable
    indptr = np.concatenate([[0], np.cumsum((dense != 0).sum(axis=1))])
    model = treexc.train_linear(indptr, np.nonzero(dense)[1], dense[dense != 0],
                                np.arange(n + 1), labels, thread=1, arity=2, leafSize=2)
    from treexc.linear.features import rows_from_arrays
    rows = rows_from_arrays(indptr, np.nonzero(dense)[1], dense[dense != 0],
                            np.arange(n + 1), labels)
    got, _, _ = model.predict_rows(rows, 1)
    assert (got[:, 0] == labels).mean() > 0.95
    assert model.get_labels() == [str(i) for i in range(n_labels)]
    with pytest.raises(treexc.TreexcError, match="indptr"):
        treexc.train_linear([0, 5], [1], [1.0], [0, 1], [0])


def test_training_follows_the_plan_of_the_label_counts(tmp_path):
    """Few-lined labels (rule few-lines): the model is trained, saved and
    answers with the plan's -C and -leafSize; a -C given is kept."""
    path = tmp_path / "few.txt"
    path.write_text("".join(f"__label__l{k} w{k} x{k} common\n" for k in range(40)
                            for _ in range(3)))
    model = treexc.train_supervised(str(path), model="linear", thread=1)
    assert (model.args.C, model.args.leafSize) == (2.0, 100)
    assert (model.plan.C.rule, model.plan.leaf_size.rule) == ("few-lines", "few-lines")
    model.save_model(str(tmp_path / "few.bin"))
    assert treexc.load_model(str(tmp_path / "few.bin")).args.C == 2.0
    given = treexc.train_supervised(str(path), model="linear", thread=1, C=0.5)
    assert (given.args.C, given.args.leafSize, given.plan.C.rule) == (0.5, 100, "given")
    # given arrays: their rows' labels counted
    rows = np.arange(120)
    arrays = treexc.train_linear(np.arange(121), rows % 7, np.ones(120), np.arange(121),
                                 rows // 3, thread=1)
    assert (arrays.args.C, arrays.plan.C.rule, arrays.plan.model.rule) == (2.0, "few-lines",
                                                                             "given")


def test_commands(work):
    model = work / "cli"
    ok(["supervised", "-input", work / "train.txt", "-output", model, "-thread", "1",
        "-verbose", "0", "-arity", "2", "-leafSize", "2"])
    assert (work / "cli.bin").exists() and not (work / "cli.vec").exists()
    out = ok(["test", work / "cli.bin", work / "test.txt", "1"]).stdout.split("\n")
    loaded = treexc.load_model(str(work / "cli.bin"))
    n, p, r = loaded.test(str(work / "test.txt"))
    assert out[0] == f"N\t{n}" and out[1] == f"P@1\t{p:.3g}"
    answers = ok(["predict-prob", work / "cli.bin", "-", "2", "0.0"],
                 input="ball goal\nbread\n").stdout.splitlines()
    assert len(answers) == 2 and answers[0].startswith("__label__sport ")
    kept = ok(["predict-prob", work / "cli.bin", "-", "-1", "0.3"],
              input="ball goal\n").stdout.split()
    assert kept and all(float(p) >= 0.3 for p in kept[1::2])  # the threshold applies
    assert len(kept) < 8
    assert ok(["predict", work / "cli.bin", "-"], input="x\n").stdout.count("\n") == 1
    assert "F1-Score" in ok(["test-label", work / "cli.bin", work / "test.txt"]).stdout
    args = ok(["dump", work / "cli.bin", "args"]).stdout.splitlines()
    assert "leafSize 2" in args
    # the plan, its first row the family, each default with its rule
    assert [line.split()[:4] for line in args if line.startswith("plan ")][:4] == [
        ["plan", "model", "linear", "auto-linear:"], ["plan", "tree", "kmeans", "kmeans-tree:"],
        ["plan", "arity", "2", "given:"], ["plan", "leaf_size", "2", "given:"]]
    assert "linear model" in ok(["check", work / "cli.bin"]).stdout
    assert "internal nodes" in ok(["dump-tree", work / "cli.bin"]).stdout
    user_error(["dump", work / "cli.bin", "output"], "linear model")
    user_error(["supervised", "-input", work / "train.txt", "-output", model, "-model",
                "linear", "-lr", "0.1"], "-lr")


def _rewrite(src, dst, change):
    header, arrays = modelfile.load(str(src))
    arrays = {name: np.array(a) for name, a in arrays.items()}
    change(header, arrays)
    modelfile.save(str(dst), header, arrays)


@pytest.mark.parametrize("change,what", [
    (lambda h, a: a["t0.slots"].__setitem__(0, 99), "slot"),
    (lambda h, a: a["t0.cols"].__setitem__(-1, 65535), "column"),
    (lambda h, a: a["t0.col_high"].__setitem__(0, -1), "col_high"),
    (lambda h, a: a.__setitem__("t0.col_high", a["t0.col_high"][1:]), "col_high"),
    (lambda h, a: a["t0.node_off"].__setitem__(1, 10 ** 9), "node_off"),
    (lambda h, a: a["t0.vals"].__setitem__(0, np.nan), "NaN"),
    (lambda h, a: a["kept"].__setitem__(0, 10 ** 9), "kept"),
    (lambda h, a: a.pop("t0.entry_len"), "entry_len"),
    (lambda h, a: a.__setitem__("t0.entry_len", a["t0.entry_len"].astype(np.int64)),
     "entry_len"),
    (lambda h, a: a["t0.entry_len"].__setitem__(0, 200), "entry_off"),
    (lambda h, a: h.__setitem__("weights", "tiny"), "weights"),
    (lambda h, a: h.__setitem__("n_trees", 3), "t2"),
    (lambda h, a: h["args"].__setitem__("beam", 0), "beam"),
    (lambda h, a: h.__setitem__("n_ids", 3), "n_ids"),
    (lambda h, a: h["plan"].pop("beam"), "plan"),
])
def test_bad_files_are_refused(work, trained, change, what):
    bad = work / "bad.bin"
    _rewrite(work / "a.bin", bad, change)
    line = user_error(["predict", bad, "-"], str(bad), input="ball\n")
    assert what in line
    user_error(["test", bad, work / "test.txt"], "corrupt")


def test_weights_are_stored_compact(work, trained):
    raw = open(work / "a.bin", "rb").read()
    assert raw[8:12] == struct.pack("<I", modelfile.COMPACT_LINEAR_VERSION)
    header, arrays = modelfile.load(str(work / "a.bin"))
    assert header["weights"] == "compact"
    assert arrays["t0.slots"].dtype == np.uint8 and arrays["t0.entry_len"].dtype == np.uint8
    assert arrays["t0.vals"].dtype == np.float16 and arrays["t0.cols"].dtype == np.uint16
    w = trained.trees[0].weights  # the trained weights are float16 values already
    assert np.array_equal(arrays["t0.vals"].astype(np.float32), w.vals)
    assert np.array_equal(arrays["t0.cols"], w.cols)  # columns below 65536: no high bits
    assert np.array_equal(arrays["t0.col_high"], np.diff(w.node_off))
    assert np.array_equal(np.cumsum(arrays["t0.entry_len"]), w.entry_off[1:])


def test_columns_split_into_low_and_high_bits():
    from treexc.linear.stored import joined_columns, split_columns
    node_off = np.array([0, 3, 3, 6], dtype=np.int64)  # a node without columns between
    cols = np.array([5, 70000, 200000, 1, 65535, 65536], dtype=np.int32)
    parts = split_columns(node_off, cols)
    assert parts["cols"].dtype == np.uint16 and len(parts["col_high"]) == 3 * 4
    assert np.array_equal(joined_columns(node_off, parts["cols"], parts["col_high"]), cols)
    with pytest.raises(ValueError, match="col_high"):
        joined_columns(node_off, parts["cols"], parts["col_high"][:-1])


def test_whole_columns_of_the_compact_layout_are_read(work, trained):
    """A compact file of format version 5, its columns whole int32 (no
    ``col_high``), loads as it was."""
    header, arrays = modelfile.load(str(work / "a.bin"))
    arrays = dict(arrays)
    for t in range(header["n_trees"]):
        arrays[f"t{t}.cols"] = trained.trees[t].weights.cols.astype(np.int32)
        arrays.pop(f"t{t}.col_high")
    modelfile.save(str(work / "whole.bin"), header, arrays, version=5)  # that layout's
    whole = treexc.load_model(str(work / "whole.bin"))
    lines = ["ball goal team", "code bug test", "bread taste"]
    a, b = trained.predict(lines, k=3), whole.predict(lines, k=3)
    assert a[0] == b[0] and all(np.array_equal(x, y) for x, y in zip(a[1], b[1]))


def test_weights_of_the_earlier_layout_are_read(work, trained):
    """A file of the layout before the compact one (int64 column offsets,
    int32 slots, float32 weights, format version 2) loads as it was."""
    header, arrays = modelfile.load(str(work / "a.bin"))
    arrays = dict(arrays)
    header.pop("weights")
    for t in range(header["n_trees"]):
        counts = arrays.pop(f"t{t}.entry_len")
        arrays[f"t{t}.entry_off"] = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        arrays[f"t{t}.slots"] = arrays[f"t{t}.slots"].astype(np.int32)
        arrays[f"t{t}.vals"] = arrays[f"t{t}.vals"].astype(np.float32)
        arrays[f"t{t}.cols"] = trained.trees[t].weights.cols.astype(np.int32)
        arrays.pop(f"t{t}.col_high")
    modelfile.save(str(work / "old.bin"), header, arrays)
    old = treexc.load_model(str(work / "old.bin"))
    lines = ["ball goal team", "code bug test", "bread taste"]
    a, b = trained.predict(lines, k=3), old.predict(lines, k=3)
    assert a[0] == b[0] and all(np.array_equal(x, y) for x, y in zip(a[1], b[1]))
    arrays["t0.slots"] = arrays["t0.slots"].astype(np.uint8)  # not the old layout's
    modelfile.save(str(work / "mixed.bin"), header, arrays)
    user_error(["predict", work / "mixed.bin", "-"], "slots", input="ball\n")


def test_large_weights_keep_float32(work, trained):
    from treexc.linear.node_training import stored_values
    from treexc.linear.stored import compact_weights
    vals = np.array([0.3, -1e5, 2.0], dtype=np.float32)
    assert np.array_equal(stored_values(vals), vals)
    w = trained.trees[0].weights
    big = type(w)(w.node_off, w.cols, w.entry_off, w.slots,
                  np.where(np.arange(len(w.vals)) == 0, np.float32(1e5), w.vals))
    assert compact_weights(big)["vals"].dtype == np.float32
    assert compact_weights(w)["vals"].dtype == np.float16


def test_damaged_bytes_are_refused(work, trained):
    data = bytearray(open(work / "a.bin", "rb").read())
    data[len(data) // 2] ^= 0xFF
    (work / "flipped.bin").write_bytes(bytes(data))
    user_error(["test", work / "flipped.bin", work / "test.txt"], "flipped.bin")


def test_trees_as_planned_one_for_one_vs_rest(work, trained):
    assert len(trained.trees) == 2  # -ensemble 2
    assert trained.trees[0].tree.n_internal > 1
    flags = {k: v for k, v in FLAGS.items() if k != "ensemble"}
    planned = treexc.train_supervised(str(work / "train.txt"), **flags)
    assert (len(planned.trees), planned.plan.ensemble.rule) == (EVEN_LABELS_ENSEMBLE,
                                                               "even-labels")
    one = treexc.train_supervised(str(work / "train.txt"),
                                  **dict(FLAGS, leafSize=1000, ensemble=3))
    assert len(one.trees) == 1 and one.trees[0].tree.n_internal == 1


def test_ensemble_and_learned_tree(work):
    train = str(work / "train.txt")
    ens = treexc.train_supervised(train, **dict(FLAGS, ensemble=2))
    assert len(ens.trees) == 2 and ens.test(str(work / "test.txt"))[1] > 0.9
    ens.save_model(str(work / "ens.bin"))
    back = treexc.load_model(str(work / "ens.bin"))
    lines = ["ball goal", "song drum", "bread"]
    assert back.predict(lines, k=2)[0] == ens.predict(lines, k=2)[0]
    labels, probs = ens.predict("ball goal team", k=4)
    assert list(probs) == sorted(probs, reverse=True) and probs[0] <= 1.0
    learned = treexc.train_supervised(train, **dict(FLAGS, tree="learned", treeUpdates=2))
    assert learned.test(str(work / "test.txt"))[1] > 0.9
    depths = learned.tree.depths()
    assert (depths == depths[0]).all()  # the depth kept, every label at it
    learned.save_model(str(work / "l1.bin"))
    treexc.train_supervised(train, **dict(FLAGS, tree="learned", treeUpdates=2)).save_model(
        str(work / "l2.bin"))
    assert _sha(work / "l1.bin") == _sha(work / "l2.bin")


def test_dask_worker_answers_as_predict(work, trained):
    dask = pytest.importorskip("treexc.dask")
    text = b"ball goal\nbread cheese\nsong\n"
    want = ok(["predict-prob", work / "a.bin", "-", "2"], input=text.decode()).stdout
    assert dask.answer_text(str(work / "a.bin"), text, 2, 0.0, True).decode() == want


def test_a_file_of_before_the_roots_cap_says_it_had_none(work, trained):
    """A file whose options lack -rootMaxIter was trained with every node at
    -maxIter: it loads with rootMaxIter = maxIter, where a new file keeps
    its own."""
    def shown(path):
        lines = ok(["dump", path, "args"]).stdout.splitlines()
        return dict(line.split(None, 1) for line in lines if "axIter" in line)

    assert shown(work / "a.bin") == {"maxIter": "20", "rootMaxIter": "5"}
    header, arrays = modelfile.load(str(work / "a.bin"))
    header["args"].pop("rootMaxIter")
    header["args"]["maxIter"] = 7
    modelfile.save(str(work / "before_cap.bin"), header, dict(arrays))
    assert shown(work / "before_cap.bin") == {"maxIter": "7", "rootMaxIter": "7"}
