"""Thousands of damaged model files of both kinds, loaded and used in-process.

Each mutated file goes through load + prediction (+ word and sentence
vectors for the classifier, next-word prediction and perplexity for the
language model).  Every outcome must be a TreexcError or an answer; no other
exception, no crash (a crash kills pytest), no hang.  Two families:

* plain damage (truncation, flipped bytes, overwritten ranges, edited header
  numbers): the checksums catch it, so a file that still loads must give
  exactly the original answers;
* resealed damage: the same edits, plus edits of index arrays and weights,
  with every checksum recomputed afterwards (a crafted file), so the checks
  behind the checksums are what stands between the file and the kernels.
"""

import json
import struct
import time

import numpy as np
import pytest
from sealing import reseal

import treexc
from treexc.errors import TreexcError
from treexc.lm.model import load_lm, perplexity

N_FILES = 2000  # of each kind
EXTREMES = [2 ** 63 - 1, 2 ** 63, 2 ** 64 + 5, -2 ** 63, 2 ** 31 - 1, 2 ** 31, 2 ** 32,
            -1, -2, 0, 1, 3, 10 ** 12, 1e300, 0.5, -0.5, float("inf"), float("nan"),
            "x", [1], None, True]
WEIGHT_VALUES = [np.nan, np.inf, -np.inf, 1e30, -1e38, 3e38]


@pytest.fixture(scope="module")
def classifier(tmp_path_factory, topic_file):
    folder = tmp_path_factory.mktemp("mutation_classifier")
    train = topic_file(folder / "train.txt")
    model = treexc.train_supervised(input=train, dim=4, epoch=1, lr=0.5, thread=1, seed=1,
                                    loss="tree", arity=3, treeUpdates=1, wordNgrams=2,
                                    minn=2, maxn=3, bucket=50, verbose=0)
    path = folder / "m.bin"
    model.save_model(str(path))
    return path.read_bytes()


@pytest.fixture(scope="module")
def language_model(lm):
    return lm[1].read_bytes()  # test_modelfile's tiny tree LM


def use_classifier(path):
    model = treexc.load_model(str(path))
    return (model.predict(["ball goal team", "bread x1", "zzz", ""], k=3),
            model.predict("cheese taste", k=2, threshold=0.2),
            model.get_word_vector("bread").tolist(),
            model.get_word_vector("unknownword").tolist(),
            model.get_sentence_vector("ball bread taste").tolist())


def use_language_model(path):
    model = load_lm(str(path))
    ids = model.vocab.encode(np.frombuffer(b"the cat sat on a mat\nzzz dog\n", np.uint8))
    return (model.predict_next(["the", "cat"], 3), model.predict_next([], 2),
            perplexity(model, ids))


def same(a, b):
    """Answers compared exactly (NaN-free: a model that loads is finite)."""
    return repr(a) == repr(b)


# -- mutations -----------------------------------------------------------------------

def header_of(data):
    length = struct.unpack("<Q", data[16:24])[0]
    return json.loads(data[24:24 + length])


def with_header(data, header):
    """``data`` with a new header (arrays keep their offsets), or None when it
    does not fit in front of the first array."""
    raw = json.dumps(header).encode()
    first = min(a["offset"] for a in header_of(data)["arrays"])
    if 24 + len(raw) > first:
        return None
    return (data[:16] + struct.pack("<Q", len(raw)) + raw + bytes(first - 24 - len(raw))
            + data[first:])


def numeric_places(header):
    """(container, key) of every number in the header (options, counts,
    shapes, offsets, checksums)."""
    places = []

    def walk(node):
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in items:
            if isinstance(value, (dict, list)):
                walk(value)
            elif isinstance(value, (int, float)):
                places.append((node, key))
    walk(header)
    return places


def edit_header_number(data, rng):
    header = header_of(data)
    places = numeric_places(header)
    node, key = places[int(rng.integers(len(places)))]
    node[key] = EXTREMES[int(rng.integers(len(EXTREMES)))] if rng.random() < 0.8 \
        else node[key] + int(rng.integers(-3, 4))
    return with_header(data, header)


