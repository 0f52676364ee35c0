#!/usr/bin/env python3
"""What a user who passes no flags gets: treexc's defaults against
fastText 0.9.2's, P@1 on each shared set's test split (docs/results/classify.md).

    .venv/bin/python benchmarks/bench_no_flags.py                 # cooking, wn_hypernym, debian_tags
    .venv/bin/python benchmarks/bench_no_flags.py --sets cooking

Both tools train on the set's train split with nothing but `-thread 2`
(fastText's `train_supervised(input=..., thread=2)`) and are tested on its
test split; one run each, seed fixed (treexc's -seed default, fastText's own).
Prints one markdown table with the version line it was measured at.
"""

import os
import subprocess
import tempfile
from pathlib import Path

from harness import (DATA, REPO, THREADS, TREEXC, UNPACKED, fasttext_train, parse_p1, parser,
                     run, secs, split_files, table, unpack)

SETS = ("cooking", "wn_hypernym", "debian_tags")


def version():
    from importlib.metadata import version as installed
    described = subprocess.run(["git", "-C", str(REPO), "describe", "--always", "--dirty=.dirty"],
                               capture_output=True, text=True).stdout.strip()
    return f"treexc {installed('treexc')}+{described}"


def main():
    p = parser(__doc__.split("\n")[0], [("--sets", ",".join(SETS), "comma-separated sets"),
                                        ("--unpacked", UNPACKED, "unpacked data folder")])
    opts = p.parse_args()
    rows = []
    print(f"Measured at {version()}, fasttext-wheel 0.9.2, -thread {THREADS}.\n", flush=True)
    with tempfile.TemporaryDirectory(prefix="treexc-noflags-") as tmp:
        for name in opts.sets.split(","):
            train, test = (Path(opts.unpacked) / f for f in split_files(name))
            if not train.exists():
                unpack(DATA, Path(opts.unpacked), str(train.relative_to(opts.unpacked)))
            model = os.path.join(tmp, name)
            r = run([TREEXC, "supervised", "-input", str(train), "-output", model,
                     "-thread", str(THREADS), "-verbose", "0"])
            mine = parse_p1(run([TREEXC, "test", model + ".bin", str(test)]).out)
            ft = fasttext_train(train, test, {"thread": THREADS, "verbose": 0})
            rows.append([name, f"{mine:.3f}", f"{ft['p1']:.3f}", secs(r.cpu),
                         secs(ft["train_s"])])
            print(" | ".join(rows[-1]), flush=True)  # each set as it ends: runs are long
            for ext in (".bin", ".vec"):
                os.remove(model + ext)
    print(f"\nLoad average at the end: {os.getloadavg()[0]:.1f}.\n")
    print("\n".join(table(["set", "treexc P@1", "fastText P@1", "treexc train CPU s",
                           "fastText train wall s"], rows)))


if __name__ == "__main__":
    main()
