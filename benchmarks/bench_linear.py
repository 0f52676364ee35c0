"""The linear family's variants on the shared sets: P@1 and P@5 on the test
split (fastText's meter, ``Model.test``), training wall and CPU seconds
(the process's, every thread: the comparable cost on a loaded machine),
test seconds, the model file's size, the median over seeds.

    python benchmarks/bench_linear.py --sets cooking,wn_hypernym \\
        --variants "leafSize=100" "leafSize=400" "tree=learned" --seeds 0,1,2

Each variant is a list of ``flag=value`` (linear flags, as
``treexc.train_supervised(model="linear", ...)`` takes them); the sets are
read from ``--unpacked`` (``bash ../shared/data/unpack.sh DIR NAME``).
Prints one markdown row per set and variant.  The flags that only change
prediction (``beam``, ``scorer``) do not retrain: a variant that differs
from the one before it only in them tests that variant's models again
(its train figures are those trainings').  ``--out FILE``
appends each run as a JSON line (``benchmarks/ablate_rules.py``'s
records: config, seed, flags, p1, train_s, and p5, train_cpu_s), the
rows docs/defaults.md's ablations are generated from.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

import treexc

PREDICTION_ONLY = ("beam", "scorer")  # flags set on a trained model, no retraining

def _value(text):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _train_key(flags):
    return tuple(sorted((k, v) for k, v in flags.items() if k not in PREDICTION_ONLY))


def run(path, flags, seed, thread, trained):
    """One variant at one seed; ``trained``: the models trained so far, by
    their training flags and seed (reused for prediction-only flags)."""
    train_flags = {k: v for k, v in flags.items() if k not in PREDICTION_ONLY}
    key = (path, _train_key(flags), seed)
    if key not in trained:
        t0, c0 = time.monotonic(), time.process_time()
        model = treexc.train_supervised(path + ".train.txt", model="linear", seed=seed,
                                        thread=thread, **train_flags)
        trained[key] = (model, time.monotonic() - t0, time.process_time() - c0)
    model, train_s, train_cpu = trained[key]
    with tempfile.TemporaryDirectory() as tmp:
        model.save_model(os.path.join(tmp, "m.bin"))
        size_mb = os.path.getsize(os.path.join(tmp, "m.bin")) / 1e6
        t0 = time.monotonic()
        loaded = treexc.load_model(os.path.join(tmp, "m.bin"))
        for name in PREDICTION_ONLY:
            if name in flags:
                setattr(loaded.args, name, flags[name])
        p1 = loaded.test(path + ".test.txt", 1)[1]
        p5 = loaded.test(path + ".test.txt", 5)[1]
        test_s = time.monotonic() - t0
    return p1, p5, train_s, test_s, size_mb, train_cpu


def record(out, config, seed, flags, result):
    """``result`` appended to ``out`` as ablate_rules.py's JSON line."""
    words = ["-model", "linear"] + [w for k, v in flags.items() for w in (f"-{k}", str(v))]
    with open(out, "a") as f:
        f.write(json.dumps({"config": config, "seed": seed, "flags": words,
                            "p1": result[0], "p5": result[1], "train_s": result[2],
                            "train_cpu_s": result[5]}) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="cooking")
    parser.add_argument("--variants", nargs="+", default=[""],
                        help="each 'flag=value ...', optionally 'NAME: flag=value ...' "
                        "(the configuration's name in --out)")
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--thread", type=int, default=2)
    parser.add_argument("--unpacked", default="/tmp/treexc-data")
    parser.add_argument("--out", default="", help="JSON lines appended, one a run")
    a = parser.parse_args(argv)
    trained = {}
    print("| set | flags | P@1 | P@5 | train s | train CPU s | test s | model MB | P@1 by seed |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in a.sets.split(","):
        path = os.path.join(a.unpacked, name, name)
        for variant in a.variants:
            config, _, variant = variant.rpartition(":")
            variant = variant.strip()
            flags = dict(item.split("=", 1) for item in variant.split())
            flags = {k: _value(v) for k, v in flags.items()}
            if any(key[:2] != (path, _train_key(flags)) for key in trained):
                trained.clear()  # only the variant before is kept: memory
            runs = []
            for seed in map(int, a.seeds.split(",")):
                runs.append(run(path, flags, seed, a.thread, trained))
                if a.out:
                    record(a.out, config.strip() or variant or "default", seed, flags,
                           runs[-1])
            med = [statistics.median(r[i] for r in runs) for i in range(6)]
            print(f"| {name} | `{variant or '(defaults)'}` | {med[0]:.4f} | {med[1]:.4f} | "
                  f"{med[2]:.1f} | {med[5]:.1f} | {med[3]:.1f} | {med[4]:.1f} | "
                  f"{' '.join(f'{r[0]:.4f}' for r in runs)} |",
                  flush=True)


if __name__ == "__main__":
    sys.exit(main())
