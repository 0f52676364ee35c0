"""fastText 0.9.2 models read by treexc: predictions, probabilities,
neighbours, analogies, vectors and the Python members against fastText's
own answers on the same model, for every loss, with word n-grams and
character n-grams; damaged fastText files refused in one line."""

import struct

import numpy as np
import pytest
from cli_util import load_error, ok, user_error

import treexc
from treexc.errors import TreexcError

fasttext = pytest.importorskip("fasttext", reason="fasttext (fasttext-wheel) is not installed")

LOSSES = ("softmax", "hs", "ova", "ns")
FLAGS = dict(dim=16, epoch=8, lr=0.5, wordNgrams=2, minn=2, maxn=4, bucket=5000, thread=1,
             seed=3, verbose=0)


@pytest.fixture(scope="module")
def data(tmp_path_factory, word_label_file):
    folder = tmp_path_factory.mktemp("ftcompat")
    train = word_label_file(folder / "train.txt", 700, 400, n_labels=23, seed=1)
    test = word_label_file(folder / "test.txt", 150, 500, n_labels=23, seed=2)
    lines = test.read_text().splitlines()
    # unknown words, a lone label, an empty line, bytes that are not UTF-8
    lines += ["zzz yyy", "__label__3", "", "w1q w2q w1q w2q w3q", "caf\u00e9 w5q"]
    return folder, str(train), str(test), lines


@pytest.fixture(scope="module")
def models(data):
    """fastText model path, fastText model, treexc model of it, per loss
    (plus softmax without n-grams, and a saturated one-vs-all for ties)."""
    folder, train, _, _ = data
    out = {}
    cases = {loss: dict(FLAGS, loss=loss) for loss in LOSSES}
    cases["plain"] = dict(FLAGS, loss="softmax", wordNgrams=1, maxn=0)
    cases["ova-saturated"] = dict(FLAGS, loss="ova", lr=2.0, epoch=30)
    for name, flags in cases.items():
        ft = fasttext.train_supervised(train, **flags)
        path = str(folder / f"{name}.bin")
        ft.save_model(path)
        out[name] = (path, ft, treexc.load_model(path))
    return out


def fasttext_predict(ft, line, k, threshold=0.0):
    # FastText.predict fails with numpy 2 (np.array(copy=False)): its binding
    pairs = ft.f.predict(line + "\n", k, threshold, "strict")
    return [label for _, label in pairs], [prob for prob, _ in pairs]


@pytest.mark.slow
@pytest.mark.parametrize("name", [*LOSSES, "plain", "ova-saturated"])
def test_predictions_are_fasttexts_to_the_bit(models, data, name):
    _, ft, model = models[name]
    lines = data[3]
    ties = 0
    for k, threshold in ((1, 0.0), (5, 0.0), (-1, 0.0), (3, 0.05)):
        for line in lines:
            labels, probs = fasttext_predict(ft, line, k, threshold)
            got_labels, got_probs = model.predict(line, k=k, threshold=threshold)
            assert list(got_labels) == labels, (line, k, threshold)
            assert got_probs.tolist() == probs, (line, k, threshold)  # exact floats
            ties += len(probs) - len(set(probs))
    if name == "ova-saturated":  # the heap's order of equal scores is exercised
        assert ties > 0


@pytest.mark.parametrize("name", LOSSES)
def test_test_is_fasttexts(models, data, name):
    _, ft, model = models[name]
    for k in (1, 3):
        assert model.test(data[2], k) == ft.test(data[2], k)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["hs", "ova"])
def test_converted_file_answers_the_same(models, data, tmp_path, name):
    path, ft, model = models[name]
    out = tmp_path / "converted.bin"
    ok(["convert", path, out])
    converted = treexc.load_model(str(out))
    for line in data[3]:
        assert converted.predict(line, k=4)[0] == model.predict(line, k=4)[0]
        assert (converted.predict(line, k=4)[1] == model.predict(line, k=4)[1]).all()
    ok(["check", out])
    # predict-prob prints fastText's probabilities with fastText's 6 digits
    text = "\n".join(data[3][:40]) + "\n"
    for model_path in (path, out):
        result = ok(["predict-prob", model_path, "-", "2"], input=text)
        expected = []
        for line in data[3][:40]:
            labels, probs = fasttext_predict(ft, line, 2)
            expected.append(" ".join(f"{a} {p:.6g}" for a, p in zip(labels, probs)))
        assert result.stdout.splitlines() == expected


