"""Every output layer ("loss") the classifier knows, in one table.

Each entry says which kernel branch trains and scores it, which tree it
starts from (``trees.builders`` builds trees by these names), its default
arity, whether the tree is learned during training, and its help text.
Options, the CLI's help, model files and training read this table; adding a
loss is one entry here plus its branch in the kernels (docs/design.md).

No Numba here: the CLI's help and option checks read the table without
paying for the kernels.
"""

from dataclasses import dataclass

# The kernels' branch for a loss (``loss_kind`` in ``classify/kernels.py`` and
# ``classify/predict_kernels.py``): every tree-softmax loss shares one branch;
# KERNEL_PLT is a probabilistic label tree (``loss/plt.py``: multi-label).
KERNEL_TREE, KERNEL_OVA, KERNEL_NS, KERNEL_PLT = 0, 1, 2, 3


@dataclass(frozen=True)
class Loss:
    name: str
    kernel: int        # KERNEL_*
    tree: str          # the starting tree's builder name; "" = one output row per label
    arity: int         # default arity of that tree (0: none, all labels for "flat",
                       # or set from the label count for a learned tree)
    learned: bool      # the tree can be rebuilt (AssignLabels) while training
    help: str
    # learned without -tree (else only with -tree learned): false where the
    # learned tree has not yet beaten the fixed one it starts from
    learned_by_default: bool = True

    @property
    def has_tree(self):
        return bool(self.tree)


LOSSES = {loss.name: loss for loss in (
    Loss("softmax", KERNEL_TREE, "flat", 0, False, "flat softmax over all labels"),
    Loss("hs", KERNEL_TREE, "huffman", 2, False,
         "hierarchical softmax over a Huffman tree (fastText's hs; -arity M: M-ary)"),
    Loss("tree", KERNEL_TREE, "huffman", 0, True,
         "learned M-ary tree (Jernite et al. 2017), from the M-ary Huffman tree; "
         "by default about sqrt(labels)-ary, frequent labels nearer the root (labels/5-ary, "
         "two levels, for equally frequent, many-lined labels)"),
    Loss("ova", KERNEL_OVA, "", 0, False, "one-vs-all: an independent sigmoid per label"),
    Loss("ns", KERNEL_NS, "", 0, False, "negative sampling over labels (-neg)"),
    # fixed Huffman tree by default: the learned PLT measured below it
    # (docs/results/multilabel.md; cooking valid 0.612-0.613 vs 0.619-0.621)
    Loss("plt", KERNEL_PLT, "huffman", 0, True,
         "probabilistic label tree for multi-label data (a sigmoid per node, every label "
         "of a line trained; predict-prob gives each label's own probability): the M-ary "
         "Huffman tree, or -tree learned|random|cluster; arity as -loss tree",
         learned_by_default=False),
)}

# Accepted spellings that are not names of their own.
ALIASES = {"one-vs-all": "ova"}

# ``-loss auto`` picks among the entries above by the number of labels
# (``classify/options.Args.resolve_auto_loss``).
AUTO = "auto"


def learns_tree(loss_name, tree_flag):
    """Whether training rebuilds the tree: a loss that can learn it, asked
    to by ``-tree learned`` or by default (``tree_flag`` "": the loss's
    usual tree)."""
    entry = LOSSES.get(loss_name)
    return entry is not None and entry.learned and (
        tree_flag == "learned" or (tree_flag == "" and entry.learned_by_default))


def loss(name):
    """The entry of ``name`` (aliases resolved); KeyError if unknown."""
    return LOSSES[ALIASES.get(name, name)]
