"""Multi-label benchmark: treexc's probabilistic label trees against
fastText 0.9.2 ``ova`` and ``hs``, napkinXC's PLT and extremeText's PLT.

    python benchmarks/bench_multilabel.py [--only cooking,debian_tags] [--repeat N]
    python benchmarks/make_next_word.py --size 350k --targets 5 --valid-size 10k \
        --test-size 10k --out /tmp/treexc-data/gutenberg_next5 --name gutenberg_next5
    python benchmarks/bench_multilabel.py --only gutenberg_next5

gutenberg_next5 (made as above from ../shared/data/gutenberg_lm, not
unpacked by this script): 350,000 positions of the text, input the up to 8
words before, labels the distinct words of that position and the four after
it in the same paragraph (every word a label: 53,076 in the training file,
4.4 per line).

For each data set and tool: P@1, P@3, P@5 on the test split (fastText's
meter: correct predictions over predictions made), train time, test time
(the P@5 evaluation: prediction of every test line).  Each run is a process
of its own (``bench_multilabel.py worker ...``), interleaved tool by tool,
so every figure of a row comes from the same conditions.  treexc and
fastText share ``-dim``, ``-epoch``, ``-lr``, ``-wordNgrams``, ``-bucket``
and 2 threads; napkinXC (no embedding; liblinear node classifiers) takes
the lines' unigram and bigram tf-idf vectors, with its own defaults.
Results: docs/results/multilabel.md.
"""

import json
import sys
import time
from pathlib import Path

import harness
from harness import THREADS, log, p1, secs

FLAGS = {
    "cooking": dict(dim=50, lr=0.5, epoch=25, wordNgrams=2, bucket=2000000),
    "debian_tags": dict(dim=50, lr=0.5, epoch=10, wordNgrams=2, bucket=2000000),
    # lr 0.5 diverged for every tool but fastText hs (4.4 labels a line, 53K labels)
    "gutenberg_next5": dict(dim=50, lr=0.1, epoch=2, wordNgrams=2, bucket=2000000),
}
MADE_HERE = {"gutenberg_next5"}  # made by make_next_word.py, not in ../shared/data
# (row name, tool, extra flags)
TOOLS = [
    ("treexc plt, learned tree", "treexc", dict(loss="plt", tree="learned")),
    ("treexc plt, Huffman tree", "treexc", dict(loss="plt", tree="huffman")),
    ("treexc plt, k-means tree", "treexc", dict(loss="plt", tree="cluster")),
    ("fastText ova", "fasttext", dict(loss="ova")),
    ("fastText hs", "fasttext", dict(loss="hs")),
    ("napkinXC PLT (k-means tree)", "napkinxc", {}),
    ("extremeText PLT", "extremetext", dict(loss="plt")),
]


def evaluate(predict_top5, test_lines):
    """P@1, P@3, P@5 and the prediction time, from ``predict_top5(texts)``
    giving each line's five best labels (fastText's meter: correct over made,
    on lines with labels)."""
    texts, gold = [], []
    for line in test_lines:
        words = line.split()
        labels = {w for w in words if w.startswith("__label__")}
        if labels:
            gold.append(labels)
            texts.append(" ".join(w for w in words if not w.startswith("__label__")))
    start = time.perf_counter()
    top = predict_top5(texts)
    test_s = time.perf_counter() - start
    out = {"test_s": test_s, "n": len(texts)}
    for k in (1, 3, 5):
        made = sum(min(k, len(t)) for t in top)
        correct = sum(len(set(t[:k]) & g) for t, g in zip(top, gold))
        out[f"p{k}"] = correct / made if made else float("nan")
    return out


def run_treexc(train, test, flags):
    import treexc
    start = time.perf_counter()
    model = treexc.train_supervised(input=train, thread=THREADS, verbose=0, **flags)
    train_s = time.perf_counter() - start
    start = time.perf_counter()
    out = {}
    for k in (1, 3, 5):  # treexc's own meter (test), as the CLI's `test`
        _, out[f"p{k}"], _ = model.test(test, k)
        if k == 5:
            out["test_s"] = time.perf_counter() - start
        start = time.perf_counter()
    return {"train_s": train_s, **out, "arity": model.args.arity}


def run_fasttext(train, test, flags):
    import fasttext
    start = time.perf_counter()
    model = fasttext.train_supervised(input=train, thread=THREADS, verbose=0, **flags)
    train_s = time.perf_counter() - start
    out = {}
    for k in (1, 3, 5):  # model.test: fasttext-wheel's predict() fails with numpy 2
        start = time.perf_counter()
        _, out[f"p{k}"], _ = model.test(test, k)
        if k == 5:
            out["test_s"] = time.perf_counter() - start
    return {"train_s": train_s, **out}


