"""Several rows per root slot (``-rootRows``, ``loss.kernels``): exact
probabilities, the gradient, the top-k search, Adagrad, rebuilds and model
files."""

import copy

import numpy as np
import pytest
from lm_util import small_model

from treexc.lm.memory import lm_parts
from treexc.errors import TreexcError
from treexc.io import modelfile
from treexc.lm import kernels as kern
from treexc.lm.model import load_lm, perplexity
from treexc.lm.options import make_lm_args
from treexc.lm.plan import root_rows
from treexc.loss.kernels import root_row, scratch_size
from treexc.loss.topk import tree_top_k
from treexc.loss.tree_softmax import path_gradient, path_log_prob, tree_all_log_probs
from treexc.trees.builders import build_tree
from treexc.trees.learner import TreeLearner, move_leaf_rows, remap_rows

V, M, DEPTH, DIM = 40, 5, 3, 6


def tree_and_rows(rows, seed=0):
    rng = np.random.default_rng(seed)
    tree = build_tree("random", V, M, DEPTH, rng)
    W = rng.normal(0.0, 0.7, ((tree.n_internal + rows - 1) * M, DIM)).astype(np.float32)
    return tree, W, rng.normal(0.0, 1.0, DIM).astype(np.float32)


def log_probs(tree, W, hidden):
    out = np.empty(V)
    tree_all_log_probs(hidden, W, tree.children, V, out)
    return out


@pytest.mark.parametrize("rows", [1, 2, 3])
def test_probabilities_sum_to_one_and_follow_the_rows(rows):
    tree, W, hidden = tree_and_rows(rows)
    lp = log_probs(tree, W, hidden)
    assert np.exp(lp).sum() == pytest.approx(1.0, abs=1e-9)
    # the root scores slot j by the log-sum-exp of its rows (numpy), and
    # the levels below are those of the same tree with one row per slot
    main = W[:tree.n_internal * M]
    slot = np.logaddexp.reduce([[float(W[root_row(tree.children, k, j)] @ hidden)
                                 for j in range(M)] for k in range(rows)], axis=0)
    one = np.array([float(W[j] @ hidden) for j in range(M)])
    first_slot = tree.path_slot[tree.path_off[:-1]]
    lp_one_row = log_probs(tree, main, hidden)
    assert np.allclose(lp - (slot - np.logaddexp.reduce(slot))[first_slot],
                       lp_one_row - (one - np.logaddexp.reduce(one))[first_slot], atol=1e-9)


@pytest.mark.slow
def test_path_gradient_matches_a_numeric_gradient():
    tree, W, hidden = tree_and_rows(3, seed=1)
    probs = np.zeros(scratch_size(W, tree.children))

    def nll(W, hidden, target):
        return -path_log_prob(W, tree.children, tree.path_off, tree.path_node,
                              tree.path_slot, target, hidden, np.zeros(len(probs)))

    root_row_ids = list(range(M)) + list(range(tree.n_internal * M, len(W)))
    for target in (0, 17, V - 1):
        g_hidden = np.zeros(DIM, dtype=np.float32)
        g_w = np.zeros_like(W)
        loss = path_gradient(W, tree.children, tree.path_off, tree.path_node, tree.path_slot,
                             target, hidden, 1.0, g_hidden, g_w, probs, 0.0, False,
                             np.zeros((1, 1)), np.zeros(1))
        assert loss == pytest.approx(nll(W, hidden, target), rel=1e-9)
        eps = 1e-3
        for i in range(DIM):
            up, down = hidden.copy(), hidden.copy()
            up[i] += eps
            down[i] -= eps
            numeric = (nll(W, up, target) - nll(W, down, target)) / (2 * eps)
            assert g_hidden[i] == pytest.approx(numeric, abs=2e-3)
        for r in root_row_ids:
            for i in range(DIM):
                up, down = W.copy(), W.copy()
                up[r, i] += eps
                down[r, i] -= eps
                numeric = (nll(up, hidden, target) - nll(down, hidden, target)) / (2 * eps)
                assert g_w[r, i] == pytest.approx(numeric, abs=2e-3)
        assert np.abs(g_w[tree.n_internal * M:]).max() > 1e-3  # the extra rows learn


