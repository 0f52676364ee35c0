"""Output trees: fastText's binary Huffman tree, M-ary Huffman trees,
balanced trees, and the checks that refuse corrupt trees."""

import heapq

import numpy as np
import pytest

from treexc.classify.options import make_args
from treexc.classify.training import train_supervised
from treexc.errors import TreexcError
from treexc.lm.options import make_lm_args
from treexc.lm.training import train_lm
from treexc.trees.builders import (
    BUILDERS,
    build_tree,
    flat_tree,
    huffman_tree,
    random_tree,
)
from treexc.trees.capacity import CLASSIFIER_FLAGS, LM_FLAGS, check_capacity
from treexc.trees.tree import Tree


def fasttext_codes(counts):
    """fastText 0.9.2's ``HierarchicalSoftmaxLoss::buildTree``, transcribed.

    ``counts`` in dictionary order (non-increasing).  Returns each label's
    code from the root down: 1 where the path goes to a right child (the
    sigmoid's positive side, ``binary = true``)."""
    osz = len(counts)
    count = [1e15] * (2 * osz - 1)
    parent = [-1] * (2 * osz - 1)
    binary = [False] * (2 * osz - 1)
    count[:osz] = counts
    leaf, node = osz - 1, osz
    for i in range(osz, 2 * osz - 1):
        mini = [0, 0]
        for j in range(2):
            if leaf >= 0 and count[leaf] < count[node]:
                mini[j] = leaf
                leaf -= 1
            else:
                mini[j] = node
                node += 1
        count[i] = count[mini[0]] + count[mini[1]]
        parent[mini[0]] = parent[mini[1]] = i
        binary[mini[1]] = True
    codes = []
    for i in range(osz):
        code, j = [], i
        while parent[j] != -1:
            code.append(int(binary[j]))
            j = parent[j]
        codes.append(code[::-1])
    return codes


def treexc_codes(tree):
    return [tree.path_slot[tree.path_off[c]:tree.path_off[c + 1]].tolist()
            for c in range(tree.n_labels)]


def huffman_cost(counts, arity):
    """Weighted depth sum(count * depth) of an optimal M-ary tree: the plain
    heap algorithm with zero-weight padding."""
    k = len(counts)
    if k <= arity:
        return float(sum(counts))
    pad = (arity - 1 - (k - 1) % (arity - 1)) % (arity - 1)
    heap = [float(c) for c in counts] + [0.0] * pad
    heapq.heapify(heap)
    cost = 0.0
    while len(heap) > 1:
        merged = sum(heapq.heappop(heap) for _ in range(arity))
        cost += merged
        heapq.heappush(heap, merged)
    return cost


def check_well_formed(tree, n_labels, arity):
    """Every structural promise of tree.py, checked from ``children`` alone."""
    ch = tree.children
    n_int = ch.shape[0]
    assert ch.shape == (n_int, arity) and ch.dtype == np.int32
    assert tree.n_labels == n_labels
    flat = ch.ravel()
    assert ((flat >= -1) & (flat < n_labels + n_int)).all()
    # every label exactly once, every internal node but the root once
    assert sorted(flat[(flat >= 0) & (flat < n_labels)].tolist()) == list(range(n_labels))
    assert sorted(flat[flat >= n_labels].tolist()) == list(range(n_labels + 1,
                                                                 n_labels + n_int))
    # breadth-first numbering: a parent comes before its children, and a
    # node's depth never decreases with its id
    depth = np.zeros(n_int, dtype=int)
    for n in range(n_int):
        for c in ch[n]:
            if c >= n_labels:
                assert c - n_labels > n
                depth[c - n_labels] = depth[n] + 1
    assert (np.diff(depth) >= 0).all()
    np.testing.assert_array_equal(tree.node_depths(), depth)
    # the stored paths lead from the root to each label
    for label in range(n_labels):
        nodes = tree.path_node[tree.path_off[label]:tree.path_off[label + 1]]
        slots = tree.path_slot[tree.path_off[label]:tree.path_off[label + 1]]
        assert len(nodes) >= 1 and nodes[0] == 0
        for a in range(len(nodes) - 1):
            assert ch[nodes[a], slots[a]] == n_labels + nodes[a + 1]
        assert ch[nodes[-1], slots[-1]] == label
    n_empty = int((flat == -1).sum())
    assert n_empty == n_int * arity - n_labels - (n_int - 1)
    return n_empty


# -- binary: fastText's hs tree ---------------------------------------------------

@pytest.mark.parametrize("counts", [
    [1, 1, 1],
    [3, 2, 1],
    [10, 1, 1, 1, 1],
    [4, 4, 4, 4],
    [8, 4, 2, 1, 1],
    [100, 50, 50, 20, 20, 20, 5, 5, 1, 1, 1],
    [7] * 16 + [3] * 9 + [1] * 5,
])
def test_binary_huffman_equals_fasttext(counts):
    tree = huffman_tree(counts, 2)
    check_well_formed(tree, len(counts), 2)
    assert treexc_codes(tree) == fasttext_codes(counts)


