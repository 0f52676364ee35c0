"""The log-bilinear language model: options, weights, one batch step, files.

Model (Mnih & Hinton's LBL, as in Jernite et al. 2017, section 5): word
``w`` has an embedding ``U[w]`` (``dim``); the context of the previous
``context`` words is ``r = sum_k R_k U[w_{t-k}]``; the next word follows

* ``softmax``: a flat softmax ``softmax(r . U[w] + b[w])`` whose output
  embeddings are the input ones (tied), or
* ``tree``: a tree softmax, ``p(w) = prod over w's path of softmax(W_n r +
  b_n)[slot]``, one ``M x dim`` matrix (plus biases) per internal node;
  the root may score each slot by the log-sum-exp of several rows
  (``-rootRows``, ``loss.kernels``).

Storage: ``C`` is ``(context, dim, dim)`` float32 with ``C[k] = R_{k+1}^T``
(so ``r = concat_k U[w_{t-k-1}] @ C.reshape(-1, dim)``, one BLAS product for
a batch).  Biases are an extra last column: the flat model's ``U`` is
``(V, dim + 1)`` (``U[:, dim]`` = ``b``), the tree's ``W`` is
``((n_internal + rootRows - 1) * M, dim + 1)`` (the root's extra rows
last) and its ``U`` is ``(V, dim)``.

The ``*Engine`` classes hold one thread's scratch buffers and run a
training step (gradients of the mean negative log-likelihood of a batch,
then Adagrad) or an evaluation on a batch of stream positions.
"""

import math
import time

import numpy as np

from ..errors import TreexcError
from ..io import bus_error, contents, modelfile
from ..loss.kernels import scratch_size
from ..loss.topk import tree_top_k
from ..loss.tree_softmax import tree_all_log_probs
from ..options import check_integer, option_values, shape_names
from ..planning import stored_plan
from ..runtime import blas_threads, run_workers
from ..text.dictionary import check_duplicates
from ..text.vocab import Vocab, read_stream
from ..trees.tree import Tree
from . import kernels as kern
from .engines import FlatEngine, TreeEngine
from .options import MODEL_KIND, LMArgs, validate
from .plan import ADDED, Plan, uses_tree


def init_weights(vocab_size, args, rng):
    """Embeddings uniform in +-1/dim (fastText's input matrix), biases 0,
    context matrices uniform in +-1/sqrt(dim) (a default linear layer)."""
    d = args.dim
    cols = d if uses_tree(args) else d + 1
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
        # what training chose and why (lm/plan.py's Plan), or a loaded file's
        # {field: [value, rule, why]} (None: a file from before plans were saved)
        self.plan = None

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
        return uses_tree(self.args)

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
            tree_all_log_probs(r[i], np.asarray(self.W), self.tree.children, V,
                                    out[i])
        return out

    def predict_next(self, words, k=1):
        """The ``k`` most likely next words after ``words`` (a list of
        tokens): ``[(word, probability), ...]``, best first."""
        if check_integer("k", k) < 1:
            raise TreexcError(f"k {k}: must be >= 1")
        if isinstance(words, (str, bytes)):  # iterated, its characters would be the words
            raise TreexcError(f"predict_next: words must be a list of words, not a "
                              f"{type(words).__name__} (split the line: line.split())")
        k = min(k, self.vocab.size)
        ctx = self.context_ids(words)
        if self.is_tree:
            r = self.hidden([ctx])[0]
            children = self.tree.children
            M = children.shape[1]
            bound = children.shape[0] * M + 1
            heap_s = np.empty(k)
            heap_l = np.empty(k, dtype=np.int64)
            size = tree_top_k(np.asarray(self.W), children, self.vocab.size, r, k, -np.inf,
                              heap_s, heap_l, np.empty(bound, np.int64), np.empty(bound),
                              np.empty(scratch_size(self.W, children)), np.empty(M, np.int64))
            order = np.argsort(-heap_s[:size], kind="stable")
            ids, scores = heap_l[:size][order], heap_s[:size][order]
        else:
            lp = self.next_log_probs([ctx])[0]
            ids = np.argsort(-lp, kind="stable")[:k]
            scores = lp[ids]
        return [(self.vocab.word(int(i)), float(np.exp(s))) for i, s in zip(ids, scores)]

    # -- files -------------------------------------------------------------
    def perplexity(self, path, threads=1):
        """``(perplexity, n_tokens)`` of a text file under this model."""
        return perplexity(self, path, threads)

    def save_model(self, path):
        arrays = dict(self.vocab.arrays())
        arrays["U"] = np.asarray(self.U)
        arrays["C"] = np.asarray(self.C)
        if self.is_tree:
            arrays["children"] = self.tree.children
            arrays["W"] = np.asarray(self.W)
        header = {"kind": MODEL_KIND, "args": option_values(self.args, saved_only=True)}
        if self.plan is not None:  # what training chose and why (lm/plan.py)
            header["plan"] = self.plan if isinstance(self.plan, dict) else self.plan.header()
        modelfile.save(path, header, arrays)