@pytest.mark.slow
@pytest.mark.parametrize("name", ["softmax", "hs", "plain"])
def test_neighbours_and_analogies_are_fasttexts(models, name):
    _, ft, model = models[name]
    words = ft.get_words()
    queries = words[:40] + ["zzzunknown", "w3", "</s>", "__label__4", words[-1]]
    if name == "plain":  # no bucket rows: fastText reads a label's vector out of bounds
        queries.remove("__label__4")
    for word in queries:
        assert model.get_nearest_neighbors(word, k=7) == ft.get_nearest_neighbors(word, k=7)
    assert model.get_nearest_neighbors(words[0], k=10 ** 6) == \
        ft.get_nearest_neighbors(words[0], k=10 ** 6)
    for i in range(0, len(queries) - 2, 3):
        a, b, c = queries[i:i + 3]
        assert model.get_analogies(a, b, c, k=5) == ft.get_analogies(a, b, c, k=5)


@pytest.mark.parametrize("name", ["ns", "plain"])
def test_python_members_are_fasttexts(models, name):
    _, ft, model = models[name]
    words = ft.get_words()
    queries = words[:30] + ["zzzunknown", "w3", "</s>", "__label__4", "", "\u00e9t\u00e9"]
    if name == "plain":  # no bucket rows: fastText reads a label's vector out of bounds
        queries.remove("__label__4")
    for word in queries:
        assert np.abs(model.get_word_vector(word) - ft.get_word_vector(word)).max() <= 1e-5
        assert (model[word] == ft[word]).all()
        s1, i1 = ft.get_subwords(word)
        s2, i2 = model.get_subwords(word)
        assert s2 == s1 and i2.tolist() == i1.tolist()
        assert model.get_word_id(word) == ft.get_word_id(word)
        assert model.get_label_id(word) == ft.get_label_id(word)
        assert (word in model) == (word in ft)
        if name == "plain":  # no buckets: fastText divides by zero (SIGFPE)
            with pytest.raises(TreexcError, match="bucket"):
                model.get_subword_id(word)
        else:
            assert model.get_subword_id(word) == ft.get_subword_id(word)
    for text in ["w1q __label__2 w9q  __label__nope x", "a\tb\rc\x0bd", "", "__label__1"]:
        assert tuple(model.get_line(text)) == ft.get_line(text)
    assert tuple(model.get_line(["a b", "c __label__2"])) == \
        ft.get_line(["a b", "c __label__2"])
    w1, f1 = ft.get_words(include_freq=True)
    w2, f2 = model.get_words(include_freq=True)
    assert w2 == w1 and f2.tolist() == f1.tolist()
    l1, c1 = ft.get_labels(include_freq=True)
    l2, c2 = model.get_labels(include_freq=True)
    assert l2 == l1 and c2.tolist() == c1.tolist()
    assert model.words == ft.words and model.labels == ft.labels
    assert model.get_dimension() == ft.get_dimension()
    assert (model.get_input_matrix() == ft.get_input_matrix()).all()
    assert (model.get_output_matrix() == ft.get_output_matrix()).all()
    for row in (0, 7, model.get_input_matrix().shape[0] - 1):
        assert (model.get_input_vector(row) == ft.get_input_vector(row)).all()
    for text in ["w1q w2q", "zzz", ""]:
        assert np.abs(model.get_sentence_vector(text) - ft.get_sentence_vector(text)).max() \
            <= 1e-5