def test_binary_huffman_equals_fasttext_random():
    rng = np.random.default_rng(11)
    for _ in range(150):
        k = int(rng.integers(3, 120))
        # small ranges force many ties, large ones none
        high = int(rng.choice([3, 20, 10 ** 6]))
        counts = sorted(rng.integers(1, high, size=k).tolist(), reverse=True)
        tree = huffman_tree(counts, 2)
        assert treexc_codes(tree) == fasttext_codes(counts), counts


def test_binary_huffman_sorts_its_counts():
    # fastText receives counts sorted; treexc sorts them (stably)
    rng = np.random.default_rng(5)
    for _ in range(50):
        k = int(rng.integers(3, 60))
        counts = rng.integers(1, 8, size=k)
        order = np.argsort(-counts, kind="stable")
        ref = fasttext_codes(counts[order].tolist())
        got = treexc_codes(huffman_tree(counts, 2))
        for rank, label in enumerate(order):
            assert got[label] == ref[rank]


def test_binary_huffman_two_labels():
    counts = [5, 3]
    tree = huffman_tree(counts, 2)
    assert tree.depths().tolist() == [1, 1]
    assert treexc_codes(tree) == fasttext_codes(counts)


# -- M-ary --------------------------------------------------------------------------

def label_counts_for(k, rng):
    kind = rng.integers(3)
    if kind == 0:
        return rng.integers(1, 4, size=k)             # many ties
    if kind == 1:
        return rng.integers(1, 10 ** 6, size=k)       # distinct
    return np.maximum(1, (1000 / np.arange(1, k + 1) ** 1.1)).astype(np.int64)  # Zipf


@pytest.mark.parametrize("arity", range(2, 66))
def test_mary_huffman_well_formed_and_optimal(arity):
    rng = np.random.default_rng(arity)
    sizes = {1, 2, arity - 1, arity, arity + 1, 2 * arity - 1, 2 * arity,
             arity * arity + 3, int(rng.integers(3, 400))}
    for k in sorted(s for s in sizes if s >= 1):
        counts = label_counts_for(k, rng)
        tree = huffman_tree(counts, arity)
        n_empty = check_well_formed(tree, k, arity)
        if k <= arity:
            assert tree.n_internal == 1
            assert sorted(c for c in tree.children[0].tolist() if c >= 0) == list(range(k))
            assert n_empty == arity - k
            continue
        # padding: as few empty slots as make every merge full, all of them
        # in one node (the first merge, the deepest)
        assert (k + n_empty - 1) % (arity - 1) == 0
        assert n_empty < arity - 1
        per_node = (tree.children == -1).sum(axis=1)
        assert (per_node > 0).sum() <= 1
        assert ((tree.children >= 0).sum(axis=1) >= 2).all()
        # optimal: the same weighted depth as the heap algorithm
        cost = float((counts * tree.depths()).sum())
        assert cost == huffman_cost(counts.tolist(), arity), (arity, k)


def test_mary_huffman_puts_frequent_labels_high():
    counts = np.array([1000, 900, 800] + [1] * 60)
    tree = huffman_tree(counts, 4)
    d = tree.depths()
    assert d[:3].max() <= d[3:].min()
    assert (np.diff(d[np.argsort(-counts, kind="stable")]) >= 0).all()


def test_flat_tree():
    for k in (1, 2, 7, 300):
        tree = flat_tree(k)
        check_well_formed(tree, k, k)
        assert tree.n_internal == 1 and tree.max_depth() == 1


# -- balanced trees -------------------------------------------------------------------

@pytest.mark.parametrize("n_labels,arity,depth", [
    (1, 2, 1), (2, 2, 1), (5, 2, 3), (8, 2, 3), (10, 3, 3), (27, 3, 3),
    (100, 10, 2), (100, 5, 4), (3, 2, 3), (50, 8, 2),
])
def test_random_tree(n_labels, arity, depth):
    rng = np.random.default_rng(n_labels * 100 + arity)
    tree = random_tree(n_labels, arity, depth, rng)
    check_well_formed(tree, n_labels, arity)
    assert (tree.depths() == depth).all()
    # each node's subtrees hold the same number of labels, give or take one
    held = {}

    def size(c):
        if c < n_labels:
            return 1 if c >= 0 else 0
        n = c - n_labels
        held[n] = sum(size(x) for x in tree.children[n])
        return held[n]

    size(n_labels)  # the root
    for n in range(tree.n_internal):
        sizes = [size(c) for c in tree.children[n]]
        assert max(sizes) - min(sizes) <= 1


def test_random_tree_too_shallow():
    with pytest.raises(TreexcError, match="holds 8 leaves"):
        random_tree(9, 2, 3, np.random.default_rng(0))


def test_random_tree_depends_on_the_generator():
    a = random_tree(30, 3, 4, np.random.default_rng(1)).children
    b = random_tree(30, 3, 4, np.random.default_rng(1)).children
    c = random_tree(30, 3, 4, np.random.default_rng(2)).children
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


# -- builders by name, for both models -----------------------------------------------

