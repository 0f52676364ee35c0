"""Extreme-classification benchmark: treexc against PECOS XR-Linear, Omikuji
(Parabel-like and Bonsai-like), napkinXC's PLT and fastText 0.9.2, one table
per data set.

    make bench-xmc       # .venv-xmc (the peers, numpy < 2), then every set and row
    .venv-xmc/bin/python benchmarks/bench_xmc.py --treexc .venv/bin/treexc --resume
    .venv-xmc/bin/python benchmarks/bench_xmc.py --sets cooking --rows pecos,napkinxc --seeds 0,1,2
    .venv-xmc/bin/python benchmarks/bench_xmc.py --treexc-rows "default=;linear=-model linear"
    .venv-xmc/bin/python benchmarks/bench_xmc.py --report-only     # the report from --out

Rows (``--rows``): the treexc rows named by ``--treexc-rows`` (``NAME=FLAGS``
pairs separated by ``;``; a row is ``treexc-NAME``: ``treexc-default`` has no
flags at all), ``pecos`` (XR-Linear: PIFA label embedding, hierarchical
k-means indexer, its default matcher and ranker), ``omikuji-parabel`` (its
defaults: balanced 2-means tree), ``omikuji-bonsai`` (unbalanced, 100-way,
depth 3, as Omikuji's README describes Bonsai), ``napkinxc`` (PLT, its
defaults) and ``fasttext`` (0.9.2 at its best loss for the set, FASTTEXT).

The peers read scikit-learn ``TfidfVectorizer`` features of the text (the
line's whitespace-separated tokens as treexc reads them, labels removed,
unigrams and bigrams, ``sublinear_tf``, ``min_df=2``, l2-normalised rows),
at each tool's defaults otherwise.  Their train s is the whole path from the
text file to a saved model (reading, the vectoriser, the tool's own format
where it has one, training, saving).  treexc's train s is the whole `treexc
supervised` command, after a warm-up run on a tiny file so that no timed
run compiles kernels.  fastText: ``train_supervised`` + ``save_model``.

Prediction is timed two ways, each the same for every tool.  predict s (and
predict CPU s): a command of its own, as from the shell: treexc's whole
`treexc test MODEL TEST 5`; a peer's a fresh Python process that imports the
tool and scikit-learn, loads the saved model and vectoriser, reads the test
file, builds its features and predicts the 5 best labels of every line;
fastText's ``load_model`` + ``test(k=5)`` in a fresh process (its
``predict()`` fails with numpy 2).  in-process s: the same work inside a
process that has imported the tool already (the peers: their training
worker; treexc: ``load_model`` + ``test(TEST, 5)`` of its Python API, after
a warm-up prediction in that process), as a service would predict.

P@1, P@3, P@5 are fastText's meter for every row: correct predictions over
predictions made, on test lines with at least one label (treexc's and
fastText's meters also skip a line none of whose words the model knows;
the peers predict on such a line from its empty feature vector).  Model MB:
the tool's saved files (treexc: the .bin; the peers' vectoriser, which they
need too, is the ``vocab MB`` column).  Peak RSS: ``ru_maxrss`` of the row's
own processes (a peer's worker and prediction command; treexc: the larger
of its train and test commands).

Every (set, row, seed) is one JSON file in ``--out``; ``--resume`` skips
those already there, and the report (``--results``, and stdout) is rebuilt
from all of ``--out`` after each row, so runs of several processes on one
``--out`` share it.  Figures are medians over ``--seeds``.
"""

import argparse
import json
import os
import pickle
import platform
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

import harness

SETS = ("cooking", "debian_tags", "agnews_testonly", "wn_hypernym", "gutenberg_books",
        "gutenberg_next")
# the next-word set: make_next_word.py's output with these options (32,489 labels)
NEXT_WORD = ["--size", "600k", "--valid-size", "10k", "--test-size", "10k",
             "--splits", "train,test", "--name", "gutenberg_next"]
