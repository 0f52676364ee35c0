"""Where a tree model loses against a flat softmax (docs/trees.md, issue 10).

    python benchmarks/tree_gap.py TREE.bin FLAT.bin LABELLED.txt

Both models trained on the same file (same label ids).  For each line's
first label: P@1 of both; *root accuracy*, whether the predicted label lies
in the true label's root subtree of TREE's tree (for FLAT, its answer mapped
into those groups); and accuracy given the right group.
"""

import sys

import treexc
from treexc.io.textio import read_text


def main(tree_path, flat_path, data_path):
    tree_model, flat_model = treexc.load_model(tree_path), treexc.load_model(flat_path)
    if tree_model.get_labels() != flat_model.get_labels():
        sys.exit("the two models have different label sets or orders")
    data = read_text(data_path)
    corpus = tree_model.encode_text(data)
    has_label = corpus.label_off[1:] > corpus.label_off[:-1]
    true = corpus.labels[corpus.label_off[:-1][has_label]]
    answers = {}
    for name, model in (("tree", tree_model), ("flat", flat_model)):
        labels, _, _ = model.predict_corpus(model.encode_text(data), 1)
        answers[name] = labels[has_label, 0]
    tree = tree_model.tree
    group = tree.path_slot[tree.path_off[:-1]]  # each label's root slot
    print(f"lines with a label: {len(true)}")
    for name, answer in answers.items():
        right = answer == true
        right_group = group[answer] == group[true]
        print(f"{name}: P@1 {right.mean():.4f}  root accuracy {right_group.mean():.4f}  "
              f"within-group accuracy {right[right_group].mean():.4f}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
