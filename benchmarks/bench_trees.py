#!/usr/bin/env python3
"""Learned trees: treexc's tree output layers against fastText 0.9.2.

    python benchmarks/bench_trees.py                         # every case
    python benchmarks/bench_trees.py --only wn_hypernym,siblings
    python benchmarks/bench_trees.py --repeat 3              # median of 3 runs
    python benchmarks/bench_trees.py --quick                 # small slices: checks the script

Cases (docs/results/trees.md says what each measures and its targets):
  gutenberg    learned and Huffman 20-ary trees, binary hs, fastText hs and softmax
  wn_hypernym  the same on wn_hypernym
  table2       the paper's Table 2 layout: d in {50, 200}, M in {5, 20}
  siblings     dump-tree: are a book's sibling leaves books by the same author?
  options      the learned tree's -treeGradient and -maxDepth choices

treexc: wall time of whole `treexc` commands, warm compile cache; fastText:
train_supervised() and model.test() times (fasttext_run.py).  Runs are shared
between cases.  The tables go to stdout and to bench-results/trees.md.
"""

import json
import statistics
import sys
from collections import Counter, defaultdict, namedtuple
from pathlib import Path

import numpy as np

from harness import (THREADS, TREEXC, Bench, DataSet, Section, flags_text, head, p1, run, secs,
                     split_files, table, verdict)

CASES = ("gutenberg", "wn_hypernym", "table2", "siblings", "options")
RANDOM_DRAWS = 200
EXCERPT_NODES, EXCERPT_MIN_LEAVES = 4, 15   # nodes shown with their books
GUTENBERG = DataSet("gutenberg_books", *split_files("gutenberg_books"),
                    flags=dict(dim=50, lr=0.5, epoch=5, thread=THREADS),
                    quick_lines=(3000, 1000), quick_flags=dict(epoch=1))
WN_HYPERNYM = DataSet("wn_hypernym", *split_files("wn_hypernym"),
                      flags=dict(dim=50, lr=0.5, epoch=10, thread=THREADS),
                      quick_lines=(3000, 1000), quick_flags=dict(epoch=2))
LABELS_TSV = "gutenberg_books/gutenberg_books.labels.tsv"


# a treexc output layer: its name and arity in the tables, its flags
Model = namedtuple("Model", "name arity flags")
BINARY = Model("treexc binary hs (Huffman)", "2", ("-loss", "hs"))  # fastText's hs
HUFFMAN = {m: Model(f"treexc M-ary Huffman, M={m}", str(m), ("-loss", "hs", "-arity", str(m)))
           for m in (5, 20)}
LEARNED = {m: Model(f"treexc learned tree, M={m}", str(m), ("-loss", "tree", "-arity", str(m)))
           for m in (5, 20)}


def at_most(what, le, factor, ft, ft_loss):
    """The target "WHAT s: learned(20) <= FACTOR x fastText FT_LOSS"."""
    a, b = le[f"{what}_s"], ft[f"{what}_s"]
    return [f"{what} s: learned(20) <= {factor} x fastText {ft_loss}",
            f"{secs(a)} vs {secs(factor * b)} (ratio {a / b:.2f})", verdict(a <= factor * b)]