# fastText 0.9.2 at its best loss for each set, at the flags of the reference
# table of ../shared/data/README.md (ova on the multi-label sets, the flat
# softmax elsewhere); on the next-word set its softmax over 32K labels would
# take hours, and hs is its loss for that (as the README's many-label rows).
FASTTEXT = {
    "cooking": dict(loss="ova", lr=0.5, epoch=25, dim=50, wordNgrams=2),
    "debian_tags": dict(loss="ova", lr=0.5, epoch=10, dim=50, wordNgrams=2),
    "agnews_testonly": dict(loss="softmax", lr=0.5, epoch=10, dim=50, wordNgrams=2),
    "wn_hypernym": dict(loss="softmax", lr=0.5, epoch=10, dim=50),
    "gutenberg_books": dict(loss="softmax", lr=0.5, epoch=5, dim=50),
    "gutenberg_next": dict(loss="hs", lr=0.5, epoch=5, dim=50, wordNgrams=2),
}
PEERS = ("pecos", "omikuji-parabel", "omikuji-bonsai", "napkinxc", "fasttext")
TREEXC_ROWS = "default=;embedding=-model embedding;linear=-model linear"
QUICK_LINES = (2000, 300)
LABEL = "__label__"
HEADER = ["row", "P@1", "P@3", "P@5", "train s", "predict s", "in-process s", "train CPU s",
          "predict CPU s", "model MB", "vocab MB", "peak RSS MiB"]


# -- the peers, each in a worker process of its own -----------------------------

def read_lines(path):
    """(labels, text) of each line of a fastText-format file."""
    labels, texts = [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            words = line.split()
            labels.append([w for w in words if w.startswith(LABEL)])
            texts.append(" ".join(w for w in words if not w.startswith(LABEL)))
    return labels, texts


def vectorizer():
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer
    return TfidfVectorizer(tokenizer=str.split, token_pattern=None, lowercase=False,
                           ngram_range=(1, 2), sublinear_tf=True, min_df=2, norm="l2",
                           dtype=np.float32)


def label_matrix(labels, index):
    import numpy as np
    from scipy.sparse import csr_matrix
    ids = [[index[x] for x in dict.fromkeys(labs)] for labs in labels]
    indptr = np.cumsum([0] + [len(i) for i in ids])
    return csr_matrix((np.ones(indptr[-1], np.float32),
                       np.fromiter((j for i in ids for j in i), np.int64, indptr[-1]), indptr),
                      shape=(len(ids), len(index)))


def precision_at(top, gold, ks=(1, 3, 5)):
    """fastText's meter: correct predictions over predictions made, on the
    lines with a gold label."""
    out = {}
    lines = [(t, g) for t, g in zip(top, gold) if g]
    for k in ks:
        made = sum(min(k, len(t)) for t, _ in lines)
        correct = sum(len(set(t[:k]) & g) for t, g in lines)
        out[f"p{k}"] = correct / made if made else float("nan")
    out["n"] = len(lines)
    return out


def folder_mb(path):
    path = Path(path)
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files) / 1e6


class Peer:
    """A peer's training and prediction on tf-idf rows: ``fit`` saves to
    ``folder``; ``predict`` loads from it and gives each row's top label ids."""

    def __init__(self, folder, threads, seed):
        self.folder, self.threads, self.seed = Path(folder), threads, seed

    def fit(self, x, y):
        raise NotImplementedError

    def predict(self, x, k):
        raise NotImplementedError


class Pecos(Peer):
    def fit(self, x, y):
        from pecos.xmc import Indexer, LabelEmbeddingFactory
        from pecos.xmc.xlinear.model import XLinearModel
        features = LabelEmbeddingFactory.create(y, x, method="pifa")
        chain = Indexer.gen(features, seed=self.seed, threads=self.threads)
        XLinearModel.train(x, y, C=chain, threads=self.threads).save(str(self.folder))

    def predict(self, x, k):
        from pecos.xmc.xlinear.model import XLinearModel
        scores = XLinearModel.load(str(self.folder)).predict(x, only_topk=k,
                                                             threads=self.threads).tocsr()
        top = []
        for i in range(scores.shape[0]):
            row = slice(scores.indptr[i], scores.indptr[i + 1])
            order = (-scores.data[row]).argsort(kind="stable")
            top.append(scores.indices[row][order].tolist())
        return top


