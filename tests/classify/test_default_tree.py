"""The default learned tree: about sqrt(labels)-ary, no depth
limit, a subtree holding at most about 1/arity of its parent's label
occurrences, so frequent labels sit near the root as in a Huffman tree."""

import numpy as np
import pytest

import treexc
from treexc import runtime
from treexc.classify import session
from treexc.classify.options import make_args
from treexc.classify.plan import LabelStats, plan
from treexc.classify.plan_rules import (
    STATS_PER_REBUILD,
    TREE_UPDATES,
    default_tree_arity,
    label_spread,
    learned_tree_arity,
    wide_root_arity,
)


def tree_updates(loss, labels, epochs, per_line, counts, arity=0):
    """-treeUpdates -1's count in the plan of these labels."""
    args = make_args(input="x", loss=loss, epoch=epochs, arity=arity, lr=0.5)
    return plan(args, LabelStats.of(counts, per_line)).tree_updates.value


@pytest.mark.parametrize("labels,depth,arity", [(6, 2, 3), (2972, 2, 55), (8737, 2, 94),
                                                 (28699, 2, 170), (1000, 3, 10), (2, 2, 2),
                                                 (50, 2 ** 31 - 1, 2)])
def test_default_arity_is_the_least_that_holds_the_labels_in_depth_levels(labels, depth,
                                                                          arity):
    assert default_tree_arity(labels, depth) == arity
    assert arity ** min(depth, 62) >= labels and (arity == 2 or (arity - 1) ** depth < labels)


@pytest.mark.parametrize("labels,depth,arity", [(2, 2, 2), (4, 2, 4), (6, 2, 6), (7, 2, 3),
                                                 (9, 2, 3), (10, 2, 4), (2972, 2, 55),
                                                 (6, 3, 6), (7, 3, 2), (1000, 3, 10)])
def test_a_learned_tree_over_a_few_labels_is_one_node(labels, depth, arity):
    """One node where the default tree's paths would cross as many slots
    as there are labels (levels x M >= labels); otherwise the default."""
    assert learned_tree_arity(labels, depth) == arity
    assert tree_updates("tree", labels, 5, 1.0, np.full(labels, 100.0), arity) == (
        0 if arity >= labels else 8)


@pytest.mark.parametrize("lines,labels,epochs,per_line,rebuilds", [
    (12328, 732, 5, 1.0, 1),        # cooking's lines at 5 epochs: 42 lines a label
    (24668, 597, 5, 1.0, 3),        # debian_tags: 103
    (220697, 2972, 20, 1.0, 24),    # gutenberg_books at 20 epochs: 743
    (10 ** 7, 10, 5, 1.0, TREE_UPDATES),  # capped
    (10, 1000, 1, 1.0, 1),          # never fewer than one
    (1200, 10, 1, 3.0, 2),          # 3 labels a line: 3,600 occurrences, 1,200 lines
])
def test_rebuilds_follow_the_lines_a_label_in_the_first_half(lines, labels, epochs,
                                                             per_line, rebuilds):
    counts = np.full(labels, lines * per_line / labels)
    assert tree_updates("tree", labels, epochs, per_line, counts) == rebuilds
    assert tree_updates("plt", labels, epochs, per_line, counts) == 1
    assert tree_updates("softmax", labels, epochs, per_line, counts) == TREE_UPDATES


