"""Learned trees: node measures, AssignLabels well-formedness, and that
learning the structure beats a random structure on data with a hidden
label hierarchy."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treexc.classify.options import make_args
from treexc.classify.training import train_supervised
from treexc.trees.builders import huffman_tree, spread_tree
from treexc.trees.huffman_kernels import huffman_root_leaves
from treexc.trees.learner import TreeLearner, assign_labels
from treexc.trees.stats import measure_nodes, node_measures
from treexc.trees.tree import Tree

# -- J_n, alpha_n, beta_n ------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(st.integers(2, 65), st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_objective_stays_in_its_range(arity, n_labels, seed):
    rng = np.random.default_rng(seed)
    q = rng.dirichlet(np.ones(n_labels))
    p_cond = rng.dirichlet(np.full(arity, rng.choice([0.05, 1.0, 20.0])), size=n_labels)
    objective, purity, balance = node_measures(q, p_cond)
    upper = 4.0 / arity * (1.0 - 1.0 / arity)
    assert -1e-12 <= objective <= upper + 1e-12
    assert 0.0 <= purity <= 0.5 + 1e-12
    assert 0.0 <= balance <= 1.0 / arity + 1e-12


@pytest.mark.parametrize("arity", [2, 3, 5, 20, 65])
def test_objective_maximal_for_balanced_pure_split(arity):
    q = np.full(arity, 1.0 / arity)
    objective, purity, balance = node_measures(q, np.eye(arity))
    assert objective == pytest.approx(4.0 / arity * (1.0 - 1.0 / arity), abs=1e-12)
    assert purity == pytest.approx(0.0)
    assert balance == pytest.approx(1.0 / arity)


def test_objective_below_maximum_when_unbalanced_or_impure():
    arity = 4
    top = 4.0 / arity * (1.0 - 1.0 / arity)
    unbalanced = node_measures([0.7, 0.1, 0.1, 0.1], np.eye(arity))[0]
    impure = node_measures(np.full(arity, 0.25), 0.7 * np.eye(arity) + 0.075)[0]
    assert unbalanced < top - 1e-6
    assert impure < top - 1e-6
    assert node_measures([0.5, 0.5], np.full((2, arity), 0.25))[0] == pytest.approx(0.0)


# -- AssignLabels -------------------------------------------------------------

def _check_well_formed(tree, n_labels, arity, max_depth, exact):
    assert tree.n_labels == n_labels and tree.arity == arity
    # the Tree constructor already refused duplicates, missing labels, cycles
    depths = tree.depths()
    present = (tree.children >= 0).sum(axis=1)
    if max_depth:
        assert depths.max() <= max_depth
        if exact:
            assert (depths == max_depth).all()
    if not exact and n_labels > 1:
        assert (present >= 2).all(), "a node with a single child outside chains"
    if not max_depth:
        # a full M-ary tree up to padding: leaves + empty slots = 1 mod (M-1)
        slots = tree.n_internal * arity - (tree.n_internal - 1)
        assert slots >= n_labels
        assert (slots - 1) % (arity - 1) == 0
        assert slots - n_labels < arity - 1 or n_labels <= arity


@settings(max_examples=120, deadline=None)
@given(arity=st.integers(2, 65), n_labels=st.integers(1, 5000),
       depth_mode=st.sampled_from(["none", "limit", "exact"]),
       seed=st.integers(0, 2**32 - 1), gradient=st.sampled_from(["ll", "plain"]),
       mass_slack=st.sampled_from([0.0, 0.5, 1.5]))
def test_assign_labels_always_well_formed(arity, n_labels, depth_mode, seed, gradient,
                                          mass_slack):
    rng = np.random.default_rng(seed)
    max_depth = 0
    if depth_mode != "none":
        max_depth = 1
        while arity ** max_depth < n_labels:
            max_depth += 1
        max_depth += int(rng.integers(0, 2))
    exact = depth_mode == "exact"
    counts = rng.integers(0, 1000, n_labels)
    start = spread_tree(n_labels, arity, max_depth) if max_depth else \
        huffman_tree(counts, arity)
    positions = len(start.path_node)
    stats_n = rng.integers(0, 4, positions).astype(float)
    stats_p = rng.dirichlet(np.ones(arity), size=positions) * stats_n[:, None]
    new, old_id = assign_labels(start, stats_p, stats_n, gradient, max_depth, exact,
                                counts.astype(float), mass_slack)
    _check_well_formed(new, n_labels, arity, max_depth, exact)
    assert old_id[0] == 0 and old_id.max() < start.n_internal
    kept = old_id[old_id >= 0]
    assert len(np.unique(kept)) == len(kept), "an old node inherited twice"


@pytest.mark.parametrize("max_depth, exact", [(0, False), (1, True), (2, True)])
def test_assign_labels_with_an_arity_far_above_the_labels(max_depth, exact):
    """The node buffer grows by the nodes a node adds, not by ``arity``
    rows: at arity 200,000 that asked for (2 * 200,001) x 200,000 int32,
    320 GB, and the rebuild failed (the language model's -arity 100000 on
    1,881 words: "out of memory" after 2.6 GB)."""
    arity, n_labels = 200_000, 60
    start = spread_tree(n_labels, arity, max_depth) if max_depth else \
        huffman_tree(np.arange(1, n_labels + 1), arity)
    positions = len(start.path_node)
    stats_p = np.full((positions, arity), 1.0 / arity, dtype=np.float32)
    stats_n = np.ones(positions, dtype=np.float32)
    new, _ = assign_labels(start, stats_p, stats_n, "ll", max_depth, exact)
    _check_well_formed(new, n_labels, arity, max_depth, exact)


def test_assign_labels_follows_the_statistics():
    """Labels that a node sends to child j with high probability end there."""
    arity, n_labels = 4, 16
    start = spread_tree(n_labels, arity, 2)
    preferred = np.arange(n_labels) % arity
    stats_p = np.full((len(start.path_node), arity), 0.02)
    stats_n = np.ones(len(start.path_node))
    for label in range(n_labels):
        root_pos = start.path_off[label]  # depth 0 entry of each label's path
        stats_p[root_pos] = 0.02
        stats_p[root_pos, preferred[label]] = 0.94
    new, _ = assign_labels(start, stats_p, stats_n, "ll", 2, False)
    root_slot = new.path_slot[new.path_off[:-1]]
    assert (root_slot == preferred).all()


def _leaves_under(tree, child):
    if child < tree.n_labels:
        return [child]
    return [x for c in tree.children[child - tree.n_labels] if c >= 0
            for x in _leaves_under(tree, c)]


def test_mass_slack_gives_heavy_labels_subtrees_of_their_own():
    """With a mass cap a root child holding several labels stays within the
    cap, so each label heavier than the cap sits alone; without it the
    statistics alone decide and heavy labels share children."""
    arity, n_labels, depth = 8, 40, 2
    mass = 1.0 / np.arange(1, n_labels + 1) ** 2
    cap = 1.0 / arity * mass.sum()
    heavy = np.flatnonzero(mass > cap)
    assert len(heavy) >= 2
    rng = np.random.default_rng(3)
    start = spread_tree(n_labels, arity, depth)
    stats_n = np.ones(len(start.path_node))
    stats_p = rng.dirichlet(np.ones(arity), size=len(stats_n))
    stats_p[start.path_off[:-1]] = np.eye(arity)[np.zeros(n_labels, int)]  # all like child 0
    for slack, alone in ((1.0, True), (0.0, False)):
        new, _ = assign_labels(start, stats_p, stats_n, "ll", depth, True, mass, slack)
        _check_well_formed(new, n_labels, arity, depth, True)
        groups = [_leaves_under(new, c) for c in new.children[0] if c >= 0]
        if alone:
            assert all(len(g) == 1 or mass[g].sum() <= cap + 1e-12 for g in groups)
        assert all(len(g) == 1 for g in groups if set(g) & set(heavy)) == alone


def test_rebuild_keeps_weights_of_nodes_that_stay():
    tree = spread_tree(30, 3, 4)
    learner = TreeLearner(tree, n_threads=2, max_depth=4)
    w_out = np.random.default_rng(0).random((tree.n_internal * 3, 5)).astype(np.float32)
    new_w, = learner.rebuild(w_out)  # no statistics: nothing moves
    assert learner.tree.n_internal == tree.n_internal
    assert np.array_equal(learner.tree.children, tree.children)
    assert np.array_equal(new_w, w_out)


# -- learning the structure helps ---------------------------------------------

def _hierarchical_data(path, rng, lines, n_groups=8, per_group=8):
    """Labels in hidden groups: two words of the label's group, one of the
    label's own words (70% of lines) and three noise words."""
    group_words = [[f"g{g}w{i}" for i in range(6)] for g in range(n_groups)]
    label_words = [[f"l{k}w{i}" for i in range(3)] for k in range(n_groups * per_group)]
    noise = [f"n{i}" for i in range(50)]
    out = []
    for _ in range(lines):
        k = int(rng.integers(n_groups * per_group))
        words = list(rng.choice(group_words[k // per_group], 2)) + list(rng.choice(noise, 3))
        if rng.random() < 0.7:
            words.append(str(rng.choice(label_words[k])))
        rng.shuffle(words)
        out.append(f"__label__{k} " + " ".join(words))
    path.write_text("\n".join(out) + "\n")


def test_learned_tree_beats_random_tree_of_same_shape(tmp_path):
    rng = np.random.default_rng(7)
    train, test = tmp_path / "train.txt", tmp_path / "test.txt"
    _hierarchical_data(train, rng, lines=4000)
    _hierarchical_data(test, rng, lines=1500)
    # a small dim makes the tree's structure matter, and then every rebuild
    # helps (test P@1, medians of seeds 0-4: 1 rebuild 0.31, 10 0.49, 20 0.55,
    # 50 0.56; at dim 10 1 to 50 rebuilds 0.735 to 0.721): the paper's 50, not
    # the default's count by lines a label (10 here)
    flags = dict(input=str(train), loss="tree", arity=8, dim=3, lr=0.5, epoch=10,
                 thread=1, seed=3, verbose=0, treeUpdates=50)
    learned = train_supervised(make_args(**flags))
    # same shape, labels shuffled among the leaves, structure not learned
    perm = rng.permutation(learned.tree.n_labels)
    children = learned.tree.children.copy()
    leaves = (children >= 0) & (children < learned.tree.n_labels)
    children[leaves] = perm[children[leaves]]
    shuffled = Tree(children, learned.tree.n_labels)
    fixed = train_supervised(make_args(**dict(flags, treeUpdates=0)), initial_tree=shuffled)
    p_learned = learned.test(str(test))[1]
    p_random = fixed.test(str(test))[1]
    assert p_learned > p_random + 0.05, (p_learned, p_random)
    # and the learned tree put labels of one hidden group under one node
    report = measure_nodes(learned.tree)
    names = learned.get_labels()
    groups = [{int(names[i].split("__")[-1]) // 8 for i in r.labels}
              for r in report if r.depth == 1]
    assert np.mean([len(g) for g in groups]) < 1.5, groups


def _root_leaves(tree):
    return {int(c) for c in tree.children[0] if 0 <= c < tree.n_labels}


@settings(max_examples=60, deadline=None)
@given(arity=st.integers(2, 40), n_labels=st.integers(2, 3000),
       seed=st.integers(0, 2**32 - 1))
def test_mass_cap_keeps_the_huffman_trees_root_leaves(arity, n_labels, seed):
    """Without a depth limit, under the mass cap, the labels the M-ary
    Huffman tree over the label masses puts directly under the root are
    leaves of the root too, whatever the statistics say (the next-word set's
    "the", 4.98% of its examples at M = 20, had gone to depth 2), and keep
    their slots."""
    rng = np.random.default_rng(seed)
    mass = np.floor(rng.pareto(1.0, n_labels) * 100.0) + 1.0  # Zipf-like counts
    start = huffman_tree(mass, arity)
    stats_n = rng.integers(1, 4, len(start.path_node)).astype(float)
    stats_p = rng.dirichlet(np.ones(arity), size=len(stats_n)) * stats_n[:, None]
    assert huffman_root_leaves(np.sort(mass), arity) == len(_root_leaves(start))
    new, _ = assign_labels(start, stats_p, stats_n, "ll", 0, False, mass, 1.0)
    _check_well_formed(new, n_labels, arity, 0, False)
    assert _root_leaves(start) <= _root_leaves(new)
    # in their own slots: a slot's row was trained for its label (taking the
    # slot the statistics prefer moved every group of the next word's tree);
    # a root of only leaves has no groups to move and follows the statistics
    for slot, child in enumerate(start.children[0]):
        if 0 <= child < n_labels and n_labels > arity:
            assert new.children[0][slot] == child


@pytest.mark.parametrize("n_labels,arity", [(7, 4), (10, 5), (30, 10)])
def test_huffman_root_leaves_are_the_same_labels_on_ties(n_labels, arity):
    """Equal counts: which labels the Huffman tree keeps at its root is a
    matter of tie order, and AssignLabels keeps the same ones."""
    mass = np.full(n_labels, 5.0)
    start = huffman_tree(mass, arity)
    stats_n = np.ones(len(start.path_node))
    stats_p = np.full((len(stats_n), arity), 1.0 / arity)
    new, _ = assign_labels(start, stats_p, stats_n, "ll", 0, False, mass, 1.0)
    assert _root_leaves(start) and _root_leaves(start) <= _root_leaves(new)
