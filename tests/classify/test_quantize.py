"""treexc quantize: pruning, product quantisation, the .ftz format, loading."""

import hashlib
import struct

import numpy as np
import pytest
from cli_util import ok, user_error

from treexc import TreexcError
from treexc.classify import firstlines
from treexc.classify.quantize import quantize as quantize_module
from treexc.classify.model import load_model
from treexc.classify.predict import stream_predictions
from treexc.classify.quantize.matrix import product_quantize, select_rows
from treexc.io import modelfile
from treexc.io.textio import read_text
from treexc.text.pruned import PrunedDictionary, prune

FLAGS = ["-dim", "16", "-wordNgrams", "2", "-bucket", "20000", "-thread", "1",
         "-verbose", "0", "-seed", "3"]


@pytest.fixture(scope="module")
def topics(tmp_path_factory, topic_file):
    """A softmax model on 2,000 topic lines (4 labels), and its training file."""
    folder = tmp_path_factory.mktemp("quantize")
    train = topic_file(folder / "train.txt", n=2000)
    ok(["supervised", "-input", train, "-output", folder / "m", "-epoch", "5", *FLAGS])
    return folder, train


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """A learned tree of 300 labels (arity 16: 320+ output rows, enough for
    -qout's 256 centroids), on lines of two words of their label and three
    shared ones."""
    folder = tmp_path_factory.mktemp("quantize_tree")
    rng = np.random.default_rng(0)
    lines = []
    for i in range(3000):
        label = int(rng.zipf(1.3)) % 300
        common = " ".join(f"c{j}" for j in rng.integers(0, 50, size=3))
        lines.append(f"__label__{label} a{label}x {common} b{label}x")
    train = folder / "train.txt"
    train.write_text("\n".join(lines) + "\n")
    ok(["supervised", "-input", train, "-output", folder / "t", "-epoch", "10",
        "-loss", "tree", "-arity", "16", "-lr", "0.5", *FLAGS])
    return folder, str(train)


def quantize(folder, name, *flags):
    ok(["quantize", "-output", folder / name, *flags])
    return folder / f"{name}.ftz"


def p_at_1(path, data):
    return load_model(path).test(data)[1]


@pytest.mark.slow
def test_smaller_and_close_to_the_original(topics):
    folder, train = topics
    ftz = quantize(folder, "m", "-input", train, "-cutoff", "400", "-retrain", "-qnorm",
                   "-thread", "1")
    bin_size, ftz_size = (folder / "m.bin").stat().st_size, ftz.stat().st_size
    assert ftz_size * 10 < bin_size, (ftz_size, bin_size)
    before, after = p_at_1(folder / "m.bin", train), p_at_1(ftz, train)
    assert before > 0.8 and abs(after - before) <= 0.03, (before, after)
    model = load_model(ftz)
    assert model.is_quantized() and not load_model(folder / "m.bin").is_quantized()
    assert model.w_in.shape == (400, 16) and isinstance(model.dictionary, PrunedDictionary)
    header = modelfile.load_header(ftz)
    assert header["quantization"] == {"dsub": 2, "qnorm": True, "qout": False,
                                      "cutoff": 400, "retrain": True, "pruned": True}
    assert ftz.read_bytes()[8:12] == struct.pack("<I", modelfile.QUANTIZED_VERSION)


@pytest.mark.slow
def test_quantisation_without_cutoff_decodes_close_rows(topics):
    folder, _ = topics
    ftz = quantize(folder, "m", "-dsub", "1")
    original, quantized = load_model(folder / "m.bin"), load_model(ftz)
    assert type(quantized.dictionary) is not PrunedDictionary
    rows = quantized.w_in.dense()
    assert rows.shape == original.w_in.shape
    # one centroid of 256 per column: the error is small against the weights
    err = np.abs(rows - original.w_in).mean()
    assert err < 0.05 * np.abs(original.w_in).mean(), err