class TreesBench(Bench):
    tag = "bench-trees"
    title = "treexc learned trees vs fastText 0.9.2"

    def __init__(self, opts):
        super().__init__(opts)
        self.results_dir = Path(opts.results).parent
        self.results_dir.mkdir(parents=True, exist_ok=True)

    def flags_text(self, ds):
        return flags_text(self.flags(ds))

    def warm_cache(self):
        """Compile (or load from the cache) the kernels of every timed
        command: training of each loss, tree rebuilds, test, dump-tree."""
        tiny = head(self.file(GUTENBERG.train), self.work / "tiny.txt", 400)
        for model in (BINARY, HUFFMAN[5], LEARNED[5]):
            out = self.warm_model(tiny, model.flags)
        run([TREEXC, "dump-tree", out, "-input", str(tiny), "-format", "json"])

    def treexc(self, ds, model, dim=None):
        return super().treexc(ds, model.flags, **({"dim": dim} if dim else {}))

    def fasttext(self, ds, loss, dim=None):
        return super().fasttext(ds, loss, **({"dim": dim} if dim else {}))

    def startup_test_s(self, ds, model):
        """`treexc test` on a 1-line file: start-up and model loading."""
        m = self.treexc(ds, model)["model"]
        one = head(self.split(ds)[1], self.work / f"{ds.name}-one-line.txt", 1)
        return statistics.median(run([TREEXC, "test", m, str(one)]).wall
                                 for _ in range(self.repeat))

    def comparison_rows(self, ds, models, dim=None):
        runs = [(f"fastText {loss}", arity, self.fasttext(ds, loss, dim))
                for loss, arity in (("hs", "2"), ("softmax", "flat"))]
        runs += [(model.name, model.arity, self.treexc(ds, model, dim)) for model in models]
        return [[name, arity, p1(r["p1"]), secs(r["train_s"]), secs(r["test_s"])]
                for name, arity, r in runs]

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
    def compared(self, ds, title, checks):
        """A data set's section: its models against fastText, the targets
        (``checks``: target, measured, verdict), how it was measured."""
        lines = table(["model", "arity", "P@1", "train s", "test s"],
                      self.comparison_rows(ds, [BINARY, HUFFMAN[20], LEARNED[20]]))
        checks = checks(*(self.treexc(ds, m) for m in (BINARY, HUFFMAN[20], LEARNED[20])),
                        self.fasttext(ds, "hs"), self.fasttext(ds, "softmax"))
        checks = [c[:2] + [self.checked(c[2])] for c in checks]
        startup = self.startup_test_s(ds, LEARNED[20])
        lines += ["", "Targets:" if len(checks) > 1 else "Target:", ""]
        lines += table(["target", "measured", "check"], checks) + [""] + self.timing_notes(ds)
        return Section(title, lines=lines + [
            f"- `treexc test` of the learned(20) model on a 1-line file takes "
            f"{secs(startup)} s (start-up and model loading, included in its test time)."])

    def case_gutenberg(self):
        def checks(bi, hu, le, ft_hs, ft_sm):
            return [["P@1: learned(20) > Huffman(20) > binary hs",
                     f"{p1(le['p1'])} > {p1(hu['p1'])} > {p1(bi['p1'])}",
                     verdict(le["p1"] > hu["p1"] > bi["p1"])],
                    ["P@1: learned(20) >= fastText softmax",
                     f"{p1(le['p1'])} vs {p1(ft_sm['p1'])} (reference run: 0.117)",
                     verdict(le["p1"] >= ft_sm["p1"])],
                    at_most("train", le, 0.5, ft_sm, "softmax"),
                    at_most("train", le, 3, ft_hs, "hs"), at_most("test", le, 2, ft_hs, "hs")]
        return self.compared(GUTENBERG, "gutenberg_books: learned tree vs Huffman trees vs "
                             "fastText", checks)

    def case_wn_hypernym(self):
        def checks(bi, hu, le, ft_hs, ft_sm):
            return [["P@1: learned(20) >= fastText softmax",
                     f"{p1(le['p1'])} vs {p1(ft_sm['p1'])} (reference run: 0.281-0.282)",
                     verdict(le["p1"] >= ft_sm["p1"])]]
        return self.compared(WN_HYPERNYM, "wn_hypernym: learned tree vs fastText softmax",
                             checks)

    def case_options(self):
        """The AssignLabels choices the paper leaves open: gradient variant
        and depth limit (auto = the least depth holding all labels)."""
        rows = []
        for ds in (GUTENBERG, WN_HYPERNYM):
            for gradient in ("ll", "plain"):
                for depth, shown in (("-1", "auto"), ("0", "none")):
                    model = LEARNED[20]._replace(flags=LEARNED[20].flags + (
                        "-treeGradient", gradient, "-maxDepth", depth))
                    t = self.treexc(ds, model)
                    rows.append([ds.name, gradient, shown, p1(t["p1"]), secs(t["train_s"])])
        lines = table(["data", "-treeGradient", "-maxDepth", "P@1", "train s"], rows)
        lines += ["", f"- learned tree, M=20; flags as in the sections above "
                      f"(`{self.flags_text(GUTENBERG)}`, wn_hypernym `-epoch 10`); "
                      f"median of {self.repeat} run(s)."]
        return Section("Learned-tree options: gradient variant and depth limit", lines=lines)

    def case_table2(self):
        ds = GUTENBERG
        dims = (50, 200) if not self.quick else (50, 100)
        models = [BINARY, HUFFMAN[5], HUFFMAN[20], LEARNED[5], LEARNED[20]]
        lines = table(["d", "model", "arity", "P@1", "train s", "test s"],
                      [[str(dim)] + row for dim in dims
                       for row in self.comparison_rows(ds, models, dim)])
        flags = {k: v for k, v in self.flags(ds).items() if k != "dim"}
        lines += ["", f"- flags: `{flags_text(flags)}`, `-dim` as in the table, "
                  "for both tools; P@1 on the test split."] + self.timing_notes(ds)[1:]
        if self.quick:
            lines.append("- --quick: d in {50, 100} instead of {50, 200}.")
        return Section("gutenberg_books: the paper's Table 2 layout", lines=lines)

    def case_siblings(self):
        ds = GUTENBERG
        authors, titles = read_labels_tsv(self.file(LABELS_TSV))
        rng = np.random.default_rng(12345)
        rows, excerpts = [], []
        for model in (LEARNED[20], HUFFMAN[20]):
            trained = self.treexc(ds, model)
            path = trained["model"]
            report = json.loads(run([TREEXC, "dump-tree", path, "-format", "json",
                                     "-top", "0"]).out)
            groups = leaf_groups(report)
            s = sibling_authors(groups, authors, rng, RANDOM_DRAWS)
            rows.append([model.name, p1(trained["p1"]), report["internal_nodes"],
                         report["depth_max"],
                         f"{s['with_siblings']} / {s['leaves']}",
                         f"{s['fraction']:.3f}", f"{s['random']:.3f} "
                         f"({s['random_lo']:.3f}-{s['random_hi']:.3f})",
                         f"{s['mean_share']:.3f}", f"{s['random_share']:.3f}"])
            # the text dump, with node measures on the test split, kept in full
            text = run([TREEXC, "dump-tree", path, "-input", str(self.split(ds)[1]),
                        "-top", "3"]).out.decode()
            dump_file = self.results_dir / f"trees-dump-{model.flags[1]}{model.arity}.txt"
            excerpts.append((model, dump_file, text, groups, report))
        leaves = [x for group in excerpts[0][3].values() for x in group]
        lines = table(["tree", "P@1", "internal nodes", "depth max",
                       "leaves with >= 1 sibling leaf", "same-author sibling: fraction",
                       "random placement (5-95%)", "mean same-author share", "random"], rows)
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
        for model, dump_file, text, groups, report in excerpts:
            self.outputs[dump_file] = text   # written after the report
            lines += [f"### {model.name}: `treexc dump-tree model.bin -input test.txt -top 3`",
                      "", f"First lines (all of it in bench-results/{dump_file.name}):", "",
                      "```"] + text.splitlines()[:8] + ["...", "```", "",
                      f"The first {EXCERPT_NODES} internal nodes (breadth-first) with at "
                      f"least {EXCERPT_MIN_LEAVES} leaves, their books by author:", ""]
            lines += leaf_node_excerpt(report, authors, titles) + [""]
        return Section("gutenberg_books: do books by one author share a subtree?", lines=lines)


