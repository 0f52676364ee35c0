"""Fixtures of the model-file tests."""

import pytest

from treexc.lm.options import make_lm_args
from treexc.lm.training import train_lm


@pytest.fixture(scope="module")
def lm(tmp_path_factory, sentence_text):
    """A tiny tree language model and its file."""
    folder = tmp_path_factory.mktemp("modelfile_lm")
    (folder / "train.txt").write_text(sentence_text(60))
    model, _ = train_lm(make_lm_args(input=str(folder / "train.txt"), dim=4, context=2,
                                     epoch=1, thread=1, verbose=0, minCount=1, batch=8,
                                     loss="tree", tree="random", arity=4, depth=2, seed=1))
    path = folder / "lm.bin"
    model.save_model(str(path))
    return model, path

