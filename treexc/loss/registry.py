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
    # -treeUpdates -1 for a learned tree: REBUILD_BY_LINES or REBUILD_ONCE
    # (classify/plan_rules.py says why); "" for a fixed tree
    rebuilds: str = ""
    # whether the labels' spread shapes the default tree (the wide root) and
    # its reading (-scoring auto's mean): a tree softmax over learned groups
    spread_shaped: bool = False
    # whether autotune's search tries it where -loss is not given (single-
    # label data; the PLT is the multi-label data's only choice)
    autotuned: bool = False
    # fastText 0.9's loss_name in its model files (io/fasttext_model.py), 0: none
    fasttext_id: int = 0

    @property
    def has_tree(self):
        return bool(self.tree)

    @property
    def tree_softmax(self):
        """A softmax over a tree (a flat softmax is a one-node tree): what
        ``-scoring mean`` reads two ways."""
        return self.kernel == KERNEL_TREE

    @property
    def fixed_huffman(self):
        """fastText's hierarchical softmax: a Huffman tree never rebuilt."""
        return self.tree == "huffman" and not self.learned


REBUILD_BY_LINES, REBUILD_ONCE = "by-lines", "once"

LOSSES = {loss.name: loss for loss in (
    Loss("softmax", KERNEL_TREE, "flat", 0, False, "flat softmax over all labels",
         autotuned=True, fasttext_id=3),
    Loss("hs", KERNEL_TREE, "huffman", 2, False,
         "hierarchical softmax over a Huffman tree (fastText's hs; -arity M: M-ary)",
         fasttext_id=1),
    Loss("tree", KERNEL_TREE, "huffman", 0, True,
         "learned M-ary tree (Jernite et al. 2017), from the M-ary Huffman tree; "
         "by default about sqrt(labels)-ary, frequent labels nearer the root (labels/5-ary, "
         "two levels, for equally frequent, many-lined labels)",
         rebuilds=REBUILD_BY_LINES, spread_shaped=True, autotuned=True),
    Loss("ova", KERNEL_OVA, "", 0, False, "one-vs-all: an independent sigmoid per label",
         fasttext_id=4),
    Loss("ns", KERNEL_NS, "", 0, False, "negative sampling over labels (-neg)",
         fasttext_id=2),
    # fixed Huffman tree by default: the learned PLT measured below it
    # (docs/results/multilabel.md; cooking valid 0.612-0.613 vs 0.619-0.621)
    Loss("plt", KERNEL_PLT, "huffman", 0, True,
         "probabilistic label tree for multi-label data (a sigmoid per node, every label "
         "of a line trained; predict-prob gives each label's own probability): the M-ary "
         "Huffman tree, or -tree learned|random|cluster; arity as -loss tree",
         learned_by_default=False, rebuilds=REBUILD_ONCE),
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
