#!/usr/bin/env python3
"""Learned trees: treexc's tree output layers against fastText 0.9.2.

    python benchmarks/bench_trees.py                         # every case
    python benchmarks/bench_trees.py --only wn_hypernym,siblings
    python benchmarks/bench_trees.py --repeat 3              # median of 3 runs
    python benchmarks/bench_trees.py --quick                 # small slices: checks the script

Cases (docs/benchmarks-trees.md gives the targets):
  gutenberg    gutenberg_books, -dim 50 -lr 0.5 -epoch 5: P@1, train and test
               time of the learned 20-ary tree, the 20-ary Huffman tree and
               the binary Huffman tree (hs), against fastText hs and softmax
  wn_hypernym  wn_hypernym, -dim 50 -lr 0.5 -epoch 10: the same models; the
               learned tree's P@1 against fastText softmax's
  table2       the paper's Table 2 layout on gutenberg_books: d in {50, 200},
               binary hs, M-ary Huffman and learned trees at M in {5, 20},
               next to fastText hs and softmax
  siblings     dump-tree of the gutenberg_books models (d = 50, M = 20): how
               often a book's sibling leaves are books by the same author,
               learned tree vs M-ary Huffman tree vs random placement

treexc runs as `treexc` subprocesses (wall time of the whole command, with a
warm Numba compile cache); fastText runs in a subprocess too
(benchmarks/fasttext_run.py: train_supervised() time, model.test() time).
Runs are shared between cases (table2 at d = 50 reuses the gutenberg runs).
The tables go to stdout and to bench-results/trees.md.
"""

import json
import shutil
import statistics
import sys
import tempfile
import time
import traceback
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
# subprocess timing and small helpers shared with the classifier benchmark
from bench_classify import (DataFiles, environment, flag_list, head,  # noqa: E402
                            median_of, parse_options, parse_p1, run, write_report)

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
TREEXC = str(Path(sys.executable).parent / "treexc")
FASTTEXT_RUN = str(Path(__file__).resolve().parent / "fasttext_run.py")
THREADS = 2
CASES = ("gutenberg", "wn_hypernym", "table2", "siblings", "options")
RANDOM_DRAWS = 200
EXCERPT_NODES, EXCERPT_MIN_LEAVES = 4, 15   # nodes shown with their books


@dataclass
class DataSet:
    name: str
    train: str          # paths relative to the unpacked data folder
    eval: str
    flags: dict         # common flags (both tools), without -loss, -arity
    quick_lines: tuple  # (train, eval) lines kept by --quick
    quick_flags: dict   # flags changed by --quick


GUTENBERG = DataSet(
    "gutenberg_books", "gutenberg_books/gutenberg_books.train.txt",
    "gutenberg_books/gutenberg_books.test.txt",
    flags=dict(dim=50, lr=0.5, epoch=5, thread=THREADS),
    quick_lines=(3000, 1000), quick_flags=dict(epoch=1))
WN_HYPERNYM = DataSet(
    "wn_hypernym", "wn_hypernym/wn_hypernym.train.txt", "wn_hypernym/wn_hypernym.test.txt",
    flags=dict(dim=50, lr=0.5, epoch=10, thread=THREADS),
    quick_lines=(3000, 1000), quick_flags=dict(epoch=2))
LABELS_TSV = "gutenberg_books/gutenberg_books.labels.tsv"


@dataclass(frozen=True)
class Model:
    """One treexc output layer: loss, arity and any further flags."""
    loss: str
    arity: int = 0
    extra: tuple = ()

    @property
    def name(self):
        if self.extra:
            return f"treexc {self.loss} M={self.arity} {' '.join(self.extra)}"
        if self.loss == "hs" and self.arity in (0, 2):
            return "treexc binary hs (Huffman)"
        if self.loss == "hs":
            return f"treexc M-ary Huffman, M={self.arity}"
        if self.loss == "tree":
            return f"treexc learned tree, M={self.arity}"
        return f"treexc {self.loss}"

    @property
    def flags(self):
        if self.loss == "hs" and self.arity in (0, 2):
            return ["-loss", "hs"]          # fastText's hs
        return (["-loss", self.loss] + (["-arity", str(self.arity)] if self.arity else [])
                + list(self.extra))

    @property
    def shown_arity(self):
        return "2" if self.loss == "hs" and self.arity in (0, 2) else str(self.arity)


