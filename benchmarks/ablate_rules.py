"""Ablations of the automatic rules: one treexc training per configuration
(flags added to a common set), test P@1 and training wall time, optionally
with fastText 0.9.2's softmax at the common flags in the same run.

    ablate_rules.py --train T --test T --common "-loss tree -arity 20 -dim 50 -lr 0.5 -epoch 5" \
        --config "default=" --config "scoring-tree=-scoring tree" [--seeds 0,1,2] \
        [--fasttext softmax] --out results.jsonl

Each result is one JSON line (configuration, seed, flags, p1, train_s and, for
treexc, cpu_s: the training's user + system CPU seconds) appended
to ``--out`` as it finishes, so a long queue can be polled; a configuration and
seed already in ``--out`` is not run again.  P@1 comes from ``treexc test``.
"""

import argparse
import json
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# the treexc next to this interpreter (PYTHONPATH chooses the sources it runs)
TREEXC = [sys.executable, "-c", "from treexc.cli.main import main; main()"]


def children_cpu():
    """CPU seconds (user + system) of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def treexc_run(train, test, flags, seed, threads, folder):
    """``(P@1, training wall s, training CPU s)`` of one training and its test."""
    model = os.path.join(folder, "m")
    start, cpu = time.monotonic(), children_cpu()
    subprocess.run([*TREEXC, "supervised", "-input", train, "-output", model, *flags,
                    "-seed", str(seed), "-thread", str(threads), "-verbose", "0"], check=True)
    train_s, cpu_s = time.monotonic() - start, children_cpu() - cpu
    out = subprocess.run([*TREEXC, "test", model + ".bin", test], check=True,
                         capture_output=True, text=True).stdout
    p1 = float(next(line for line in out.splitlines() if line.startswith("P@1")).split()[-1])
    return p1, train_s, cpu_s


def fasttext_run(train, test, flags, seed, threads):
    options = dict(flags, seed=seed, thread=threads, verbose=0)
    out = subprocess.run([sys.executable, str(HERE / "fasttext_run.py"), "train", train,
                          json.dumps(options), "--test", test], check=True,
                         capture_output=True, text=True).stdout
    result = json.loads(out)
    return result["p1"], result["train_s"]


def fasttext_flags(common):
    """fastText's keyword flags from the common treexc flags (-dim -lr -epoch ...)."""
    words = shlex.split(common)
    flags = {}
    for name, value in zip(words[::2], words[1::2]):
        name = name.lstrip("-")
        if name in ("dim", "epoch", "wordNgrams", "minCount", "bucket"):
            flags[name] = int(value)
        elif name == "lr":
            flags[name] = float(value)
    return flags


def run_queue(out_path, configs, seeds, run):
    """Run every ``NAME=FLAGS`` configuration (a ``(name, flags)`` pair where
    ``configs`` gives pairs) at every seed not yet in ``out_path``:
    ``run(name, extra, seed, folder)`` returns ``(flags, fields)``, written
    with the configuration and seed as one JSON line as soon as it is done."""
    done = set()
    if os.path.exists(out_path):
        with open(out_path) as f:
            done = {(r["config"], r["seed"]) for r in map(json.loads, f)}
    runs = [c if isinstance(c, tuple) else tuple(c.split("=", 1)) for c in configs]
    for seed in (int(s) for s in seeds.split(",")):
        for name, extra in runs:
            if (name, seed) in done:
                continue
            with tempfile.TemporaryDirectory() as folder:
                flags, fields = run(name, extra, seed, folder)
            record = {"config": name, "seed": seed, "flags": flags, **fields}
            with open(out_path, "a") as f:
                f.write(json.dumps(record) + "\n")
            print(json.dumps(record), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--train", required=True)
    parser.add_argument("--test", required=True)
    parser.add_argument("--common", default="")
    parser.add_argument("--config", action="append", default=[],
                        help="NAME=FLAGS (added to --common)")
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--fasttext", default="", help="a fastText loss to run at --common")
    parser.add_argument("--out", required=True)
    a = parser.parse_args()

    def run(name, extra, seed, folder):
        if extra is None:
            flags = dict(fasttext_flags(a.common), loss=a.fasttext)
            p1, train_s = fasttext_run(a.train, a.test, flags, seed, a.threads)
            return flags, {"p1": p1, "train_s": round(train_s, 2)}
        flags = shlex.split(a.common) + shlex.split(extra)
        p1, train_s, cpu_s = treexc_run(a.train, a.test, flags, seed, a.threads, folder)
        return flags, {"p1": p1, "train_s": round(train_s, 2), "cpu_s": round(cpu_s, 2)}

    configs = list(a.config) + ([(f"fasttext-{a.fasttext}", None)] if a.fasttext else [])
    run_queue(a.out, configs, a.seeds, run)


if __name__ == "__main__":
    main()
