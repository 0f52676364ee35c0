"""The learned probabilistic label tree recovers a known label structure:
labels of one generating topic co-occur on lines, and AssignLabels on the
PLT statistics (the children's sigmoids, ``loss.plt``) makes them siblings."""

import numpy as np

import treexc

TOPICS, PER_TOPIC = 4, 4


def topic_corpus(path, n=2000, seed=0):
    """Lines of one topic: one to three of its labels, three topic words and
    a word per label.  Label names are shuffled so that neither their names
    nor their order (the Huffman tree's ties) give the topics away.
    Returns {label name: topic}."""
    rng = np.random.default_rng(seed)
    ids = np.random.default_rng(99).permutation(TOPICS * PER_TOPIC)
    lines = []
    for _ in range(n):
        t = int(rng.integers(TOPICS))
        mine = ids[t * PER_TOPIC + rng.choice(PER_TOPIC, size=int(rng.integers(1, 4)),
                                              replace=False)]
        lines.append(" ".join([f"__label__L{i}" for i in mine]
                              + [f"t{t}w{rng.integers(8)}" for _ in range(3)]
                              + [f"x{i}" for i in mine]))
    path.write_text("\n".join(lines) + "\n")
    return {f"__label__L{ids[t * PER_TOPIC + j]}": t
            for t in range(TOPICS) for j in range(PER_TOPIC)}


def sibling_topic_share(model, topic):
    """Of all pairs of labels that are leaves of the same node, the fraction
    with the same topic (a random 4 x 4 tree: 3/15 = 0.2 expected)."""
    tree, names = model.tree, model.get_labels()
    same = pairs = 0
    for n in range(tree.n_internal):
        leaves = [names[c] for c in tree.children[n] if 0 <= c < tree.n_labels]
        for a in range(len(leaves)):
            for b in range(a + 1, len(leaves)):
                pairs += 1
                same += topic[leaves[a]] == topic[leaves[b]]
    return same / pairs


def test_learned_plt_puts_labels_of_a_topic_under_one_node(tmp_path):
    train = tmp_path / "train.txt"
    topic = topic_corpus(train)
    # in the file's order: the recovery was measured there (seeds 1-8 all
    # 1.0); with each epoch shuffled it is less reliable on this small set
    # (seeds 1-8: 5 of 8 at 1.0, the others 0.5-0.75; docs/trees.md)
    flags = dict(input=str(train), loss="plt", arity=4, dim=16, epoch=10, lr=0.5, thread=1,
                 seed=1, verbose=0, order="file")
    # 50 rebuilds, the paper's schedule: the default single rebuild (-treeUpdates
    # -1) keeps this set's Huffman groups (0.333; 10 rebuilds 0.5): a label's
    # own child fires on all its lines, so only rebuilds early in training,
    # while the classifiers are unsure, move labels to their topic (docs/trees.md)
    learned = treexc.train_supervised(**flags, tree="learned", treeUpdates=50)
    fixed = {name: treexc.train_supervised(**flags, tree=name, maxDepth=2)
             for name in ("random", "huffman")}
    # measured: learned 1.0 (seeds 1 and 2); random 0.125 and 0.167; Huffman 0.333
    assert sibling_topic_share(learned, topic) >= 0.9
    for model in fixed.values():
        assert sibling_topic_share(model, topic) <= 0.5
    assert learned.tree.n_internal == 1 + TOPICS  # two levels of four