BINARY = Model("hs")
HUFFMAN = {m: Model("hs", m) for m in (5, 20)}
LEARNED = {m: Model("tree", m) for m in (5, 20)}


# -- results -------------------------------------------------------------------

def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]


@dataclass
class Section:
    title: str
    lines: list

    def markdown(self):
        return "\n".join([f"## {self.title}", ""] + self.lines) + "\n"


def secs(x):
    return f"{x:.2f}"


def p1(x):
    return f"{x:.3f}"


def verdict(ok):
    return "ok" if ok else "NO"


# -- the benchmark ---------------------------------------------------------------

class Bench:
    def __init__(self, opts):
        self.opts = opts
        self.quick = opts.quick
        self.repeat = opts.repeat
        self.work = Path(tempfile.mkdtemp(prefix="treexc-bench-trees-"))
        self.results_dir = Path(opts.results).parent
        self.sections = []
        self.treexc_runs = {}     # (data set, Model, dim) -> median figures
        self.fasttext_runs = {}   # (data set, loss, dim) -> median figures
        self.data = DataFiles(opts, self.work)
        self.warm = False

    def files(self, ds):
        return self.data.split(ds.name, ds)

    def flags(self, ds, dim=None):
        f = {**ds.flags, **(ds.quick_flags if self.quick else {})}
        if dim:
            f["dim"] = dim
        return f

    def flags_text(self, ds, dim=None):
        return " ".join(flag_list(self.flags(ds, dim)))

    def warm_cache(self):
        """Compile (or load from the cache) the kernels of every timed
        command: training of each loss, tree rebuilds, test, dump-tree."""
        if self.warm:
            return
        tiny = head(self.data.file(GUTENBERG.train), self.work / "tiny.txt", 400)
        for model in (BINARY, HUFFMAN[5], LEARNED[5]):
            out = self.work / "warm"
            run([TREEXC, "supervised", "-input", str(tiny), "-output", str(out),
                 *model.flags, "-epoch", "1", "-dim", "10", "-thread", str(THREADS),
                 "-verbose", "0"])
            run([TREEXC, "test", f"{out}.bin", str(tiny)])
        run([TREEXC, "dump-tree", f"{out}.bin", "-input", str(tiny), "-format", "json"])
        self.warm = True

    def treexc(self, ds, model, dim=None):
        """Median figures of --repeat runs of `treexc supervised` + `treexc test`."""
        dim = dim or self.flags(ds)["dim"]
        key = (ds.name, model, dim)
        if key not in self.treexc_runs:
            self.warm_cache()
            train, evalf = self.files(ds)
            out = self.work / (f"treexc-{ds.name}-{model.loss}{model.arity}-d{dim}"
                               + "".join(model.extra).replace("-", "_"))
            log(f"treexc {ds.name} {' '.join(model.flags)} -dim {dim}")
            runs = []
            for _ in range(self.repeat):
                t = run([TREEXC, "supervised", "-input", str(train), "-output", str(out),
                         *model.flags, *flag_list(self.flags(ds, dim)), "-verbose", "0"])
                r = run([TREEXC, "test", f"{out}.bin", str(evalf)])
                runs.append({"train_s": t.wall, "test_s": r.wall, "p1": parse_p1(r.out)})
            self.treexc_runs[key] = {**median_of(runs), "model": f"{out}.bin"}
        return self.treexc_runs[key]

    def fasttext(self, ds, loss, dim=None):
        """Median figures of --repeat runs of fasttext_run.py train --test."""
        dim = dim or self.flags(ds)["dim"]
        key = (ds.name, loss, dim)
        if key not in self.fasttext_runs:
            train, evalf = self.files(ds)
            flags = {**self.flags(ds, dim), "loss": loss, "verbose": 0}
            log(f"fastText {ds.name} -loss {loss} -dim {dim}")
            runs = []
            for _ in range(self.repeat):
                r = run([PYTHON, FASTTEXT_RUN, "train", str(train), json.dumps(flags),
                         "--test", str(evalf)])
                f = json.loads(r.out)
                runs.append({"train_s": f["train_s"], "test_s": f["test_s"], "p1": f["p1"]})
            self.fasttext_runs[key] = median_of(runs)
        return self.fasttext_runs[key]

    def startup_test_s(self, ds, model):
        """`treexc test` on a 1-line file: start-up and model loading."""
        m = self.treexc(ds, model)["model"]
        one = head(self.files(ds)[1], self.work / f"{ds.name}-one-line.txt", 1)
        return statistics.median(run([TREEXC, "test", m, str(one)]).wall
                                 for _ in range(self.repeat))

    # rows of a comparison table
    def comparison_rows(self, ds, models, dim=None):
        rows = []
        for loss, arity in (("hs", "2"), ("softmax", "flat")):
            f = self.fasttext(ds, loss, dim)
            rows.append([f"fastText {loss}", arity, p1(f["p1"]), secs(f["train_s"]),
                         secs(f["test_s"])])
        for model in models:
            t = self.treexc(ds, model, dim)
            rows.append([model.name, model.shown_arity, p1(t["p1"]), secs(t["train_s"]),
                         secs(t["test_s"])])
        return rows

    def timing_notes(self, ds):
        return [f"- flags: `{self.flags_text(ds)}` for both tools; P@1 on the test split "
                f"({'first lines only, --quick' if self.quick else 'whole'}).",
                "- treexc: wall seconds of the whole `treexc supervised ... -verbose 0` "
                "command (start-up, reading, training, writing .bin and .vec) and of the "
                "whole `treexc test model.bin test.txt` command (start-up, loading the "
                "model, testing); warm compile cache.",
                "- fastText 0.9.2 (fasttext-wheel): `train_supervised()` and "
                "`model.test()` timed inside its Python process (no start-up, no model "
                "loading)."]

    # the cases
    def case_gutenberg(self):
        ds = GUTENBERG
        header = ["model", "arity", "P@1", "train s", "test s"]
        models = [BINARY, HUFFMAN[20], LEARNED[20]]
        lines = table(header, self.comparison_rows(ds, models))
        ft_hs, ft_sm = self.fasttext(ds, "hs"), self.fasttext(ds, "softmax")
        bi, hu, le = (self.treexc(ds, m) for m in models)
        checks = [
            ["P@1: learned(20) > Huffman(20) > binary hs",
             f"{p1(le['p1'])} > {p1(hu['p1'])} > {p1(bi['p1'])}",
             verdict(le["p1"] > hu["p1"] > bi["p1"])],
            ["P@1: learned(20) >= fastText softmax",
             f"{p1(le['p1'])} vs {p1(ft_sm['p1'])} (reference run: 0.117)",
             verdict(le["p1"] >= ft_sm["p1"])],
            ["train s: learned(20) <= 0.5 x fastText softmax",
             f"{secs(le['train_s'])} vs {secs(0.5 * ft_sm['train_s'])} "
             f"(ratio {le['train_s'] / ft_sm['train_s']:.2f})",
             verdict(le["train_s"] <= 0.5 * ft_sm["train_s"])],
            ["train s: learned(20) <= 3 x fastText hs",
             f"{secs(le['train_s'])} vs {secs(3 * ft_hs['train_s'])} "
             f"(ratio {le['train_s'] / ft_hs['train_s']:.2f})",
             verdict(le["train_s"] <= 3 * ft_hs["train_s"])],
            ["test s: learned(20) <= 2 x fastText hs",
             f"{secs(le['test_s'])} vs {secs(2 * ft_hs['test_s'])} "
             f"(ratio {le['test_s'] / ft_hs['test_s']:.2f})",
             verdict(le["test_s"] <= 2 * ft_hs["test_s"])],
        ]
        if self.quick:
            checks = [c[:2] + ["not checked with --quick"] for c in checks]
        startup = self.startup_test_s(ds, LEARNED[20])
        lines += ["", "Targets:", ""] + table(["target", "measured", "check"], checks)
        lines += [""] + self.timing_notes(ds) + [
            f"- `treexc test` of the learned(20) model on a 1-line file takes "
            f"{secs(startup)} s (start-up and model loading, included in its test time)."]
        return Section("gutenberg_books: learned tree vs Huffman trees vs fastText", lines)

    def case_wn_hypernym(self):
        ds = WN_HYPERNYM
        header = ["model", "arity", "P@1", "train s", "test s"]
        models = [BINARY, HUFFMAN[20], LEARNED[20]]
        lines = table(header, self.comparison_rows(ds, models))
        ft_sm = self.fasttext(ds, "softmax")
        le = self.treexc(ds, LEARNED[20])
        check = verdict(le["p1"] >= ft_sm["p1"]) if not self.quick \
            else "not checked with --quick"
        lines += ["", "Target:", ""] + table(["target", "measured", "check"], [
            ["P@1: learned(20) >= fastText softmax",
             f"{p1(le['p1'])} vs {p1(ft_sm['p1'])} (reference run: 0.281-0.282)", check]])
        startup = self.startup_test_s(ds, LEARNED[20])
        lines += [""] + self.timing_notes(ds) + [
            f"- `treexc test` of the learned(20) model on a 1-line file takes "
            f"{secs(startup)} s (start-up and model loading, included in its test time)."]
        return Section("wn_hypernym: learned tree vs fastText softmax", lines)

    def case_options(self):
        """The AssignLabels choices the paper leaves open: gradient variant
        and depth limit (auto = the least depth holding all labels)."""
        rows = []
        for ds in (GUTENBERG, WN_HYPERNYM):
            for gradient in ("ll", "plain"):
                for depth, shown in (("-1", "auto"), ("0", "none")):
                    model = Model("tree", 20, ("-treeGradient", gradient, "-maxDepth", depth))
                    t = self.treexc(ds, model)
                    rows.append([ds.name, gradient, shown, p1(t["p1"]), secs(t["train_s"])])
        lines = table(["data", "-treeGradient", "-maxDepth", "P@1", "train s"], rows)
        lines += ["", f"- learned tree, M=20; flags as in the sections above "
                      f"(`{self.flags_text(GUTENBERG)}`, wn_hypernym `-epoch 10`); "
                      f"median of {self.repeat} run(s)."]
        return Section("Learned-tree options: gradient variant and depth limit", lines)

    def case_table2(self):
        ds = GUTENBERG
        dims = (50, 200) if not self.quick else (50, 100)
        models = [BINARY, HUFFMAN[5], HUFFMAN[20], LEARNED[5], LEARNED[20]]
        rows = []
        for dim in dims:
            for row in self.comparison_rows(ds, models, dim):
                rows.append([str(dim)] + row)
        lines = table(["d", "model", "arity", "P@1", "train s", "test s"], rows)
        flags = {k: v for k, v in self.flags(ds).items() if k != "dim"}
        lines += ["", f"- flags: `{' '.join(flag_list(flags))}`, `-dim` as in the table, "
                  "for both tools; P@1 on the test split."] + self.timing_notes(ds)[1:]
        if self.quick:
            lines.append("- --quick: d in {50, 100} instead of {50, 200}.")
        return Section("gutenberg_books: the paper's Table 2 layout", lines)

    def case_siblings(self):
        ds = GUTENBERG
        authors = read_authors(self.data.file(LABELS_TSV))
        rng = np.random.default_rng(12345)
        rows, excerpts, dumps = [], [], {}
        for model in (LEARNED[20], HUFFMAN[20]):
            trained = self.treexc(ds, model)
            path = trained["model"]
            report = json.loads(run([TREEXC, "dump-tree", path, "-format", "json",
                                     "-top", "0"]).out)
            groups = leaf_groups(report)
            s = sibling_authors(groups, authors)
            r = random_sibling_authors(groups, authors, rng, RANDOM_DRAWS)
            rows.append([model.name, p1(trained["p1"]), report["internal_nodes"],
                         report["depth_max"],
                         f"{s['with_siblings']} / {s['leaves']}",
                         f"{s['fraction']:.3f}", f"{r['fraction']:.3f} "
                         f"({r['fraction_lo']:.3f}-{r['fraction_hi']:.3f})",
                         f"{s['mean_share']:.3f}", f"{r['mean_share']:.3f}"])
            # the text dump, with node measures on the test split, kept in full
            text = run([TREEXC, "dump-tree", path, "-input", str(self.files(ds)[1]),
                        "-top", "3"]).out.decode()
            dump_file = self.results_dir / f"trees-dump-{model.loss}{model.arity}.txt"
            dumps[model] = (dump_file, text)
            excerpts.append((model, text, groups, report))
        leaves = [x for group in excerpts[0][2].values() for x in group]
        lines = table(["tree", "P@1", "internal nodes", "depth max", "leaves with >= 1 sibling leaf",
                       "same-author sibling: fraction", "random placement (5-95%)",
                       "mean same-author share", "random"], rows)
        lines += ["",
                  "- siblings of a leaf: the other labels directly under the same internal "
                  "node (subtrees are not siblings); 'fraction': leaves with at least one "
                  "same-author sibling, over the leaves with at least one sibling; 'mean "
                  "share': same-author siblings / siblings, averaged over those leaves.",
                  f"- random placement: the same tree shape with the labels shuffled over its "
                  f"leaf slots, mean (and 5th-95th percentiles) of {RANDOM_DRAWS} shuffles.",
                  f"- authors: `author_folder` of {LABELS_TSV.split('/')[-1]} "
                  f"({len({authors.get(x) for x in leaves})} authors of the {len(leaves)} "
                  f"books that are labels of the models); models: "
                  f"`{self.flags_text(ds)}`, d = {self.flags(ds)['dim']}, M = 20.", ""]
        titles = read_titles(self.data.file(LABELS_TSV))
        for model, text, groups, report in excerpts:
            dump_file, _ = dumps[model]
            lines += [f"### {model.name}: `treexc dump-tree model.bin -input test.txt -top 3`",
                      "", f"First lines (all of it in bench-results/{dump_file.name}):", "",
                      "```"] + text.splitlines()[:8] + ["...", "```", "",
                      f"The first {EXCERPT_NODES} internal nodes (breadth-first) with at "
                      f"least {EXCERPT_MIN_LEAVES} leaves, their books by author:", ""]
            lines += leaf_node_excerpt(report, authors, titles, EXCERPT_NODES,
                                       EXCERPT_MIN_LEAVES)
            lines.append("")
        self.dumps = dumps
        return Section("gutenberg_books: do books by one author share a subtree?", lines)

    # driver
    def run_cases(self, names):
        failed = False
        for name in names:
            log(f"{name} ...")
            start = time.perf_counter()
            try:
                section = getattr(self, f"case_{name}")()
            except Exception:
                failed = True
                section = Section(f"{name}: FAILED", ["```", traceback.format_exc(), "```"])
            log(f"{name} done in {time.perf_counter() - start:.0f} s")
            self.sections.append(section)
        return failed

    def cleanup(self):
        shutil.rmtree(self.work, ignore_errors=True)