def test_build_tree_by_name():
    counts = np.array([50, 20, 9, 5, 3, 3, 1, 1, 1, 1])
    n, arity, depth = len(counts), 3, 3
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(n, 4))
    trees = {name: build_tree(name, n, arity, depth, rng, counts=counts, vectors=vectors)
             for name in BUILDERS if name != "flat"}
    trees["flat"] = build_tree("flat", n, n, 1)
    for name, tree in trees.items():
        check_well_formed(tree, n, tree.arity)
    assert trees["flat"].n_internal == 1
    np.testing.assert_array_equal(trees["huffman"].children, huffman_tree(counts, 3).children)
    assert trees["spread"].max_depth() <= depth
    assert (trees["random"].depths() == depth).all()
    assert (trees["cluster"].depths() == depth).all()
    with pytest.raises(ValueError, match="unknown tree builder"):
        build_tree("oak", n, arity, depth, rng)


@pytest.mark.parametrize("flags,message", [
    (LM_FLAGS, "-arity 2 -depth 3 holds 8 leaves, fewer than the 9 words of the vocabulary "
               "(raise -arity or -depth, or -arity 0 to fit)"),
    (CLASSIFIER_FLAGS, "-arity 2 -maxDepth 3 holds 8 leaves, fewer than the 9 labels "
                       "(raise -arity or -maxDepth, or -maxDepth -1 to fit)"),
])
def test_capacity_is_checked_in_the_commands_words(flags, message):
    with pytest.raises(TreexcError) as e:
        check_capacity(9, 2, 3, flags)
    assert str(e.value) == message
    with pytest.raises(TreexcError, match=f"^-arity 2 {flags.depth} 70: the tree holds more "
                                          "than 2\\^62 leaves"):
        check_capacity(9, 2, 70, flags)
    check_capacity(8, 2, 3, flags)
    check_capacity(10 ** 9, 2, 0, flags)  # no depth limit: nothing to check


def test_language_model_with_a_huffman_tree(tmp_path):
    rng = np.random.default_rng(5)
    words = [f"w{i}" for i in range(30)]
    weights = 1.0 / np.arange(1, 31)
    text = "\n".join(" ".join(rng.choice(words, size=6, p=weights / weights.sum()))
                     for _ in range(300)) + "\n"
    (tmp_path / "lm.txt").write_text(text)
    args = make_lm_args(input=str(tmp_path / "lm.txt"), dim=8, epoch=1, thread=1, verbose=0,
                        minCount=1, batch=16, seed=1, arity=3, tree="random")
    args.tree = "huffman"  # until the options accept it (the builder is what is tested)
    model, records = train_lm(args)
    np.testing.assert_array_equal(model.tree.children,
                                  huffman_tree(model.vocab.counts, 3).children)
    assert len(set(model.tree.depths().tolist())) > 1  # Huffman: frequent words higher
    assert records and records[-1]["rebuilds"] == 0  # a fixed tree
    ctx = rng.integers(0, model.vocab.size, size=(10, model.args.context))
    assert np.allclose(np.exp(model.next_log_probs(ctx)).sum(axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("name", ["huffman", "random", "cluster"])
def test_classifier_with_a_fixed_tree(tmp_path, name):
    rng = np.random.default_rng(2)
    lines = []
    for _ in range(600):
        k = int(rng.integers(20))
        lines.append(f"__label__{k} " + " ".join([f"k{k}", f"g{k // 4}"]
                                                 + list(rng.choice(["a", "b", "c"], 2))))
    (tmp_path / "c.txt").write_text("\n".join(lines) + "\n")
    args = make_args(input=str(tmp_path / "c.txt"), loss="tree", arity=3, dim=8, epoch=5,
                     lr=0.5, thread=1, seed=1, verbose=0)
    args.tree = name  # set after the checks: older Args lack the field
    model = train_supervised(args)
    tree, n = model.tree, model.nlabels
    check_well_formed(tree, n, 3)
    if name == "huffman":
        np.testing.assert_array_equal(tree.children,
                                      huffman_tree(model.dictionary.label_counts, 3).children)
    else:  # every leaf at the least depth that holds the labels (-maxDepth auto)
        assert (tree.depths() == 3).all()
    labels, _ = model.predict([line.split(" ", 1)[1] for line in lines[:200]])
    truth = [line.split(" ", 1)[0] for line in lines[:200]]
    assert np.mean([got[0] == want for got, want in zip(labels, truth)]) > 0.5


# -- corrupt trees -------------------------------------------------------------------------

@pytest.mark.parametrize("children,n_labels,message", [
    ([[0, 0]], 2, "appears twice"),
    ([[0, -1]], 2, "has no leaf"),
    ([[0, 5]], 2, "node 0 has"),   # a child out of range
    ([[0, -2]], 2, "node 0 has"),
    ([[2, 4], [1, 2]], 3, "appears twice"),
    ([[0, 2], [1, -1]], 2, "breadth-first"),        # node 0 is its own child
    ([[0, 1], [-1, -1]], 2, "unreachable"),
    ([[0, 6], [1, 2], [3, 5]], 4, "breadth-first"),  # node 1 below node 2
])
def test_corrupt_trees_are_refused(children, n_labels, message):
    with pytest.raises(TreexcError, match="corrupt tree: .*" + message):
        Tree(np.array(children), n_labels)