def test_training_resolves_the_rebuild_count_from_the_data(tmp_path):
    """-treeUpdates -1 becomes the rule's count, which the model records;
    a given count is kept."""
    train, _ = zipf_corpus(tmp_path / "train.txt", n_lines=6000)
    flags = dict(loss="tree", dim=8, lr=0.5, thread=1, seed=1, verbose=0)
    per_label = 6000 * 10 / 2 / 40  # 750 lines a label in the first half of 10 epochs
    model = treexc.train_supervised(input=train, epoch=10, **flags)
    assert model.args.treeUpdates == int(per_label // STATS_PER_REBUILD) == 25
    assert treexc.train_supervised(input=train, epoch=1, **flags).args.treeUpdates == 2
    assert treexc.train_supervised(input=train, epoch=1, treeUpdates=7,
                                   **flags).args.treeUpdates == 7


def zipf_corpus(path, n_labels=40, n_lines=3000, seed=0):
    """Label i has about 1/(i+1) of the lines and its own three words."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, n_labels + 1)
    labels = rng.choice(n_labels, size=n_lines, p=p / p.sum())
    lines = [f"__label__l{c} " + " ".join(f"w{c}_{j}" for j in rng.integers(0, 3, size=4))
             for c in labels]
    path.write_text("\n".join(lines) + "\n")
    return str(path), np.bincount(labels, minlength=n_labels)


def test_default_tree_puts_frequent_labels_higher(tmp_path):
    train, _ = zipf_corpus(tmp_path / "train.txt")
    flags = dict(loss="tree", dim=8, epoch=3, lr=0.5, thread=1, seed=1)
    model = treexc.train_supervised(input=train, **flags)
    two_levels = treexc.train_supervised(input=train, depth=2, **flags)
    assert model.args.arity == two_levels.args.arity == 7  # 7^2 >= 40 labels
    assert model.args.maxDepth == -1
    counts = model.dictionary.label_counts
    depths = model.tree.depths()
    assert depths[np.argmax(counts)] == 1  # the most frequent label right under the root
    # frequent labels higher: fewer decisions per example than in the
    # two-level tree of the same arity, though some labels sit deeper
    mean_depth = np.average(depths, weights=counts)
    assert mean_depth < np.average(two_levels.tree.depths(), weights=counts)
    assert mean_depth < depths.mean()
    assert model.test(train)[1] > 0.9


def test_threads_without_work_are_not_started(tmp_path, monkeypatch):
    """``-thread 100000`` on 3,000 lines took 29 s with the softmax and 36 s
    with a learned tree (every phase started every thread): no more threads
    than lines, and a phase starts no more than it has chunks of
    ``-lrUpdateRate`` tokens for."""
    started = []

    def counting(n, *args, **kwargs):
        started.append(n)
        return runtime.run_workers(n, *args, **kwargs)

    monkeypatch.setattr(session, "run_workers", counting)
    path, _ = zipf_corpus(tmp_path / "z.txt", n_lines=300)
    model = treexc.train_supervised(path, thread=5000, epoch=1, dim=8, loss="tree",
                                    treeUpdates=50, verbose=0)
    tokens = sum(len(line.split()) + 1 for line in open(path))
    assert len(started) == 51  # 50 rebuilds: 51 phases
    assert max(started) <= 300 and sum(started) <= -(-tokens // 100) + len(started)
    assert model.test(path)[1] > 0.2


def test_label_spread_measures_evenness_and_the_median_count():
    assert label_spread([20] * 100) == pytest.approx((1.0, 20.0))
    evenness, median = label_spread([1000, 10, 10, 10, 0])  # a label never seen is no label
    assert evenness == pytest.approx(np.exp(-sum(p * np.log(p) for p in
                                                 np.array([1000, 10, 10, 10]) / 1030)) / 4)
    assert median == 10.0
    assert label_spread([]) == (0.0, 0.0)


@pytest.mark.parametrize("counts,budget,arity", [
    ([20] * 1000, 2.5, 200),               # even and many-lined: a fifth of the labels
    ([80] * 2972, 10, 595),
    ([80] * 2972, 9.5, 0),                 # a median from 39: only trained 10 rate-epochs
    ([38] * 2972, 2.5, 595),
    ([9] * 100000, 2.5, 4096),             # never more rows than -loss auto's flat softmax
    ([50] * 30, 10, 0),                    # not wider than the default sqrt(labels): 6
    ([50] * 31, 10, 7),
    ([4] * 1000, 10, 0),                   # too few lines a label
    ((20000 / np.arange(1, 1001)).astype(int).tolist(), 10, 0),  # Zipf: not even
])
def test_wide_root_only_for_even_many_lined_labels(counts, budget, arity):
    assert wide_root_arity(counts, budget) == arity


def even_corpus(path, n_labels=60, lines_each=12, seed=0):
    """Every label equally frequent, with words of its own and shared ones."""
    rng = np.random.default_rng(seed)
    lines = [f"__label__l{c} w{c}_{rng.integers(3)} w{c}_{rng.integers(3)} s{rng.integers(20)}"
             for c in rng.permutation(np.repeat(np.arange(n_labels), lines_each))]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_even_many_lined_labels_get_a_wide_two_level_tree(tmp_path, capsys):
    train = even_corpus(tmp_path / "even.txt")
    flags = dict(loss="tree", dim=8, epoch=3, lr=0.5, thread=1, seed=1)
    model = treexc.train_supervised(input=train, verbose=2, **flags)
    assert (model.args.arity, model.args.maxDepth) == (12, 2)  # 60 labels / 5
    assert model.tree.depths().max() == 2
    assert "tree shape: arity 12, depth 2" in capsys.readouterr().err
    # the user's arity is kept, at the least depth that holds the even labels
    # (depth-fit-arity: 3^4 >= 60), and Zipf labels keep the default
    assert treexc.train_supervised(input=train, arity=3, **flags).args.maxDepth == 4
    assert treexc.train_supervised(input=train, maxDepth=3, **flags).args.arity == 4  # 4^3 >= 60
    zipf, _ = zipf_corpus(tmp_path / "zipf.txt")
    assert treexc.train_supervised(input=zipf, **flags).args.maxDepth == -1


@pytest.mark.parametrize("loss", ["tree", "hs", "plt"])
def test_an_arity_wider_than_the_labels_is_cut_to_the_label_count(tmp_path, loss):
    """``-arity 100000`` on cooking's 732 labels trained a 100,000-slot root
    for 47 s in 1.6 GB; the tree is the same with one slot per label."""
    train, _ = zipf_corpus(tmp_path / "train.txt", n_labels=12, n_lines=400)
    flags = dict(loss=loss, dim=8, epoch=2, lr=0.5, thread=1, seed=1)
    wide = treexc.train_supervised(input=train, arity=5000, **flags)
    assert wide.args.arity == wide.tree.arity == 12
    assert wide.tree.n_internal == 1 and (wide.tree.depths() == 1).all()
    narrow = treexc.train_supervised(input=train, arity=5, **flags)
    assert narrow.args.arity == narrow.tree.arity == 5  # narrower than the labels: kept
