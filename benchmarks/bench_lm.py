"""Language-model benchmark: treexc's flat softmax and random, clustering and
learned trees against PyTorch (flat softmax and AdaptiveLogSoftmaxWithLoss)
running the same log-bilinear model on the same tokens.

    python benchmarks/bench_lm.py --data /tmp/treexc-data/gutenberg_small_lm \\
        --out bench-lm --dim 100 --epoch 1 --thread 2

Every row uses the same vocabulary (treexc's, -minCount 5), dimension,
context, batch size, learning rate, epochs and threads.  treexc rows run the
`treexc lm` command (its -log records give the figures); PyTorch rows run
here (torch==2.13.0, CPU, ``torch.set_num_threads(--thread)``).  Each row
writes ``OUT/ROW.jsonl`` (`treexc plot` reads them) and the table goes to
``OUT/table.md`` and stdout.  ``--rows`` picks rows; rows whose log already
exists are not run again unless ``--force``.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import time

import numpy as np

ROWS = ("flat", "random", "cluster", "learned", "torch-flat", "torch-adaptive")


def treexc_row(row, a, files, out):
    log = os.path.join(out, f"{row}.jsonl")
    cmd = [a.treexc, "lm", "-input", files["train"], "-valid", files["valid"],
           "-output", os.path.join(out, row), "-log", log, "-name", row,
           "-dim", str(a.dim), "-context", str(a.context), "-batch", str(a.batch),
           "-lr", str(a.lr), "-epoch", str(a.epoch), "-thread", str(a.thread),
           "-evalPerEpoch", str(a.eval_per_epoch), "-minCount", str(a.min_count),
           "-seed", str(a.seed), "-verbose", "1"]
    if row == "flat":
        cmd += ["-loss", "softmax"]
    else:
        cmd += ["-loss", "tree", "-tree", row, "-depth", str(a.depth)]
        if a.arity:
            cmd += ["-arity", str(a.arity)]
        if row == "learned":
            cmd += ["-treeUpdates", str(a.tree_updates), "-massSlack", str(a.mass_slack)]
    print("$ " + " ".join(cmd), flush=True)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True)
    wall = time.perf_counter() - t0
    test = subprocess.run([a.treexc, "test-lm", os.path.join(out, row + ".bin"),
                           files["test"], "-thread", str(a.thread)],
                          check=True, capture_output=True, text=True).stdout
    records = [json.loads(x) for x in open(log)]
    records[-1]["test_ppl_final"] = float(test.split()[1])
    records[-1]["wall_seconds"] = wall
    records[-1]["command"] = " ".join(cmd)
    with open(log, "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")


def torch_row(row, a, files, out):
    import torch
    from torch import nn

    from treexc.lm_corpus import build_vocab
    from treexc.textio import read_text

    torch.set_num_threads(a.torch_threads or a.thread)
    torch.manual_seed(a.seed)
    data = read_text(files["train"])
    vocab = build_vocab(data, a.min_count, files["train"])
    train = vocab.encode(data)
    del data
    valid = vocab.encode(read_text(files["valid"]))
    test = vocab.encode(read_text(files["test"]))
    V, d, T, B = vocab.size, a.dim, a.context, a.batch
    # adaptive softmax wants classes by decreasing frequency: remap ids
    order = np.argsort(-vocab.counts, kind="stable")
    rank = np.empty(V, dtype=np.int64)
    rank[order] = np.arange(V)
    eos = vocab.eos_id

    def padded(ids):
        return np.concatenate([np.full(T, eos, dtype=np.int64), ids.astype(np.int64)])

    class LBL(nn.Module):
        def __init__(self, adaptive):
            super().__init__()
            self.adaptive = adaptive
            # the same initialisation as treexc (lm_model.init_weights)
            self.emb = nn.Embedding(V, d, sparse=adaptive)
            nn.init.uniform_(self.emb.weight, -1.0 / d, 1.0 / d)
            self.C = nn.Parameter(torch.empty(T * d, d).uniform_(-d ** -0.5, d ** -0.5))
            if adaptive:
                self.out = nn.AdaptiveLogSoftmaxWithLoss(d, V, a.cutoffs, div_value=4.0)
            else:
                self.bias = nn.Parameter(torch.zeros(V))  # tied output embeddings

        def forward(self, ctx, target):
            r = self.emb(ctx).reshape(len(ctx), T * d) @ self.C
            if self.adaptive:
                return self.out(r, target).loss
            logits = r @ self.emb.weight.T + self.bias
            return nn.functional.cross_entropy(logits, target)

        def nll_sum(self, ctx, target):
            r = self.emb(ctx).reshape(len(ctx), T * d) @ self.C
            if self.adaptive:
                return self.out(r, target).loss * len(ctx)
            logits = r @ self.emb.weight.T + self.bias
            return nn.functional.cross_entropy(logits, target, reduction="sum")

    name = row + a.suffix
    model = LBL(row == "torch-adaptive")
    opt = torch.optim.Adagrad(model.parameters(), lr=a.lr, eps=1e-10)
    offsets = np.arange(T - 1, -1, -1)  # k = 0 (the previous word) first

    def batch_tensors(pad, ids_rank, pos):
        ctx = pad[pos[:, None] + offsets]  # pad[p + T - 1 - k] = ids[p - 1 - k]
        return torch.from_numpy(ctx), torch.from_numpy(ids_rank[pos])

    # the embedding rows follow treexc ids; only the output classes are ranked
    train_pad, train_rank = padded(train), rank[train]

    def evaluate(ids):
        pad, ids_rank = padded(ids), rank[ids]
        n = len(ids)
        total, nb = 0.0, 0
        t0 = time.perf_counter()
        model.eval()
        with torch.no_grad():
            for b0 in range(0, n, B):
                pos = np.arange(b0, min(n, b0 + B))
                ctx, tgt = batch_tensors(pad, ids_rank, pos)
                total += float(model.nll_sum(ctx, tgt))
                nb += 1
        model.train()
        return math.exp(total / n), 1000.0 * (time.perf_counter() - t0) / nb

    rng = np.random.default_rng(a.seed)
    N = len(train)
    records = []
    train_seconds, train_batches, done = 0.0, 0, 0
    loss_sum, loss_n = 0.0, 0
    nb = -(-N // B)
    eval_at = {k * nb // a.eval_per_epoch for k in range(1, a.eval_per_epoch + 1)}
    log = os.path.join(out, f"{name}.jsonl")
    for epoch in range(a.epoch):
        perm = rng.permutation(N)
        t0 = time.perf_counter()
        for b in range(nb):
            if a.torch_max_batches and train_batches == a.torch_max_batches:
                eval_at = {b}  # a timing row: stop here, evaluate
                break
            pos = perm[b * B:(b + 1) * B]
            ctx, tgt = batch_tensors(train_pad, train_rank, pos)
            opt.zero_grad(set_to_none=True)
            loss = model(ctx, tgt)
            loss.backward()
            opt.step()
            loss_sum += float(loss) * len(pos)
            loss_n += len(pos)
            done += len(pos)
            train_batches += 1
            if b + 1 in eval_at:
                train_seconds += time.perf_counter() - t0
                vppl, vms = evaluate(valid)
                rec = {"run": name, "epoch": round(epoch + (b + 1) / nb, 4), "tokens": done,
                       "train_loss": loss_sum / loss_n, "valid_ppl": vppl,
                       "eval_ms_per_batch": vms,
                       "train_ms_per_batch": 1000.0 * train_seconds / train_batches,
                       "train_seconds": train_seconds,
                       "train_tokens_per_sec": done / train_seconds,
                       "dim": d, "context": T, "batch": B, "lr": a.lr,
                       "threads": torch.get_num_threads(), "vocab": V, "torch": torch.__version__}
                print(json.dumps(rec), flush=True)
                records.append(rec)
                loss_sum, loss_n = 0.0, 0
                t0 = time.perf_counter()
        else:
            continue
        # stopped early (--torch-max-batches): evaluate what was trained
        train_seconds += time.perf_counter() - t0
        vppl, vms = evaluate(valid)
        records.append({"run": name, "epoch": round(epoch + b / nb, 4), "tokens": done,
                        "train_loss": loss_sum / max(loss_n, 1), "valid_ppl": vppl,
                        "eval_ms_per_batch": vms,
                        "train_ms_per_batch": 1000.0 * train_seconds / train_batches,
                        "train_seconds": train_seconds,
                        "train_tokens_per_sec": done / train_seconds, "partial": True,
                        "dim": d, "context": T, "batch": B, "lr": a.lr,
                        "threads": torch.get_num_threads(), "vocab": V, "torch": torch.__version__})
        print(json.dumps(records[-1]), flush=True)
        break
    if not records[-1].get("partial"):  # a timing row is not worth a test pass
        records[-1]["test_ppl_final"] = evaluate(test)[0]
    records[-1]["command"] = "python " + " ".join(sys.argv)
    with open(log, "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")


def timing(a, files, out):
    """Per-batch latency of each output layer on the real vocabulary, one
    thread, the models timed back to back (so they share the machine's
    load): best of 3 runs of ``--timing-batches`` batches, after a warm-up."""
    from treexc.lm_corpus import build_vocab
    from treexc.lm_model import fit_arity, make_lm_args
    from treexc.lm_trainer import blas_threads, new_model
    from treexc.lm_trees import random_tree
    from treexc.textio import read_text

    data = read_text(files["train"])
    vocab = build_vocab(data, a.min_count, files["train"])
    ids = vocab.encode(data)
    del data
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

    for loss in ("softmax", "tree"):
        args = make_lm_args(input=files["train"], dim=a.dim, context=a.context, batch=B,
                            lr=a.lr, loss=loss, thread=1, depth=a.depth)
        tree = None
        if loss == "tree":
            tree = random_tree(vocab.size, a.arity or fit_arity(vocab.size, a.depth),
                               a.depth, rng)
        m = new_model(args, vocab, tree, rng)
        e = m.engine(B)
        acc = {"U": np.zeros_like(m.U), "C": np.zeros_like(m.C)}
        if tree is not None:
            acc["W"] = np.zeros_like(m.W)
        n = a.timing_batches // (10 if loss == "softmax" else 1)
        with blas_threads(1):
            for b in range(20):
                e.train(ids, perm[b * B:(b + 1) * B], B, a.lr, acc)
                e.evaluate(ids, perm[b * B:(b + 1) * B], B)
            tr = best(lambda p: e.train(ids, p, len(p), a.lr, acc), n)
            ev = best(lambda p: e.evaluate(ids, p, len(p)), n)
        results["flat" if loss == "softmax" else f"tree (M={tree.arity}, D={a.depth})"] = \
            (tr, ev)
    try:
        import torch
        from torch import nn
    except ImportError:
        torch = None
    if torch is not None:
        torch.set_num_threads(1)
        V, d, T = vocab.size, a.dim, a.context
        pad = np.concatenate([np.full(T, vocab.eos_id, dtype=np.int64), ids.astype(np.int64)])
        order = np.argsort(-vocab.counts, kind="stable")
        rank = np.empty(V, dtype=np.int64)
        rank[order] = np.arange(V)
        offsets = np.arange(T - 1, -1, -1)
        for adaptive in (False, True):
            emb = nn.Embedding(V, d, sparse=adaptive)
            C = nn.Parameter(torch.empty(T * d, d).uniform_(-0.1, 0.1))
            params = [emb.weight, C]
            if adaptive:
                outl = nn.AdaptiveLogSoftmaxWithLoss(d, V, a.cutoffs, div_value=4.0)
                params += list(outl.parameters())
            else:
                bias = nn.Parameter(torch.zeros(V))
                params.append(bias)
            opt = torch.optim.Adagrad(params, lr=a.lr, eps=1e-10)

            def loss_of(p):
                ctx = torch.from_numpy(pad[p[:, None] + offsets])
                tgt = torch.from_numpy(rank[ids[p]])
                r = emb(ctx).reshape(len(p), T * d) @ C
                if adaptive:
                    return outl(r, tgt).loss
                return nn.functional.cross_entropy(r @ emb.weight.T + bias, tgt)

            def train_step(p):
                opt.zero_grad(set_to_none=True)
                loss = loss_of(p)
                loss.backward()
                opt.step()

            def eval_step(p):
                with torch.no_grad():
                    loss_of(p)

            n = a.timing_batches // (1 if adaptive else 10)
            for b in range(20):
                train_step(perm[b * B:(b + 1) * B])
            results["torch adaptive" if adaptive else "torch flat"] = (
                best(train_step, n), best(eval_step, n))
    lines = ["| output layer (1 thread) | train ms/batch | eval ms/batch |", "|---|---|---|"]
    for k, (tr, ev) in results.items():
        lines.append(f"| {k} | {tr:.2f} | {ev:.2f} |")
    text = "\n".join(lines)
    with open(os.path.join(out, "timing.md"), "w") as f:
        f.write(text + "\n")
    print(text)


def table(out, rows):
    names = [f[:-6] for f in sorted(os.listdir(out)) if f.endswith(".jsonl")]
    rows = [r for r in rows if r in names] + sorted(set(names) - set(rows))
    lines = ["| row | valid ppl | test ppl | train ms/batch | eval ms/batch | "
             "train tokens/s | train s |",
             "|---|---|---|---|---|---|---|"]
    for row in rows:
        path = os.path.join(out, f"{row}.jsonl")
        if not os.path.exists(path):
            continue
        r = [json.loads(x) for x in open(path)][-1]
        row += " (partial)" if r.get("partial") else ""
        lines.append(f"| {row} | {r['valid_ppl']:.1f} | {r.get('test_ppl_final', float('nan')):.1f}"
                     f" | {r['train_ms_per_batch']:.2f} | {r['eval_ms_per_batch']:.2f}"
                     f" | {r['train_tokens_per_sec']:,.0f} | {r['train_seconds']:.0f} |")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default="/tmp/treexc-data/gutenberg_small_lm")
    p.add_argument("--out", default="bench-lm")
    p.add_argument("--rows", default=",".join(ROWS))
    p.add_argument("--dim", type=int, default=100)
    p.add_argument("--context", type=int, default=4)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--epoch", type=int, default=1)
    p.add_argument("--thread", type=int, default=2)
    p.add_argument("--min-count", type=int, default=5)
    p.add_argument("--depth", type=int, default=3)
    p.add_argument("--arity", type=int, default=0)
    p.add_argument("--tree-updates", type=int, default=50)
    p.add_argument("--mass-slack", type=float, default=0.0,
                   help="-massSlack of the learned tree")
    p.add_argument("--eval-per-epoch", type=int, default=1)
    p.add_argument("--cutoffs", default="2000,10000",
                   help="AdaptiveLogSoftmaxWithLoss cutoffs")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--torch-threads", type=int, default=0,
                   help="torch.set_num_threads for PyTorch rows (default: --thread)")
    p.add_argument("--torch-max-batches", type=int, default=0,
                   help="stop PyTorch rows after this many batches (timing rows)")
    p.add_argument("--suffix", default="", help="appended to PyTorch row names")
    p.add_argument("--force", action="store_true")
    p.add_argument("--timing", action="store_true",
                   help="only time each output layer's batches, one thread, back to back")
    p.add_argument("--timing-batches", type=int, default=300)
    p.add_argument("--treexc", default=os.path.join(os.path.dirname(sys.executable), "treexc"))
    a = p.parse_args()
    a.cutoffs = [int(x) for x in a.cutoffs.split(",")]
    files = {s: os.path.join(a.data, f"gutenberg_small.{s}.txt")
             for s in ("train", "valid", "test")}
    os.makedirs(a.out, exist_ok=True)
    if a.timing:
        timing(a, files, a.out)
        return
    rows = [r for r in a.rows.split(",") if r]
    for row in rows:
        if row not in ROWS:
            sys.exit(f"unknown row {row} (choose from {', '.join(ROWS)})")
        name = row + (a.suffix if row.startswith("torch") else "")
        if os.path.exists(os.path.join(a.out, f"{name}.jsonl")) and not a.force:
            continue
        (torch_row if row.startswith("torch") else treexc_row)(row, a, files, a.out)
    text = table(a.out, ROWS)
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
