"""One worker thread's step of the language model: scratch buffers for a
batch, a training step (gradients of the batch's mean negative
log-likelihood, then Adagrad) and an evaluation, for the flat softmax
(BLAS products) and the tree softmax (``lm.kernels``).

Shapes and storage: ``lm.model``'s docstring.
"""

import numpy as np

from ..loss.kernels import scratch_size
from . import kernels as kern

ADAGRAD_EPS = 1e-10  # torch.optim.Adagrad's default


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

    def batch_nll(self, ids, positions, n):
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
    """The tree softmax.  Where the root is a softmax (arity 3 or more) its
    row scores for the whole batch are one BLAS product, and so are its
    parts of the gradients: the root is on every path, and at depth 2 it is
    half of a position's work or more (all of it with several rows a slot,
    ``-rootRows``); the kernels do the nodes below."""

    def __init__(self, model, batch):
        super().__init__(model, batch)
        t = model.tree
        self.probs = np.zeros(scratch_size(model.W, t.children), dtype=np.float64)
        self.lp = np.zeros(batch, dtype=np.float64)
        self.root_blas = t.arity >= 3
        if self.root_blas:  # the root's rows: W[:M], then W[n_internal * M:]
            n_root = len(model.W) - (t.n_internal - 1) * t.arity
            self.S = np.zeros((batch, n_root), dtype=np.float32)
            self.X = np.zeros((batch, n_root), dtype=np.float32)
            self.G = np.zeros((batch, n_root), dtype=np.float32)
        self.gW = None
        self.gU = None

    def root_scores(self, n):
        """``S[:n]``: every root row's score for the batch's hidden vectors
        (row ``k`` of slot ``j`` in column ``k*M + j``), and ``X[:n]``:
        their exponentials shifted by each position's largest score of a
        present slot, 0 for empty slots (``kern.tree_batch_grad_given_root``)."""
        W, t = self.model.W, self.model.tree
        M = t.arity
        main = t.n_internal * M
        r, S, X = self.r_aug[:n], self.S[:n], self.X[:n]
        np.matmul(r, W[:M].T, out=S[:, :M])
        if len(W) > main:
            np.matmul(r, W[main:].T, out=S[:, M:])
        np.copyto(X, S)
        empty = np.flatnonzero(t.children[0] < 0)
        if len(empty):
            X[:, (np.arange(S.shape[1] // M)[:, None] * M + empty).ravel()] = -np.inf
        X -= X.max(axis=1, keepdims=True)
        np.exp(X, out=X)
        return S, X

    def root_backward(self, n):
        """The root's part of the batch's gradients from its score
        coefficients ``G[:n]``: into ``dr`` and the root's rows of ``gW``."""
        W, M = self.model.W, self.model.tree.arity
        main = self.model.tree.n_internal * M
        G, r = self.G[:n], self.r_aug[:n]
        self.dr[:n] += G[:, :M] @ W[:M]
        np.matmul(G[:, :M].T, r, out=self.gW[:M])
        if len(W) > main:
            self.dr[:n] += G[:, M:] @ W[main:]
            np.matmul(G[:, M:].T, r, out=self.gW[main:])

    def batch_nll(self, ids, positions, n):
        m = self.model
        self.forward_context(ids, positions, n)
        t = m.tree
        if self.root_blas:
            kern.tree_log_probs_given_root(self.r_aug, self.targets, n, m.W, t.children,
                                           t.path_off, t.path_node, t.path_slot,
                                           *self.root_scores(n), self.probs, self.lp)
        else:
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
        if self.gU is None:
            self.gU = np.zeros(U.shape, dtype=np.float32)
            self.word_flags = np.zeros(len(U), dtype=np.uint8)
            self.word_list = np.zeros(self.B * self.T, dtype=np.int64)
        if stats_p is None:
            stats_p = np.zeros((1, 1))
            stats_n = np.zeros(1)
        self.forward_context(ids, positions, n)
        self.dr[:n] = 0.0
        scale = np.float32(1.0 / n)
        if self.root_blas:
            loss, nt = kern.tree_batch_grad_given_root(
                self.r_aug, self.targets, n, W, t.children, t.path_off, t.path_node,
                t.path_slot, *self.root_scores(n), scale, self.dr, self.gW, self.G,
                self.node_flags, self.node_list, 0, self.probs, collect, stats_p, stats_n)
            self.root_backward(n)
        else:
            loss, nt = kern.tree_batch_grad(
                self.r_aug, self.targets, n, W, t.children, t.path_off, t.path_node,
                t.path_slot, scale, self.dr, self.gW, self.node_flags, self.node_list, 0,
                self.probs, collect, stats_p, stats_n)
        kern.adagrad_node_rows(W, acc["W"], self.gW, self.node_list, nt, self.node_flags,
                               t.children, lr, ADAGRAD_EPS)
        dE = self.backward_context(n, lr, acc["C"])
        nu = kern.scatter_context_grad(self.ctx, n, self.T, dE, self.gU, self.word_flags,
                                       self.word_list, 0)
        kern.adagrad_rows(U, acc["U"], self.gU, self.word_list, nu, self.word_flags, lr,
                          ADAGRAD_EPS)
        return loss