def edit_array_value(data, rng):
    """One element of one array set to an extreme value (index arrays) or a
    non-finite or huge one (weights)."""
    header = header_of(data)
    a = header["arrays"][int(rng.integers(len(header["arrays"])))]
    dtype = np.dtype(a["dtype"])
    count = int(np.prod(a["shape"]))
    if count == 0:
        return None
    out = bytearray(data)
    view = np.frombuffer(out, dtype=dtype, count=count, offset=a["offset"])
    view.flags.writeable = True
    i = int(rng.integers(count))
    if dtype.kind == "f":
        view[i] = WEIGHT_VALUES[int(rng.integers(len(WEIGHT_VALUES)))]
    else:
        info = np.iinfo(dtype)
        choices = [info.max, info.min, -1, 0, 1, 2, 5, view[i] + 1, view[i] - 1,
                   len(view), info.max // 2]
        view[i] = dtype.type(max(info.min, min(info.max, int(
            choices[int(rng.integers(len(choices)))]))))
    return bytes(out)


def mutate(data, rng):
    """``(mutated bytes, resealed?)``; a mix of the families above."""
    kind = int(rng.integers(7))
    data = bytearray(data)
    if kind == 0:  # truncation
        return bytes(data[:int(rng.integers(len(data)))]), False
    if kind == 1:  # byte flips anywhere
        for _ in range(int(rng.integers(1, 4))):
            data[int(rng.integers(len(data)))] ^= 1 << int(rng.integers(8))
        return bytes(data), False
    if kind == 2:  # an overwritten range
        start = int(rng.integers(len(data)))
        n = min(int(rng.integers(1, 65)), len(data) - start)
        fill = [rng.integers(0, 256, n, dtype=np.uint8).tobytes(), b"\xff" * n, b"\0" * n]
        data[start:start + n] = fill[int(rng.integers(3))]
        if rng.random() < 0.5:
            return reseal(data), True
        return bytes(data), False
    if kind == 3:  # header numbers, checksums left stale
        return edit_header_number(bytes(data), rng), False
    if kind == 4:  # header numbers, resealed
        edited = edit_header_number(bytes(data), rng)
        return (reseal(edited) if edited is not None else None), True
    if kind == 5:  # flips resealed (a corrupted file saved again by a bad writer)
        for _ in range(int(rng.integers(1, 4))):
            data[int(rng.integers(len(data)))] ^= 1 << int(rng.integers(8))
        return reseal(data), True
    edited = edit_array_value(bytes(data), rng)  # index or weight values, resealed
    return (reseal(edited) if edited is not None else None), True


def run_mutations(data, use, tmp_path, seed):
    original = use_bytes(data, use, tmp_path / "original.bin")
    rng = np.random.default_rng(seed)
    path = tmp_path / "mutant.bin"
    outcomes = {"error": 0, "same": 0, "loaded": 0}
    slowest = 0.0
    made = 0
    while made < N_FILES:
        mutant, resealed = mutate(data, rng)
        if mutant is None or mutant == data:
            continue
        made += 1
        path.write_bytes(mutant)
        start = time.perf_counter()
        try:
            answer = use(path)
        except TreexcError as e:
            assert "\n" not in str(e)
            outcomes["error"] += 1
        else:
            if same(answer, original):
                outcomes["same"] += 1
            else:
                # the checksums catch every change that is not resealed
                assert resealed, f"mutation {made} changed the answers silently"
                outcomes["loaded"] += 1
        slowest = max(slowest, time.perf_counter() - start)
    assert slowest < 5.0, slowest  # a hang, not a speed target
    print(outcomes, f"slowest {slowest:.3f} s")
    return outcomes


def use_bytes(data, use, path):
    path.write_bytes(data)
    return use(path)


@pytest.mark.slow
def test_mutated_classifier_files(classifier, tmp_path):
    outcomes = run_mutations(classifier, use_classifier, tmp_path, seed=11)
    assert outcomes["error"] > N_FILES // 2, outcomes


@pytest.mark.slow
def test_mutated_language_model_files(language_model, tmp_path):
    outcomes = run_mutations(language_model, use_language_model, tmp_path, seed=12)
    assert outcomes["error"] > N_FILES // 2, outcomes
