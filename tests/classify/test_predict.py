"""Top-k prediction: the branch-and-bound search must return exactly what
scoring every label and sorting returns."""

import math

import numpy as np
import pytest

import treexc
from treexc.classify.predict_kernels import predict_lines
from treexc.loss.registry import KERNEL_OVA, KERNEL_TREE
from treexc.trees.builders import flat_tree, huffman_tree
from treexc.trees.builders import random_tree as random_balanced_tree

TOL = 1e-4  # float32 dot products in the kernel, float64 here


def reference_log_probs(tree, w_out, hidden):
    """Log-probability of every label: the sum over its path of the slot's
    log-probability, each node a softmax over its non-empty slots, or
    fastText's sigmoid for a binary node with both slots filled."""
    ch = tree.children
    arity = tree.arity
    w = w_out.astype(np.float64)
    node_logp = np.zeros((tree.n_internal, arity))
    for n in range(tree.n_internal):
        filled = ch[n] >= 0
        scores = w[n * arity:(n + 1) * arity] @ hidden
        if arity == 2 and filled.all():
            p1 = 1.0 / (1.0 + math.exp(-scores[0]))
            node_logp[n] = [math.log(1.0 - p1), math.log(p1)]
        else:
            s = np.where(filled, scores, -np.inf)
            node_logp[n] = s - (s.max() + np.log(np.exp(s - s.max()).sum()))
    out = np.zeros(tree.n_labels)

    def walk(n, acc):
        for j, c in enumerate(ch[n]):
            if c < 0:
                continue
            if c < tree.n_labels:
                out[c] = acc + node_logp[n, j]
            else:
                walk(c - tree.n_labels, acc + node_logp[n, j])

    walk(0, 0.0)
    return out


def check_line(lp, labels, scores, count, k, threshold):
    """``labels``/``scores`` (first ``count`` valid) against the reference
    log-probabilities ``lp``.  Returns True if the check was exact (no
    near-ties that float rounding could order either way)."""
    n_labels = len(lp)
    labels, scores = labels[:count], scores[:count]
    assert ((labels >= 0) & (labels < n_labels)).all()   # never an empty slot
    assert len(set(labels.tolist())) == count
    np.testing.assert_allclose(scores, lp[labels], atol=TOL)
    assert (np.diff(scores) <= 0).all()                  # best first
    log_t = math.log(threshold) if threshold > 0 else -math.inf
    sure = int((lp >= log_t + TOL).sum())
    maybe = int((lp >= log_t - TOL).sum())
    assert min(k, sure) <= count <= min(k, maybe)
    assert (lp[labels] >= log_t - TOL).all()
    rest = np.setdiff1d(np.arange(n_labels), labels)
    if count == k and len(rest):
        assert lp[rest].max() <= scores[-1] + TOL      # nothing better was missed
    elif len(rest):
        assert (lp[rest] < log_t + TOL).all()          # all others below threshold
    order = np.argsort(-lp, kind="stable")
    expected = [c for c in order if lp[c] >= log_t][:k]
    top = np.sort(lp)[::-1][:k + 1]
    clear = (np.diff(top) < -10 * TOL).all() and (np.abs(lp - log_t) > 10 * TOL).all()
    if clear:
        assert labels.tolist() == expected
    return clear


def make_trees(rng):
    trees = []
    for _ in range(12):
        k = int(rng.integers(1, 60))
        arity = int(rng.integers(2, 10))
        trees.append(huffman_tree(rng.integers(1, 50, size=k), arity))
    for k in (1, 2, 3, 17):
        trees.append(flat_tree(k))
    for k, arity, depth in ((7, 2, 3), (20, 3, 3), (40, 4, 3), (9, 9, 1), (30, 2, 6)):
        trees.append(random_balanced_tree(k, arity, depth, rng))
    trees.append(huffman_tree(rng.integers(1, 5, size=200), 2))
    return trees


def random_lines(rng, n_rows, n_lines):
    lens = rng.integers(1, 6, size=n_lines)
    lens[0] = 0  # a line without features
    feat_off = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    feats = rng.integers(0, n_rows, size=feat_off[-1]).astype(np.int32)
    return feat_off, feats


