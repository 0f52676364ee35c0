"""Word and sentence vectors against the .vec file and fastText 0.9.2.

A word's vector is the mean of its own input row and its character n-gram
rows (with -maxn), never word n-grams (with -wordNgrams 2, the hashed row
of the bigram "word </s>" must not be mixed in).  The oracle is
fastText itself: a treexc model built on fastText's own dictionary and input
matrix must give fastText's get_word_vector and get_sentence_vector.
"""

import gzip
from pathlib import Path

import numpy as np
import pytest
from cli_util import ok

import treexc
from treexc.classify.model import Model
from treexc.classify.options import Args
from treexc.io.vectors import write_vec, write_vec_arrays
from treexc.text.dictionary import Dictionary

try:
    import fasttext
except ImportError:  # the wheel exists for x86-64 Linux, Python < 3.13
    fasttext = None

needs_fasttext = pytest.mark.skipif(fasttext is None,
                                    reason="fasttext (fasttext-wheel) is not installed")

ROOT = Path(__file__).resolve().parents[2]
UNKNOWN = ["zzqx", "breadd", "h\u00e9llo", "qj"]


@pytest.fixture(scope="module")
def cooking(tmp_path_factory):
    """The first 1,500 lines of the cooking tutorial data."""
    with gzip.open(ROOT / "examples" / "cooking.train.txt.gz", "rt", encoding="utf-8") as f:
        lines = [next(f) for _ in range(1500)]
    path = tmp_path_factory.mktemp("wv") / "train.txt"
    path.write_text("".join(lines), encoding="utf-8")
    return path


def read_vec(path):
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    n, dim = map(int, lines[0].split())
    rows = {}
    for line in lines[1:]:
        parts = line.rstrip(" ").split(" ")
        assert len(parts) == dim + 1
        rows[parts[0]] = np.array([float(x) for x in parts[1:]], dtype=np.float32)
    assert len(rows) == n
    return rows


def train_cli(cooking, tmp_path, *flags):
    out = tmp_path / "m"
    ok(["supervised", "-input", cooking, "-output", out, "-dim", "8", "-epoch", "3",
        "-lr", "0.5", "-bucket", "20000", "-thread", "1", "-seed", "1", "-verbose", "0",
        "-wordNgrams", "2", *flags])
    return out


@pytest.mark.parametrize("subwords", [[], ["-minn", "2", "-maxn", "4"]],
                         ids=["words", "char-ngrams"])
def test_word_vectors_are_the_vec_rows(cooking, tmp_path, subwords):
    out = train_cli(cooking, tmp_path, *subwords)
    model = treexc.load_model(f"{out}.bin")
    vec = read_vec(f"{out}.vec")
    words = model.get_words()
    assert len(vec) == len(words)
    # the .vec is written a block of rows at a time: a block is the whole's slice
    names, block = model.word_rows(3, 40)
    assert names == words[3:40] and np.array_equal(block, model.word_vectors()[3:40])
    # the word n-gram rows are trained: mixing one in changes the vector
    for word in ["bread", "the", "how", words[-1], "</s>"]:
        assert np.allclose(model.get_word_vector(word), vec[word], rtol=2e-4, atol=1e-6), word
    if not subwords:  # a word's vector is its own row
        wid = model.dictionary.word_id("bread")
        assert np.array_equal(model.get_word_vector("bread"), model.w_in[wid])
        for word in UNKNOWN:
            assert not model.get_word_vector(word).any(), word  # fastText: zeros
    else:
        for word in UNKNOWN:
            assert model.get_word_vector(word).any(), word  # its character n-grams

    text = "how to bake bread\nzzqx the </s> bread\n"
    printed = ok(["print-word-vectors", f"{out}.bin"], input=text).stdout.splitlines()
    assert [line.split(" ")[0] for line in printed] == text.split()
    for line in printed:
        word, *values = line.rstrip(" ").split(" ")
        expected = model.get_word_vector(word)
        assert values == [f"{x:.5g}" for x in expected.tolist()]
        if word in vec:
            assert np.allclose(np.array(values, dtype=np.float32), vec[word], rtol=2e-4)


def test_vec_files_are_written_a_block_at_a_time(tmp_path):
    """write_vec asks for ~50K values at a time, never the whole matrix."""
    dim = 20000  # two rows a block
    vectors = np.random.default_rng(0).standard_normal((5, dim)).astype(np.float32)
    words = ["a", "b", "c", "d", "e"]
    asked = []

    def rows(start, stop):
        asked.append((start, stop))
        return words[start:stop], vectors[start:stop]

    write_vec(tmp_path / "blocks.vec", 5, dim, rows)
    assert asked == [(0, 2), (2, 4), (4, 5)]
    write_vec_arrays(tmp_path / "whole.vec", words, vectors)
    text = (tmp_path / "blocks.vec").read_bytes()
    assert text == (tmp_path / "whole.vec").read_bytes()
    assert text.startswith(b"5 20000\na ") and text.count(b"\n") == 6