class Omikuji(Peer):
    params = {}

    def fit(self, x, y):
        import omikuji
        data = self.folder.with_suffix(".xc.txt")
        with open(data, "w") as f:  # the Extreme Classification Repository's format
            f.write(f"{x.shape[0]} {x.shape[1]} {y.shape[1]}\n")
            for i in range(x.shape[0]):
                labs = y.indices[y.indptr[i]:y.indptr[i + 1]]
                cols = x.indices[x.indptr[i]:x.indptr[i + 1]]
                vals = x.data[x.indptr[i]:x.indptr[i + 1]]
                # no space after a line's labels when it has no feature: Omikuji
                # refuses the file
                f.write(" ".join([",".join(map(str, labs)),
                                  *(f"{c}:{v:.6g}" for c, v in zip(cols, vals))]) + "\n")
        hyper = omikuji.Model.default_hyper_param()
        for name, value in self.params.items():
            setattr(hyper, name, value)
        omikuji.Model.train_on_data(str(data), hyper, self.threads).save(str(self.folder))
        data.unlink()

    def predict(self, x, k):
        import omikuji
        model = omikuji.Model.load(str(self.folder))
        model.init_prediction_thread_pool(1)  # one line at a time: no use for more
        return [[label for label, _ in model.predict(
            list(zip(x.indices[x.indptr[i]:x.indptr[i + 1]].tolist(),
                     x.data[x.indptr[i]:x.indptr[i + 1]].tolist())), top_k=k)]
            for i in range(x.shape[0])]


class OmikujiBonsai(Omikuji):
    params = dict(cluster_balanced=False, cluster_k=100, max_depth=3)


class NapkinXC(Peer):
    def fit(self, x, y):
        from napkinxc.models import PLT
        ids = [y.indices[y.indptr[i]:y.indptr[i + 1]].tolist() for i in range(y.shape[0])]
        PLT(str(self.folder), threads=self.threads, seed=self.seed).fit(x, ids)

    def predict(self, x, k):
        from napkinxc.models import PLT
        model = PLT(str(self.folder), threads=self.threads)
        model.load()
        return model.predict(x, top_k=k)


PEER_CLASSES = {"pecos": Pecos, "omikuji-parabel": Omikuji, "omikuji-bonsai": OmikujiBonsai,
                "napkinxc": NapkinXC}


def peer_predict(row, test, threads, work):
    """Load ``row``'s saved model and vectoriser from ``work``, read ``test``,
    its features and each line's 5 best labels: (gold label sets, top labels)."""
    work = Path(work)
    with open(work / "vocab.pickle", "rb") as f:
        vec, names = pickle.load(f)
    gold, texts = read_lines(test)
    top = PEER_CLASSES[row](work / "model", threads, 0).predict(vec.transform(texts), 5)
    return [set(g) for g in gold], [[names[j] for j in labs] for labs in top]


def run_peer(row, train, test, threads, seed, work):
    """Train, save, load and predict ``row`` (a worker process); its figures."""
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    peer = PEER_CLASSES[row](work / "model", threads, seed)
    start, cpu = time.perf_counter(), time.process_time()
    labels, texts = read_lines(train)
    labels, texts = zip(*[(lab, text) for lab, text in zip(labels, texts) if lab])
    names = sorted({x for labs in labels for x in labs})
    index = {x: i for i, x in enumerate(names)}
    vec = vectorizer()
    x = vec.fit_transform(texts)
    y = label_matrix(labels, index)
    del labels, texts
    with open(work / "vocab.pickle", "wb") as f:
        pickle.dump((vec, names), f, protocol=pickle.HIGHEST_PROTOCOL)
    del vec
    peer.fit(x, y)
    train_s, train_cpu = time.perf_counter() - start, time.process_time() - cpu
    n_features = x.shape[1]
    del x, y
    start, cpu = time.perf_counter(), time.process_time()
    gold, top = peer_predict(row, test, threads, work)
    predict_s, predict_cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"train_s": train_s, "predict_api_s": predict_s, "train_cpu": train_cpu,
            "predict_api_cpu": predict_cpu, "model_mb": folder_mb(work / "model"),
            "vocab_mb": folder_mb(work / "vocab.pickle"), "features": n_features,
            **precision_at(top, gold)}


