"""Both readings of one tree softmax: per configuration and seed, one
training (``-thread 1``, so its weights do not depend on ``-scoring``, which
is read only at prediction) and its test P@1 read with ``-scoring tree`` and
with ``-scoring mean``.

    ablate_readings.py --train T --test T --common "-model embedding" \
        --config "e5=" --config "e20=-epoch 20" [--seeds 0,1,2] --out results.jsonl

Each configuration NAME gives two records per seed, ``NAME tree`` and ``NAME
mean`` (flags: the training's plus ``-scoring tree`` or ``-scoring mean``,
either of which trains the same weights), with the one training's wall and
CPU seconds (``train_s``, ``cpu_s``), appended to ``--out`` as each seed
finishes; a configuration and seed already there is not run again.
"""

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

from ablate_rules import TREEXC, children_cpu

READ = ("import sys, json, treexc\n"
        "m = treexc.load_model(sys.argv[1])\n"
        "out = {}\n"
        "for s in ('tree', 'mean'):\n"
        "    m.scoring = '' if s == 'tree' else s\n"
        "    out[s] = m.test(sys.argv[2])[1]\n"
        "print(json.dumps(out))\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train", required=True)
    parser.add_argument("--test", required=True)
    parser.add_argument("--common", default="")
    parser.add_argument("--config", action="append", required=True, help="NAME=FLAGS")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--out", required=True)
    a = parser.parse_args()
    done = set()
    if os.path.exists(a.out):
        with open(a.out) as f:
            done = {(r["config"], r["seed"]) for r in map(json.loads, f)}
    for config in a.config:
        name, _, extra = config.partition("=")
        flags = shlex.split(a.common) + shlex.split(extra)
        for seed in map(int, a.seeds.split(",")):
            if (f"{name} tree", seed) in done:
                continue
            with tempfile.TemporaryDirectory() as folder:
                model = os.path.join(folder, "m")
                start, cpu = time.monotonic(), children_cpu()
                subprocess.run([*TREEXC, "supervised", "-input", a.train, "-output", model,
                                *flags, "-seed", str(seed), "-thread", "1", "-verbose", "0"],
                               check=True)
                train_s, cpu_s = time.monotonic() - start, children_cpu() - cpu
                p1 = json.loads(subprocess.run(
                    [sys.executable, "-c", READ, model + ".bin", a.test], check=True,
                    capture_output=True, text=True).stdout)
            with open(a.out, "a") as f:
                for reading in ("tree", "mean"):
                    f.write(json.dumps({"config": f"{name} {reading}", "seed": seed,
                                        "flags": flags + ["-scoring", reading],
                                        "p1": round(p1[reading], 4),
                                        "train_s": round(train_s, 2),
                                        "cpu_s": round(cpu_s, 2)}) + "\n")


if __name__ == "__main__":
    main()