def test_hs_output_rows_are_fasttexts_inner_nodes(models):
    _, ft, model = models["hs"]
    ft_rows = ft.get_output_matrix()[:len(ft.labels) - 1]
    ours = model.get_output_matrix()[0::2]  # a binary node's sigmoid row
    assert sorted(map(tuple, ours.tolist())) == sorted(map(tuple, ft_rows.tolist()))


def _format(pairs):
    return "".join(f"{w} {s:.6g}\n" for s, w in pairs)


def test_nn_analogies_print_ngrams_commands(models):
    path, ft, _ = models["softmax"]
    words = ft.get_words()
    result = ok(["nn", path, "4"], input=f"{words[1]} {words[2]}\nzzz\n")
    expected = "Query word? " + "".join(
        _format(ft.get_nearest_neighbors(w, 4)) + "Query word? "
        for w in (words[1], words[2], "zzz"))
    assert result.stdout == expected
    result = ok(["analogies", path, "3"], input=f"{words[1]} {words[2]}\n{words[3]}\n")
    expected = (f"Loading model {path}\nQuery triplet (A - B + C)? "
                + _format(ft.get_analogies(words[1], words[2], words[3], 3))
                + "Query triplet (A - B + C)? ")
    assert result.stdout == expected
    user_error(["analogies", path, "0"], "k 0")
    user_error(["nn", path, "0"], "k 0")
    # an unfinished triplet at the end of the input gets a warning, not silence
    result = ok(["analogies", path, "3"], input=f"{words[1]} {words[2]}\n")
    assert result.stdout == f"Loading model {path}\nQuery triplet (A - B + C)? "
    assert result.stderr == (f"treexc: warning: the input ended inside a triplet ({words[1]} "
                             f"{words[2]}): no answer for it; analogies reads three words a query\n")
    result = ok(["print-ngrams", path, words[1]])
    subwords, ids = ft.get_subwords(words[1])
    matrix = ft.get_input_matrix()
    expected = "".join(s + " " + "".join(f"{x:.5g} " for x in matrix[i].tolist()) + "\n"
                       for s, i in zip(subwords, ids))
    assert result.stdout == expected


# -- damaged and foreign files -----------------------------------------------------------

def test_truncated_fasttext_files_are_refused(models, tmp_path):
    raw = open(models["hs"][0], "rb").read()
    path = tmp_path / "cut.bin"
    header = 8 + 56 + 28
    for size in (4, 7, 12, 60, header - 1, header + 3, header + 500, len(raw) // 2,
                 len(raw) - 4 * 16 - 1, len(raw) - 1):
        path.write_bytes(raw[:size])
        message = load_error(path)
        assert "truncated fastText model" in message or "not a" in message, (size, message)
    path.write_bytes(raw + b"\0\0\0")
    assert "3 bytes after the output matrix" in load_error(path)
    user_error(["predict", path, "-"], "after the output matrix", input="a b\n")
    user_error(["convert", path, tmp_path / "out.bin"], "after the output matrix")


def test_foreign_fasttext_files_are_refused(models, tmp_path):
    raw = bytearray(open(models["softmax"][0], "rb").read())
    path = tmp_path / "bad.bin"

    def variant(offset, fmt, value):
        changed = bytearray(raw)
        struct.pack_into(fmt, changed, offset, value)
        path.write_bytes(bytes(changed))
        return load_error(path)

    assert "version 13" in variant(4, "<i", 13)
    # args.model: read as a cbow model, whose output matrix has a row per word
    assert "matrices of" in variant(8 + 7 * 4, "<i", 1)
    assert "loss 9" in variant(8 + 6 * 4, "<i", 9)
    assert "dim 0" in variant(8, "<i", 0)
    assert "dictionary of" in variant(8 + 56, "<i", -5)
    assert "pruned" in variant(8 + 56 + 20, "<q", 3)
    # the quantised flag follows the dictionary; find it from the input matrix's shape
    model = models["softmax"][2]
    rows, dim = model.get_input_matrix().shape
    at = bytes(raw).find(struct.pack("<qq", rows, dim)) - 1
    assert "quantised fastText model (.ftz)" in variant(at, "<?", True)
