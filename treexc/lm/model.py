"""The log-bilinear language model: options, weights, one batch step, files.

Model (Mnih & Hinton's LBL, as in Jernite et al. 2017, section 5): word
``w`` has an embedding ``U[w]`` (``dim``); the context of the previous
``context`` words is ``r = sum_k R_k U[w_{t-k}]``; the next word follows

* ``softmax``: a flat softmax ``softmax(r . U[w] + b[w])`` whose output
  embeddings are the input ones (tied), or
* ``tree``: a tree softmax, ``p(w) = prod over w's path of softmax(W_n r +
  b_n)[slot]``, one ``M x dim`` matrix (plus biases) per internal node.

Storage: ``C`` is ``(context, dim, dim)`` float32 with ``C[k] = R_{k+1}^T``
(so ``r = concat_k U[w_{t-k-1}] @ C.reshape(-1, dim)``, one BLAS product for
a batch).  Biases are an extra last column: the flat model's ``U`` is
``(V, dim + 1)`` (``U[:, dim]`` = ``b``), the tree's ``W`` is
``(n_internal * M, dim + 1)`` and its ``U`` is ``(V, dim)``.

The ``*Engine`` classes hold one thread's scratch buffers and run a
training step (gradients of the mean negative log-likelihood of a batch,
then Adagrad) or an evaluation on a batch of stream positions.
"""

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from . import kernels as kern
from ..io import modelfile
from ..errors import TreexcError
from ..text.vocab import Vocab
from ..trees.tree import Tree

MODEL_KIND = "lm"
LOSSES = ("tree", "softmax")
TREES = ("learned", "random", "cluster")
ADAGRAD_EPS = 1e-10  # torch.optim.Adagrad's default


@dataclass
class LMArgs:
    input: str = ""
    output: str = ""
    valid: str = ""
    test: str = ""
    log: str = ""
    name: str = ""
    dim: int = 200
    context: int = 4
    batch: int = 128
    lr: float = 0.1
    epoch: int = 5
    minCount: int = 5
    loss: str = "tree"
    tree: str = "learned"
    arity: int = 0             # 0: the smallest M with M ** depth >= vocabulary
    depth: int = 3
    massSlack: float = 0.0     # learned tree: a child holds at most massSlack/arity of
                               # its parent's word count, unless alone (0: no limit)
    treeUpdates: int = 50      # AssignLabels calls per epoch (learned tree)
    treeEpochs: float = 0      # the learned tree is rebuilt during these first epochs
                               # (0: the first half of training), then frozen
    leafRows: int = 1          # 1: a word's leaf row moves with the word on a rebuild
    clusterEpoch: float = 0.5  # length of the run that gives the clustering tree's vectors
    evalPerEpoch: int = 1
    thread: int = 0            # 0: all cores
    seed: int = 0
    verbose: int = 2


LM_DEFAULTS = LMArgs()
# What defines a model's shape (saved with it).
SHAPE_OPTIONS = ("dim", "context", "loss", "tree", "arity", "depth", "minCount")


def make_lm_args(**flags):
    from ..classify.options import options_from_flags

    args = options_from_flags(LMArgs, flags)
    validate(args)
    return args


def validate(args):
    from ..classify.options import bad_option as bad, check_number_ranges

    check_number_ranges(args)
    if args.loss not in LOSSES:
        bad("loss", args.loss, f"unknown loss (choose from {', '.join(LOSSES)})")
    if args.leafRows not in (0, 1):
        bad("leafRows", args.leafRows, "must be 0 or 1")
    if args.tree not in TREES:
        bad("tree", args.tree, f"unknown tree (choose from {', '.join(TREES)})")
    if not args.lr > 0 or not math.isfinite(args.lr):
        bad("lr", args.lr, "must be > 0")
    for name in ("dim", "context", "batch", "epoch", "thread", "minCount", "depth",
                 "evalPerEpoch"):
        if getattr(args, name) < 1:
            bad(name, getattr(args, name), "must be >= 1")
    for name in ("treeUpdates", "seed"):
        if getattr(args, name) < 0:
            bad(name, getattr(args, name), "must be >= 0")
    if args.arity == 1 or args.arity < 0:
        bad("arity", args.arity, "must be >= 2 (or 0: fit the vocabulary)")
    for name in ("treeEpochs", "massSlack"):
        value = getattr(args, name)
        if not value >= 0 or not math.isfinite(value):
            bad(name, value, "must be >= 0")
    if not 0 < args.clusterEpoch <= 100:
        bad("clusterEpoch", args.clusterEpoch, "must be > 0")
    if args.dim > 10000:
        bad("dim", args.dim, "must be <= 10000")
    return args


