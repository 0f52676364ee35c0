"""Out-of-core training: peak memory and words/sec/thread
of `treexc supervised` reading its corpus from the token cache, on
gutenberg_books' training file repeated 1, 4 and 16 times, against fastText
0.9.2 on the 1x file and, optionally, against another checkout of treexc
(``--main DIR``, run with PYTHONPATH) on 1x and 4x.  treexc runs in both orders: the default (each epoch shuffled,
read a window of random blocks at a time) and ``-order file``.

    .venv/bin/python benchmarks/bench_outofcore.py
    git worktree add --detach /tmp/wt_prev HEAD~1   # to compare with an earlier commit
    .venv/bin/python benchmarks/bench_outofcore.py --main /tmp/wt_prev --main-label 'before'

Flags: -epoch 1 -dim 50 -loss hs -lr 0.1 -thread 2 (fastText: the same keywords;
both drop the n-gram buckets, which -wordNgrams 1 leaves unused).  Round r
runs, one after the other: this tree 1x (both orders), main 1x, fastText
1x; in round 1 also this tree on the 16x file (once: main would hold the
1.6 GB text and its encoding in memory); in the first --repeat4 rounds
this tree 4x and main 4x.  The table gives medians over the rounds.  Peak memory is the
child process's ru_maxrss; words/sec/thread is each tool's own final
progress figure (tokens trained / training seconds / threads); wall is the
whole command (reading, encoding, training, writing .bin and .vec).
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess

import harness

FLAGS = {"epoch": 1, "dim": 50, "loss": "hs", "lr": 0.1, "thread": 2}  # lr: the two tools alike
WORK = "/tmp/treexc-outofcore"
SOURCE = f"{harness.UNPACKED}/gutenberg_books/gutenberg_books.train.txt"
WPS = re.compile(rb"words/sec/thread:\s*([0-9.]+)")


def repeated(times):
    """The training file repeated ``times`` times, made once under WORK."""
    path = f"{WORK}/gutenberg_x{times}.txt"
    if not os.path.exists(path):
        need = os.path.getsize(SOURCE) * times * 3  # the text, its cache, the model
        free = shutil.disk_usage(WORK).free
        if free < need:
            raise SystemExit(f"{WORK}: {free >> 20} MiB free, {need >> 20} MiB needed")
        with open(path + ".tmp", "wb") as out:
            for _ in range(times):
                with open(SOURCE, "rb") as src:
                    shutil.copyfileobj(src, out, 1 << 22)
        os.replace(path + ".tmp", path)
    return path


def last_wps(*outputs):
    found = [m for out in outputs for m in WPS.findall(out)]
    return float(found[-1]) if found else float("nan")


def treexc(code, train, extra=()):
    """`treexc supervised` with the package of folder ``code`` first."""
    env = dict(os.environ, PYTHONPATH=code)
    r = harness.run([harness.TREEXC, "supervised", "-input", train, "-output",
                     f"{WORK}/model", "-verbose", "1"] + harness.flag_list(FLAGS)
                    + list(extra), env=env)
    return {"maxrss": r.maxrss_mib, "wps": last_wps(r.out, r.err), "wall": r.wall}


def fasttext(train):
    r = harness.run([harness.PYTHON, harness.FASTTEXT_RUN, "train", train,
                     json.dumps({**FLAGS, "verbose": 2})])
    return {"maxrss": r.maxrss_mib, "wps": last_wps(r.out, r.err), "wall": r.wall}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--main", default="",
                        help="another checkout of treexc to time beside this one "
                        "(e.g. a worktree of an earlier commit); '' (the default) leaves it out")
    parser.add_argument("--main-label", default="main (in memory)",
                        help="the --main rows' name in the table, e.g. 'before'")
    parser.add_argument("--repeat", type=int, default=3, help="rounds")
    parser.add_argument("--repeat4", type=int, default=2, help="rounds with the 4x file")
    parser.add_argument("--no16", action="store_true", help="leave out the 16x file")
    a = parser.parse_args()
    os.makedirs(WORK, exist_ok=True)
    files = {n: repeated(n) for n in ((1, 4) if a.no16 else (1, 4, 16))}
    here = str(harness.REPO)
    # the default order (a shuffled epoch, read a window at a time) and the file's
    ours = [("treexc (token cache, shuffled)", ()),
            ("treexc (token cache, -order file)", ("-order", "file"))]
    old = [(a.main_label, a.main)] if a.main else []
    results = {}
    for r in range(a.repeat):
        steps = [(name, 1, lambda x=extra: treexc(here, files[1], x)) for name, extra in ours]
        steps += [(name, 1, lambda c=code: treexc(c, files[1])) for name, code in old]
        steps.append(("fastText 0.9.2", 1, lambda: fasttext(files[1])))
        if r == 0 and not a.no16:
            steps += [(name, 16, lambda x=extra: treexc(here, files[16], x))
                      for name, extra in ours]
        if r < a.repeat4:
            steps += [(name, 4, lambda x=extra: treexc(here, files[4], x)) for name, extra in ours]
            steps += [(name, 4, lambda c=code: treexc(c, files[4])) for name, code in old]
        for name, times, case in steps:
            figures = case()
            harness.log(f"round {r + 1}: {name} {times}x: {figures}")
            results.setdefault((name, times), []).append(figures)
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"flags: {harness.flags_text(FLAGS)}; medians of {a.repeat} rounds (4x: "
          f"{a.repeat4}; 16x: one run); load at the end: {load}\n")
    print("| code | input | peak memory (MiB) | words/sec/thread | wall (s) | runs |")
    print("|---|---|---:|---:|---:|---:|")
    for (name, times), runs in sorted(results.items(), key=lambda x: (x[0][1], x[0][0])):
        med = {k: statistics.median(x[k] for x in runs) for k in runs[0]}
        print(f"| {name} | {times}x | {med['maxrss']:.0f} | {med['wps']:,.0f} | "
              f"{med['wall']:.1f} | {len(runs)} |")


if __name__ == "__main__":
    main()
