"""Memory a training run will need, estimated from its shapes before it
allocates anything, against the memory this process can still get.

A run whose settings ask for more than the machine has (``-dim 100000``,
``-arity 2000000000``, ``lm -arity 100000``) is refused up front with the
figures, instead of swapping for minutes and failing late with a
half-written model.  The estimates count the large arrays only (weights,
Adagrad accumulators, per-thread gradients and statistics) and count each
once, so they are a floor: a refused run would certainly not have fit.

Two checks per run: one before the data is read, from the options alone
(``bucket x dim``, ``arity``), and an exact one once the vocabulary and the
labels are known.  What is already allocated (the text, the encoded
corpus) is already out of :func:`available_bytes`.
"""

import os
import resource

from .errors import TreexcError
from .loss.registry import LOSSES, learns_tree, loss
from .trees.capacity import balanced_internal_nodes, min_internal_nodes


def available_bytes():
    """What this process can still allocate: the least of the machine's
    ``MemAvailable`` (RAM: swapping Hogwild's random row access would crawl),
    the cgroup's limit less its usage (containers) and ``RLIMIT_AS`` less
    the address space in use.  ``None`` when none of them can be read."""
    limits = []
    meminfo = _read_kb_fields("/proc/meminfo")
    if "MemAvailable" in meminfo:
        limits.append(meminfo["MemAvailable"])
    for limit_file, usage_file in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                                   ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        limit, usage = _read_int(limit_file), _read_int(usage_file)
        # cgroup v1 writes "no limit" as a huge number near 2**63
        if limit is not None and usage is not None and limit < 2 ** 60:
            limits.append(max(0, limit - usage))
            break
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        status = _read_kb_fields("/proc/self/status")
        limits.append(max(0, soft - status.get("VmSize", 0)))
    return min(limits) if limits else None


def _read_kb_fields(path):
    fields = {}
    try:
        with open(path) as f:
            for line in f:
                name, _, rest = line.partition(":")
                parts = rest.split()
                if len(parts) == 2 and parts[1] == "kB" and parts[0].isdigit():
                    fields[name] = int(parts[0]) * 1024
    except OSError:
        pass
    return fields


def _read_int(path):
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def format_bytes(n):
    if n >= 1e9:
        return f"{n / 1e9:,.1f} GB"
    return f"{n / 1e6:,.0f} MB" if n >= 1e6 else f"{n / 1e3:,.0f} kB"


def check(parts, available=None):
    """Refuse a run whose ``parts`` do not fit.

    ``parts``: ``(what, bytes, flags)`` triples, e.g. ``("input matrix",
    4e9, "-dim/-bucket")``.  Raises ``TreexcError`` naming the total, the
    largest parts, what is available and the flags of the largest parts.
    """
    total = sum(b for _, b, _ in parts)
    if available is None:
        available = available_bytes()
    if available is None or total <= available:
        return
    big = sorted((p for p in parts if p[1] > 0), key=lambda p: -p[1])
    shown = [p for p in big if p[1] >= 0.01 * total][:4]
    flags = []
    for _, _, f in shown:
        for flag in f.split("/"):
            if flag not in flags:
                flags.append(flag)
    what = ", ".join(f"{name} {format_bytes(b)}" for name, b, _ in shown)
    raise TreexcError(f"this run needs about {format_bytes(total)} of memory ({what}); "
                      f"{format_bytes(available)} are available: lower {'/'.join(flags)}")


def rebuild_parts(threads, positions, n_labels, arity, flags):
    """A learned tree's (``trees.learner``, ``trees.assign_kernels``): the
    statistics, one float32 per child slot and a count per path position,
    per thread and the rebuild's carried copy; and AssignLabels' scores at
    a node, a float64 per (label, child slot)."""
    return [("tree statistics", (threads + 1) * positions * (arity + 1) * 4, flags),
            ("tree rebuild scores", n_labels * arity * 8, "-arity")]


# -- treexc supervised ----------------------------------------------------------

def supervised_parts(args, n_words=0, n_labels=1):
    """The large arrays of ``treexc supervised``: before the data is read
    (``n_words=0``, ``n_labels=1``) a floor from the options alone, after
    it the shapes of the run."""
    dim, threads = args.dim, args.thread
    f32 = 4
    parts = [("input matrix", (n_words + args.bucket) * dim * f32,
              "-dim/-bucket" if args.bucket else "-dim/-minCount")]
    # -loss auto is resolved once the labels are counted: before, a fixed tree stands in
    entry = loss(args.loss) if args.loss in LOSSES else LOSSES["hs"]
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
        parts += rebuild_parts(threads, n_labels, n_labels, arity,
                               "-arity/-thread/-treeUpdates")
        parts.append(("tree rebuild", out_rows * dim * f32, "-dim/-arity"))
    if args.tree == "cluster":  # the label vectors' run
        parts.append(("clustering run", (n_words + args.bucket) * dim * f32, "-dim/-bucket"))
    # saving: the words' vectors for the .vec, computed whole
    parts.append(("word vectors", n_words * dim * f32, "-dim/-minCount"))
    return parts


# -- treexc lm ---------------------------------------------------------------

def lm_parts(args, vocab=1, arity=2):
    """The large arrays of ``treexc lm``: weights with their Adagrad
    accumulators and each thread's gradient buffers; a learned tree's
    statistics; a flat softmax's scores.  Before the data is read,
    ``vocab=1`` gives a floor from the options alone.  ``arity``: the
    tree's (``-arity``, or the one fitted to the vocabulary)."""
    d, threads, f32 = args.dim, args.thread, 4
    copies = 2 + threads  # weights, Adagrad accumulator, a gradient per thread
    tree = args.loss == "tree"
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
        if args.tree == "learned" and args.treeUpdates > 0:
            # -depth 0 until the default rule sets it: at least one position a word
            parts += rebuild_parts(threads, vocab * max(args.depth, 1), vocab, arity,
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


def refuse_oversized(parts):
    """:func:`check` unless ``TREEXC_NO_MEMORY_CHECK`` is set (for a machine
    where the estimate is wrong: overcommitted swap, a ballooning VM)."""
    if os.environ.get("TREEXC_NO_MEMORY_CHECK"):
        return
    check(parts)
