"""``treexc skipgram`` / ``cbow`` and ``train_unsupervised``: what they
learn (words of a topic end up each other's neighbours, for every model and
loss), the files they write (``.bin``, ``.vec`` as fastText writes it, read
back by ``supervised -pretrainedVectors``), reproducibility with ``-thread 1
-seed``, and the learned output tree."""

import hashlib

import numpy as np
import pytest

import treexc
from treexc.io.vectors import read_vec
from treexc.vectors.model import WordVectors

from cli_util import ok

GROUPS = [[f"{topic}{i}" for i in range(6)] for topic in ("sport", "food", "music", "tech")]
SMALL = dict(dim=16, epoch=5, minCount=1, maxn=0, thread=1, t=1.0, lr=0.1)


@pytest.fixture(scope="module")
def topic_text(tmp_path_factory):
    """Lines of eight words of one topic each (no subwords in the names'
    spelling decide anything: -maxn 0 where it matters)."""
    rng = np.random.default_rng(0)
    lines = [" ".join(rng.choice(GROUPS[rng.integers(4)], size=8)) for _ in range(1500)]
    path = tmp_path_factory.mktemp("topics") / "topics.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def _same_topic_share(model):
    """Of the topic words, the share whose nearest neighbour has their topic."""
    hits = 0
    for group in GROUPS:
        for word in group:
            nearest = [w for _, w in model.get_nearest_neighbors(word, k=2) if w != "</s>"][0]
            hits += nearest in group
    return hits / sum(len(g) for g in GROUPS)


@pytest.mark.parametrize("model_name", ["skipgram", "cbow"])
@pytest.mark.parametrize("loss", ["ns", "hs", "softmax", "learned"])
def test_words_of_a_topic_become_neighbours(topic_text, model_name, loss):
    flags = dict(SMALL, loss="hs", tree="learned") if loss == "learned" else \
        dict(SMALL, loss=loss)
    model = treexc.train_unsupervised(str(topic_text), model=model_name, **flags)
    assert isinstance(model, WordVectors)
    assert _same_topic_share(model) >= 0.9


def test_untrained_vectors_do_not_pass_the_topic_check(topic_text):
    """The check above can fail: a run of almost no learning does."""
    model = treexc.train_unsupervised(str(topic_text), **dict(SMALL, epoch=1, lr=1e-6))
    assert _same_topic_share(model) < 0.6


def test_the_learned_tree_is_rebuilt_and_saved(topic_text, tmp_path):
    huffman = treexc.train_unsupervised(str(topic_text), **dict(SMALL, loss="hs"))
    learned = treexc.train_unsupervised(str(topic_text), **dict(SMALL, loss="hs",
                                                                tree="learned"))
    assert learned.tree.n_labels == huffman.tree.n_labels == len(learned.words)
    assert not np.array_equal(learned.tree.children, huffman.tree.children)
    learned.save_model(str(tmp_path / "m.bin"))
    again = treexc.load_model(str(tmp_path / "m.bin"))
    assert np.array_equal(again.tree.children, learned.tree.children)
    assert np.array_equal(again.get_output_matrix(), learned.get_output_matrix())


def _sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("command", ["skipgram", "cbow"])
def test_one_thread_and_a_seed_reproduce_the_model(topic_text, tmp_path, command):
    base = [command, "-input", topic_text, "-dim", "8", "-epoch", "2", "-bucket", "2000",
            "-thread", "1", "-verbose", "0"]
    for name, seed in (("a", "3"), ("b", "3"), ("c", "4")):
        ok(base + ["-output", tmp_path / name, "-seed", seed])
    assert _sha(tmp_path / "a.bin") == _sha(tmp_path / "b.bin")
    assert _sha(tmp_path / "a.vec") == _sha(tmp_path / "b.vec")
    assert _sha(tmp_path / "a.bin") != _sha(tmp_path / "c.bin")


def test_the_files_and_the_commands_that_read_them(topic_text, tmp_path):
    out = tmp_path / "v"
    ok(["skipgram", "-input", topic_text, "-output", out, "-dim", "10", "-epoch", "1",
        "-minCount", "1", "-bucket", "3000", "-thread", "2", "-verbose", "0", "-saveOutput"])
    model = treexc.load_model(str(out) + ".bin")
    words, vectors = read_vec(str(out) + ".vec", 10)
    assert words == model.words and len(words) == 25  # 24 topic words and </s>
    np.testing.assert_allclose(vectors, model.word_vectors(), rtol=1e-4, atol=1e-5)
    first = ok(["print-word-vectors", str(out) + ".bin"], input="sport1\n").stdout
    assert first.split()[0] == "sport1" and len(first.split()) == 11
    assert ok(["nn", str(out) + ".bin", "2"], input="food2\n").stdout.count("\n") == 2
    dumped = ok(["dump", str(out) + ".bin", "args"]).stdout
    assert "model skipgram" in dumped and "loss ns" in dumped
    assert ok(["dump", str(out) + ".bin", "input"]).stdout.startswith("3025 10\n")
    ngrams = ok(["print-ngrams", str(out) + ".bin", "sport1"]).stdout.splitlines()
    assert ngrams[0].startswith("sport1 ") and ngrams[1].startswith("<sp ")
    assert ok(["print-sentence-vectors", str(out) + ".bin"], input="sport1 sport2\n").stdout
    assert (tmp_path / "v.output").read_text().startswith("25 10\n")
    # the classifier starts from these vectors
    labelled = tmp_path / "labelled.txt"
    labelled.write_text("".join(f"__label__{g[0][:4]} {' '.join(g[:4])}\n"
                                for g in GROUPS) * 5)
    ok(["supervised", "-input", labelled, "-output", tmp_path / "clf", "-dim", "10",
        "-pretrainedVectors", str(out) + ".vec", "-epoch", "1", "-verbose", "0"])
    clf = treexc.load_model(str(tmp_path / "clf.bin"))
    row = clf.get_word_id("sport1")
    assert row >= 0 and set(model.words) <= set(clf.words)


def test_the_python_api_answers_as_fasttexts(topic_text, tmp_path):
    model = treexc.train_unsupervised(input=str(topic_text), model="cbow", dim=8, epoch=1,
                                      minCount=1, bucket=1000, thread=1)
    assert model.get_dimension() == 8
    assert model.get_input_matrix().shape == (len(model.words) + 1000, 8)
    assert model.get_output_matrix().shape == (len(model.words), 8)
    words, counts = model.get_words(include_freq=True)
    assert words[0] == "</s>" and counts[0] == 1500 and (np.diff(counts) <= 0).all()
    unknown = model.get_word_vector("sportfood")  # its character n-grams' rows
    assert np.abs(unknown).sum() > 0
    strings, ids = model.get_subwords("sport1")
    assert strings[0] == "sport1" and ids[0] == model.get_word_id("sport1")
    model.save_model(str(tmp_path / "api.bin"))
    again = treexc.load_model(str(tmp_path / "api.bin"))
    assert (again.get_word_vector("sportfood") == unknown).all()
    assert again.get_analogies("sport1", "sport2", "food1", k=3) == \
        model.get_analogies("sport1", "sport2", "food1", k=3)