def fit_arity(vocab_size, depth):
    """Smallest arity M >= 2 with M ** depth >= vocab_size."""
    m = max(2, int(math.ceil(vocab_size ** (1.0 / depth))) - 1)
    while m ** depth < vocab_size:
        m += 1
    return m


def init_weights(vocab_size, args, rng):
    """Embeddings uniform in +-1/dim (fastText's input matrix), biases 0,
    context matrices uniform in +-1/sqrt(dim) (a default linear layer)."""
    d = args.dim
    cols = d + 1 if args.loss == "softmax" else d
    U = np.zeros((vocab_size, cols), dtype=np.float32)
    U[:, :d] = rng.uniform(-1.0 / d, 1.0 / d, size=(vocab_size, d))
    bound = 1.0 / math.sqrt(d)
    C = rng.uniform(-bound, bound, size=(args.context, d, d)).astype(np.float32)
    return U, C


class LanguageModel:
    """A trained (or training) model: options, vocabulary, tree, weights.

    For ``dump-tree``: ``tree`` (a :class:`~treexc.tree.Tree` whose labels
    are word ids, ``None`` for a flat softmax), ``words()`` and
    ``word_counts``.
    """

    def __init__(self, args, vocab, U, C, tree=None, W=None):
        self.args = args
        self.vocab = vocab
        self.U = U
        self.C = C
        self.tree = tree
        self.W = W

    # -- what dump-tree and friends need ---------------------------------
    def words(self):
        return self.vocab.words()

    @property
    def word_counts(self):
        return self.vocab.counts

    def tree_label_names(self):
        return self.words()

    def tree_label_counts(self):
        return self.word_counts

    def tree_statistics(self, path):
        """Statistics by path position (the node distributions summed over
        the positions of a text file whose target passes there), for
        ``dump-tree -input``."""
        from .training import read_stream

        ids = read_stream(path, self.vocab).ids
        t = self.tree
        stats_p = np.zeros((len(t.path_node), t.arity))
        stats_n = np.zeros(len(t.path_node))
        e = self.engine(self.args.batch)
        for b0 in range(0, len(ids), e.B):
            pos = np.arange(b0, min(len(ids), b0 + e.B))
            e.forward_context(ids, pos, len(pos))
            kern.tree_collect(e.r_aug, e.targets, len(pos), self.W, t.children, t.path_off,
                              t.path_node, t.path_slot, e.probs, stats_p, stats_n)
        return stats_p, stats_n

    @property
    def is_tree(self):
        return self.args.loss == "tree"

    @property
    def dim(self):
        return self.args.dim

    # -- inference ---------------------------------------------------------
    def engine(self, batch):
        return (TreeEngine if self.is_tree else FlatEngine)(self, batch)

    def context_ids(self, words):
        """Ids of the last ``context`` words of ``words`` (most recent first),
        padded with ``</s>``."""
        ids = [self.vocab.word_id(w) for w in words]
        T = self.args.context
        ctx = ids[::-1][:T]
        return ctx + [self.vocab.eos_id] * (T - len(ctx))

    def hidden(self, ctx_rows):
        """``r_aug`` (n, dim + 1) for rows of context ids (most recent first)."""
        ctx_rows = np.asarray(ctx_rows, dtype=np.int64)
        d = self.dim
        E = np.asarray(self.U)[ctx_rows][:, :, :d].reshape(len(ctx_rows), -1)
        r = np.ones((len(ctx_rows), d + 1), dtype=np.float32)
        r[:, :d] = E @ np.asarray(self.C).reshape(-1, d)
        return r

    def next_log_probs(self, ctx_rows):
        """Log-probabilities of every word after each context: (n, V) float64."""
        r = self.hidden(ctx_rows)
        V = self.vocab.size
        if not self.is_tree:
            s = (r @ np.asarray(self.U).T).astype(np.float64)
            s -= s.max(axis=1, keepdims=True)
            return s - np.log(np.exp(s).sum(axis=1, keepdims=True))
        out = np.empty((len(r), V), dtype=np.float64)
        for i in range(len(r)):
            kern.tree_all_log_probs(r[i], np.asarray(self.W), self.tree.children, V,
                                    out[i])
        return out

    def predict_next(self, words, k=1):
        """The ``k`` most likely next words after ``words`` (a list of
        tokens): ``[(word, probability), ...]``, best first."""
        if k < 1:
            raise TreexcError(f"k {k}: must be >= 1")
        k = min(k, self.vocab.size)
        ctx = self.context_ids(words)
        if self.is_tree:
            from ..classify.predict_kernels import tree_top_k

            r = self.hidden([ctx])[0]
            children = self.tree.children
            M = children.shape[1]
            bound = children.shape[0] * M + 1
            heap_s = np.empty(k)
            heap_l = np.empty(k, dtype=np.int64)
            size = tree_top_k(np.asarray(self.W), children, self.vocab.size, r, k, -np.inf,
                              heap_s, heap_l, np.empty(bound, np.int64), np.empty(bound),
                              np.empty(max(M, 2)), np.empty(M, np.int64))
            order = np.argsort(-heap_s[:size], kind="stable")
            ids, scores = heap_l[:size][order], heap_s[:size][order]
        else:
            lp = self.next_log_probs([ctx])[0]
            ids = np.argsort(-lp, kind="stable")[:k]
            scores = lp[ids]
        return [(self.vocab.word(int(i)), float(np.exp(s))) for i, s in zip(ids, scores)]

    # -- files -------------------------------------------------------------
    def save(self, path):
        arrays = dict(self.vocab.arrays())
        arrays["U"] = np.asarray(self.U)
        arrays["C"] = np.asarray(self.C)
        if self.is_tree:
            arrays["children"] = self.tree.children
            arrays["W"] = np.asarray(self.W)
        # file names and verbosity say nothing about the model
        saved = {k: v for k, v in dataclasses.asdict(self.args).items()
                 if k not in ("input", "output", "valid", "test", "log", "verbose")}
        header = {"kind": MODEL_KIND, "args": saved}
        modelfile.save(path, header, arrays)