@pytest.mark.slow
def test_the_tree_survives_exactly(tree, tmp_path):
    folder, train = tree
    ftz = quantize(folder, "t", "-input", train, "-cutoff", "3000", "-retrain", "-qout",
                   "-qnorm", "-thread", "1")
    original, quantized = load_model(folder / "t.bin"), load_model(ftz)
    assert np.array_equal(original.tree.children, quantized.tree.children)
    assert quantized.w_out_quantized is not None
    assert quantized.w_out.shape == original.w_out.shape
    # the tree printed by dump-tree is the same, node by node
    plain = [ok(["dump-tree", path, "-format", "json"]).stdout for path in (folder / "t.bin",
                                                                           ftz)]
    assert plain[0] == plain[1]
    ok(["dump-tree", ftz, "-input", train])  # statistics measured through decoded rows
    # ... and the quantised model predicts as well as the original
    before, after = p_at_1(folder / "t.bin", train), p_at_1(ftz, train)
    assert before > 0.5 and after >= before - 0.03, (before, after)


def test_cutoff_pruning_keeps_hashing(topics):
    """Rows kept by -cutoff are found again by hashing: a pruned dictionary
    encodes each line to exactly the kept ones of its original rows."""
    folder, train = topics
    model = load_model(folder / "m.bin")
    d, w = model.dictionary, np.asarray(model.w_in)
    rows = select_rows(w, 300, d.eos_id())
    assert d.eos_id() in rows  # </s> first, whatever its norm
    assert rows.max() >= d.nwords and rows.min() < d.nwords  # words and buckets kept
    pruned = prune(d, rows)
    assert pruned.words() == d.words()[:pruned.nwords] and pruned.labels() == d.labels()
    # only the kept words' bytes remain in the pool
    tiny = prune(d, np.array([d.eos_id(), d.nwords + 5]))
    assert tiny.words() == ["</s>"] and tiny.labels() == d.labels()
    assert len(tiny.pool) == tiny.entry_len.sum() < len(d.pool)
    assert tiny.kept_buckets.tolist() == [5]
    data = read_text(train)
    before, after = d.encode(data), pruned.encode(data)
    kept = np.zeros(len(w), dtype=bool)
    kept[rows] = True
    pruned_w = w[rows]
    n_bucket_features = 0
    for line in range(0, before.n_lines, 97):
        old = before.feats[before.feat_off[line]:before.feat_off[line + 1]]
        new = after.feats[after.feat_off[line]:after.feat_off[line + 1]]
        old = old[kept[old]]
        assert np.array_equal(w[old], pruned_w[new])  # same rows, same order
        n_bucket_features += int((new >= pruned.nwords).sum())
    assert n_bucket_features > 0  # kept n-gram buckets were found


def test_save_load_round_trip(topics, tmp_path):
    folder, train = topics
    model = load_model(folder / "m.bin")
    model.quantize(input=train, cutoff=300, retrain=True, qnorm=True, thread=1)
    model.save_model(tmp_path / "a.ftz")
    loaded = load_model(tmp_path / "a.ftz")
    lines = read_text(train).tobytes().decode().splitlines()[:200]
    assert model.predict(lines, k=2)[0] == loaded.predict(lines, k=2)[0]
    assert np.array_equal(np.concatenate(model.predict(lines, k=2)[1]),
                          np.concatenate(loaded.predict(lines, k=2)[1]))
    loaded.save_model(tmp_path / "b.ftz")
    assert (tmp_path / "a.ftz").read_bytes() == (tmp_path / "b.ftz").read_bytes()
    with pytest.raises(Exception, match="quantised already"):
        loaded.quantize()
    for refused in (loaded.get_input_matrix, lambda: loaded.get_input_vector(0),
                    lambda: loaded.set_matrices(None, None)):
        with pytest.raises(TreexcError, match="quantised"):
            refused()