def run_fasttext(set_name, train, test, threads, seed, work):
    import fasttext
    flags = FASTTEXT[set_name]
    model_path = str(Path(work) / "model.bin")
    Path(work).mkdir(parents=True, exist_ok=True)
    start, cpu = time.perf_counter(), time.process_time()
    fasttext.train_supervised(input=str(train), thread=threads, seed=seed, verbose=0,
                              **flags).save_model(model_path)
    train_s, train_cpu = time.perf_counter() - start, time.process_time() - cpu
    start, cpu = time.perf_counter(), time.process_time()
    model = fasttext.load_model(model_path)
    n, p5, _ = model.test(str(test), k=5)
    predict_s, predict_cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"train_s": train_s, "predict_api_s": predict_s, "train_cpu": train_cpu,
            "predict_api_cpu": predict_cpu, "model_mb": folder_mb(model_path),
            "p1": model.test(str(test), k=1)[1], "p3": model.test(str(test), k=3)[1],
            "p5": p5, "n": n, "flags": flags}


def worker(argv):
    """Train and predict a peer's row; its figures to ``work``/result.json
    (a file, not stdout: Omikuji's logger writes there)."""
    row, set_name, train, test, threads, seed, work = argv
    if row == "fasttext":
        out = run_fasttext(set_name, train, test, int(threads), int(seed), work)
    else:
        out = run_peer(row, train, test, int(threads), int(seed), work)
    (Path(work) / "result.json").write_text(json.dumps(out))


def predict_command(argv):
    """A peer's prediction as a command of its own, as a user would run it from
    the shell: imports, loading, the test file's 5 best labels, P@5 printed."""
    row, test, threads, work = argv
    if row == "fasttext":
        import fasttext
        print(fasttext.load_model(str(Path(work) / "model.bin")).test(test, k=5)[1])
    else:
        gold, top = peer_predict(row, test, int(threads), work)
        print(precision_at(top, gold)["p5"])


# -- treexc rows ------------------------------------------------------------------

def treexc_rows(spec):
    """``NAME=FLAGS;...`` as {row: [flags]}."""
    rows = {}
    for part in filter(None, (p.strip() for p in spec.split(";"))):
        name, _, flags = part.partition("=")
        rows[f"treexc-{name.strip()}"] = shlex.split(flags)
    return rows


def run_treexc(treexc, flags, train, test, threads, seed, work):
    """The whole `treexc supervised` and `treexc test ... 5` commands of the
    command ``treexc`` (a warm compile cache: see warm_treexc); then in one
    Python process of its virtualenv, ``load_model`` and ``test(TEST, 5)``
    timed after a warm-up prediction (the kernels loaded, as in a running
    service), and P@k to full precision (the meter of `treexc test`)."""
    work.mkdir(parents=True, exist_ok=True)
    model = work / "model"
    t = harness.run([treexc, "supervised", "-input", str(train), "-output", str(model),
                     "-thread", str(threads), "-seed", str(seed), *flags, "-verbose", "0"])
    r = harness.run([treexc, "test", f"{model}.bin", str(test), "5"])
    python = str(Path(treexc).parent / "python")
    tiny = harness.head(test, work / "warm.txt", 300)
    api = [float(x) for x in harness.run([python, "-c", IN_PROCESS, f"{model}.bin", str(test),
                                          str(tiny)]).out.split()]
    return {"train_s": t.wall, "predict_cmd_s": r.wall, "train_cpu": t.cpu,
            "predict_cmd_cpu": r.cpu, "predict_api_s": api[0], "predict_api_cpu": api[1],
            "model_mb": folder_mb(f"{model}.bin"),
            "maxrss": max(t.maxrss_mib, r.maxrss_mib), "p1": api[2], "p3": api[3],
            "p5": api[4], "flags": flags, "treexc": treexc}


