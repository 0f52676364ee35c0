"""Output trees: fastText's binary Huffman tree, M-ary Huffman trees,
balanced trees, and the checks that refuse corrupt trees."""

import heapq

import numpy as np
import pytest

from treexc.errors import TreexcError
from treexc.trees.builders import flat_tree, huffman_tree, random_tree
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
