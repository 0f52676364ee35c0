"""Run fastText 0.9.2 (the ``fasttext-wheel`` package) in a process of its own.

The benchmarks (harness.py) start it so that fastText's peak memory is
measured apart from treexc's.  It prints one JSON object on stdout.

    fasttext_run.py train TRAIN FLAGS_JSON [--test FILE] [--save PATH]
        train_s: time of fasttext.train_supervised; save_s: of save_model;
        test_s, n, p1: of model.test(FILE); with --p5 also test5_s, p5
        (model.test(FILE, k=5))
    fasttext_run.py test MODEL FILE
        load_s: time of fasttext.load_model; test_s, n, p1: of model.test(FILE)
    fasttext_run.py quantize MODEL FLAGS_JSON FILE --save PATH
        quantize_s: time of model.quantize(**FLAGS) on the loaded MODEL; save_s:
        of save_model(PATH); test_s, n, p1: of model.test(FILE)

model.test() is used for prediction timing because fasttext-wheel's
predict() does not work with numpy 2.
"""

import argparse
import json
import time

import fasttext


def timed(f, *args, **kwargs):
    start = time.perf_counter()
    result = f(*args, **kwargs)
    return result, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    train = sub.add_parser("train")
    for name in ("train", "flags", "--test", "--save"):   # flags: train_supervised's, as JSON
        train.add_argument(name)
    train.add_argument("--p5", action="store_true")
    test = sub.add_parser("test")
    test.add_argument("model")
    test.add_argument("file")
    quantize = sub.add_parser("quantize")
    for name in ("model", "flags", "file", "--save"):   # flags: quantize's, as JSON
        quantize.add_argument(name)
    a = parser.parse_args()

    out = {}
    if a.mode == "train":
        flags = json.loads(a.flags)
        model, out["train_s"] = timed(fasttext.train_supervised, input=a.train, **flags)
        if a.save:
            _, out["save_s"] = timed(model.save_model, a.save)
        test_file = a.test
    elif a.mode == "quantize":
        model = fasttext.load_model(a.model)
        _, out["quantize_s"] = timed(model.quantize, **json.loads(a.flags))
        _, out["save_s"] = timed(model.save_model, a.save)
        test_file = a.file
    else:
        model, out["load_s"] = timed(fasttext.load_model, a.model)
        test_file = a.file
    if test_file:
        (n, p1, _), out["test_s"] = timed(model.test, test_file)
        out["n"], out["p1"] = n, p1
        if getattr(a, "p5", False):
            (_, out["p5"], _), out["test5_s"] = timed(model.test, test_file, k=5)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