# treexc's prediction inside a process: argv model, test file, warm-up file
IN_PROCESS = """\
import sys, time, treexc
treexc.load_model(sys.argv[1]).test(sys.argv[3], 5)
start, cpu = time.perf_counter(), time.process_time()
model = treexc.load_model(sys.argv[1])
p5 = model.test(sys.argv[2], 5)[1]
print(time.perf_counter() - start, time.process_time() - cpu)
print(model.test(sys.argv[2], 1)[1], model.test(sys.argv[2], 3)[1], p5)
"""


def warm_treexc(treexc, flags, train, threads, work):
    """Train and test a model with ``flags`` on 300 lines, so that the timed
    runs find every kernel compiled (the row's own flags: another flag, such
    as -epoch, would choose another family under -model auto)."""
    work.mkdir(parents=True, exist_ok=True)
    tiny = harness.head(train, work / "tiny.txt", 300)
    harness.run([treexc, "supervised", "-input", str(tiny), "-output",
                 str(work / "warm"), "-thread", str(threads), *flags, "-verbose", "0"])
    harness.run([treexc, "test", str(work / "warm.bin"), str(tiny), "5"])


# -- data sets ----------------------------------------------------------------------

def set_files(opts, name):
    """(train, test) of set ``name``, unpacked or made on first use; with
    --quick, their first lines."""
    base = Path(opts.unpacked)
    if name == "gutenberg_next":
        folder = base / name
        train, test = folder / f"{name}.train.txt", folder / f"{name}.test.txt"
        if not (train.exists() and test.exists()):
            harness.log(f"making {folder} with make_next_word.py", "xmc")
            subprocess.run([sys.executable, str(Path(__file__).parent / "make_next_word.py"),
                            *NEXT_WORD, "--data", str(Path(opts.data) / "gutenberg_lm"),
                            "--out", str(folder), "--quiet"], check=True)
    else:
        train_rel, test_rel = harness.split_files(name)
        train, test = base / train_rel, base / test_rel
        if not train.exists():
            harness.unpack(Path(opts.data), base, train_rel)
    if opts.quick:
        quick = Path(opts.out) / "quick-data"
        quick.mkdir(parents=True, exist_ok=True)
        train = harness.head(train, quick / f"{name}.train.txt", QUICK_LINES[0])
        test = harness.head(test, quick / f"{name}.test.txt", QUICK_LINES[1])
    return train, test


def set_stats(train, test):
    """Lines and distinct labels of the training file, labels per line, test lines."""
    labels, lines, gold = set(), 0, 0
    with open(train, "rb") as f:
        for line in f:
            labs = [w for w in line.split() if w.startswith(LABEL.encode())]
            labels.update(labs)
            lines += 1
            gold += len(labs)
    return {"train_lines": lines, "labels": len(labels), "labels_per_line": gold / max(lines, 1),
            "test_lines": harness.count_lines(test)}


# -- the report -----------------------------------------------------------------------

def version_line():
    from importlib.metadata import version
    describe = subprocess.run(["git", "-C", str(harness.REPO), "describe", "--always", "--dirty"],
                              capture_output=True, text=True).stdout.strip()
    return f"treexc {version('treexc')} ({describe or '?'})"


def peer_versions():
    from importlib.metadata import PackageNotFoundError, version

    def v(package):
        try:
            return f"{package} {version(package)}"
        except PackageNotFoundError:
            return f"{package} not installed"
    return ", ".join(v(p) for p in ("libpecos", "omikuji", "napkinxc", "scikit-learn",
                                    "fasttext-wheel", "numpy"))


def load_results(out):
    """{set: [stats, {row: [result per seed]}, {row: why not measured}]} from
    the JSON files of ``out``."""
    found = {}
    for path in sorted(Path(out).glob("*/*.json")):
        name = path.parent.name
        _, rows, skipped = found.setdefault(name, [None, {}, {}])
        result = json.loads(path.read_text())
        if path.name == "set.json":
            found[name][0] = result
        elif "not_measured" in result:
            skipped[result["row"]] = result["not_measured"]
        else:
            rows.setdefault(result["row"], []).append(result)
    return found


def fmt(value, digits):
    return "-" if value is None else f"{value:.{digits}f}"


