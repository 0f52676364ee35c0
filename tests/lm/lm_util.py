"""Helpers of the language-model tests: a known bigram model to sample text
from, a numpy reference of the flat model's likelihood, a small model."""

import math

import numpy as np

from treexc.lm.options import make_lm_args
from treexc.lm.training import train_lm


def bigram_chain(n_words, seed):
    """A random transition matrix over ``n_words`` tokens + ``</s>`` (last)."""
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.full(n_words + 1, 0.3), size=n_words + 1)
    return P


def sample_chain(P, n_tokens, rng):
    """Token indices of a run of the chain, starting after ``</s>``."""
    V = len(P)
    cdf = np.cumsum(P, axis=1)
    out = np.empty(n_tokens, dtype=np.int64)
    prev = V - 1
    u = rng.random(n_tokens)
    for t in range(n_tokens):
        prev = min(int(np.searchsorted(cdf[prev], u[t] * cdf[prev, -1], side="right")), V - 1)
        out[t] = prev
    return out


def chain_text(tokens, names):
    """Text whose token stream is ``tokens``: ``</s>`` becomes a newline."""
    parts, line = [], []
    for t in tokens:
        if t == len(names):
            parts.append(" ".join(line))
            line = []
        else:
            line.append(names[t])
    if line:
        parts.append(" ".join(line))
    return "\n".join(parts) + "\n"


def reference_flat_nll(model, ids):
    """Plain numpy negative log-likelihood of a flat model, one position at a
    time, written from the model's definition."""
    d = model.args.dim
    U = np.asarray(model.U, dtype=np.float64)
    emb, bias = U[:, :d], U[:, d]
    R = [np.asarray(model.C[k], dtype=np.float64).T for k in range(model.args.context)]
    eos = model.vocab.eos_id
    total = 0.0
    for t in range(len(ids)):
        r = np.zeros(d)
        for k in range(model.args.context):
            q = t - 1 - k
            w = ids[q] if q >= 0 else eos
            r += R[k] @ emb[w]
        logits = emb @ r + bias
        top = logits.max()
        total -= logits[ids[t]] - top - math.log(np.exp(logits - top).sum())
    return total


def small_model(tmp_path, text, **flags):
    path = tmp_path / "train.txt"
    path.write_text(text)
    flags = dict(dict(input=str(path), dim=16, epoch=2, thread=1, verbose=0, minCount=1,
                      batch=16, lr=0.1, seed=1), **flags)
    return train_lm(make_lm_args(**flags))