def test_top_k_equals_sorting_every_word():
    tree, W, hidden = tree_and_rows(2, seed=2)
    lp = log_probs(tree, W, hidden)
    k = 7
    bound = tree.children.size + 1
    heap_s, heap_l = np.empty(k), np.empty(k, dtype=np.int64)
    size = tree_top_k(W, tree.children, V, hidden, k, -np.inf, heap_s, heap_l,
                      np.empty(bound, np.int64), np.empty(bound),
                      np.empty(scratch_size(W, tree.children)), np.empty(M, np.int64))
    order = np.argsort(-heap_s[:size])
    assert heap_l[order].tolist() == np.argsort(-lp, kind="stable")[:k].tolist()
    assert np.allclose(heap_s[order], np.sort(lp)[::-1][:k])


def test_adagrad_steps_the_extra_rows_with_the_root():
    tree, W, _ = tree_and_rows(2, seed=3)
    rng = np.random.default_rng(3)
    grad = rng.normal(size=W.shape).astype(np.float32)
    acc = np.zeros_like(W)
    before = W.copy()
    flags = np.zeros(tree.n_internal, dtype=np.uint8)
    flags[0] = 1
    kern.adagrad_node_rows(W, acc, grad, np.array([0]), 1, flags, tree.children, 0.1, 1e-8)
    extra = slice(tree.n_internal * M, None)
    assert (W[:M] != before[:M]).all() and (W[extra] != before[extra]).all()
    assert (W[M:tree.n_internal * M] == before[M:tree.n_internal * M]).all()
    assert not grad[:M].any() and not grad[extra].any() and not flags.any()


def test_a_rebuild_keeps_the_extra_rows_with_the_root_and_its_words():
    rng = np.random.default_rng(4)
    old = build_tree("random", 12, 4, 2, rng)
    new = build_tree("random", 12, 4, 2, rng)
    W = rng.normal(size=((old.n_internal + 1) * 4, 3)).astype(np.float32)
    old_id = np.arange(new.n_internal)
    old_id[old_id >= old.n_internal] = -1
    moved = remap_rows(W, old_id, 4, old.n_internal)
    assert len(moved) == (new.n_internal + 1) * 4
    assert (moved[new.n_internal * 4:] == W[old.n_internal * 4:]).all()
    move_leaf_rows(moved, W, old, new)
    for w in range(12):
        a, b = old.path_off[w + 1] - 1, new.path_off[w + 1] - 1
        if old.path_node[a] == 0 and new.path_node[b] == 0:  # at the root in both
            assert (moved[root_row(new.children, 1, new.path_slot[b])]
                    == W[root_row(old.children, 1, old.path_slot[a])]).all()


def test_default_rows_per_root_slot():
    """docs/lm.md, "Several rows per root slot": four at a softmax root,
    one at a binary root (one sigmoid), -rootRows where given."""
    assert [root_rows(make_lm_args(input="x"), arity) for arity in (2, 3, 200)] == [1, 4, 4]
    assert root_rows(make_lm_args(input="x", rootRows=3), 5) == 3


def test_the_default_rows_and_files_keep_them(tmp_path, sentence_text):
    text = sentence_text(80)
    model, _ = small_model(tmp_path, text, loss="tree", arity=4, depth=2, epoch=1,
                           rootRows=2)
    assert len(model.W) == (model.tree.n_internal + 1) * 4
    path = str(tmp_path / "m.bin")
    model.save_model(path)
    ids = model.vocab.encode(np.frombuffer(sentence_text(5).encode(), dtype=np.uint8))
    assert load_lm(path).args.rootRows == 2
    assert perplexity(load_lm(path), ids)[0] == pytest.approx(perplexity(model, ids)[0],
                                                              rel=1e-6)
    # a file from before -rootRows: no such option, one row per root slot
    header, arrays = modelfile.load(path)
    del header["args"]["rootRows"]
    arrays = dict(arrays, W=np.ascontiguousarray(arrays["W"][:-4]))
    modelfile.save(str(tmp_path / "old.bin"), header, arrays)
    old = load_lm(str(tmp_path / "old.bin"))
    assert old.args.rootRows == 1 and perplexity(old, ids)[0] > 1.0
    # rows that do not match the option are refused
    header["args"]["rootRows"] = 3
    modelfile.save(str(tmp_path / "bad.bin"), header, arrays)
    with pytest.raises(TreexcError, match="corrupt language model"):
        load_lm(str(tmp_path / "bad.bin"))