def run_kernel(feat_off, feats, w_in, w_out, loss_kind, children, n_labels, k, threshold,
               mean_scoring=False):
    n = len(feat_off) - 1
    out_label = np.full((n, k), -7, dtype=np.int64)
    out_score = np.full((n, k), np.nan)
    out_count = np.full(n, -1, dtype=np.int64)
    predict_lines(feat_off, feats, w_in, w_out, loss_kind, children, n_labels, k,
                  float(threshold), mean_scoring, out_label, out_score, out_count)
    return out_label, out_score, out_count


def mean_reference_log_probs(children, n_labels, w_out, hidden):
    """Every label's log-probability under the mean of a tree softmax's two
    readings (``loss.topk.mean_top_k``), by a walk over the whole tree."""
    arity = children.shape[1]
    w_out = w_out.astype(np.float64)
    tree = np.zeros(children.shape[0])
    flat = np.zeros(children.shape[0])
    score = np.full(n_labels, np.nan)
    for n in range(children.shape[0]):
        slots = np.flatnonzero(children[n] >= 0)
        if len(slots) == 1:
            logits = np.zeros(1)
        elif arity == 2:  # fastText's sigmoid on row 0: the logits (0, score)
            logits = np.array([0.0, w_out[n * arity] @ hidden])
        else:
            logits = w_out[n * arity + slots] @ hidden
        log_probs = logits - np.logaddexp.reduce(logits)
        for j, logit, log_p in zip(slots, logits, log_probs):
            c = children[n, j]
            t, f = tree[n] + log_p, flat[n] + logit
            if c < n_labels:
                score[c] = 0.5 * (t + f)
            else:
                tree[c - n_labels], flat[c - n_labels] = t, f
    assert not np.isnan(score).any()
    return score - np.logaddexp.reduce(score)


def hidden_of(w_in, feats, f0, f1):
    return w_in[feats[f0:f1]].astype(np.float64).mean(axis=0)


