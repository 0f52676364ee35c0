"""A tree under either learning-rate schedule, over seeds (issue 10).

    python benchmarks/tree_schedule.py TRAIN.txt TEST.txt --loss tree --hold 0 \
        --seeds 0,1,2 -- -arity 170 -dim 50 -lr 0.5 -epoch 5

A learned tree holds ``-lr`` for the first half of training and then lets
it fall to 0 (the paper's schedule); a fixed tree and the flat softmax let
it fall from the start (fastText's).  ``--hold F`` trains any loss with the
rate held for the fraction F of training instead (0: falling from the
start; 0.5: the learned tree's), so that two trees can be compared under
one schedule (docs/benchmarks-trees.md, "The next word with a
learning-rate axis").  ``--save PREFIX`` keeps the models (e.g. for
``answer_bands.py``).  Flags after ``--`` are `treexc supervised`'s
(``-thread`` defaults to 1 here: each run reproducible).  Prints the test
P@1 of each seed (through the Python API's ``test``) and their median.
"""

import argparse
import statistics
import sys
import time

import treexc.classify.session as session
from treexc.classify.options import make_args
from treexc.classify.training import train_supervised
from treexc.loss.registry import learns_tree


def held_sessions(hold):
    """Make every training session hold its rate for the fraction ``hold``."""
    original = session.Session.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.lr_hold = hold
    session.Session.__init__ = init


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
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    a = parser.parse_args(argv[:cut])
    if a.hold is not None:
        held_sessions(a.hold)
    # flags after -- win over --loss and the one-thread default
    flags = {"thread": 1, "loss": a.loss, **flag_dict(argv[cut + 1:])}
    results = []
    for seed in (int(s) for s in a.seeds.split(",")):
        t0 = time.perf_counter()
        model = train_supervised(make_args(**{"input": a.train, "output": "/dev/null",
                                              "verbose": 0, **flags, "seed": seed}))
        if a.save:
            model.save_model(f"{a.save}-s{seed}.bin")
        p1 = model.test(a.test, 1)[1]
        results.append(p1)
        learned = learns_tree(model.args.loss, model.args.tree)
        rebuilds = f", {model.args.treeUpdates} rebuilds" if learned else ""
        print(f"seed {seed}: test P@1 {p1:.4f}, arity {model.args.arity}{rebuilds}, "
              f"train {time.perf_counter() - t0:.1f} s", flush=True)
    print(f"median P@1 {statistics.median(results):.4f} over {len(results)} seeds "
          f"(-loss {flags['loss']}, hold {'the loss default' if a.hold is None else a.hold})")


if __name__ == "__main__":
    main()
