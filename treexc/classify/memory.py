"""Memory a classifier's training run needs: its large arrays' sizes, from
the options alone before the data is read, from the run's shapes after
(``treexc.memory`` refuses a run that does not fit)."""

from ..loss.registry import LOSSES, learns_tree, loss
from ..trees.capacity import min_internal_nodes, rebuild_memory_parts

# what stands in for -loss auto before the labels are counted: a fixed tree
BEFORE_THE_PLAN = next(e for e in LOSSES.values() if e.fixed_huffman)


def supervised_parts(args, n_words=0, n_labels=1):
    """The large arrays of ``treexc supervised``: before the data is read
    (``n_words=0``, ``n_labels=1``) a floor from the options alone, after
    it the shapes of the run."""
    dim, threads = args.dim, args.thread
    f32 = 4
    parts = [("input matrix", (n_words + args.bucket) * dim * f32,
              "-dim/-bucket" if args.bucket else "-dim/-minCount")]
    # -loss auto is resolved once the labels are counted: before, a fixed tree stands in
    entry = loss(args.loss) if args.loss in LOSSES else BEFORE_THE_PLAN
    if not entry.has_tree:
        out_rows, children, arity = n_labels, 0, 2
    elif entry.tree == "flat":
        out_rows, children, arity = n_labels, n_labels, n_labels
    else:
        # 0: a learned tree's, set once the labels are counted; never wider
        # than the labels (classify/options.Args._clamp_arity)
        arity = min(args.arity or 2, max(2, n_labels))
        internal = min_internal_nodes(n_labels, arity)
        out_rows, children = internal * arity, internal * arity
    parts.append(("output matrix", out_rows * dim * f32,
                  "-dim/-arity" if args.loss in LOSSES and entry.tree not in ("", "flat")
                  else "-dim"))
    # tree arrays: children (int32) plus the paths, about a label each
    parts.append(("tree", children * 4 + n_labels * 16, "-arity"))
    # per thread: hidden, gradient, one node's probabilities (float64) and
    # the label flags of ova
    parts.append(("per-thread buffers", threads * (2 * dim * f32 + max(arity, 2) * 8 + n_labels),
                  "-thread/-arity"))
    if learns_tree(args.loss, args.tree) and args.treeUpdates > 0:
        # a rebuild makes a new output matrix before dropping the old one
        parts += rebuild_memory_parts(threads, n_labels, n_labels, arity,
                               "-arity/-thread/-treeUpdates")
        parts.append(("tree rebuild", out_rows * dim * f32, "-dim/-arity"))
    if args.tree == "cluster":  # the label vectors' run
        parts.append(("clustering run", (n_words + args.bucket) * dim * f32, "-dim/-bucket"))
    # saving: the words' vectors for the .vec, computed whole
    parts.append(("word vectors", n_words * dim * f32, "-dim/-minCount"))
    return parts