def load_lm(path):
    """A language model from ``path``, every part of the file checked first
    (the kernels trust their arrays: a bad index would read out of bounds)."""
    if modelfile.mapping_wanted():
        bus_error.install()
    header, a = modelfile.load(path, mapped=("U", "C", "W"))
    kind = header.get("kind")
    if kind != MODEL_KIND:
        kind = contents.describe(kind).strip("'")
        raise TreexcError(f"{path}: this is a '{kind}' model, not a language model "
                          "(train one with `treexc lm`)")
    try:
        args, vocab, U, C, tree, W = _checked_parts(header, a)
        plan = stored_plan(header.get("plan"), Plan, ADDED)
    except KeyError as e:
        raise TreexcError(f"{path}: corrupt language model (missing {e})") from None
    except (TypeError, ValueError, TreexcError) as e:
        raise TreexcError(f"{path}: corrupt language model ({e})") from None
    model = LanguageModel(args, vocab, U, C, tree, W)
    model.plan = plan
    return model


# Evaluation scratch per thread (batch x (context x dim + vocabulary) floats)
# that a loaded model's saved -batch may ask for.
MAX_EVAL_SCRATCH = 1 << 28


def _checked_parts(header, a):
    """Options, vocabulary, tree and weights of a language-model file, each
    checked against the others: ``ValueError``/``TypeError``/``KeyError``."""
    saved = header["args"]
    args = validate(contents.options(LMArgs, saved))
    missing = [n for n in shape_names(LMArgs) if n not in saved]
    if missing:
        raise KeyError(missing[0])
    pool = contents.array(a, "pool", "u1", 1)
    entry_off = contents.array(a, "entry_off", "<i8", 1)
    entry_len = contents.array(a, "entry_len", "<i4", 1)
    counts = contents.array(a, "counts", "<i8", 1)
    contents.check_entries(pool, entry_off, entry_len, counts)
    check_duplicates(entry_off, entry_len, pool)
    vocab = Vocab(pool, entry_off, entry_len, counts)
    d, V, T = args.dim, vocab.size, args.context
    U = contents.array(a, "U", "<f4", 2)
    C = contents.array(a, "C", "<f4", 3)
    tree = W = None
    if uses_tree(args):
        if args.depth < 1 or args.arity < 2:  # training saves the shape it chose
            raise ValueError(f"tree of depth {args.depth} and arity {args.arity}")
        children = contents.array(a, "children", "<i4", 2)
        contents.check_tree(children, V)
        tree = Tree(children, V)
        W = contents.array(a, "W", "<f4", 2)
        # files from before -rootRows have one row per root slot
        args.rootRows = saved.get("rootRows", 1)
        if args.rootRows < 1 or (args.rootRows > 1 and tree.arity < 3):  # 64: validate
            raise ValueError(f"{args.rootRows} rows per slot at a {tree.arity}-ary root")
    if not (U.shape == (V, d + (0 if tree is not None else 1))
            and C.shape == (T, d, d)
            and (tree is None or W.shape == ((tree.n_internal + args.rootRows - 1)
                                             * tree.arity, d + 1))):
        raise ValueError("matrix shapes do not match")
    if args.batch * (T * d + V + d) > MAX_EVAL_SCRATCH:
        raise ValueError(f"batch {args.batch} needs too much memory to evaluate")
    for name, w in (("U", U), ("C", C), ("W", W)):
        if w is not None:
            contents.check_weights(name, w)
    return args, vocab, U, C, tree, W




# -- per-thread engines -----------------------------------------------------


def stream_nll(model, ids, engines, batch):
    """``(total negative log-likelihood, n_tokens, seconds, n_batches)``."""
    n = len(ids)
    n_batches = -(-n // batch)
    positions = np.arange(n, dtype=np.int64)
    sums = np.zeros(len(engines))
    control = np.zeros(1, dtype=np.int64)

    def work(t):
        e = engines[t]
        total = 0.0
        for b in range(t, n_batches, len(engines)):
            if control[0]:
                break
            p = positions[b * batch:(b + 1) * batch]
            total += e.batch_nll(ids, p, len(p))
        sums[t] = total

    start = time.perf_counter()
    with blas_threads(1):
        # the threads past the last batch have none: not started
        run_workers(min(len(engines), n_batches), work, control, lambda: None)
    return float(sums.sum()), n, time.perf_counter() - start, n_batches



def perplexity(model, path_or_ids, threads=1, batch=None):
    """``(perplexity, n_tokens)`` of a file (or token ids) under ``model``."""
    ids = path_or_ids if isinstance(path_or_ids, np.ndarray) else \
        read_stream(path_or_ids, model.vocab).ids
    batch = batch or model.args.batch
    n_batches = -(-len(ids) // batch)  # a thread without a batch would only cost its start
    engines = [model.engine(batch) for _ in range(max(1, min(threads, n_batches)))]
    nll, n, _, _ = stream_nll(model, ids, engines, batch)
    return exp_or_inf(nll / n), n



def exp_or_inf(x):
    """``exp(x)``, infinite past float's range (``math.exp`` raises)."""
    return math.exp(x) if x < 709.0 else math.inf