def load_lm(path):
    """A language model from ``path``, every part of the file checked first
    (the kernels trust their arrays: a bad index would read out of bounds)."""
    header, a = modelfile.load(path, mapped=("U", "C", "W"))
    kind = header.get("kind")
    if kind != MODEL_KIND:
        kind = modelfile.describe(kind).strip("'")
        raise TreexcError(f"{path}: this is a '{kind}' model, not a language model "
                          "(train one with `treexc lm`)")
    try:
        args, vocab, U, C, tree, W = _checked_parts(header, a)
    except KeyError as e:
        raise TreexcError(f"{path}: corrupt language model (missing {e})") from None
    except (TypeError, ValueError, TreexcError) as e:
        raise TreexcError(f"{path}: corrupt language model ({e})") from None
    return LanguageModel(args, vocab, U, C, tree, W)


# Evaluation scratch per thread (batch x (context x dim + vocabulary) floats)
# that a loaded model's saved -batch may ask for.
MAX_EVAL_SCRATCH = 1 << 28


def _checked_parts(header, a):
    """Options, vocabulary, tree and weights of a language-model file, each
    checked against the others: ``ValueError``/``TypeError``/``KeyError``."""
    saved = header["args"]
    args = validate(modelfile.options(LMArgs, saved))
    missing = [n for n in SHAPE_OPTIONS if n not in saved]
    if missing:
        raise KeyError(missing[0])
    pool = modelfile.array(a, "pool", "u1", 1)
    entry_off = modelfile.array(a, "entry_off", "<i8", 1)
    entry_len = modelfile.array(a, "entry_len", "<i4", 1)
    counts = modelfile.array(a, "counts", "<i8", 1)
    modelfile.check_entries(pool, entry_off, entry_len, counts)
    modelfile.check_duplicates(entry_off, entry_len, pool)
    vocab = Vocab(pool, entry_off, entry_len, counts)
    d, V, T = args.dim, vocab.size, args.context
    U = modelfile.array(a, "U", "<f4", 2)
    C = modelfile.array(a, "C", "<f4", 3)
    tree = W = None
    if args.loss == "tree":
        children = modelfile.array(a, "children", "<i4", 2)
        modelfile.check_tree(children, V)
        tree = Tree(children, V)
        W = modelfile.array(a, "W", "<f4", 2)
    if not (U.shape == (V, d + (0 if tree is not None else 1))
            and C.shape == (T, d, d)
            and (tree is None or W.shape == (tree.n_internal * tree.arity, d + 1))):
        raise ValueError("matrix shapes do not match")
    if args.batch * (T * d + V + d) > MAX_EVAL_SCRATCH:
        raise ValueError(f"batch {args.batch} needs too much memory to evaluate")
    for name, w in (("U", U), ("C", C), ("W", W)):
        if w is not None:
            modelfile.check_weights(name, w)
    return args, vocab, U, C, tree, W