# -- sibling authors ---------------------------------------------------------------

def read_labels_tsv(path):
    """{label: row} from labels.tsv (label, ebook, author_folder, title,
    examples).  Rows end at newlines only: some titles hold a carriage
    return (made a space here), which a csv reader would take for a row end."""
    with open(path, "rb") as f:
        lines = f.read().decode("utf-8").split("\n")
    header = lines[0].rstrip("\r").split("\t")
    rows = {}
    for line in lines[1:]:
        if line.strip():
            row = dict(zip(header, line.replace("\r", " ").split("\t")))
            rows[row["label"]] = row
    return rows


def read_authors(path):
    """label -> author (the author_folder column of labels.tsv)."""
    return {label: row["author_folder"] for label, row in read_labels_tsv(path).items()}


def read_titles(path):
    return {label: row["title"].strip() for label, row in read_labels_tsv(path).items()}


def leaf_groups(report):
    """{internal node id: [labels directly under it]} from dump-tree's JSON."""
    return {n["id"]: [c["label"] for c in n["children"] if c and "label" in c]
            for n in report["nodes"]}


def _sibling_figures(group_ids, author_ids):
    """Leaves with >= 1 sibling: count, how many have a same-author sibling, and
    the mean share of same-author siblings.  A label without a known author
    (author id -1) matches nobody."""
    key = group_ids.astype(np.int64) * (author_ids.max() + 2) + (author_ids + 1)
    _, inv, same_counts = np.unique(key, return_inverse=True, return_counts=True)
    same = same_counts[inv] - 1
    same[author_ids < 0] = 0
    _, ginv, gsize = np.unique(group_ids, return_inverse=True, return_counts=True)
    sibs = gsize[ginv] - 1
    has = sibs > 0
    n = int(has.sum())
    return (n, int((same[has] > 0).sum()),
            float((same[has] / sibs[has]).mean()) if n else float("nan"))


