"""fastText's own skipgram and cbow ``.bin`` files read by treexc and
answered as fastText answers them, to the bit: word vectors of known and
unknown words (subword vectors), ``get_subwords``, nearest neighbours
(``nn``), analogies, ``print-word-vectors``.  A tiny model is trained here
with the fastText wheel (skipped where it is not installed)."""

import numpy as np
import pytest

import treexc
from treexc.io.vectors import format_vector
from treexc.vectors.model import WordVectors

from cli_util import load_error, ok

fasttext = pytest.importorskip("fasttext")

WORDS = ("ball goal team match bread cheese taste dish song band guitar drum code bug test "
         "build running runner baked baking").split()
UNKNOWN = ["footballer", "breadcrumbs", "guitarist", "zzz", "é", "</s>"]


@pytest.fixture(scope="module", params=["skipgram", "cbow"])
def fasttext_model(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp(request.param)
    rng = np.random.default_rng(0)
    text = folder / "text.txt"
    text.write_text("\n".join(" ".join(rng.choice(WORDS, size=rng.integers(3, 12)))
                              for _ in range(600)) + "\n")
    model = fasttext.train_unsupervised(str(text), model=request.param, dim=12, epoch=2,
                                        minCount=2, bucket=5000, thread=1, verbose=0)
    path = folder / "ft.bin"
    model.save_model(str(path))
    return model, path


def test_the_file_loads_as_a_word_vector_model(fasttext_model):
    ft, path = fasttext_model
    model = treexc.load_model(str(path))
    assert isinstance(model, WordVectors)
    assert model.get_words() == ft.get_words()
    assert (model.get_input_matrix() == ft.get_input_matrix()).all()
    assert (model.get_output_matrix() == ft.get_output_matrix()).all()


def test_word_and_subword_vectors_are_fasttexts(fasttext_model):
    ft, path = fasttext_model
    model = treexc.load_model(str(path))
    for word in ft.get_words() + UNKNOWN:
        assert (model.get_word_vector(word) == ft.get_word_vector(word)).all(), word
        strings, ids = model.get_subwords(word)
        ft_strings, ft_ids = ft.get_subwords(word)
        assert strings == list(ft_strings) and (ids == ft_ids).all(), word
    sentence = "ball goal footballer unknownword"
    assert (model.get_sentence_vector(sentence) == ft.get_sentence_vector(sentence)).all()


def test_neighbours_and_analogies_are_fasttexts(fasttext_model):
    ft, path = fasttext_model
    model = treexc.load_model(str(path))
    for word in ["ball", "bread", "guitarist"]:
        assert model.get_nearest_neighbors(word, k=5) == ft.get_nearest_neighbors(word, k=5)
    assert model.get_analogies("ball", "goal", "bread", k=4) == \
        ft.get_analogies("ball", "goal", "bread", k=4)


def test_commands_answer_as_fasttext(fasttext_model):
    ft, path = fasttext_model
    words = ["ball", "guitarist", "zzz"]
    out = ok(["print-word-vectors", path], input=" ".join(words) + "\n").stdout
    assert out == "".join(f"{w} {format_vector(ft.get_word_vector(w))}\n" for w in words)
    out = ok(["nn", path, "3"], input="bread\n").stdout
    expected = "".join(f"{w} {s:.6g}\n" for s, w in ft.get_nearest_neighbors("bread", k=3))
    assert out == f"Query word? {expected}Query word? "


def test_convert_keeps_fasttexts_answers(fasttext_model, tmp_path):
    ft, path = fasttext_model
    ok(["convert", path, tmp_path / "converted.bin"])
    model = treexc.load_model(str(tmp_path / "converted.bin"))
    assert isinstance(model, WordVectors)
    for word in ["ball", "footballer"]:
        assert (model.get_word_vector(word) == ft.get_word_vector(word)).all()
    assert model.get_nearest_neighbors("bread", k=3) == ft.get_nearest_neighbors("bread", k=3)


def test_a_truncated_fasttext_word_vector_file_is_refused(fasttext_model, tmp_path):
    _, path = fasttext_model
    raw = path.read_bytes()
    cut = tmp_path / "cut.bin"
    for size in (60, 200, len(raw) // 2, len(raw) - 1):
        cut.write_bytes(raw[:size])
        assert "fastText model" in load_error(cut)
