"""The language model's trees: depth invariants, clustering, leaf rows that
follow their words, and a learned tree that separates two languages."""


import numpy as np
import pytest
from lm_util import small_model

from treexc.errors import TreexcError
from treexc.lm import kernels as kern
from treexc.lm.options import make_lm_args
from treexc.lm.plan import tree_shape
from treexc.lm.training import train_lm
from treexc.trees.builders import random_tree
from treexc.trees.cluster import cluster_tree, greedy_fill
from treexc.trees.learner import move_leaf_rows, remap_rows


@pytest.mark.slow
def test_learned_tree_keeps_every_leaf_at_depth(tmp_path, sentence_text):
    text = sentence_text(400)
    model, records = small_model(tmp_path, text, loss="tree", tree="learned", arity=2,
                                 depth=4, treeUpdates=19, epoch=2, treeEpochs=2)
    tree = model.tree
    assert tree.max_depth() == 4
    assert (tree.depths() == 4).all()
    assert sorted(tree.children[tree.children >= 0][tree.children[tree.children >= 0]
                                                    < model.vocab.size]) \
        == list(range(model.vocab.size))
    assert records[-1]["rebuilds"] == 19  # in all, at 0.1, 0.2, ..., 1.9 epochs
    model, records = small_model(tmp_path, text, loss="tree", tree="learned", arity=2,
                                 depth=4, treeUpdates=4, epoch=2, treeEpochs=0.5)
    assert records[-1]["rebuilds"] == 4  # at 0.1, 0.2, 0.3 and 0.4 epoch: then frozen
    assert (model.tree.depths() == 4).all()
    _, records = small_model(tmp_path, text, loss="tree", tree="learned", arity=2,
                             depth=4, treeUpdatesPerEpoch=10, epoch=2)
    assert records[-1]["rebuilds"] == 9  # 10 an epoch of the default span, half of training
    model, _ = small_model(tmp_path, text, loss="tree", tree="learned", arity=4,
                           depth=4, treeUpdates=10, epoch=1, massSlack=1.0)
    assert (model.tree.depths() == 4).all()


def test_random_and_cluster_trees_have_leaves_at_depth():
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((200, 8)).astype(np.float32)
    for tree in (random_tree(200, 6, 3, rng), cluster_tree(vectors, 6, 3, rng)):
        assert (tree.depths() == 3).all()
        assert tree.n_labels == 200
    with pytest.raises(TreexcError, match="fewer than the 200 words"):
        random_tree(200, 5, 3, rng)


def test_cluster_tree_groups_close_vectors():
    # 4 well separated blobs of 9 words: words of a blob mostly share their
    # root slot (capacities split blobs a little; chance would be ~1/4)
    rng = np.random.default_rng(1)
    centers = np.eye(4, 8) * 10
    vectors = np.concatenate([c + rng.standard_normal((9, 8)) * 0.1 for c in centers])
    tree = cluster_tree(vectors.astype(np.float32), 4, 3, rng)
    blob = np.arange(36) // 9
    top_slot = tree.path_slot[tree.path_off[:-1]]  # root slot of each word
    same_blob = blob[:, None] == blob[None, :]
    same_slot = top_slot[:, None] == top_slot[None, :]
    assert same_slot[same_blob].mean() > 0.6


def test_leaf_rows_follow_their_words():
    rng = np.random.default_rng(0)
    old, new = random_tree(30, 4, 3, rng), random_tree(30, 4, 3, rng)
    W = rng.standard_normal((old.n_internal * 4, 5)).astype(np.float32)
    old_id = np.arange(new.n_internal)
    old_id[old_id >= old.n_internal] = -1
    W2 = remap_rows(W, old_id, 4, old.n_internal)
    move_leaf_rows(W2, W, old, new)
    for w in range(30):
        a, b = old.path_off[w + 1] - 1, new.path_off[w + 1] - 1
        assert (W2[new.path_node[b] * 4 + new.path_slot[b]]
                == W[old.path_node[a] * 4 + old.path_slot[a]]).all()


def test_greedy_fill_respects_capacity():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 4))
    C = X[:3] + 0.01
    assign = greedy_fill(X, C, 17)
    assert np.bincount(assign, minlength=3).max() <= 17
    assert assign[0] == 0 and assign[1] == 1 and assign[2] == 2


