"""A tree softmax's two readings, and their mixes (docs/trees.md, "Two
readings of one tree").

    python experiments/tree_readings.py MODEL.bin LABELLED.txt [--weights 0,0.25,0.5,0.75,1]
    python experiments/tree_readings.py MODEL.bin LABELLED.txt --root-weights 0.3,0.5,1

For every line, every label's score is ``(1 - b) * log p_tree(y) + b *
flat(y)``, ``flat`` being the sum of the slot scores on the label's path
(the flat softmax the same weights define), renormalised over the labels;
``b = 0.5`` is ``-scoring mean``, ``b = 0`` the tree's own answer.  Prints
P@1 (a hit when the top label is one of the line's) and the mean
log-probability of the line's first label, for each ``b``.  With
``--root-weights``, a two-level view instead: ``a * log p(root slot) +
log p(label | slot)`` for each ``a`` (P@1 only).  Scores every label of
every line in numpy: for models up to some thousands of labels.
"""

import argparse

import numpy as np

import treexc
from treexc.classify.exact_kernels import hidden_mean as hidden_vector
from treexc.io.textio import read_text

CHUNK = 2000


def hidden_vectors(model, path):
    """``(hidden (n, dim) float64, label sets)`` of the lines with a label
    and a feature."""
    corpus = model.encode_text(read_text(path))
    hidden, labels = [], []
    h = np.zeros(model.get_dimension(), dtype=np.float32)
    for line in range(corpus.n_lines):
        l0, l1 = corpus.label_off[line], corpus.label_off[line + 1]
        f0, f1 = corpus.feat_off[line], corpus.feat_off[line + 1]
        if l1 == l0 or f1 == f0:
            continue
        hidden_vector(model.w_in, corpus.feats, f0, f1, h)
        hidden.append(h.astype(np.float64))
        labels.append(corpus.labels[l0:l1].tolist())
    return np.array(hidden), labels


def path_scores(model, hidden):
    """``(tree, flat, root)``: every label's tree log-probability, its flat
    reading, and the log-probability of its root slot, for each row of
    ``hidden`` (nodes are breadth-first: parents first)."""
    children, n_labels = model.children, model.nlabels
    arity = children.shape[1]
    w_out = model.w_out.astype(np.float64)
    width = n_labels + children.shape[0]  # label ids, then K + internal node
    tree, flat, root = (np.zeros((len(hidden), width)) for _ in range(3))
    for n in range(children.shape[0]):
        slots = np.flatnonzero(children[n] >= 0)
        if len(slots) == 1:
            logits = np.zeros((len(hidden), 1))
        elif arity == 2:  # fastText's sigmoid on row 0: the logits (0, score)
            logits = np.stack([np.zeros(len(hidden)), hidden @ w_out[n * arity]], axis=1)
        else:
            logits = hidden @ w_out[n * arity + slots].T
        log_probs = logits - np.logaddexp.reduce(logits, axis=1, keepdims=True)
        kids = children[n, slots]
        tree[:, kids] = (tree[:, n_labels + n:n_labels + n + 1] if n else 0) + log_probs
        flat[:, kids] = (flat[:, n_labels + n:n_labels + n + 1] if n else 0) + logits
        root[:, kids] = root[:, n_labels + n:n_labels + n + 1] if n else log_probs
    return tree[:, :n_labels], flat[:, :n_labels], root[:, :n_labels]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("data")
    parser.add_argument("--weights", default="0,0.25,0.5,0.75,1")
    parser.add_argument("--root-weights", default="")
    a = parser.parse_args()
    model = treexc.load_model(a.model)
    if model.children is None or model.w_out.shape[0] != model.children.size:
        parser.error("a tree softmax model with one output row per slot")
    hidden, labels = hidden_vectors(model, a.data)
    weights = [float(x) for x in (a.root_weights or a.weights).split(",")]
    hits, log_p = np.zeros(len(weights)), np.zeros(len(weights))
    for start in range(0, len(hidden), CHUNK):
        tree, flat, root = path_scores(model, hidden[start:start + CHUNK])
        chunk = labels[start:start + CHUNK]
        for i, w in enumerate(weights):
            if a.root_weights:
                score = (w - 1.0) * root + tree
            else:
                score = (1.0 - w) * tree + w * flat
                score -= np.logaddexp.reduce(score, axis=1, keepdims=True)
                log_p[i] += sum(score[r, ys[0]] for r, ys in enumerate(chunk))
            top = np.argmax(score, axis=1)
            hits[i] += sum(int(t in ys) for t, ys in zip(top.tolist(), chunk))
    name = "root weight a" if a.root_weights else "flat weight b"
    print(f"{len(hidden)} lines")
    for i, w in enumerate(weights):
        extra = "" if a.root_weights else f"  mean log p {log_p[i] / len(hidden):.4f}"
        print(f"{name} {w:4.2f}  P@1 {hits[i] / len(hidden):.4f}{extra}")


if __name__ == "__main__":
    main()