def test_reproducible_with_one_thread_and_a_seed(topics):
    folder, train = topics
    digests = set()
    for _ in range(2):
        ftz = quantize(folder, "m", "-input", train, "-cutoff", "300", "-retrain", "-qnorm",
                       "-thread", "1")
        digests.add(hashlib.sha256(ftz.read_bytes()).hexdigest())
    # retraining encodes its text in one pass (a temporary token cache), so
    # standard input gives the same model
    ok(["quantize", "-output", folder / "m", "-input", "-", "-cutoff", "300", "-retrain",
        "-qnorm", "-thread", "1"], input=open(train, "rb").read())
    digests.add(hashlib.sha256(ftz.read_bytes()).hexdigest())
    assert len(digests) == 1
    # the k-means does not depend on the thread count
    w = np.random.default_rng(0).random((600, 8), dtype=np.float32)
    one, two = product_quantize(w, 2, True, 5, 1), product_quantize(w, 2, True, 5, 2)
    assert np.array_equal(one.codes, two.codes)
    assert np.array_equal(one.centroids, two.centroids)


def test_commands_load_a_quantised_model(topics):
    folder, train = topics
    ftz = quantize(folder, "m", "-input", train, "-cutoff", "300", "-qnorm")
    lines = "".join(open(train).readlines()[:20])
    predicted = ok(["predict", ftz, "-", "2"], input=lines).stdout.splitlines()
    assert len(predicted) == 20 and all(p.startswith("__label__") for p in predicted)
    assert len(ok(["predict-prob", ftz, train]).stdout.splitlines()) == 2000
    assert ok(["test", ftz, train]).stdout.startswith("N\t2000\n")
    assert "F1-Score" in ok(["test-label", ftz, train]).stdout
    assert f"format version {modelfile.QUANTIZED_VERSION}" in ok(["check", ftz]).stdout
    assert ok(["dump", ftz, "input"]).stdout.startswith("300 16\n")
    vector = ok(["print-word-vectors", ftz], input="ball\n").stdout.split()
    assert vector[0] == "ball" and len(vector) == 17
    assert len(ok(["print-sentence-vectors", ftz], input="ball goal\n").stdout.split()) == 16


def test_first_answers_leave_quantised_models_to_the_kernels(topics, tmp_path):
    """predict's numpy start-up path does not decode quantised rows: it hands
    the first line to the kernels, whose answers are the model's."""
    folder, _ = topics
    ftz = quantize(folder, "m", "-cutoff", "300", "-qnorm")
    piece = b"ball goal team\nbread cheese\n"
    assert firstlines.load(ftz).predict(piece, 1, 0.0) is None
    source = tmp_path / "in.txt"
    source.write_bytes(piece)
    handed = []

    def kernel_model(first):
        handed.append(first)
        return load_model(ftz, loaded=first.loaded)

    out = b"".join(stream_predictions(str(ftz), str(source), 1, 0.0, False, kernel_model))
    assert len(handed) == 1
    expected = load_model(ftz).predict(["ball goal team", "bread cheese"])[0]
    assert out.decode().split() == [labels[0] for labels in expected]