# -- sibling authors -----------------------------------------------------------

def read_labels_tsv(path):
    """({label: author}, {label: title}) from labels.tsv (label, ebook,
    author_folder, title, examples).  Rows end at newlines only: some titles
    hold a carriage return (made a space here), which a csv reader would take
    for a row end."""
    with open(path, "rb") as f:
        lines = f.read().decode("utf-8").split("\n")
    header = lines[0].rstrip("\r").split("\t")
    rows = [dict(zip(header, line.replace("\r", " ").split("\t"))) for line in lines[1:]
            if line.strip()]
    return ({r["label"]: r["author_folder"] for r in rows},
            {r["label"]: r["title"].strip() for r in rows})


def leaf_groups(report):
    """{internal node id: [labels directly under it]} from dump-tree's JSON."""
    return {n["id"]: [c["label"] for c in n["children"] if c and "label" in c]
            for n in report["nodes"]}


def sibling_figures(groups):
    """Over the leaves with >= 1 sibling (``groups``: the authors of the labels
    under each node, None where unknown, which matches nobody): how many, how
    many have a same-author sibling, the mean share of same-author siblings."""
    n, hits, share = 0, 0, 0.0
    for names in groups:
        counts = Counter(a for a in names if a is not None)
        for a in names if len(names) > 1 else ():
            same = counts[a] - 1 if a is not None else 0
            n, hits, share = n + 1, hits + (same > 0), share + same / (len(names) - 1)
    return n, hits, share / n if n else float("nan")


def sibling_authors(groups, authors, rng, draws):
    """The sibling figures of a tree, and their means (fraction: with 5th and
    95th percentiles) over ``draws`` shuffles of the labels over its leaf slots."""
    names = [authors.get(x) for leaves in groups.values() for x in leaves]

    def figures(order):   # the authors in this order, cut into the tree's nodes
        it = (names[i] for i in order)
        return sibling_figures([[next(it) for _ in leaves] for leaves in groups.values()])
    n, hits, share = figures(range(len(names)))
    shuffled = [figures(rng.permutation(len(names))) for _ in range(draws)]
    fractions = [h / m if m else float("nan") for m, h, _ in shuffled]
    return {"leaves": len(names), "with_siblings": n,
            "fraction": hits / n if n else float("nan"), "mean_share": share,
            "random": float(np.mean(fractions)),
            "random_share": float(np.mean([x for _, _, x in shuffled])),
            "random_lo": float(np.percentile(fractions, 5)),
            "random_hi": float(np.percentile(fractions, 95))}


def leaf_node_excerpt(report, authors, titles):
    """The first EXCERPT_NODES nodes with EXCERPT_MIN_LEAVES leaves or more
    (not chosen by their authors), their leaves grouped by author."""
    lines = []
    for node, leaves in zip(report["nodes"], leaf_groups(report).values()):
        if len(leaves) < EXCERPT_MIN_LEAVES:
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
        if len(lines) == EXCERPT_NODES:
            break
    return lines or ["- (no node with that many leaves)"]


def short(title, n=40):
    title = title.replace("|", "/")
    return title if len(title) <= n else title[:n - 3].rstrip() + "..."


if __name__ == "__main__":
    sys.exit(TreesBench.main(__doc__, CASES, "trees.md", "; the dump-tree outputs go next to it"))
