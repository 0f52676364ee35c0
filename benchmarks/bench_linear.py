"""The linear family's variants on the shared sets: P@1 and P@5 on the test
split (fastText's meter, ``Model.test``), training and test seconds, the
model file's size, the median over seeds.

    python benchmarks/bench_linear.py --sets cooking,wn_hypernym \\
        --variants "leafSize=100" "leafSize=400" "tree=learned" --seeds 0,1,2

Each variant is a list of ``flag=value`` (linear flags, as
``treexc.train_supervised(model="linear", ...)`` takes them); the sets are
read from ``--unpacked`` (``bash ../shared/data/unpack.sh DIR NAME``).
Prints one markdown row per set and variant.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

import treexc


def _value(text):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def run(path, flags, seed, thread):
    t0 = time.monotonic()
    model = treexc.train_supervised(path + ".train.txt", model="linear", seed=seed,
                                    thread=thread, **flags)
    train_s = time.monotonic() - t0
    with tempfile.TemporaryDirectory() as tmp:
        model.save_model(os.path.join(tmp, "m.bin"))
        size_mb = os.path.getsize(os.path.join(tmp, "m.bin")) / 1e6
        t0 = time.monotonic()
        loaded = treexc.load_model(os.path.join(tmp, "m.bin"))
        p1 = loaded.test(path + ".test.txt", 1)[1]
        p5 = loaded.test(path + ".test.txt", 5)[1]
        test_s = time.monotonic() - t0
    return p1, p5, train_s, test_s, size_mb


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="cooking")
    parser.add_argument("--variants", nargs="+", default=[""])
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--thread", type=int, default=2)
    parser.add_argument("--unpacked", default="/tmp/treexc-data")
    a = parser.parse_args(argv)
    print("| set | flags | P@1 | P@5 | train s | test s | model MB | seeds |")
    print("|---|---|---|---|---|---|---|---|")
    for name in a.sets.split(","):
        path = os.path.join(a.unpacked, name, name)
        for variant in a.variants:
            flags = dict(item.split("=", 1) for item in variant.split())
            flags = {k: _value(v) for k, v in flags.items()}
            runs = [run(path, flags, int(s), a.thread) for s in a.seeds.split(",")]
            med = [statistics.median(r[i] for r in runs) for i in range(5)]
            print(f"| {name} | `{variant or '(defaults)'}` | {med[0]:.4f} | {med[1]:.4f} | "
                  f"{med[2]:.1f} | {med[3]:.1f} | {med[4]:.1f} | {a.seeds} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
