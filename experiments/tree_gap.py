"""Where a tree model loses against a flat softmax (docs/trees.md).

    python experiments/tree_gap.py TREE.bin FLAT.bin LABELLED.txt [MAX_LINES]

Both models trained on the same file (same label ids).  For each line's
first label ``y`` and ``g`` its root subtree in TREE's tree, both models'
log-probabilities of every label are computed (a walk over the whole tree;
the flat softmax is a one-node tree) and split at the root:

* P@1, and *root accuracy*: is the top label in ``g`` (for FLAT, its answer
  mapped into TREE's groups);
* *oracle within-group accuracy*: is ``y`` the best label of ``g``;
* mean ``log p(y)`` = mean ``log p(g)`` + mean ``log p(y | g)``, where a
  flat model's ``p(g)`` is the sum of its probabilities over ``g``.

Run it on held-out lines and on training lines: a gap on both is the model
(what the tree can represent), a gap on held-out lines only is
generalisation.
"""

import sys

import numpy as np

import treexc
from treexc.classify.exact_kernels import hidden_mean as hidden_vector
from treexc.io.textio import read_text
from treexc.loss.tree_softmax import tree_all_log_probs


def log_probs(model, corpus, line, out):
    hidden = np.zeros(model.get_dimension(), dtype=np.float32)
    hidden_vector(model.w_in, corpus.feats, corpus.feat_off[line], corpus.feat_off[line + 1],
                  hidden)
    out[:] = -np.inf
    tree_all_log_probs(hidden, model.w_out, model.children, model.nlabels, out)
    return out


def main(tree_path, flat_path, data_path, max_lines=None):
    tree_model, flat_model = treexc.load_model(tree_path), treexc.load_model(flat_path)
    if tree_model.get_labels() != flat_model.get_labels():
        sys.exit("the two models have different label sets or orders")
    if tree_model.is_quantized() or flat_model.is_quantized():
        sys.exit("quantised models are not supported here")
    tree = tree_model.tree
    group = tree.path_slot[tree.path_off[:-1]]  # each label's root slot
    data = read_text(data_path)
    corpora = {"tree": tree_model.encode_text(data), "flat": flat_model.encode_text(data)}
    models = {"tree": tree_model, "flat": flat_model}
    scores = np.empty(tree_model.nlabels, dtype=np.float64)
    rows = {name: [] for name in models}
    first = corpora["tree"]
    n = first.n_lines if max_lines is None else min(first.n_lines, int(max_lines))
    for line in range(n):
        if first.label_off[line + 1] == first.label_off[line] or any(
                c.feat_off[line + 1] == c.feat_off[line] for c in corpora.values()):
            continue
        y = first.labels[first.label_off[line]]
        in_group = group == group[y]
        for name, model in models.items():
            s = log_probs(model, corpora[name], line, scores)
            top = int(np.argmax(s))
            log_group = np.logaddexp.reduce(s[in_group])
            rows[name].append((top == y, group[top] == group[y],
                               int(np.argmax(np.where(in_group, s, -np.inf))) == y,
                               s[y], log_group, s[y] - log_group))
    print(f"lines with a label and a feature: {len(rows['flat'])}")
    for name, r in rows.items():
        a = np.array(r, dtype=np.float64)
        print(f"{name}: P@1 {a[:, 0].mean():.4f}  root accuracy {a[:, 1].mean():.4f}  "
              f"oracle within-group accuracy {a[:, 2].mean():.4f}  "
              f"log p(y) {a[:, 3].mean():.3f} = log p(group) {a[:, 4].mean():.3f} "
              f"+ log p(y | group) {a[:, 5].mean():.3f}")


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    main(*sys.argv[1:])