def _arrays(groups, authors):
    labels, group_ids = [], []
    for node, leaves in groups.items():
        labels += leaves
        group_ids += [node] * len(leaves)
    names = sorted({authors[x] for x in labels if x in authors})
    index = {a: i for i, a in enumerate(names)}
    author_ids = np.array([index.get(authors.get(x), -1) for x in labels], dtype=np.int64)
    return np.array(group_ids, dtype=np.int64), author_ids


def sibling_authors(groups, authors):
    group_ids, author_ids = _arrays(groups, authors)
    n, hits, share = _sibling_figures(group_ids, author_ids)
    return {"leaves": len(group_ids), "with_siblings": n,
            "fraction": hits / n if n else float("nan"), "mean_share": share}


def random_sibling_authors(groups, authors, rng, draws):
    """The same figures with the labels shuffled over the tree's leaf slots."""
    group_ids, author_ids = _arrays(groups, authors)
    fractions, shares = [], []
    for _ in range(draws):
        n, hits, share = _sibling_figures(group_ids, rng.permutation(author_ids))
        fractions.append(hits / n if n else float("nan"))
        shares.append(share)
    return {"fraction": float(np.mean(fractions)), "mean_share": float(np.mean(shares)),
            "fraction_lo": float(np.percentile(fractions, 5)),
            "fraction_hi": float(np.percentile(fractions, 95))}