def test_bad_quantised_files_are_refused(topics, tmp_path):
    folder, _ = topics
    ftz = quantize(folder, "m", "-cutoff", "300", "-qnorm")
    raw = ftz.read_bytes()
    truncated = tmp_path / "truncated.ftz"
    truncated.write_bytes(raw[:len(raw) // 2])
    user_error(["test", truncated, "-"], "truncated.ftz", "truncated model file", input="")
    header, arrays = modelfile.load(ftz)
    arrays = dict(arrays)

    def refused(name, changed, *fragments):
        path = tmp_path / name
        modelfile.save(path, header, changed, version=modelfile.QUANTIZED_VERSION)
        user_error(["predict", path, "-"], name, "corrupt model", *fragments, input="x\n")

    kept = arrays["kept_buckets"].copy()
    kept[[0, 1]] = kept[[1, 0]]
    refused("unsorted.ftz", dict(arrays, kept_buckets=kept), "kept buckets")
    refused("codes.ftz", dict(arrays, in_codes=arrays["in_codes"][:-1]), "quantised matrix")
    refused("nan.ftz", dict(arrays, in_centroids=arrays["in_centroids"] * np.nan), "NaN")
    missing = {k: v for k, v in arrays.items() if k != "in_norm_codes"}
    refused("missing.ftz", missing, "in_norm_codes")
    # a reader of version 2 files only sees a newer format, not a corrupt one
    newer = tmp_path / "newer.ftz"
    newer.write_bytes(raw[:8] + struct.pack("<I", modelfile.NEWEST_VERSION + 1) + raw[12:])
    user_error(["test", newer, "-"], "newer", input="")


def test_version_3_files_are_still_read(topics, tmp_path):
    # version 3 wrote every array uncompressed; version 4 compresses all but
    # the codes, and is smaller for it
    folder, train = topics
    ftz = quantize(folder, "m", "-cutoff", "300", "-qnorm")
    header, arrays = modelfile.load(ftz)
    old = tmp_path / "v3.ftz"
    modelfile.save(old, header, arrays, version=3)
    assert old.stat().st_size > ftz.stat().st_size
    lines = ["ball goal team", "bread cheese"]
    assert load_model(old).predict(lines) == load_model(ftz).predict(lines)


def test_quantize_errors_are_one_line(topics, tmp_path):
    folder, _ = topics
    user_error(["quantize", "-output", folder / "m", "-cutoff", "300", "-retrain"],
               "-retrain needs -input")
    user_error(["quantize", "-output", folder / "m", "-cutoff", "100"], "100 rows",
               "raise -cutoff")
    user_error(["quantize", "-output", folder / "m", "-qout"], "-qout", "too few")
    user_error(["quantize", "-output", folder / "m", "-dsub", "17"], "-dsub 17")
    user_error(["quantize", "-output", tmp_path / "none"], "none.bin")


def test_too_few_rows_are_refused_before_retraining(topics, monkeypatch):
    """``-cutoff 100 -retrain`` was refused for its 100 rows only after the
    retraining (a minute with -thread 100000 on 3,000 lines)."""
    folder, train = topics
    monkeypatch.setattr(quantize_module, "_retrain",
                        lambda *args: pytest.fail("retrained before the row checks"))
    base = ["quantize", "-output", folder / "m", "-retrain", "-input", train]
    user_error(base + ["-cutoff", "100"], "100 rows", "raise -cutoff")
    user_error(base + ["-cutoff", "300", "-qout"], "-qout", "too few")


def test_python_quantize_refuses_values_of_the_wrong_type(topics):
    """``Model.quantize(thread=True)`` or ``cutoff=1.5`` failed with a
    TypeError deep in the kernels (after pruning or retraining)."""
    folder, train = topics
    for flags, message in [(dict(thread=True), "-thread True: must be an integer"),
                           (dict(cutoff=1.5), "-cutoff 1.5: must be an integer"),
                           (dict(dsub="2"), "-dsub '2': must be an integer"),
                           (dict(cutoff=300, retrain=True, input=str(train), epoch=1.5),
                            "-epoch 1.5: must be an integer")]:
        model = load_model(folder / "m.bin")
        with pytest.raises(TreexcError, match=message):
            model.quantize(**flags)
        assert not model.is_quantized()


def test_word_vectors_with_character_ngrams_need_the_original(topics, tmp_path):
    folder, train = topics
    ok(["supervised", "-input", train, "-output", tmp_path / "c", "-epoch", "1",
        "-maxn", "4", "-minn", "3", *FLAGS])
    ftz = quantize(tmp_path, "c", "-cutoff", "400")
    user_error(["print-word-vectors", ftz], "character n-grams", input="ball\n")