load_lm_model = load_lm  # the name dump-tree imports


# -- per-thread engines -----------------------------------------------------

class _Engine:
    """Scratch buffers of one thread for batches of up to ``batch`` positions."""

    def __init__(self, model, batch):
        self.model = model
        a = model.args
        d, T = a.dim, a.context
        self.B = batch
        self.d = d
        self.T = T
        self.ctx = np.zeros((batch, T), dtype=np.int32)
        self.targets = np.zeros(batch, dtype=np.int32)
        self.E = np.zeros((batch, T * d), dtype=np.float32)
        self.r_aug = np.ones((batch, d + 1), dtype=np.float32)
        self.r = np.zeros((batch, d), dtype=np.float32)
        self.dr = np.zeros((batch, d + 1), dtype=np.float32)
        self.pad = model.vocab.eos_id

    def forward_context(self, ids, positions, n):
        m = self.model
        kern.gather_context(ids, positions, n, self.T, self.pad, m.U, self.ctx, self.E)
        kern.gather_targets(ids, positions, n, self.targets)
        np.matmul(self.E[:n], m.C.reshape(-1, self.d), out=self.r[:n])
        self.r_aug[:n, :self.d] = self.r[:n]

    def backward_context(self, n, lr, acc_C):
        """Context matrices' Adagrad step; returns dE (n, T*d)."""
        m = self.model
        Cf = m.C.reshape(-1, self.d)
        dr = self.dr[:n, :self.d]
        dE = dr @ Cf.T
        dC = self.E[:n].T @ dr
        kern.adagrad_dense(m.C, acc_C, dC, lr, ADAGRAD_EPS)
        return dE