def leaf_node_excerpt(report, authors, titles, n_nodes, min_leaves):
    """The first ``n_nodes`` nodes with ``min_leaves`` leaves or more (not
    chosen by their authors), their leaves grouped by author."""
    lines = []
    for node in report["nodes"]:
        leaves = [c["label"] for c in node["children"] if c and "label" in c]
        if len(leaves) < min_leaves:
            continue
        by_author = defaultdict(list)
        for x in leaves:
            by_author[authors.get(x, "?")].append(x)
        parts = []
        for author, books in sorted(by_author.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            shown = "; ".join(short(titles.get(b, b)) for b in books[:3])
            more = f"; +{len(books) - 3}" if len(books) > 3 else ""
            parts.append(f"**{author}** x{len(books)} ({shown}{more})")
        lines.append(f"- node {node['id']} (depth {node['depth']}), {len(leaves)} leaves: "
                     + ", ".join(parts))
        if len(lines) == n_nodes:
            break
    return lines or ["- (no node with that many leaves)"]


def short(title, n=40):
    title = title.replace("|", "/")
    return title if len(title) <= n else title[:n - 3].rstrip() + "..."


# -- driver ----------------------------------------------------------------------

def log(message):
    print(f"[bench-trees] {message}", file=sys.stderr, flush=True)


def main():
    opts = parse_options(__doc__, CASES, "trees.md", "; the dump-tree outputs go next to it")

    bench = Bench(opts)
    bench.results_dir.mkdir(parents=True, exist_ok=True)
    env_lines = environment(opts)
    try:
        failed = bench.run_cases(opts.only)
    finally:
        if opts.keep:
            log(f"models kept in {bench.work}")
        else:
            bench.cleanup()
    results = write_report("treexc learned trees vs fastText 0.9.2", opts, env_lines,
                           bench.sections)
    for dump_file, dump_text in getattr(bench, "dumps", {}).values():
        dump_file.write_text(dump_text)
    log(f"written to {results}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
