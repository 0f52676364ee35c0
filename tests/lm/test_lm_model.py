"""The language model: vocabulary, exact perplexity against a numpy
reference, tree probabilities, quality on text drawn from a known bigram
model, files and the Python API."""

import math

import numpy as np
import pytest
from lm_util import (
    bigram_chain,
    chain_text,
    reference_flat_nll,
    sample_chain,
    small_model,
)

import treexc
from treexc import runtime
from treexc.errors import TreexcError
from treexc.lm import model as lm_model
from treexc.lm import training as lm_training
from treexc.lm.model import load_lm, perplexity
from treexc.lm.options import make_lm_args
from treexc.lm.training import train_lm
from treexc.text.vocab import build_vocab


def test_vocab_min_count_unk_and_eos():
    data = np.frombuffer(b"a b a c\na a b\nz", dtype=np.uint8)
    vocab = build_vocab(data, 2, "x")
    assert vocab.words() == ["a", "</s>", "b", "<unk>"]
    assert vocab.counts.tolist() == [4, 3, 2, 2]  # c and z are <unk>
    ids = vocab.encode(data)
    # </s> after every line, including the last one without newline
    assert [vocab.word(i) for i in ids] == ["a", "b", "a", "<unk>", "</s>", "a", "a", "b",
                                            "</s>", "<unk>", "</s>"]


def test_vocab_empty_file_is_an_error():
    with pytest.raises(TreexcError, match="empty"):
        build_vocab(np.frombuffer(b"  \t ", dtype=np.uint8), 1, "x")


def test_flat_perplexity_equals_numpy_reference(tmp_path, sentence_text):
    text = sentence_text(80)
    model, _ = small_model(tmp_path, text, loss="softmax", epoch=1)
    ids = model.vocab.encode(np.frombuffer(sentence_text(20, seed=5).encode(), dtype=np.uint8))
    ppl, n = perplexity(model, ids, threads=2, batch=7)
    assert n == len(ids)
    expected = math.exp(reference_flat_nll(model, ids) / len(ids))
    assert ppl == pytest.approx(expected, rel=1e-4)
    # next_log_probs (used by predict-next) agrees with the reference too
    ctx = [model.context_ids(["the", "cat"])]
    lp = model.next_log_probs(ctx)[0]
    assert np.exp(lp).sum() == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("kind", ["random", "learned"])
def test_tree_probabilities_sum_to_one(tmp_path, kind, sentence_text):
    model, _ = small_model(tmp_path, sentence_text(150), loss="tree", tree=kind, arity=3,
                           depth=3, treeUpdates=5)
    rng = np.random.default_rng(0)
    V = model.vocab.size
    ctx = rng.integers(0, V, size=(20, model.args.context))
    lp = model.next_log_probs(ctx)
    assert np.allclose(np.exp(lp).sum(axis=1), 1.0, atol=1e-5)
    # the batch kernel's perplexity is the mean of those log-probabilities
    ids = model.vocab.encode(np.frombuffer(sentence_text(10, seed=3).encode(), dtype=np.uint8))
    ppl, _ = perplexity(model, ids, threads=1, batch=5)
    eos = model.vocab.eos_id
    rows = [[ids[t - 1 - k] if t - 1 - k >= 0 else eos for k in range(model.args.context)]
            for t in range(len(ids))]
    ref = model.next_log_probs(rows)[np.arange(len(ids)), ids]
    assert ppl == pytest.approx(math.exp(-ref.mean()), rel=1e-4)


