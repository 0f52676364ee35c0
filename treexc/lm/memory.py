"""Memory a language model's training run needs: its large arrays' sizes,
from the options alone before the text is read, from the vocabulary after
(``treexc.memory`` refuses a run that does not fit)."""

from ..trees.capacity import balanced_internal_nodes, rebuild_memory_parts
from .plan import uses_tree


def lm_parts(args, vocab=1, arity=2):
    """The large arrays of ``treexc lm``: weights with their Adagrad
    accumulators and each thread's gradient buffers; a learned tree's
    statistics; a flat softmax's scores.  Before the data is read,
    ``vocab=1`` gives a floor from the options alone.  ``arity``: the
    tree's (``-arity``, or the one fitted to the vocabulary)."""
    d, threads, f32 = args.dim, args.thread, 4
    copies = 2 + threads  # weights, Adagrad accumulator, a gradient per thread
    tree = uses_tree(args)
    cols = d if tree else d + 1
    parts = [("word embeddings", vocab * cols * f32 * copies, "-dim/-minCount/-thread"),
             ("context matrices", args.context * d * d * f32 * 2, "-dim/-context"),
             # each thread's batch: context word ids (int32), their embeddings
             # side by side, the words an update touches (int64)
             ("batch contexts", threads * args.batch * args.context * (4 + d * f32 + 8),
              "-batch/-context/-thread")]
    if tree:
        internal = balanced_internal_nodes(vocab, arity, args.depth)
        root_rows = args.rootRows or 4  # 0: not chosen yet; the rule gives at most 4
        rows = (internal + root_rows - 1) * arity
        parts.append(("tree weights", rows * (d + 1) * f32 * copies,
                      "-arity/-dim/-thread"))
        # each thread's root scores, their exponentials and their gradient
        # coefficients (lm.engines)
        parts.append(("root scores", threads * args.batch * root_rows * arity * f32 * 3,
                      "-batch/-arity/-rootRows/-thread"))
        parts.append(("tree", rows * 8, "-arity"))
        if args.tree == "learned" and args.treeUpdates != 0:  # -1: the plan's, some
            # -depth 0 until the default rule sets it: at least one position a word
            parts += rebuild_memory_parts(threads, vocab * max(args.depth, 1), vocab, arity,
                                   "-arity/-thread/-treeUpdates")
            # a rebuild also remaps the weights and their accumulator
            parts.append(("tree rebuild", 2 * rows * (d + 1) * f32, "-arity/-dim"))
        if args.tree == "cluster":
            parts.append(("clustering run", vocab * d * f32 * copies, "-dim"))
    else:
        # a thread's batch of scores over the whole vocabulary
        parts.append(("flat softmax scores", threads * args.batch * vocab * f32,
                      "-batch/-thread/-minCount"))
    return parts