def test_learned_tree_separates_two_languages(tmp_path):
    """Paragraphs alternate between two disjoint vocabularies: the learned
    tree sends each vocabulary to its own root child (the random tree, of
    the same shape, mixes them).  Without the mass cap: a vocabulary holds
    half the occurrences, the cap would allow a root child a quarter."""
    rng = np.random.default_rng(4)
    a = [f"a{i}" for i in range(8)]
    b = [f"b{i}" for i in range(8)]
    lines = [" ".join(rng.choice(a if i % 2 else b, size=8)) for i in range(1500)]
    (tmp_path / "t.txt").write_text("\n".join(lines) + "\n")
    slots = {}
    for kind in ("random", "learned"):
        args = make_lm_args(input=str(tmp_path / "t.txt"), dim=16, epoch=2, thread=1,
                            verbose=0, minCount=1, batch=32, lr=0.1, loss="tree",
                            tree=kind, arity=4, depth=3, treeUpdates=10, treeEpochs=1,
                            massSlack=0, seed=0)
        model, _ = train_lm(args)
        t = model.tree
        top = dict(zip(model.words(), t.path_slot[t.path_off[:-1]].tolist()))
        slots[kind] = ({top[w] for w in a}, {top[w] for w in b})
    a_slots, b_slots = slots["learned"]
    assert len(a_slots) == 1 and len(b_slots) == 1 and a_slots != b_slots
    a_slots, b_slots = slots["random"]
    assert len(a_slots) > 1 or len(b_slots) > 1


@pytest.mark.parametrize("words, flags, shape", [
    (5_028, {}, (2, 101, 1.0)),     # 101^2 >= 2 x 5,028
    (150, {}, (2, 18, 1.0)),        # 18^2 >= 2 x 150
    (33_967, {}, (2, 261, 1.0)),    # 261^2 >= 2 x 33,967
    (33_967, {"massSlack": 0.0}, (2, 185, 0.0)),  # no room for the cap: 185^2 >= 33,967
    (256_377, {}, (3, 64, 0.0)),    # above 131,072 words: three levels, no cap, 64^3 >= V
    (256_377, {"massSlack": 1.0}, (3, 81, 1.0)),  # the cap asked for: 81^3 >= 2V
    (5_028, {"arity": 20}, (3, 20, 0.0)),     # -arity alone: 20^2 < 2V, so 20^3 >= V uncapped
    (5_028, {"arity": 80}, (2, 80, 1.0)),     # 80^2 >= 2V: two capped levels
    (5_028, {"arity": 20, "massSlack": 1.0}, (4, 20, 1.0)),  # 20^4 >= 2V
    (5_028, {"depth": 3}, (3, 18, 0.0)),      # -depth alone: the fitted arity, 18^3 >= V
    (5_028, {"depth": 2}, (2, 101, 1.0)),
])
def test_default_tree_shape(words, flags, shape):
    """docs/lm.md, "Default shape": depth, arity and mass cap from the
    vocabulary size."""
    args = make_lm_args(input="x", **flags)
    assert tree_shape(args, words) == shape


def test_adagrad_on_node_rows_skips_only_empty_slots():
    """A node's empty slots have no gradient: skipping their rows must give
    the same weights as stepping every row of the node, and clear the
    gradients and flags of the touched nodes alike."""
    rng = np.random.default_rng(0)
    arity, dim = 4, 5
    children = np.array([[4, 5, -1, -1],     # node 0: two children
                         [0, -1, -1, -1],    # node 1: a chain link
                         [1, 2, 3, -1]], dtype=np.int32)  # node 2
    rows = children.size
    param = rng.normal(size=(rows, dim)).astype(np.float32)
    acc = rng.random((rows, dim)).astype(np.float32)
    grad = np.zeros((rows, dim), dtype=np.float32)
    present = (children >= 0).ravel()
    grad[present] = rng.normal(size=(present.sum(), dim)).astype(np.float32)
    touched = np.array([2, 0, 1], dtype=np.int64)  # every node
    before = param.copy()
    # reference: every row of the touched nodes
    p_all, a_all, g_all = param.copy(), acc.copy(), grad.copy()
    row_list = (touched[:, None] * arity + np.arange(arity)).ravel()
    kern.adagrad_rows(p_all, a_all, g_all, row_list, len(row_list),
                      np.ones(rows, dtype=np.uint8), 0.1, 1e-8)
    flags = np.ones(3, dtype=np.uint8)
    kern.adagrad_node_rows(param, acc, grad, touched, 3, flags, children, 0.1, 1e-8)
    assert np.array_equal(param, p_all) and np.array_equal(acc, a_all)
    assert not grad.any() and not flags.any()
    assert (param[present] != before[present]).all()  # the children's rows moved
    assert np.array_equal(param[~present], before[~present])