class FlatEngine(_Engine):
    CHUNK = 4096  # rows of U per output-gradient product (fits in L2 with Adagrad)

    def __init__(self, model, batch):
        super().__init__(model, batch)
        V, cols = model.U.shape
        self.S = np.zeros((batch, V), dtype=np.float32)
        self.tl = np.zeros(batch, dtype=np.float32)
        self.tmp = np.zeros((min(self.CHUNK, V), cols), dtype=np.float32)
        self.gU = None
        self.flags = None

    def scores(self, n):
        """``exp`` of the logits (shifted when needed) in ``S[:n]``; the
        target's shifted logit in ``tl[:n]``; returns the row sums."""
        S = self.S[:n]
        np.matmul(self.r_aug[:n], self.model.U.T, out=S)
        m = S.max(axis=1)
        rows = np.arange(n)
        self.tl[:n] = S[rows, self.targets[:n]]
        # exp(s) is safe in float32 while |s| < 60: skip the shift pass then
        if m.max() > 60.0 or m.min() < -60.0:
            S -= m[:, None]
            self.tl[:n] -= m
        else:
            m[:] = 0.0
        np.exp(S, out=S)
        return S.sum(axis=1).astype(np.float64)

    def evaluate(self, ids, positions, n):
        """Sum of -log p(target) over the batch."""
        self.forward_context(ids, positions, n)
        z = self.scores(n)
        return float(np.log(z).sum() - self.tl[:n].astype(np.float64).sum())

    def train(self, ids, positions, n, lr, acc):
        m = self.model
        U = m.U
        if self.gU is None:
            self.gU = np.zeros(U.shape, dtype=np.float32)
            self.flags = np.zeros(len(U), dtype=np.uint8)
        self.forward_context(ids, positions, n)
        z = self.scores(n)
        loss = float(np.log(z).sum() - self.tl[:n].astype(np.float64).sum())
        inv = (1.0 / (z * n)).astype(np.float32)[:, None]
        S = self.S[:n]
        dr = self.dr[:n]
        np.matmul(S, U, out=dr)
        dr *= inv
        kern.flat_targets_grad(U, self.targets, n, self.r_aug, self.dr, np.float32(1.0 / n),
                               self.gU, self.flags)
        dE = self.backward_context(n, lr, acc["C"])
        kern.scatter_context_grad_flat(self.ctx, n, self.T, dE, self.gU)
        kern.flag_context_rows(self.ctx, n, self.T, self.flags)
        rs = self.r_aug[:n] * inv
        V = len(U)
        tmp = self.tmp
        for c0 in range(0, V, self.CHUNK):
            c1 = min(V, c0 + self.CHUNK)
            np.matmul(S[:, c0:c1].T, rs, out=tmp[:c1 - c0])
            kern.adagrad_flat_chunk(U, acc["U"], tmp, c0, c1, self.gU, self.flags, lr,
                                    ADAGRAD_EPS)
        return loss


class TreeEngine(_Engine):
    def __init__(self, model, batch):
        super().__init__(model, batch)
        self.probs = np.zeros(max(model.tree.arity, 2), dtype=np.float64)
        self.lp = np.zeros(batch, dtype=np.float64)
        self.gW = None
        self.gU = None

    def evaluate(self, ids, positions, n):
        m = self.model
        self.forward_context(ids, positions, n)
        t = m.tree
        kern.tree_log_probs(self.r_aug, self.targets, n, m.W, t.children, t.path_off,
                            t.path_node, t.path_slot, self.probs, self.lp)
        return -float(self.lp[:n].sum())

    def train(self, ids, positions, n, lr, acc, collect=False, stats_p=None, stats_n=None):
        m = self.model
        t = m.tree
        W, U = m.W, m.U
        if self.gW is None or self.gW.shape != W.shape:
            self.gW = np.zeros(W.shape, dtype=np.float32)
            self.node_flags = np.zeros(t.n_internal, dtype=np.uint8)
            self.node_list = np.zeros(t.n_internal, dtype=np.int64)
            self.probs = np.zeros(max(t.arity, 2), dtype=np.float64)
        if self.gU is None:
            self.gU = np.zeros(U.shape, dtype=np.float32)
            self.word_flags = np.zeros(len(U), dtype=np.uint8)
            self.word_list = np.zeros(self.B * self.T, dtype=np.int64)
        if stats_p is None:
            stats_p = np.zeros((1, 1))
            stats_n = np.zeros(1)
        self.forward_context(ids, positions, n)
        self.dr[:n] = 0.0
        loss, nt = kern.tree_batch_grad(
            self.r_aug, self.targets, n, W, t.children, t.path_off, t.path_node,
            t.path_slot, np.float32(1.0 / n), self.dr, self.gW, self.node_flags,
            self.node_list, 0, self.probs, collect, stats_p, stats_n)
        kern.adagrad_rows(W, acc["W"], self.gW, self.node_list, nt, self.node_flags,
                          t.arity, lr, ADAGRAD_EPS)
        dE = self.backward_context(n, lr, acc["C"])
        nu = kern.scatter_context_grad(self.ctx, n, self.T, dE, self.gU, self.word_flags,
                                       self.word_list, 0)
        kern.adagrad_rows(U, acc["U"], self.gU, self.word_list, nu, self.word_flags, 1, lr,
                          ADAGRAD_EPS)
        return loss