def fasttext_as_treexc(ft, dim, minn, maxn, bucket, word_ngrams):
    """A treexc Model over fastText's own dictionary and input matrix."""
    words, counts = ft.get_words(include_freq=True)
    labels, label_counts = ft.get_labels(include_freq=True)
    blobs = [w.encode("utf-8") for w in list(words) + list(labels)]
    lens = np.array([len(b) for b in blobs], dtype=np.int32)
    offs = np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.int64)
    pool = np.frombuffer(b"".join(blobs), dtype=np.uint8).copy()
    d = Dictionary(pool, offs, lens, np.concatenate([counts, label_counts]), len(words),
                   "__label__", word_ngrams, bucket, minn, maxn)
    args = Args(dim=dim, minn=minn, maxn=maxn, bucket=bucket, wordNgrams=word_ngrams,
                loss="softmax")
    w_in = np.ascontiguousarray(ft.get_input_matrix(), dtype=np.float32)
    return Model(args, d, None, w_in, np.zeros((len(labels), dim), np.float32))


@pytest.mark.slow
@needs_fasttext
@pytest.mark.parametrize("minn,maxn", [(0, 0), (2, 4)])
def test_vectors_match_fasttext_on_its_matrices(cooking, minn, maxn):
    dim, bucket = 8, 20000
    ft = fasttext.train_supervised(str(cooking), dim=dim, epoch=2, lr=0.5, wordNgrams=2,
                                   minn=minn, maxn=maxn, bucket=bucket, thread=1, verbose=0)
    model = fasttext_as_treexc(ft, dim, minn, maxn, bucket, 2)
    vocabulary = ft.get_words()
    assert model.get_words() == list(vocabulary)
    for word in list(vocabulary[:200]) + UNKNOWN + ["</s>", "how to"]:
        expected = ft.get_word_vector(word)
        if maxn:  # the rows fastText averages are treexc's
            ids = ft.get_subwords(word)[1]
            assert np.array_equal(expected, model.w_in[ids].sum(axis=0, dtype=np.float32)
                                  * np.float32(1.0 / len(ids)))
        assert np.array_equal(model.get_word_vector(word), expected), word
    if not maxn:
        assert not ft.get_word_vector("zzqx").any()
    # the .vec rows (word_vectors) are the same vectors, for the whole vocabulary
    all_words = model.word_vectors()
    assert all_words.shape == (len(vocabulary), dim)
    for i in range(0, len(vocabulary), 97):
        assert np.array_equal(all_words[i], ft.get_word_vector(vocabulary[i]))
    for line in ["how do i bake bread", "zzqx qqq", "", "__label__baking bread crust",
                 "what is the best way to store fresh basil ?"]:
        assert np.allclose(model.get_sentence_vector(line), ft.get_sentence_vector(line),
                           rtol=1e-5, atol=1e-7), line


def test_word_vector_of_a_tiny_model_by_hand(tmp_path):
    """With char n-grams, an unknown word is the mean of its n-gram rows; a
    known word adds its own row first; word n-grams never count."""
    path = tmp_path / "t.txt"
    path.write_text("__label__a ab cd\n__label__b cd ef\n" * 20)
    model = treexc.train_supervised(input=str(path), dim=4, epoch=1, thread=1, minn=2,
                                    maxn=3, wordNgrams=3, bucket=1000, loss="softmax")
    d = model.dictionary
    ngram_rows = {}
    for word in ["ab", "zz"]:
        # "<ab>": <a, ab, b>, <ab, ab> (2- and 3-grams; no "<" or ">" alone)
        grams = ["<a", "<ab", "ab", "ab>", "b>"] if word == "ab" else \
            ["<z", "<zz", "zz", "zz>", "z>"]
        ngram_rows[word] = [d.nwords + fnv(g.encode()) % 1000 for g in grams]
    own = [d.word_id("ab")]
    expected = model.w_in[own + ngram_rows["ab"]].sum(axis=0, dtype=np.float32) * \
        np.float32(1 / 6)
    assert np.array_equal(model.get_word_vector("ab"), expected)
    expected = model.w_in[ngram_rows["zz"]].sum(axis=0, dtype=np.float32) * np.float32(1 / 5)
    assert np.array_equal(model.get_word_vector("zz"), expected)


def fnv(raw):
    h = 2166136261
    for b in raw:
        h = ((h ^ (b | 0xFFFFFF00 if b >= 128 else b)) * 16777619) & 0xFFFFFFFF
    return h
