"""Hash flooding: training time on 65,536 distinct words that share one
FNV-1a hash against random words of the same length (96 letters), treexc
and fastText 0.9.2, each run with a time limit.

    .venv/bin/python benchmarks/bench_hash_flood.py              # 300 s limit
    .venv/bin/python benchmarks/bench_hash_flood.py --limit 60 --no-fasttext

The words come from ``tests/text/fnv_flood.py`` (a Joux multicollision of
FNV-1a, made in about a second): 8 words to a line, 10 labels, 6.4 MB.
Each command trains ``-epoch 1 -dim 10 -thread 1``; the table gives the
wall time of the whole process (reading, counting, encoding, training).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "text"))
import fnv_flood  # noqa: E402

TREEXC = str(Path(sys.executable).parent / "treexc")
FASTTEXT = ("import sys, fasttext; fasttext.train_supervised(sys.argv[1], epoch=1, dim=10, "
            "thread=1, verbose=0)")


def timed(cmd, limit):
    """Wall seconds of ``cmd``, or None past ``limit`` (then killed)."""
    start = time.monotonic()
    try:
        subprocess.run(cmd, check=True, timeout=limit, stdout=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None
    return time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=float, default=300, help="seconds a run may take")
    ap.add_argument("--no-fasttext", action="store_true")
    ap.add_argument("--repeat", type=int, default=2, help="runs of each (the least counts)")
    a = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="treexc-flood-"))
    t0 = time.monotonic()
    words = fnv_flood.flood_words()
    made = time.monotonic() - t0
    files = {"flood": fnv_flood.training_text(words),
             "random": fnv_flood.training_text(fnv_flood.random_words(len(words), 96))}
    for name, text in files.items():
        (folder / f"{name}.txt").write_bytes(text)
    print(f"{len(words)} words of one FNV-1a hash made in {made:.1f} s; "
          f"{len(files['flood']) / 1e6:.1f} MB of text")
    tools = {"treexc": lambda path: [TREEXC, "supervised", "-input", path, "-output",
                                     str(folder / "m"), "-epoch", "1", "-dim", "10",
                                     "-thread", "1", "-verbose", "0"]}
    if not a.no_fasttext:
        tools["fastText 0.9.2"] = lambda path: [sys.executable, "-c", FASTTEXT, path]
    print("| tool | random words (s) | flood (s) | flood / random |")
    print("|---|---|---|---|")
    for tool, cmd in tools.items():
        best = {}
        for name in files:
            runs = [timed(cmd(str(folder / f"{name}.txt")), a.limit)
                    for _ in range(a.repeat if name == "random" else 1)]
            best[name] = None if None in runs else min(runs)
        shown = {k: f"{v:.1f}" if v is not None else f"> {a.limit:.0f} (killed)"
                 for k, v in best.items()}
        ratio = (f"{best['flood'] / best['random']:.2f}"
                 if None not in best.values() else "-")
        print(f"| {tool} | {shown['random']} | {shown['flood']} | {ratio} |", flush=True)
    for p in folder.iterdir():
        p.unlink()
    os.rmdir(folder)


if __name__ == "__main__":
    main()
