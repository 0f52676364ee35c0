"""Where a tree language model loses against a flat softmax (docs/lm.md):
the language-model counterpart of ``tree_gap.py``.

    python experiments/lm_gap.py TREE.bin FLAT.bin TEXT.txt [MAX_TOKENS] [TRAIN.txt]

Both models trained on the same file (the same vocabulary).  For the first
``MAX_TOKENS`` positions of TEXT (default 20,000), both models' log-
probabilities of every word are computed and ``log p(w)`` is split at the
root of TREE's tree, ``log p(w) = log p(g) + log p(w | g)``, ``g`` being the
root slot on ``w``'s path; for either model ``p(g)`` is the sum of its
probabilities over the words below that slot.  Printed: both parts' mean
negative log-likelihood over all positions and by frequency rank of the
target word (word ids are ranks), with the share of those words that have a
root slot of their own.

With TRAIN (the models' training text), it also asks whether the root's loss
is one of expressivity: a linear root (one row per root slot, a softmax over
the slots) is fitted by Adagrad on each model's context vectors of the whole
of TRAIN (``ROOT_FIT_EPOCHS`` passes; the vectors held in memory, so for
corpora of a few million tokens) and its ``-log p(g)`` printed on the
first ``MAX_TOKENS`` positions of TRAIN and of TEXT, beside both models'.
The flat model's ``p(g)`` is what a root fitted on its features would reach
if one linear score per group could stand for the group's words.
"""

import sys

import numpy as np

from treexc.lm.model import load_lm
from treexc.text.vocab import read_stream

RANK_BANDS = ((0, 10), (10, 100), (100, 1000), (1000, None))
BLOCK = 500  # positions per next_log_probs call
ROOT_FIT_EPOCHS, ROOT_FIT_LR, ROOT_FIT_BATCH = 4, 0.05, 256


def contexts(ids, n, context, pad):
    """Context ids (most recent first) of the first ``n`` positions."""
    ctx = np.full((n, context), pad, dtype=np.int64)
    for k in range(context):
        ctx[k + 1:, k] = ids[:n - k - 1]
    return ctx


def group_log_probs(log_p, group, n_groups):
    """``log p(g)`` for every root slot: log-sum-exp over its words."""
    out = np.full((len(log_p), n_groups), -np.inf)
    for g in range(n_groups):
        words = group == g
        if words.any():
            x = log_p[:, words]
            top = x.max(axis=1)
            out[:, g] = top + np.log(np.exp(x - top[:, None]).sum(axis=1))
    return out


def split_nll(model, ctx, targets, group, n_groups):
    """Per position: ``-log p(g)`` and ``-log p(w | g)``."""
    root, within = [], []
    for s in range(0, len(targets), BLOCK):
        log_p = model.next_log_probs(ctx[s:s + BLOCK])
        y = targets[s:s + BLOCK]
        rows = np.arange(len(y))
        log_g = group_log_probs(log_p, group, n_groups)[rows, group[y]]
        root.append(-log_g)
        within.append(log_g - log_p[rows, y])
    return np.concatenate(root), np.concatenate(within)


def hidden(model, ids):
    """The model's context vectors ``r_aug`` at every position of ``ids``."""
    ctx = contexts(ids, len(ids), model.args.context, model.vocab.eos_id)
    return np.concatenate([model.hidden(ctx[s:s + 20000]) for s in range(0, len(ids), 20000)])


def slot_nll(r_aug, W, slots):
    """Per position ``-log softmax(W r_aug)[slot]``."""
    z = r_aug @ W.T
    z -= z.max(axis=1, keepdims=True)
    return np.log(np.exp(z).sum(axis=1)) - z[np.arange(len(z)), slots]