def report(opts):
    found = load_results(opts.out)
    versions = sorted({r.get("version", "?") for _, rows, _ in found.values()
                       for runs in rows.values() for r in runs})
    lines = ["# Extreme-classification benchmark", "",
             f"- measured with {', '.join(versions) or 'nothing yet'}; report by "
             f"{version_line()}",
             f"- peers: {peer_versions()}",
             f"- command: `{' '.join(opts.command)}`",
             f"- machine: {platform.machine()}, {os.cpu_count()} CPUs, shared with other "
             f"work (load average now {os.getloadavg()[0]:.2f}); -thread {opts.thread} for "
             "every tool", ""]
    order = {s: i for i, s in enumerate(SETS)}
    for name in sorted(found, key=lambda s: order.get(s, len(SETS))):
        stats, rows, skipped = found[name]
        if not rows and not skipped:
            continue
        title = name
        if stats:
            title += (f": {stats['labels']:,} labels ({stats['labels_per_line']:.2f} a line), "
                      f"{stats['train_lines']:,} train / {stats['test_lines']:,} test lines")
        section = harness.Section(title + (" (--quick slices)" if opts.quick else ""), HEADER)
        row_order = list(opts.all_rows)
        for row in sorted(rows, key=lambda r: row_order.index(r) if r in row_order else 99):
            runs = rows[row]

            def med(key):
                values = [r[key] for r in runs if r.get(key) is not None]
                return statistics.median(values) if values else None
            label = row + (f" ({len(runs)} seeds)" if len(runs) > 1 else "")
            section.rows.append([label, fmt(med("p1"), 3), fmt(med("p3"), 3), fmt(med("p5"), 3),
                                 fmt(med("train_s"), 1), fmt(med("predict_cmd_s"), 2),
                                 fmt(med("predict_api_s"), 2), fmt(med("train_cpu"), 1),
                                 fmt(med("predict_cmd_cpu"), 2),
                                 fmt(med("model_mb"), 1), fmt(med("vocab_mb"), 1),
                                 fmt(med("maxrss"), 0)])
            flags = runs[0].get("flags")
            if row.startswith("treexc"):
                command = " ".join(["treexc supervised -input TRAIN -output MODEL -thread",
                                    str(opts.thread), "-seed SEED", *flags])
                section.notes.append(f"{row}: `{command}`")
            elif flags is not None:
                section.notes.append(f"{row}: train_supervised("
                                     + ", ".join(f"{k}={v!r}" for k, v in flags.items()) + ")")
        section.notes += [f"{r}: not measured: {why}" for r, why in skipped.items()
                          if r not in rows]
        lines.append(section.markdown())
    text = "\n".join(lines)
    path = Path(opts.results)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    tmp.replace(path)
    return text


# -- the driver -----------------------------------------------------------------------

def options():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sets", default=",".join(SETS), help=f"comma-separated, among {SETS}")
    p.add_argument("--rows", default="all",
                   help="comma-separated rows (treexc-NAME of --treexc-rows, "
                   f"{', '.join(PEERS)}; 'peers': these; 'treexc': the treexc rows) [all]")
    p.add_argument("--treexc-rows", default=TREEXC_ROWS,
                   help=f"treexc rows as NAME=FLAGS;... [{TREEXC_ROWS}]")
    p.add_argument("--treexc", dest="treexc_command", default=harness.TREEXC,
                   help="the treexc command of the treexc rows, e.g. .venv/bin/treexc: "
                   "treexc in its own virtualenv (numpy 2) while the peers run in this "
                   "one [this virtualenv's]")
    p.add_argument("--seeds", default="0", help="comma-separated seeds; medians reported [0]")
    p.add_argument("--thread", type=int, default=2, help="threads of every tool [2]")
    p.add_argument("--out", default=str(harness.REPO / "bench-results" / "xmc"),
                   help="folder of the per-row JSON results [bench-results/xmc]")
    p.add_argument("--results", default=None, help="markdown report [OUT/xmc.md]")
    p.add_argument("--resume", action="store_true", help="skip rows whose JSON is in --out")
    p.add_argument("--report-only", action="store_true", help="rebuild the report, run nothing")
    p.add_argument("--quick", action="store_true",
                   help=f"the first {QUICK_LINES[0]} train / {QUICK_LINES[1]} test lines: "
                   "checks the script (use another --out)")
    p.add_argument("--row-timeout", type=float, default=None,
                   help="seconds a peer's training (or prediction) may take before it is "
                   "killed and its row reported as not measured [none]")
    p.add_argument("--data", default=str(harness.DATA), help="the gzipped data sets")
    p.add_argument("--unpacked", default=harness.UNPACKED, help="where they are unpacked")
    opts = p.parse_args()
    opts.command = ["python", "benchmarks/bench_xmc.py", *sys.argv[1:]]
    opts.results = opts.results or str(Path(opts.out) / "xmc.md")
    opts.sets = [s for s in opts.sets.split(",") if s]
    opts.seeds = [int(s) for s in opts.seeds.split(",") if s]
    opts.treexc = treexc_rows(opts.treexc_rows)
    opts.all_rows = [*opts.treexc, *PEERS]
    wanted = opts.rows.split(",")
    expand = {"all": opts.all_rows, "peers": list(PEERS), "treexc": list(opts.treexc)}
    opts.rows = list(dict.fromkeys(r for w in wanted for r in expand.get(w, [w])))
    unknown = [s for s in opts.sets if s not in SETS] + [r for r in opts.rows
                                                         if r not in opts.all_rows]
    if unknown:
        p.error(f"unknown set(s) or row(s): {', '.join(unknown)}")
    return opts


