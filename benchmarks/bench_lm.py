"""Language-model benchmark: treexc's flat softmax and random, clustering and
learned trees against PyTorch (flat softmax and AdaptiveLogSoftmaxWithLoss)
running the same log-bilinear model on the same tokens.

    python benchmarks/bench_lm.py --data /tmp/treexc-data/gutenberg_small_lm \\
        --out bench-lm --dim 100 --epoch 1 --thread 2

Every row uses the same vocabulary (treexc's, -minCount 5), dimension,
context, batch size, learning rate, epochs and threads.  treexc rows run
`treexc lm` (its -log records give the figures); PyTorch rows run here
(torch==2.13.0, CPU; skipped, with a message, without PyTorch).  Each row
writes ``OUT/ROW.jsonl`` (`treexc plot` reads them), the table goes to
``OUT/table.md`` and stdout.  Rows whose log exists are not run again unless
``--force``.  A missing ``--data`` folder of ../shared/data is unpacked first.
"""

import json
import math
import os
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from harness import DATA, TREEXC, flag_list, log, parser, run, table, unpack

ROWS = ("flat", "random", "cluster", "learned", "torch-flat", "torch-adaptive")


def treexc_internals():
    """Every treexc function the benchmarks call directly (rather than through
    the `treexc` command), imported in this one place."""
    from treexc.io.textio import read_text
    from treexc.lm.options import make_lm_args
    from treexc.lm.plan import root_rows, tree_shape
    from treexc.lm.training import new_model
    from treexc.runtime import blas_threads
    from treexc.text.vocab import build_vocab
    from treexc.trees.builders import random_tree
    return SimpleNamespace(read_text=read_text, tree_shape=tree_shape, make_lm_args=make_lm_args,
                           new_model=new_model, blas_threads=blas_threads, root_rows=root_rows,
                           build_vocab=build_vocab, random_tree=random_tree)


def read_corpus(a, files, *splits):
    """treexc's vocabulary of the training file, and the word ids of the
    training file and of each of ``splits``."""
    treexc = treexc_internals()
    data = treexc.read_text(files["train"])
    vocab = treexc.build_vocab(data, a.min_count, files["train"])
    return vocab, [vocab.encode(data)] + [vocab.encode(treexc.read_text(files[s]))
                                          for s in splits]


def treexc_row(row, a, files, out):
    log_file = os.path.join(out, f"{row}.jsonl")
    cmd = [a.treexc, "lm", *flag_list(dict(
        input=files["train"], valid=files["valid"], output=os.path.join(out, row),
        log=log_file, name=row, dim=a.dim, context=a.context, batch=a.batch, lr=a.lr,
        epoch=a.epoch, thread=a.thread, evalPerEpoch=a.eval_per_epoch, minCount=a.min_count,
        seed=a.seed, verbose=1,
        patience=0))]  # every epoch: the learning curves are the point
    if a.epoch > 1:  # learning curves: the test perplexity of every evaluation
        cmd += ["-test", files["test"]]
    if row == "flat":
        cmd += ["-loss", "softmax"]
    else:
        # -massSlack for every tree row: with -arity 0 it decides the fitted
        # arity (room for the cap), so the rows keep one shape
        cmd += ["-loss", "tree", "-tree", row, "-depth", str(a.depth),
                "-massSlack", str(a.mass_slack), "-rootRows", str(a.root_rows)]
        if a.arity:
            cmd += ["-arity", str(a.arity)]
        if row == "learned":
            # the rebuilds an epoch the results pages were measured with
            cmd += ["-treeUpdatesPerEpoch", str(a.tree_updates)]
    print("$ " + " ".join(cmd), flush=True)
    wall = run(cmd, capture=False).wall
    test = run([a.treexc, "test-lm", os.path.join(out, row + ".bin"), files["test"],
                "-thread", str(a.thread)]).out.decode()
    records = [json.loads(x) for x in open(log_file)]
    # -keepBest (treexc's default with -valid) saves the best evaluation's model
    records[-1].update(test_ppl_final=float(test.split()[1]), wall_seconds=wall,
                       command=" ".join(cmd),
                       saved_valid_ppl=min(r["valid_ppl"] for r in records))
    write_records(log_file, records)


def write_records(path, records):  # the -log format: one JSON object a line
    with open(path, "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")


# -- the same model in PyTorch -------------------------------------------------

