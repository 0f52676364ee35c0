"""A tree softmax read two ways (``-scoring mean``, ``loss.topk.mean_top_k``):
the geometric mean of the tree's probabilities and of the flat softmax its
path scores sum to, renormalised; chosen by ``-scoring auto`` for the tree
softmax on even, many-lined labels (docs/trees.md, "Two readings of one tree")."""

import numpy as np
import pytest
from test_default_tree import even_corpus, zipf_corpus
from test_predict import mean_reference_log_probs

import treexc
from treexc.classify import plan as plan_module
from treexc.classify.exact_kernels import hidden_mean
from treexc.errors import TreexcError


@pytest.mark.parametrize("loss", ["tree", "hs"])
def test_mean_answers_are_the_brute_force_over_all_labels(tmp_path, loss):
    train = even_corpus(tmp_path / "even.txt")
    model = treexc.train_supervised(input=train, loss=loss, scoring="mean", dim=8, epoch=3,
                                    lr=0.5, thread=1, seed=1)
    assert model.scoring == "mean"
    lines = open(train).read().splitlines()[:40]
    corpus = model.encode_text(np.frombuffer("\n".join(lines).encode() + b"\n", np.uint8))
    labels, scores, counts = model.predict_corpus(corpus, k=-1)
    hidden = np.zeros(model.get_dimension(), dtype=np.float32)
    for line in range(corpus.n_lines):
        hidden_mean(model.w_in, corpus.feats, corpus.feat_off[line],
                      corpus.feat_off[line + 1], hidden)
        expected = mean_reference_log_probs(model.children, model.nlabels, model.w_out,
                                            hidden.astype(np.float64))
        assert counts[line] == model.nlabels
        assert np.exp(scores[line]).sum() == pytest.approx(1.0, abs=1e-9)
        assert np.allclose(scores[line], expected[labels[line]], atol=1e-9)
        assert np.all(np.diff(scores[line]) <= 0)
    # a threshold keeps the labels above it, best first
    labels_t, scores_t, counts_t = model.predict_corpus(corpus, k=5, threshold=0.05)
    for line in range(corpus.n_lines):
        kept = scores[line][:5] >= np.log(0.05)
        assert counts_t[line] == kept.sum()
        assert np.array_equal(labels_t[line, :counts_t[line]], labels[line, :5][kept])
    # and the tree's own answers differ: the test can tell the two apart
    model.scoring = ""
    _, tree_scores, _ = model.predict_corpus(corpus, k=-1)
    assert not np.allclose(tree_scores, scores, atol=1e-3)


def test_auto_keeps_the_tree_where_scoring_every_node_costs_too_much(tmp_path, monkeypatch,
                                                                   capsys):
    """The mean scores every node at prediction: by default only up to
    ``SCORING_MEAN_MAX_LABELS`` labels (here cut to 50, below the 60); asked
    for past that, it is used and its cost said."""
    even = even_corpus(tmp_path / "even.txt")
    monkeypatch.setattr(plan_module, "SCORING_MEAN_MAX_LABELS", 50)
    flags = dict(loss="tree", dim=8, epoch=1, lr=0.5, thread=1, seed=1, verbose=2)
    assert treexc.train_supervised(input=even, **flags).scoring == ""
    assert "as slow as a flat softmax" not in capsys.readouterr().err
    assert treexc.train_supervised(input=even, scoring="mean", **flags).scoring == "mean"
    assert "scoring: mean, as asked: every prediction scores all 60 labels, as slow as a " \
        "flat softmax (-scoring auto keeps the tree's own answers above 50 labels)" \
        in capsys.readouterr().err


def test_auto_chooses_the_mean_for_a_tree_on_even_many_lined_labels(tmp_path, capsys):
    even = even_corpus(tmp_path / "even.txt")
    zipf, _ = zipf_corpus(tmp_path / "zipf.txt")
    # a wide root (60 labels / 5) reads both ways trained 10 rate-epochs or more
    short = dict(dim=8, epoch=2, lr=0.5, thread=1, seed=1)
    assert treexc.train_supervised(input=even, loss="tree", **short).scoring == ""
    flags = dict(short, epoch=10, lr=1.0)
    model = treexc.train_supervised(input=even, loss="tree", verbose=2, **flags)
    assert model.scoring == "mean"
    assert "scoring: mean of the tree's and the flat reading's probabilities" \
        in capsys.readouterr().err
    # kept through the model file; the tree's own answers on request
    model.save_model(str(tmp_path / "m.bin"))
    loaded = treexc.load_model(str(tmp_path / "m.bin"))
    assert loaded.scoring == "mean"
    (labels, probs), (labels_again, probs_again) = (m.predict("w3_1 w3_2", k=3)
                                                    for m in (model, loaded))
    assert labels == labels_again and np.array_equal(probs, probs_again)
    assert treexc.train_supervised(input=even, loss="tree", scoring="tree", **flags).scoring == ""
    # not for other losses, nor for uneven labels
    assert treexc.train_supervised(input=even, loss="hs", **flags).scoring == ""
    assert treexc.train_supervised(input=zipf, loss="tree", **short).scoring == ""
    # nor for a binary tree, whose nodes are one sigmoid row each, nor for
    # one node (5 labels), which reads the same both ways
    assert treexc.train_supervised(input=even, loss="tree", arity=2, **flags).scoring == ""
    five = even_corpus(tmp_path / "five.txt", n_labels=5)
    one_node = treexc.train_supervised(input=five, loss="tree", **flags)
    assert one_node.tree.n_internal == 1 and one_node.scoring == ""


def test_mean_scoring_needs_a_tree_softmax(tmp_path):
    even = even_corpus(tmp_path / "even.txt")
    with pytest.raises(TreexcError, match="-scoring mean: -loss ova is not a tree softmax"):
        treexc.train_supervised(input=even, loss="ova", scoring="mean", epoch=1)
    multi = tmp_path / "multi.txt"
    multi.write_text("__label__a __label__b x y\n__label__b __label__c y z\n" * 50)
    with pytest.raises(TreexcError, match="-loss auto chose plt, not a tree softmax"):
        treexc.train_supervised(input=str(multi), scoring="mean", epoch=1, thread=1)


def test_a_model_file_claiming_mean_scoring_without_a_tree_softmax_is_refused(tmp_path):
    even = even_corpus(tmp_path / "even.txt")
    model = treexc.train_supervised(input=even, loss="ova", dim=8, epoch=1, thread=1)
    model.scoring = "mean"  # as a foreign or damaged header would say
    model.save_model(str(tmp_path / "ova.bin"))
    with pytest.raises(TreexcError, match="scoring 'mean'"):
        treexc.load_model(str(tmp_path / "ova.bin"))
