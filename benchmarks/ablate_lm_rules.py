"""Ablations of the language model's rules: one ``treexc lm`` training per
configuration (flags added to a common set), the validation perplexity of
the weights it saves and the training wall and CPU time (the run includes
the validation perplexity's evaluation).

    ablate_lm_rules.py --train T --valid V --common "-epoch 1" \
        --config "default=" --config "nocap=-massSlack 0 -arity 200" [--seeds 0,1,2] \
        --out results.jsonl

Each result is one JSON line (configuration, seed, flags, ppl, train_s, cpu_s)
appended to ``--out`` as it finishes; a configuration and seed already in
``--out`` is not run again (benchmarks/ablate_rules.py's queue, for lm).
"""

import argparse
import os
import shlex
import subprocess
import time

from ablate_rules import TREEXC, children_cpu, run_queue

FINAL = "final valid perplexity"


def lm_run(train, valid, flags, seed, threads, folder):
    start, cpu = time.monotonic(), children_cpu()
    out = subprocess.run([*TREEXC, "lm", "-input", train, "-valid", valid, "-output",
                          os.path.join(folder, "m"), *flags, "-seed", str(seed), "-thread",
                          str(threads), "-verbose", "1"],
                         check=True, capture_output=True, text=True).stdout
    train_s, cpu_s = time.monotonic() - start, children_cpu() - cpu
    ppl = float(next(line for line in out.splitlines() if line.startswith(FINAL)).split()[-1])
    return ppl, train_s, cpu_s


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--train", required=True)
    parser.add_argument("--valid", required=True)
    parser.add_argument("--common", default="")
    parser.add_argument("--config", action="append", default=[],
                        help="NAME=FLAGS (added to --common)")
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", required=True)
    a = parser.parse_args()

    def run(name, extra, seed, folder):
        flags = shlex.split(a.common) + shlex.split(extra)
        ppl, train_s, cpu_s = lm_run(a.train, a.valid, flags, seed, a.threads, folder)
        return flags, {"ppl": ppl, "train_s": round(train_s, 2), "cpu_s": round(cpu_s, 2)}

    run_queue(a.out, a.config, a.seeds, run)


if __name__ == "__main__":
    main()
