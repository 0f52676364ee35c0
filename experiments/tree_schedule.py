"""A tree under either learning-rate schedule, over seeds.

    python experiments/tree_schedule.py TRAIN.txt TEST.txt --loss tree --hold 0 \
        --seeds 0,1,2 -- -arity 170 -dim 50 -lr 0.5 -epoch 5

A learned tree holds ``-lr`` for the first half of training and then lets
it fall to 0 (the paper's schedule); a fixed tree and the flat softmax let
it fall from the start (fastText's).  ``--hold F`` trains any loss with the
rate held for the fraction F of training instead (0: falling from the
start; 0.5: the learned tree's), so that two trees can be compared under
one schedule (docs/results/trees.md).  ``--save PREFIX`` keeps the models (e.g. for
``answer_bands.py``).  Flags after ``--`` are `treexc supervised`'s
(``-thread`` defaults to 1 here: each run reproducible).  Prints the test
P@k of each seed (``--k 1,3,5``; P@1 by default) and their medians.
``--hits FILE.npz`` also keeps every test line's correct predictions
among the top k, one row per seed, for ``paired_lines.py``.
"""

import argparse
import statistics
import sys
import time

import numpy as np

import treexc.classify.session as session
from treexc.classify.options import make_args
from treexc.meter import Meter
from treexc.classify.training import train_supervised
from treexc.io.textio import read_text
from treexc.loss.registry import learns_tree


def held_sessions(hold):
    """Make every training session hold its rate for the fraction ``hold``."""
    original = session.Session.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.lr_hold = hold
    session.Session.__init__ = init


def line_hits(model, corpus, k):
    """``(correct, made)`` per example line of ``corpus`` (a label and a
    word): how many of the top ``k`` predictions are labels of the line, as
    the meter of ``Model.test`` matches them, and how many were made.  Their
    sums over lines give fastText's P@k."""
    labels, _, counts = model.predict_corpus(corpus, k)
    meter = Meter.from_predictions(corpus, labels, counts, model.nlabels)
    made = counts[(np.diff(corpus.label_off) > 0) & (np.diff(corpus.feat_off) > 0)]
    # the meter's predictions, flattened line by line: made[i] of them for line i
    line = np.repeat(np.arange(len(made)), made)
    correct = np.bincount(line, weights=meter.pred_correct, minlength=len(made))
    return correct, made.astype(np.float64)


def flag_dict(tokens):
    """``['-arity', '170', ...]`` -> ``{'arity': 170, ...}`` (numbers as numbers)."""
    flags = {}
    for name, value in zip(tokens[::2], tokens[1::2]):
        for kind in (int, float, str):
            try:
                flags[name.lstrip("-")] = kind(value)
                break
            except ValueError:
                continue
    return flags


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("train")
    parser.add_argument("test")
    parser.add_argument("--loss", default="tree")
    parser.add_argument("--hold", type=float, default=None,
                        help="fraction of training with the rate held (default: the loss's own)")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--save", metavar="PREFIX",
                        help="save each seed's model as PREFIX-sSEED.bin")
    parser.add_argument("--k", default="1", help="P@k for these k (comma-separated)")
    parser.add_argument("--hits", metavar="FILE.npz",
                        help="save each line's correct and made predictions per seed and k")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    a = parser.parse_args(argv[:cut])
    if a.hold is not None:
        held_sessions(a.hold)
    ks = [int(k) for k in a.k.split(",")]
    # flags after -- win over --loss and the one-thread default
    flags = {"thread": 1, "loss": a.loss, **flag_dict(argv[cut + 1:])}
    results = {k: [] for k in ks}
    hits = {}
    for seed in (int(s) for s in a.seeds.split(",")):
        t0 = time.perf_counter()
        model = train_supervised(make_args(**{"input": a.train, "output": "/dev/null",
                                              "verbose": 0, **flags, "seed": seed}))
        train_s = time.perf_counter() - t0
        if a.save:
            model.save_model(f"{a.save}-s{seed}.bin")
        corpus = model.encode_text(read_text(a.test))
        for k in ks:
            correct, made = line_hits(model, corpus, k)
            results[k].append(correct.sum() / made.sum())
            hits.setdefault(f"correct{k}", []).append(correct)
            hits.setdefault(f"made{k}", []).append(made)
        learned = learns_tree(model.args.loss, model.args.tree)
        rebuilds = f", {model.args.treeUpdates} rebuilds" if learned else ""
        shown = ", ".join(f"P@{k} {results[k][-1]:.4f}" for k in ks)
        print(f"seed {seed}: test {shown}, arity {model.args.arity}{rebuilds}, "
              f"train {train_s:.1f} s", flush=True)
    medians = ", ".join(f"P@{k} {statistics.median(results[k]):.4f}" for k in ks)
    print(f"median {medians} over {len(results[ks[0]])} seeds "
          f"(-loss {flags['loss']}, hold {'the loss default' if a.hold is None else a.hold})")
    if a.hits:
        np.savez(a.hits, **{name: np.array(rows) for name, rows in hits.items()})


if __name__ == "__main__":
    main()
