"""benchmarks/ablate_rules.py's configurations on a data set cut to its K
most frequent labels, for each K (0: the whole set): the lines of the
training and test files whose labels are all among them
(bench_default_loss.top_labels / restrict).  Each record's configuration
is named ``K labels: NAME`` (K the labels kept).

    ablate_label_counts.py --train T --test T --counts 10,30,100,0 --common "-model embedding" \
        --config "tree=-loss tree" --config "softmax=-loss softmax" --seeds 0,1,2 --out R.jsonl
"""

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_default_loss import restrict, top_labels  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--train", required=True)
    parser.add_argument("--test", required=True)
    parser.add_argument("--counts", required=True, help="comma-separated K (0: every label)")
    parser.add_argument("--common", default="")
    parser.add_argument("--config", action="append", default=[])
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--out", required=True)
    a = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for k in (int(c) for c in a.counts.split(",")):
            train, test = a.train, a.test
            keep = top_labels(a.train, k if k else 10 ** 9)
            if k:
                train = restrict(a.train, os.path.join(folder, f"{k}.train.txt"), keep)
                test = restrict(a.test, os.path.join(folder, f"{k}.test.txt"), keep)
            configs = [f"{len(keep)} labels: {c}" for c in a.config]
            subprocess.run([sys.executable, str(HERE / "ablate_rules.py"), "--train", train,
                            "--test", test, "--common", a.common, "--seeds", a.seeds,
                            "--out", a.out, *(x for c in configs for x in ("--config", c))],
                           check=True)


if __name__ == "__main__":
    main()