@pytest.mark.parametrize("mean", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tree_top_k_equals_brute_force(seed, mean):
    """Every kind of tree (Huffman with padding, flat, binary, balanced), by
    its probabilities or (``mean``) by its two readings (-scoring mean)."""
    rng = np.random.default_rng(seed)
    dim, n_rows = 8, 40
    exact = total = 0
    for tree in make_trees(rng):
        w_in = (rng.standard_normal((n_rows, dim)) * 1.5).astype(np.float32)
        w_out = rng.standard_normal((tree.n_internal * tree.arity, dim)).astype(np.float32)
        feat_off, feats = random_lines(rng, n_rows, 12)
        K = tree.n_labels
        hiddens = [hidden_of(w_in, feats, feat_off[i], feat_off[i + 1])
                   for i in range(1, len(feat_off) - 1)]
        lps = [None] + [mean_reference_log_probs(tree.children, K, w_out, h) if mean
                        else reference_log_probs(tree, w_out, h) for h in hiddens]
        for k in sorted({1, 2, 5, K, K + 3}):
            for threshold in (0.0, 0.01, 0.2, 0.6):
                labels, scores, counts = run_kernel(feat_off, feats, w_in, w_out,
                                                    KERNEL_TREE, tree.children, K, k,
                                                    threshold, mean_scoring=mean)
                assert counts[0] == 0  # no features, no prediction
                for i in range(1, len(counts)):
                    exact += check_line(lps[i], labels[i], scores[i], counts[i], k,
                                        threshold)
                    total += 1
    assert exact > 0.9 * total  # the exact comparison was not vacuous


def test_probabilities_of_a_tree_sum_to_one():
    rng = np.random.default_rng(4)
    for tree in make_trees(rng):
        w_in = rng.standard_normal((10, 6)).astype(np.float32)
        w_out = rng.standard_normal((tree.n_internal * tree.arity, 6)).astype(np.float32)
        feat_off, feats = random_lines(rng, 10, 5)
        K = tree.n_labels
        labels, scores, counts = run_kernel(feat_off, feats, w_in, w_out, KERNEL_TREE,
                                            tree.children, K, K, 0.0)
        assert counts[1:].tolist() == [K] * 4
        np.testing.assert_allclose(np.exp(scores[1:]).sum(axis=1), 1.0, rtol=1e-4)
        assert (np.sort(labels[1:], axis=1) == np.arange(K)).all()


def test_threshold_prunes_everything():
    tree = huffman_tree([5, 4, 3, 2, 1], 3)
    rng = np.random.default_rng(9)
    w_in = rng.standard_normal((5, 4)).astype(np.float32)
    w_out = rng.standard_normal((tree.n_internal * 3, 4)).astype(np.float32)
    feat_off, feats = random_lines(rng, 5, 6)
    # no label of 5 can have probability above 0.99 unless it dominates: use
    # threshold 1.0, which only a probability of exactly 1 passes
    labels, scores, counts = run_kernel(feat_off, feats, w_in, w_out, KERNEL_TREE,
                                        tree.children, 5, 3, 1.0)
    assert (counts == 0).all()


def test_empty_slots_never_returned_even_when_their_rows_dominate():
    # empty slots' rows are huge: a search that scored them would pick them
    tree = huffman_tree([9, 8, 7, 6, 5, 4, 3, 2], 4)  # 8 labels: 2 padding slots
    assert (tree.children == -1).sum() > 0
    w_out = np.zeros((tree.n_internal * 4, 3), dtype=np.float32)
    empty = np.flatnonzero(tree.children.ravel() == -1)
    w_out[empty] = 100.0
    w_in = np.ones((2, 3), dtype=np.float32)
    labels, scores, counts = run_kernel(np.array([0, 1]), np.array([0], np.int32), w_in,
                                        w_out, KERNEL_TREE, tree.children, 8, 8, 0.0)
    assert counts[0] == 8
    assert sorted(labels[0].tolist()) == list(range(8))
    np.testing.assert_allclose(np.exp(scores[0]).sum(), 1.0, rtol=1e-5)


@pytest.mark.parametrize("seed", [0, 1])
def test_sigmoid_top_k_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    K, dim = 25, 6
    w_in = rng.standard_normal((30, dim)).astype(np.float32)
    w_out = rng.standard_normal((K, dim)).astype(np.float32)
    feat_off, feats = random_lines(rng, 30, 20)
    for k in (1, 3, K, K + 2):
        for threshold in (0.0, 0.3, 0.9):
            labels, scores, counts = run_kernel(feat_off, feats, w_in, w_out, KERNEL_OVA,
                                                np.zeros((1, 2), np.int32), K, k, threshold)
            assert counts[0] == 0
            for i in range(1, len(counts)):
                h = hidden_of(w_in, feats, feat_off[i], feat_off[i + 1])
                lp = -np.log1p(np.exp(-(w_out.astype(np.float64) @ h)))
                check_line(lp, labels[i], scores[i], counts[i], k, threshold)


# -- through the model ------------------------------------------------------------------

@pytest.fixture(scope="module")
def hs_model(tmp_path_factory):
    rng = np.random.default_rng(0)
    vocab = [f"w{i}" for i in range(60)]
    lines = []
    for _ in range(400):
        label = int(rng.integers(7))
        words = rng.choice(vocab[label * 8:label * 8 + 12], size=5).tolist()
        lines.append(f"__label__{label} " + " ".join(words))
    path = tmp_path_factory.mktemp("predict") / "train.txt"
    path.write_text("\n".join(lines) + "\n")
    return treexc.train_supervised(input=str(path), loss="hs", arity=3, dim=8, epoch=3,
                                   lr=0.5, thread=1, seed=1)


def test_model_predict_equals_brute_force(hs_model):
    m = hs_model
    names = m.get_labels()
    for text in ["w1 w2 w3", "w20 w21", "w50 w9 w33 unknown", "nothing known", ""]:
        lp = reference_log_probs(m.tree, np.asarray(m.w_out),
                                 m.get_sentence_vector(text).astype(np.float64))
        for k, threshold in ((1, 0.0), (3, 0.0), (7, 0.0), (20, 0.0), (7, 0.1)):
            labels, probs = m.predict(text, k=k, threshold=threshold)
            ids = np.array([names.index(x) for x in labels], dtype=np.int64)
            check_line(lp, ids, np.log(probs), len(ids), min(k, m.nlabels), threshold)


def test_model_predict_list_and_validation(hs_model):
    labels, probs = hs_model.predict(["w1 w2", "w20 w21"], k=2)
    assert len(labels) == 2 and all(len(x) == 2 for x in labels)
    assert labels[0] == hs_model.predict("w1 w2", k=2)[0]
    np.testing.assert_array_equal(probs[1], hs_model.predict("w20 w21", k=2)[1])
    with pytest.raises(treexc.TreexcError, match="one line"):
        hs_model.predict("two\nlines")
    with pytest.raises(treexc.TreexcError, match="k 0"):
        hs_model.predict("w1", k=0)