@pytest.mark.slow
@pytest.mark.parametrize("loss,tree", [("softmax", "learned"), ("tree", "learned")])
def test_bigram_perplexity_approaches_true_entropy(tmp_path, loss, tree):
    names = [f"w{i}" for i in range(11)]
    P = bigram_chain(len(names), seed=7)
    rng = np.random.default_rng(3)
    train_tokens = sample_chain(P, 60000, rng)
    test_tokens = sample_chain(P, 10000, rng)
    (tmp_path / "train.txt").write_text(chain_text(train_tokens, names))
    (tmp_path / "test.txt").write_text(chain_text(test_tokens, names))
    prev = np.concatenate([[len(names)], test_tokens[:-1]])
    true_ppl = math.exp(-np.log(P[prev, test_tokens]).mean())
    args = make_lm_args(input=str(tmp_path / "train.txt"), dim=16, epoch=3, thread=2,
                        verbose=0, minCount=1, batch=32, lr=0.05, loss=loss, tree=tree,
                        arity=4, depth=2, treeUpdates=10, seed=2)
    model, _ = train_lm(args)
    ppl, _ = perplexity(model, str(tmp_path / "test.txt"), threads=2)
    assert ppl < true_ppl * 1.04, (ppl, true_ppl)


def test_save_load_roundtrip(tmp_path, sentence_text):
    model, _ = small_model(tmp_path, sentence_text(60), loss="tree", tree="random", arity=4,
                           depth=2, epoch=1)
    model.save_model(str(tmp_path / "m.bin"))
    again = load_lm(str(tmp_path / "m.bin"))
    ids = model.vocab.encode(np.frombuffer(sentence_text(5).encode(), dtype=np.uint8))
    assert perplexity(again, ids)[0] == pytest.approx(perplexity(model, ids)[0], rel=1e-6)
    assert again.words() == model.words()
    assert again.word_counts.tolist() == model.word_counts.tolist()
    assert (again.tree.children == model.tree.children).all()


def test_python_api_mirrors_the_classifier(tmp_path, sentence_text):
    (tmp_path / "train.txt").write_text(sentence_text(200))
    (tmp_path / "valid.txt").write_text(sentence_text(40, seed=1))
    lm = treexc.train_lm(str(tmp_path / "train.txt"), dim=8, epoch=1, minCount=1, thread=1,
                         batch=16, seed=2)
    (word, p), *_ = lm.predict_next(["the"], k=3)
    assert isinstance(word, str) and 0.0 < p <= 1.0
    ppl, n = lm.perplexity(str(tmp_path / "valid.txt"))
    assert n > 0 and 1.0 < ppl < float("inf")
    lm.save_model(str(tmp_path / "lm.bin"))
    again = treexc.load_lm(str(tmp_path / "lm.bin"))
    assert again.perplexity(str(tmp_path / "valid.txt")) == (ppl, n)
    assert again.predict_next(["the"], k=3) == lm.predict_next(["the"], k=3)
    # a str was iterated: its characters were the context words
    with pytest.raises(TreexcError, match="words must be a list of words, not a str"):
        lm.predict_next("the old", k=3)
    with pytest.raises(TypeError, match="k must be an integer, not float"):
        lm.predict_next(["the"], k=1.5)  # was numpy's TypeError from np.empty


@pytest.mark.slow
@pytest.mark.parametrize("loss", ["softmax", "tree"])
def test_keep_best_saves_the_best_validation_weights(tmp_path, sentence_text, loss):
    """-keepBest 1 (the default): on a corpus that overfits, the weights
    kept are those of the evaluation with the lowest validation perplexity,
    tree included; -keepBest 0 keeps the last."""
    (tmp_path / "train.txt").write_text(sentence_text(60))
    (tmp_path / "valid.txt").write_text(sentence_text(60, seed=9))
    valid = str(tmp_path / "valid.txt")
    found = {}
    for keep in (1, 0):
        args = make_lm_args(input=str(tmp_path / "train.txt"), valid=valid, dim=32, epoch=15,
                            thread=1, verbose=0, minCount=1, batch=16, lr=0.1, loss=loss,
                            treeUpdates=5, seed=1, keepBest=keep, patience=0)
        model, records = train_lm(args)
        ppls = [r["valid_ppl"] for r in records]
        assert min(ppls) < ppls[-1] * 0.95, ppls  # it overfits: the test means something
        found[keep] = perplexity(model, valid)[0]
        assert found[keep] == pytest.approx(min(ppls) if keep else ppls[-1], rel=1e-5)
        assert ("kept_epoch" in records[-1]) == bool(keep)
    assert found[1] < found[0]