def fit_root(r_aug, slots, n_slots, seed=0):
    """A linear root fitted to ``slots`` by mini-batch Adagrad."""
    rng = np.random.default_rng(seed)
    W = np.zeros((n_slots, r_aug.shape[1]), dtype=np.float32)
    acc = np.zeros_like(W)
    for _ in range(ROOT_FIT_EPOCHS):
        order = rng.permutation(len(r_aug))
        for s in range(0, len(order), ROOT_FIT_BATCH):
            batch = order[s:s + ROOT_FIT_BATCH]
            x = r_aug[batch]
            z = x @ W.T
            p = np.exp(z - z.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            p[np.arange(len(batch)), slots[batch]] -= 1
            grad = p.T @ x / len(batch)
            acc += grad * grad
            W -= ROOT_FIT_LR * grad / (np.sqrt(acc) + 1e-10)
    return W


def root_fit_report(models, parts, train_ids, text_ids, group, n_groups):
    """``-log p(g)``: each model's own (on TEXT: ``parts``, already split),
    and a linear root fitted on each model's context vectors, on TRAIN's
    and TEXT's first positions."""
    n = len(text_ids)
    print(f"-log p(g) on the first {n} positions of TRAIN / of TEXT:")
    for name, m in models.items():
        ctx = contexts(train_ids, n, m.args.context, m.vocab.eos_id)
        own_train = split_nll(m, ctx, train_ids[:n], group, n_groups)[0].mean()
        r_train = hidden(m, train_ids)
        W = fit_root(r_train, group[train_ids], n_groups)
        fit_train = slot_nll(r_train[:n], W, group[train_ids[:n]]).mean()
        fit_text = slot_nll(hidden(m, text_ids), W, group[text_ids]).mean()
        print(f"{name}: its own {own_train:.4f} / {parts[name][0].mean():.4f}; a linear root "
              f"fitted on its context vectors {fit_train:.4f} / {fit_text:.4f}")


def main(tree_path, flat_path, text_path, max_tokens=20000, train_path=None):
    tree_model, flat_model = load_lm(tree_path), load_lm(flat_path)
    if tree_model.vocab.words() != flat_model.vocab.words():
        sys.exit("lm_gap: the two models have different vocabularies")
    ids = read_stream(text_path, tree_model.vocab).ids
    n = min(len(ids), int(max_tokens))
    ctx = contexts(ids, n, tree_model.args.context, tree_model.vocab.eos_id)
    targets = ids[:n]
    t = tree_model.tree
    group = t.path_slot[t.path_off[:-1]].astype(np.int64)
    n_groups = int(group.max()) + 1
    alone = np.bincount(group, minlength=n_groups)[group[targets]] == 1
    parts = {name: split_nll(m, ctx, targets, group, n_groups)
             for name, m in (("tree", tree_model), ("flat", flat_model))}
    print(f"{n} positions of {text_path}; root of {tree_path}: {n_groups} slots")
    for name, (root, within) in parts.items():
        print(f"{name}: perplexity {np.exp((root + within).mean()):.2f}, "
              f"-log p(g) {root.mean():.4f}, -log p(w | g) {within.mean():.4f}")
    print("ranks | share | own root slot | -log p(g) tree / flat | -log p(w | g) tree / flat")
    for lo, hi in RANK_BANDS:
        sel = (targets >= lo) & (targets < (hi if hi is not None else len(group)))
        if not sel.any():
            continue
        (tr, tw), (fr, fw) = parts["tree"], parts["flat"]
        print(f"{lo}-{hi if hi is not None else ''} | {sel.mean():.3f} | {alone[sel].mean():.2f} | "
              f"{tr[sel].mean():.3f} / {fr[sel].mean():.3f} | "
              f"{tw[sel].mean():.3f} / {fw[sel].mean():.3f}")
    if train_path is not None:
        train_ids = read_stream(train_path, tree_model.vocab).ids
        root_fit_report({"tree": tree_model, "flat": flat_model}, parts, train_ids, targets,
                        group, n_groups)


if __name__ == "__main__":
    main(*sys.argv[1:])