def tfidf(lines, model=None):
    """Unigram and bigram tf-idf rows (l2-normalised) as a CSR matrix, and
    the (vocabulary, idf) of the training lines (``model``: reuse them)."""
    import numpy as np
    from scipy.sparse import csr_matrix
    vocab, idf = model if model else ({}, None)
    rows, cols, vals = [], [], []
    for i, text in enumerate(lines):
        toks = text.split()
        feats = {}
        for t in toks + [a + " " + b for a, b in zip(toks, toks[1:])]:
            j = vocab.get(t)
            if j is None and model is None:
                j = vocab[t] = len(vocab)
            if j is not None:
                feats[j] = feats.get(j, 0) + 1
        for j, c in feats.items():
            rows.append(i)
            cols.append(j)
            vals.append(float(c))
    m = csr_matrix((vals, (rows, cols)), shape=(len(lines), len(vocab)))
    if idf is None:
        df = np.bincount(m.indices, minlength=len(vocab))
        idf = np.log((1 + len(lines)) / (1 + df)) + 1
    m = csr_matrix(m.multiply(idf[None, :]))
    norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1)).ravel())
    m = csr_matrix(m.multiply(1 / np.maximum(norms, 1e-12)[:, None]))
    return m, (vocab, idf)


def split_line(line):
    words = line.split()
    return ([w for w in words if w.startswith("__label__")],
            " ".join(w for w in words if not w.startswith("__label__")))


def run_napkinxc(train, test, flags):
    import tempfile

    from napkinxc.models import PLT
    start = time.perf_counter()
    labels, texts = zip(*(split_line(x) for x in open(train, errors="replace")))
    names = sorted({name for labs in labels for name in labs})
    index = {name: i for i, name in enumerate(names)}
    x, vocab = tfidf(texts)
    y = [[index[n] for n in labs] for labs in labels]
    with tempfile.TemporaryDirectory() as d:
        model = PLT(d, threads=THREADS, seed=0)
        model.fit(x, y)
        train_s = time.perf_counter() - start

        def top5(lines):
            xt, _ = tfidf(lines, vocab)
            return [[f"__label__{names[j][9:]}" for j in row]
                    for row in model.predict(xt, top_k=5)]

        out = evaluate(top5, open(test, errors="replace").read().splitlines())
    return {"train_s": train_s, **out}


def run_extremetext(train, test, flags):
    import extremeText
    start = time.perf_counter()
    model = extremeText.train_supervised(input=train, thread=THREADS, verbose=0, **flags)
    train_s = time.perf_counter() - start
    out = {}
    for k in (1, 3, 5):
        start = time.perf_counter()
        out[f"p{k}"] = model.test(test, k)[1]  # (N, P@k, R@k, ...): more than fastText's
        if k == 5:
            out["test_s"] = time.perf_counter() - start
    return {"train_s": train_s, **out}


RUNNERS = {"treexc": run_treexc, "fasttext": run_fasttext, "napkinxc": run_napkinxc,
           "extremetext": run_extremetext}


def worker(argv):
    tool, train, test, flags = argv
    print(json.dumps(RUNNERS[tool](train, test, json.loads(flags))))


def main():
    opts = harness.parse_options(__doc__, list(FLAGS), "multilabel.md", extra=[
        ("--tools", "treexc,fasttext,napkinxc,extremetext", "the tools whose rows run")])
    tools = [(row, tool, extra) for row, tool, extra in TOOLS
             if tool in opts.tools.split(",")]
    base = Path(opts.unpacked)
    sections = []
    for name in opts.only:
        train_rel, test_rel = harness.split_files(name)
        train, test = base / train_rel, base / test_rel
        if not train.exists() and name in MADE_HERE:
            log(f"{name}: skipped, {train} is missing: make it with make_next_word.py "
                "(see --help)")
            continue
        if not train.exists():
            harness.unpack(Path(opts.data), base, train_rel)
            harness.unpack(Path(opts.data), base, test_rel)
        flags = dict(FLAGS[name], epoch=2 if opts.quick else FLAGS[name]["epoch"])
        runs = {row: [] for row, _, _ in tools}
        failed = {}
        for _ in range(opts.repeat):
            for row, tool, extra in tools:  # interleaved: one run of each tool in turn
                if row in failed:
                    continue
                log(f"{name}: {row}")
                try:
                    r = harness.run([sys.executable, __file__, "worker", tool, str(train),
                                     str(test), json.dumps({**flags, **extra}
                                                           if tool != "napkinxc" else {})])
                    runs[row].append(json.loads(r.out))
                except Exception as e:  # a tool that is not installed: say why
                    err = getattr(e, "stderr", b"") or str(e).encode()
                    failed[row] = (err.decode(errors="replace").strip().splitlines()
                                   or ["?"])[-1][:200]
        section = harness.Section(
            f"{name} (test split; {harness.flags_text(flags)}, -thread {THREADS})",
            ["tool", "P@1", "P@3", "P@5", "train s", "test s"])
        for row, _, _ in tools:
            if row in failed:
                section.notes.append(f"{row}: not run: {failed[row]}")
                continue
            m = harness.median_of([{k: v for k, v in r.items() if k != "arity"}
                                   for r in runs[row]])
            arity = runs[row][0].get("arity")
            section.rows.append([row + (f" (M={arity})" if arity else ""), p1(m["p1"]),
                                 p1(m["p3"]), p1(m["p5"]), secs(m["train_s"]),
                                 secs(m["test_s"])])
        sections.append(section)
        print(section.markdown(), flush=True)
    out = Path(opts.results)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("# Multi-label benchmark\n\n" + "\n".join(
        f"- {line}" for line in harness.environment(opts)) + "\n\n"
        + "\n".join(s.markdown() for s in sections))
    log(f"results in {out}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "worker":
        worker(sys.argv[2:])
    else:
        main()
