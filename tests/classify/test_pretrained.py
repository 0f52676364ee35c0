"""-pretrainedVectors: fastText's .vec files seed the input matrix."""

import numpy as np
import pytest

import treexc


def _train_file(path):
    lines = [f"__label__{'ab'[i % 2]} {'apple' if i % 2 else 'berry'} common word{i % 5}"
             for i in range(100)]
    path.write_text("\n".join(lines) + "\n")


def test_pretrained_vectors_seed_the_input_matrix(tmp_path):
    train = tmp_path / "train.txt"
    _train_file(train)
    vec = tmp_path / "pre.vec"
    vec.write_text("2 4\napple 0.5 -0.25 1 2 \nunseen 1 2 3 4 \n")
    model = treexc.train_supervised(input=str(train), dim=4, epoch=1, thread=1,
                                    pretrainedVectors=str(vec))
    assert "unseen" in model.get_words()  # added, as fastText does
    # a word absent from the training data keeps its pretrained vector
    assert np.allclose(model.get_word_vector("unseen"), [1, 2, 3, 4])


def test_pretrained_vectors_of_another_dimension_are_refused(tmp_path):
    train = tmp_path / "train.txt"
    _train_file(train)
    vec = tmp_path / "pre.vec"
    vec.write_text("1 3\napple 1 2 3\n")
    with pytest.raises(treexc.TreexcError, match="dimension 3, but -dim is 4"):
        treexc.train_supervised(input=str(train), dim=4, pretrainedVectors=str(vec))


def test_pretrained_vectors_bad_line(tmp_path):
    train = tmp_path / "train.txt"
    _train_file(train)
    vec = tmp_path / "pre.vec"
    vec.write_text("2 2\napple 1 2\nberry one two\n")
    with pytest.raises(treexc.TreexcError, match="line 3"):
        treexc.train_supervised(input=str(train), dim=2, pretrainedVectors=str(vec))
