"""Mean log-probability of the true label under tree models.

    python experiments/tree_loglik.py LABELLED.txt MODEL.bin [MODEL.bin ...]

For each model (a tree loss: `-loss tree`, `hs`, or a fixed `-tree`), the
mean over the lines of LABELLED.txt with a label and a feature of
``log p(y | line)``, ``y`` the line's first label, by a walk along ``y``'s
path (``loss.tree_softmax.path_log_prob``, as training scores it); and its
exponential's inverse, a perplexity over labels.  Where P@1 cannot tell two
trees apart (the next-word task: docs/results/trees.md) this says which
one models the labels better.
"""

import sys

import numpy as np
from numba import njit

import treexc
from treexc.classify.exact_kernels import hidden_mean as hidden_vector
from treexc.io.textio import read_text
from treexc.loss.kernels import scratch_size
from treexc.loss.tree_softmax import path_log_prob


@njit
def mean_log_prob(w_in, w_out, children, path_off, path_node, path_slot, feats, feat_off,
                  labels, label_off, probs):
    hidden = np.zeros(w_in.shape[1], dtype=np.float32)
    total, n = 0.0, 0
    for line in range(len(feat_off) - 1):
        if feat_off[line + 1] == feat_off[line] or label_off[line + 1] == label_off[line]:
            continue
        hidden_vector(w_in, feats, feat_off[line], feat_off[line + 1], hidden)
        total += path_log_prob(w_out, children, path_off, path_node, path_slot,
                               labels[label_off[line]], hidden, probs)
        n += 1
    return total / max(n, 1), n


def main(data_path, *model_paths):
    data = read_text(data_path)
    for path in model_paths:
        model = treexc.load_model(path)
        tree = model.tree
        if tree is None or model.is_quantized():
            sys.exit(f"{path}: not a tree model, or quantised")
        corpus = model.encode_text(data)
        mean, n = mean_log_prob(model.w_in, model.w_out, tree.children, tree.path_off,
                                tree.path_node, tree.path_slot, corpus.feats,
                                corpus.feat_off, corpus.labels, corpus.label_off,
                                np.empty(scratch_size(model.w_out, tree.children)))
        print(f"{path}: mean log p(label) {mean:.4f} over {n} lines "
              f"(perplexity {np.exp(-mean):.1f})")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