def test_a_binary_root_or_a_flat_softmax_has_no_extra_rows(tmp_path, sentence_text):
    with pytest.raises(TreexcError, match="rootRows"):
        make_lm_args(input="x", arity=2, rootRows=2)
    with pytest.raises(TreexcError, match="rootRows"):
        make_lm_args(input="x", loss="softmax", rootRows=2)
    model, _ = small_model(tmp_path, sentence_text(40), loss="tree", arity=2, depth=6,
                           epoch=1)
    assert model.args.rootRows == 1 and len(model.W) == model.tree.n_internal * 2


def batch_and_position_steps_agree(model, ids, positions):
    """A training step and an evaluation of the engine that scores the root
    of the whole batch with BLAS products equal those of the path kernels
    that score it position by position (``tree_batch_grad``); returns the
    evaluation's per-position log-probabilities."""
    results = []
    for blas in (True, False):
        m = copy.deepcopy(model)
        e = m.engine(64)
        assert e.root_blas
        e.root_blas = blas
        acc = {name: np.zeros_like(getattr(m, name)) for name in ("U", "C", "W")}
        loss = e.train(ids, positions, len(positions), 0.1, acc)
        nll = e.batch_nll(ids, positions, len(positions))
        results.append((loss, nll, e.lp[:len(positions)].copy(), m.U, m.C, m.W))
    (loss_a, nll_a, lp_a, *weights_a), (loss_b, nll_b, lp_b, *weights_b) = results
    assert loss_a == pytest.approx(loss_b, rel=1e-5) and nll_a == pytest.approx(nll_b, rel=1e-5)
    assert np.allclose(lp_a, lp_b, rtol=1e-5)
    for a, b in zip(weights_a, weights_b):
        assert np.allclose(a, b, rtol=1e-4, atol=1e-6)
    return lp_a


def batch_of(model, sentence_text):
    ids = model.vocab.encode(np.frombuffer(sentence_text(30, seed=2).encode(), np.uint8))
    return ids, np.arange(40, dtype=np.int64)


@pytest.mark.slow
@pytest.mark.parametrize("rows", [1, 3])
def test_the_batch_root_step_equals_the_per_position_kernels(tmp_path, sentence_text, rows):
    model, _ = small_model(tmp_path, sentence_text(80), loss="tree", tree="random", arity=5,
                           depth=2, epoch=1, rootRows=rows)
    batch_and_position_steps_agree(model, *batch_of(model, sentence_text))


def test_the_batch_root_step_with_empty_slots_and_a_vanishing_target(tmp_path, sentence_text):
    """The batch step exponentiates the root's scores in float32: empty
    slots must count for nothing, and a target whose slot lies so far below
    the best one that its exponentials lose their precision falls back to
    the float64 mixture."""
    model, _ = small_model(tmp_path, sentence_text(80), loss="tree", tree="random", arity=16,
                           depth=2, epoch=1, rootRows=3)
    t = model.tree
    assert (t.children[0] < 0).any()  # the 12-word vocabulary leaves root slots empty
    ids, positions = batch_of(model, sentence_text)
    slot = t.path_slot[t.path_off[ids[positions[0]]]]
    for k in range(3):
        model.W[root_row(t.children, k, slot), -1] -= 80.0  # the bias column
    lp = batch_and_position_steps_agree(model, ids, positions)
    assert lp[0] < -60.0


def test_the_memory_estimate_counts_the_root_rows_it_will_use():
    def parts(rows):
        args = make_lm_args(input="x", loss="tree", dim=10, thread=2, batch=8, rootRows=rows)
        return {name: size for name, size, _ in lm_parts(args, 10_000, 200)}
    one, four = parts(1), parts(4)
    assert four["root scores"] == 4 * one["root scores"]
    # three more rows a slot: weights, Adagrad accumulator and one gradient a thread
    assert four["tree weights"] - one["tree weights"] == 3 * 200 * 11 * 4 * (2 + 2)
    assert parts(0) == four  # not chosen yet: the rule's most


def test_the_memory_estimate_counts_the_statistics_the_learner_allocates():
    args = make_lm_args(input="x", loss="tree", dim=10, thread=2, batch=8, depth=2)
    estimate = {name: size for name, size, _ in lm_parts(args, 2_000, 50)}
    tree = build_tree("random", 2_000, 50, 2, np.random.default_rng(0))
    learner = TreeLearner(tree, 2, max_depth=2, exact_depth=True)
    per_thread = (learner.stats_p.nbytes + learner.stats_n.nbytes) // 2
    # each thread's statistics and the rebuild's carried copy
    assert estimate["tree statistics"] == 3 * per_thread