def measure(opts, name, row, seed, train, test, warmed):
    """One row's figures (a dict), or raises with the reason it did not run."""
    work = Path(opts.out) / name / f"work-{row}-{seed}"
    if row in opts.treexc:
        flags = opts.treexc[row]
        if row not in warmed:
            warm_treexc(opts.treexc_command, flags, train, opts.thread, Path(opts.out) / "warm")
            warmed.add(row)
        result = run_treexc(opts.treexc_command, flags, train, test, opts.thread, seed, work)
    else:
        env = {**os.environ, "OMP_NUM_THREADS": str(opts.thread)}
        r = harness.run([sys.executable, __file__, "worker", row, name, str(train), str(test),
                         str(opts.thread), str(seed), str(work)], env=env,
                         timeout=opts.row_timeout)
        c = harness.run([sys.executable, __file__, "predict", row, str(test), str(opts.thread),
                         str(work)], env=env, timeout=opts.row_timeout)
        result = {**json.loads((work / "result.json").read_text()),
                  "maxrss": max(r.maxrss_mib, c.maxrss_mib),
                  "predict_cmd_s": c.wall, "predict_cmd_cpu": c.cpu}
    subprocess.run(["rm", "-rf", str(work)], check=True)
    return result


def main():
    opts = options()
    if opts.report_only:
        print(report(opts))
        return 0
    version = version_line()
    for name in opts.sets:
        train, test = set_files(opts, name)
        folder = Path(opts.out) / name
        folder.mkdir(parents=True, exist_ok=True)
        if not (folder / "set.json").exists():
            (folder / "set.json").write_text(json.dumps(set_stats(train, test)))
        warmed = set()
        for row in opts.rows:
            for seed in opts.seeds:
                path = folder / f"{row}-seed{seed}.json"
                skip_path = folder / f"{row}.not-measured.json"
                if opts.resume and path.exists():
                    continue
                harness.log(f"{name}: {row} seed {seed}", "xmc")
                try:
                    result = measure(opts, name, row, seed, train, test, warmed)
                except Exception as e:  # a tool missing, a flag rejected: say why, go on
                    reason = (str(e).strip().splitlines() or ["?"])[-1][:300]
                    harness.log(f"{name}: {row} not measured: {reason}", "xmc")
                    skip_path.write_text(json.dumps({"row": row, "not_measured": reason}))
                    report(opts)
                    break
                path.write_text(json.dumps({"row": row, "seed": seed, "version": version,
                                            **result}))
                skip_path.unlink(missing_ok=True)
                report(opts)
        harness.log(f"{name} done", "xmc")
    print(report(opts))
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "worker":
        worker(sys.argv[2:])
    elif len(sys.argv) > 1 and sys.argv[1] == "predict":
        predict_command(sys.argv[2:])
    else:
        sys.exit(main())