def import_torch(what):
    try:
        import torch
        return torch
    except ImportError:
        log(f"{what}: skipped, PyTorch is not installed (pip install -e '.[bench-lm]')",
            "bench-lm")


class TorchLBL:
    """The log-bilinear model in PyTorch on treexc's vocabulary (flat softmax
    with tied output embeddings, or AdaptiveLogSoftmaxWithLoss), Adagrad."""

    def __init__(self, torch, vocab, a, adaptive):
        from torch import nn
        V, d, T = vocab.size, a.dim, a.context
        self.torch, self.T = torch, T

        class LBL(nn.Module):
            def __init__(self):
                super().__init__()
                # the same initialisation as treexc's LM
                self.emb = nn.Embedding(V, d, sparse=adaptive)
                nn.init.uniform_(self.emb.weight, -1.0 / d, 1.0 / d)
                self.C = nn.Parameter(torch.empty(T * d, d).uniform_(-d ** -0.5, d ** -0.5))
                if adaptive:
                    # cutoffs past a small vocabulary are dropped (PyTorch refuses them)
                    cutoffs = [c for c in a.cutoffs if c < V - 1] or [max(1, V // 4)]
                    self.out = nn.AdaptiveLogSoftmaxWithLoss(d, V, cutoffs, div_value=4.0)
                else:
                    self.bias = nn.Parameter(torch.zeros(V))  # tied output embeddings

            def forward(self, ctx, target, reduction="mean"):
                r = self.emb(ctx).reshape(len(ctx), T * d) @ self.C
                if adaptive:
                    return self.out(r, target).loss * (len(ctx) if reduction == "sum" else 1)
                logits = r @ self.emb.weight.T + self.bias
                return nn.functional.cross_entropy(logits, target, reduction=reduction)

        self.model = LBL()
        self.opt = torch.optim.Adagrad(self.model.parameters(), lr=a.lr, eps=1e-10)
        # adaptive softmax wants classes by decreasing frequency: the output
        # classes are ranked; the embedding rows follow treexc ids
        self.rank = np.empty(V, dtype=np.int64)
        self.rank[np.argsort(-vocab.counts, kind="stable")] = np.arange(V)
        self.eos = vocab.eos_id
        self.offsets = np.arange(T - 1, -1, -1)  # k = 0 (the previous word) first

    def tokens(self, ids):
        """(ids padded with T end-of-sentence tokens in front, ranked ids)."""
        pad = np.concatenate([np.full(self.T, self.eos, dtype=np.int64), ids.astype(np.int64)])
        return pad, self.rank[ids]

    def batch(self, tokens, pos):
        pad, ranked = tokens
        ctx = pad[pos[:, None] + self.offsets]  # pad[p + T - 1 - k] = ids[p - 1 - k]
        return self.torch.from_numpy(ctx), self.torch.from_numpy(ranked[pos])

    def train_step(self, tokens, pos):
        self.opt.zero_grad(set_to_none=True)
        loss = self.model(*self.batch(tokens, pos))
        loss.backward()
        self.opt.step()
        return loss

    def eval_step(self, tokens, pos):
        with self.torch.no_grad():
            return self.model(*self.batch(tokens, pos))

    def evaluate(self, ids, B):
        """(perplexity of ``ids``, ms per batch of ``B``)."""
        tokens, n, total, t0 = self.tokens(ids), len(ids), 0.0, time.perf_counter()
        self.model.eval()
        with self.torch.no_grad():
            for b0 in range(0, n, B):
                total += float(self.model(*self.batch(tokens, np.arange(b0, min(n, b0 + B))),
                                          reduction="sum"))
        self.model.train()
        return math.exp(total / n), 1000.0 * (time.perf_counter() - t0) / -(-n // B)


def torch_row(row, a, files, out):
    torch = import_torch(row)
    if torch is None:
        return
    torch.set_num_threads(a.torch_threads or a.thread)
    torch.manual_seed(a.seed)
    vocab, (train, valid, test) = read_corpus(a, files, "valid", "test")
    B, name = a.batch, row + a.suffix
    lbl = TorchLBL(torch, vocab, a, row == "torch-adaptive")
    train_tokens = lbl.tokens(train)
    about = {"dim": a.dim, "context": a.context, "batch": B, "lr": a.lr,
             "threads": torch.get_num_threads(), "vocab": vocab.size, "torch": torch.__version__}
    rng = np.random.default_rng(a.seed)
    N = len(train)
    records = []
    train_seconds, train_batches, done = 0.0, 0, 0
    loss_sum, loss_n = 0.0, 0
    nb = -(-N // B)
    eval_at = {k * nb // a.eval_per_epoch for k in range(1, a.eval_per_epoch + 1)}

    def record(epoch, partial=False):
        """Evaluate on the validation file and log what was trained so far."""
        nonlocal train_seconds, loss_sum, loss_n, t0
        train_seconds += time.perf_counter() - t0
        vppl, vms = lbl.evaluate(valid, B)
        records.append({"run": name, "epoch": round(epoch, 4), "tokens": done,
                        "train_loss": loss_sum / max(loss_n, 1), "valid_ppl": vppl,
                        "eval_ms_per_batch": vms,
                        "train_ms_per_batch": 1000.0 * train_seconds / train_batches,
                        "train_seconds": train_seconds,
                        "train_tokens_per_sec": done / train_seconds,
                        **({"partial": True} if partial else {}), **about})
        print(json.dumps(records[-1]), flush=True)
        loss_sum, loss_n = 0.0, 0
        t0 = time.perf_counter()

    for epoch in range(a.epoch):
        perm = rng.permutation(N)
        t0 = time.perf_counter()
        for b in range(nb):
            if a.torch_max_batches and train_batches == a.torch_max_batches:
                break  # a timing row: stop here, evaluate
            pos = perm[b * B:(b + 1) * B]
            loss = lbl.train_step(train_tokens, pos)
            loss_sum += float(loss) * len(pos)
            loss_n += len(pos)
            done += len(pos)
            train_batches += 1
            if b + 1 in eval_at:
                record(epoch + (b + 1) / nb)
        else:
            continue
        record(epoch + b / nb, partial=True)  # stopped early: evaluate what was trained
        break
    if not records[-1].get("partial"):  # a timing row is not worth a test pass
        records[-1]["test_ppl_final"] = lbl.evaluate(test, B)[0]
    records[-1]["command"] = "python " + " ".join(sys.argv)
    write_records(os.path.join(out, f"{name}.jsonl"), records)


def timing(a, files, out):
    """Per-batch latency of each output layer on the real vocabulary, one
    thread, the models timed back to back (so they share the machine's
    load): best of 3 runs of ``--timing-batches`` batches (a tenth of them
    for the flat softmaxes), after a warm-up of 20."""
    treexc = treexc_internals()
    vocab, (ids,) = read_corpus(a, files)
    rng = np.random.default_rng(a.seed)
    perm = rng.permutation(len(ids))
    B = a.batch
    results = {}

    def best(step, n):
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            for b in range(n):
                step(perm[b * B:(b + 1) * B])
            times.append((time.perf_counter() - t0) / n * 1000.0)
        return min(times)

    def measure(name, train, evaluate, n):
        for b in range(20):
            train(perm[b * B:(b + 1) * B])
            evaluate(perm[b * B:(b + 1) * B])
        results[name] = best(train, n), best(evaluate, n)

    for loss in ("softmax", "tree"):
        args = treexc.make_lm_args(input=files["train"], dim=a.dim, context=a.context,
                                   batch=B, lr=a.lr, loss=loss, thread=1, depth=a.depth,
                                   arity=a.arity, massSlack=a.mass_slack,
                                   rootRows=a.root_rows if loss == "tree" else 0)
        tree = None
        if loss == "tree":
            depth, arity, _ = treexc.tree_shape(args, vocab.size)
            tree = treexc.random_tree(vocab.size, arity, depth, rng)
        m = treexc.new_model(args, vocab, tree, rng)
        e = m.engine(B)
        names = ("U", "C") if tree is None else ("U", "C", "W")   # gradient accumulators
        acc = {k: np.zeros_like(getattr(m, k)) for k in names}
        with treexc.blas_threads(1):
            measure("flat" if loss == "softmax" else
                    f"tree (M={tree.arity}, D={depth}, "
                    f"{treexc.root_rows(args, tree.arity)} root rows)",
                    lambda p: e.train(ids, p, len(p), a.lr, acc),
                    lambda p: e.batch_nll(ids, p, len(p)),
                    a.timing_batches // (10 if loss == "softmax" else 1))
    torch = import_torch("PyTorch timing rows")
    if torch is not None:
        torch.set_num_threads(1)
        for adaptive in (False, True):
            lbl = TorchLBL(torch, vocab, a, adaptive)
            tokens = lbl.tokens(ids)
            measure("torch adaptive" if adaptive else "torch flat",
                    lambda p: lbl.train_step(tokens, p), lambda p: lbl.eval_step(tokens, p),
                    a.timing_batches // (1 if adaptive else 10))
    publish(out, "timing.md", "\n".join(table(
        ["output layer (1 thread)", "train ms/batch", "eval ms/batch"],
        [[k, f"{tr:.2f}", f"{ev:.2f}"] for k, (tr, ev) in results.items()])))


def results_table(out, rows):
    names = [f[:-6] for f in sorted(os.listdir(out)) if f.endswith(".jsonl")]
    lines = []
    for row in [r for r in rows if r in names] + sorted(set(names) - set(rows)):
        r = [json.loads(x) for x in open(os.path.join(out, f"{row}.jsonl"))][-1]
        valid = r.get("saved_valid_ppl", r["valid_ppl"])
        lines.append([row + (" (partial)" if r.get("partial") else ""), f"{valid:.1f}",
                      f"{r.get('test_ppl_final', float('nan')):.1f}",
                      f"{r['train_ms_per_batch']:.2f}", f"{r['eval_ms_per_batch']:.2f}",
                      f"{r['train_tokens_per_sec']:,.0f}", f"{r['train_seconds']:.0f}"])
    return "\n".join(table(["row", "valid ppl", "test ppl", "train ms/batch", "eval ms/batch",
                            "train tokens/s", "train s"], lines))


OPTIONS = [  # (flag, default, help)
    ("--data", "/tmp/treexc-data/gutenberg_small_lm", "the unpacked data set [%(default)s]"),
    ("--out", "bench-lm", "folder of the rows' logs, models and tables [%(default)s]"),
    ("--rows", ",".join(ROWS), "comma-separated rows [all]"),
    ("--dim", 100, None), ("--context", 4, None), ("--batch", 128, None), ("--lr", 0.1, None),
    ("--epoch", 1, None), ("--thread", 2, None), ("--min-count", 5, None), ("--depth", 3, None),
    ("--arity", 0, None), ("--tree-updates", 50, "rebuilds per epoch of the learned tree's span (lm "
     "-treeUpdatesPerEpoch)"), ("--eval-per-epoch", 1, None),
    ("--seed", 0, None), ("--timing-batches", 300, None), ("--treexc", TREEXC, None),
    ("--mass-slack", 0.0, "-massSlack of the learned tree"),
    ("--root-rows", 0, "-rootRows of the tree rows (0: treexc's rule)"),
    ("--cutoffs", "2000,10000", "AdaptiveLogSoftmaxWithLoss cutoffs"),
    ("--torch-threads", 0, "torch.set_num_threads for PyTorch rows (default: --thread)"),
    ("--torch-max-batches", 0, "stop PyTorch rows after this many batches (timing rows)"),
    ("--suffix", "", "appended to PyTorch row names"),
    ("--force", False, "run rows whose log exists again"),
    ("--timing", False, "only time each output layer's batches, one thread, back to back"),
]


def publish(out, name, text):
    with open(os.path.join(out, name), "w") as f:
        f.write(text + "\n")
    print(text)


def main():
    a = parser(__doc__.split("\n\n")[0], OPTIONS).parse_args()
    a.cutoffs = [int(x) for x in a.cutoffs.split(",")]
    data = Path(a.data)
    stem = data.name.removesuffix("_lm")  # gutenberg_small_lm/gutenberg_small.train.txt ...
    files = {s: os.path.join(a.data, f"{stem}.{s}.txt") for s in ("train", "valid", "test")}
    if not all(map(os.path.exists, files.values())) and (DATA / data.name).is_dir():
        unpack(DATA, data.parent, f"{data.name}/{os.path.basename(files['train'])}")
    os.makedirs(a.out, exist_ok=True)
    if a.timing:
        return timing(a, files, a.out)
    for row in [r for r in a.rows.split(",") if r]:
        if row not in ROWS:
            sys.exit(f"unknown row {row} (choose from {', '.join(ROWS)})")
        name = row + (a.suffix if row.startswith("torch") else "")
        if os.path.exists(os.path.join(a.out, f"{name}.jsonl")) and not a.force:
            continue
        (torch_row if row.startswith("torch") else treexc_row)(row, a, files, a.out)
    publish(a.out, "table.md", results_table(a.out, ROWS))


if __name__ == "__main__":
    main()