@pytest.mark.slow
@pytest.mark.parametrize("loss", ["softmax", "tree"])
def test_patience_stops_without_changing_the_saved_model(tmp_path, sentence_text, loss):
    """-patience N (default 1) stops N epochs after the best validation
    perplexity, with the weights a run of every epoch saves (-thread 1: bit
    for bit), its evaluations a prefix of that run's; -evalPerEpoch does not
    move the stop; -keepBest 0 trains every epoch."""
    (tmp_path / "train.txt").write_text(sentence_text(60))
    (tmp_path / "valid.txt").write_text(sentence_text(60, seed=9))

    def train(**flags):
        args = make_lm_args(input=str(tmp_path / "train.txt"), valid=str(tmp_path / "valid.txt"),
                            dim=32, epoch=12, thread=1, verbose=0, minCount=1, batch=16,
                            lr=0.1, loss=loss, treeUpdatesPerEpoch=5, seed=1, **flags)
        return train_lm(args)

    full_model, full = train(patience=0)
    ppls = [r["valid_ppl"] for r in full]
    best = ppls.index(min(ppls)) + 1  # the epoch kept
    assert best <= 10 and "stopped_epoch" not in full[-1], ppls  # it overfits early
    for patience in (1, 2):
        model, records = train(patience=patience)
        assert records[-1]["stopped_epoch"] == best + patience
        assert [r["valid_ppl"] for r in records] == ppls[:best + patience]
        assert records[-1]["kept_epoch"] == best
        for name in ("U", "C", "W"):
            assert np.array_equal(getattr(model, name), getattr(full_model, name))
    _, quarters = train(patience=1, evalPerEpoch=4)
    assert quarters[-1]["stopped_epoch"] - quarters[-1]["kept_epoch"] == 1
    _, last = train(patience=1, keepBest=0)
    assert len(last) == 12


def test_threads_without_batches_are_not_started(tmp_path, monkeypatch):
    """``-thread 100000`` on a small file started 100,000 threads in every
    phase of training and evaluation (hours): a thread is started only for
    a batch, and the batches go to the same threads as before."""
    started = []

    def counting(n, *args, **kwargs):
        started.append(n)
        return runtime.run_workers(n, *args, **kwargs)

    monkeypatch.setattr(lm_training, "run_workers", counting)
    monkeypatch.setattr(lm_model, "run_workers", counting)
    text = tmp_path / "t.txt"
    text.write_text("the cat sat on the mat\na dog ran to the cat\n" * 40)
    model = treexc.train_lm(str(text), valid=str(text), thread=5000, epoch=1, dim=8,
                            batch=16, loss="softmax", verbose=0)
    batches = -(-model.perplexity(str(text))[1] // 16)
    assert started and max(started) <= batches
    started.clear()
    ppl, n = model.perplexity(str(text), threads=5000)
    assert n == model.perplexity(str(text), threads=1)[1]
    assert ppl == pytest.approx(model.perplexity(str(text), threads=1)[0], rel=1e-9)
    assert started and max(started) <= batches


def test_ignored_tree_and_huge_context_are_refused(tmp_path):
    """``-loss softmax -tree cluster`` trained a flat softmax without a word;
    ``-context 100000000`` passed the memory estimate (which left out each
    thread's batch of contexts) and died in "out of memory"."""
    with pytest.raises(TreexcError, match="-tree cluster: -loss softmax has no tree"):
        make_lm_args(input="x", loss="softmax", tree="cluster")
    make_lm_args(input="x", loss="softmax")  # the default tree, unused: fine
    text = tmp_path / "t.txt"
    text.write_text("the cat sat on the mat\n" * 5)
    with pytest.raises(TreexcError, match=r"batch contexts .*lower -batch/-context/-thread"):
        treexc.train_lm(str(text), context=100_000_000, dim=4, verbose=0)
