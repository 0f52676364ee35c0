"""Model files: exact round trips, and a clear TreexcError -- never another
exception -- for every file that is not a sound treexc model."""

import json
import signal
import struct
import time
import zlib

import numpy as np
import pytest
from cli_util import load_error
from click.testing import CliRunner
from sealing import reseal, seal_header

import treexc
from treexc.cli.main import main
from treexc.errors import TreexcError
from treexc.io import modelfile
from treexc.lm.model import load_lm, perplexity
from treexc.options import option_values

try:
    import fasttext
except ImportError:  # pragma: no cover - depends on the environment
    fasttext = None

PROBES = ["ball goal team", "bread cheese", "unknown words only", "", "ball bread taste",
          "match3 dish4 goal"]


FLAG_SETS = {
    "softmax": dict(loss="softmax"),
    "hs": dict(loss="hs"),
    "hs3": dict(loss="hs", arity=3),
    "ova": dict(loss="ova"),
    "ns": dict(loss="ns", neg=2),
    "ngrams": dict(loss="softmax", wordNgrams=2, minn=2, maxn=4, bucket=500),
    "tree": dict(loss="tree", arity=3, treeUpdates=2),  # a learned tree
}


@pytest.fixture(scope="module")
def models(tmp_path_factory, topic_file):
    folder = tmp_path_factory.mktemp("modelfile")
    train = topic_file(folder / "train.txt")
    out = {}
    for name, flags in FLAG_SETS.items():
        model = treexc.train_supervised(input=train, dim=6, epoch=2, lr=0.5, thread=1,
                                        seed=3, **flags)
        path = folder / f"{name}.bin"
        model.save_model(str(path))
        out[name] = (model, path)
    return out


@pytest.fixture(scope="module")
def model_bytes(models):
    return models["softmax"][1].read_bytes()


def arrays_of(model):
    d = model.dictionary
    return {"pool": d.pool, "entry_off": d.entry_off, "entry_len": d.entry_len,
            "counts": d.counts, "children": model.children, "w_in": np.asarray(model.w_in),
            "w_out": np.asarray(model.w_out)}


@pytest.mark.parametrize("name", list(FLAG_SETS))
def test_round_trip_is_exact(models, name, tmp_path):
    model, path = models[name]
    again = treexc.load_model(str(path))
    # every option but the file paths and the verbosity is part of the model
    unsaved = ("input", "output", "verbose", "pretrainedVectors")
    assert ({k: v for k, v in option_values(again.args, saved_only=True).items() if k not in unsaved}
            == {k: v for k, v in option_values(model.args, saved_only=True).items() if k not in unsaved})
    assert again.dictionary.nwords == model.dictionary.nwords
    assert again.get_words() == model.get_words()
    assert again.get_labels() == model.get_labels()
    for key, value in arrays_of(model).items():
        loaded = arrays_of(again)[key]
        assert loaded.dtype == value.dtype, key
        np.testing.assert_array_equal(loaded, value, err_msg=key)
    assert (again.tree is None) == (model.tree is None)
    for k in (1, 3, 10):
        for text in PROBES:
            a_labels, a_probs = model.predict(text, k=k)
            b_labels, b_probs = again.predict(text, k=k)
            assert a_labels == b_labels
            np.testing.assert_array_equal(a_probs, b_probs)
        np.testing.assert_array_equal(again.get_sentence_vector("ball bread"),
                                      model.get_sentence_vector("ball bread"))
    # saving the loaded (memory-mapped) model writes the same bytes, also
    # over the very file it is mapped from
    again.save_model(str(tmp_path / "copy.bin"))
    assert (tmp_path / "copy.bin").read_bytes() == path.read_bytes()
    original = path.read_bytes()
    again.save_model(str(path))
    assert path.read_bytes() == original
    np.testing.assert_array_equal(np.asarray(again.w_in), np.asarray(model.w_in))


def test_saving_leaves_no_temporary_files(models, tmp_path):
    model, _ = models["softmax"]
    model.save_model(str(tmp_path / "m.bin"))
    model.save_model(str(tmp_path / "m.bin"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.bin"]


def test_save_into_a_missing_folder(models, tmp_path):
    model, _ = models["softmax"]
    with pytest.raises(TreexcError, match="does not exist"):
        model.save_model(str(tmp_path / "nope" / "m.bin"))


def test_save_onto_a_folder(models, tmp_path):
    """``save_model('.')`` said ``.: cannot write: Device or resource busy``."""
    model, _ = models["softmax"]
    (tmp_path / "d").mkdir()
    with pytest.raises(TreexcError, match="d: is a directory, not a model file"):
        model.save_model(str(tmp_path / "d"))
    assert list((tmp_path / "d").iterdir()) == []


# -- files that are not sound models ------------------------------------------------------

def test_missing_file(tmp_path):
    assert "no such model file" in load_error(tmp_path / "nothing.bin")


def test_directory(tmp_path):
    assert "directory" in load_error(tmp_path)


def test_empty_file(tmp_path):
    path = tmp_path / "empty.bin"
    path.write_bytes(b"")
    assert "not a treexc model file" in load_error(path)


def test_truncated_files(model_bytes, tmp_path):
    header_length = struct.unpack("<Q", model_bytes[16:24])[0]
    cuts = {1, 7, 8, 12, 23, 24, 24 + header_length // 2, 24 + header_length,
            len(model_bytes) // 2, len(model_bytes) - 9, len(model_bytes) - 8,
            len(model_bytes) - 1}
    for cut in sorted(cuts):
        path = tmp_path / f"cut{cut}.bin"
        path.write_bytes(model_bytes[:cut])
        message = load_error(path)
        assert "truncated" in message or "too short" in message, (cut, message)


def test_wrong_magic(model_bytes, tmp_path):
    path = tmp_path / "magic.bin"
    path.write_bytes(b"NOTMODEL" + model_bytes[8:])
    assert "wrong magic number" in load_error(path)


def test_text_file_as_model(tmp_path):
    path = tmp_path / "train.txt"
    path.write_text("__label__a some text that is long enough\n" * 3)
    assert "not a treexc model file" in load_error(path)


def test_newer_format_version(model_bytes, tmp_path):
    path = tmp_path / "newer.bin"
    version = modelfile.NEWEST_VERSION + 1
    path.write_bytes(model_bytes[:8] + struct.pack("<I", version) + model_bytes[12:])
    message = load_error(path)
    assert "newer" in message and f"version {version}" in message


def test_fasttext_header_is_recognised(tmp_path):
    # fastText's .bin starts with int32 magic 793712314 and int32 version 12
    path = tmp_path / "ft.bin"
    path.write_bytes(struct.pack("<ii", 793712314, 12) + bytes(200))
    assert "fastText model" in load_error(path)


@pytest.mark.slow
@pytest.mark.skipif(fasttext is None, reason="fasttext (fasttext-wheel) is not installed")
def test_real_fasttext_model(tmp_path, topic_file):
    # a fastText .bin loads as the treexc model it converts to (more in
    # tests/classify/test_fasttext_compat.py)
    train = topic_file(tmp_path / "train.txt")
    ft = fasttext.train_supervised(train, dim=4, epoch=1, thread=1, verbose=0)
    path = tmp_path / "ft.bin"
    ft.save_model(str(path))
    assert treexc.load_model(str(path)).get_labels() == ft.get_labels()


def test_no_end_marker(model_bytes, tmp_path):
    path = tmp_path / "end.bin"
    path.write_bytes(model_bytes[:-8] + b"XXXXXXXX")
    assert "end marker" in load_error(path)


# A header can be damaged in many ways; each must be refused cleanly.

def with_header(model_bytes, change):
    """``model_bytes`` with its JSON header edited in place (the arrays keep
    their offsets, so only the header is wrong)."""
    length = struct.unpack("<Q", model_bytes[16:24])[0]
    header = json.loads(model_bytes[24:24 + length])
    first = min(a["offset"] for a in header["arrays"])
    header = change(header)
    raw = header if isinstance(header, bytes) else json.dumps(header).encode()
    assert 24 + len(raw) <= first
    return reseal(model_bytes[:16] + struct.pack("<Q", len(raw)) + raw
                  + bytes(first - 24 - len(raw)) + model_bytes[first:])


def edit_array(name, key, value):
    def change(h):
        for a in h["arrays"]:
            if a["name"] == name:
                a[key] = value
        return h
    return change


def edit(key, value, inside=None):
    def change(h):
        target = h[inside] if inside else h
        if value is KeyError:
            del target[key]
        else:
            target[key] = value
        return h
    return change


HEADER_DAMAGE = {
    "not json": (lambda h: b"{this is not json", "corrupt model header"),
    "not utf-8": (lambda h: b'{"kind": "\xff"}', "corrupt model header"),
    "a list": (lambda h: [1, 2], "corrupt model header"),
    "null": (lambda h: None, "corrupt model header"),
    "no arrays": (edit("arrays", KeyError), "corrupt model header"),
    "arrays entry": (lambda h: dict(h, arrays=[5]), "corrupt model header"),
    "bad dtype": (edit_array("w_in", "dtype", "<zz"), "corrupt model header"),
    "object dtype": (edit_array("w_in", "dtype", "|O"), "corrupt model header"),
    # numpy's dtype parser raised SyntaxError on this one (found by mutation)
    "unparsable dtype": (edit_array("w_in", "dtype", "(,)f4"), "corrupt model header"),
    "native dtype spelling": (edit_array("w_in", "dtype", "float32"), "corrupt model header"),
    "negative shape": (edit_array("pool", "shape", [-8]), "corrupt model header"),
    "text shape": (edit_array("pool", "shape", ["x"]), "corrupt model header"),
    "negative offset": (edit_array("w_in", "offset", -64), "corrupt model header"),
    "offset in header": (edit_array("w_in", "offset", 0), "corrupt model header"),
    "offset past end": (edit_array("w_out", "offset", 10 ** 12), "truncated"),
    "other kind": (edit("kind", "lm"), "not a classifier"),
    "no args": (edit("args", KeyError), "missing 'args'"),
    "args not a dict": (edit("args", "dim 4"), "corrupt model header"),
    "no dim": (edit("dim", KeyError, inside="args"), "missing 'dim'"),
    "dim text": (edit("dim", "four", inside="args"), "corrupt model"),
    "wrong dim": (edit("dim", 5, inside="args"), "matrix shapes"),
    "unknown loss": (edit("loss", "nope", inside="args"), "unknown loss"),
    "loss without tree": (edit("loss", "ova", inside="args"), "corrupt model"),
    "no nwords": (edit("nwords", KeyError), "missing 'nwords'"),
    "nwords text": (edit("nwords", "many"), "corrupt model header"),
    "nwords too big": (edit("nwords", 10 ** 6), "corrupt model"),
    "nwords negative": (edit("nwords", -1), "corrupt model"),
    "no tree flag": (edit("has_tree", KeyError), "missing 'has_tree'"),
    "tree flag off": (edit("has_tree", False), "corrupt model"),
    "missing array": (lambda h: dict(h, arrays=[a for a in h["arrays"]
                                                if a["name"] != "counts"]), "counts"),
    "wrong matrix shape": (edit_array("w_out", "shape", [3, 6]), "matrix shapes"),
    "matrix as ints": (edit_array("w_in", "dtype", "<i4"), "corrupt model"),
}


@pytest.mark.parametrize("damage", list(HEADER_DAMAGE))
def test_damaged_header(model_bytes, tmp_path, damage):
    change, expected = HEADER_DAMAGE[damage]
    path = tmp_path / "damaged.bin"
    path.write_bytes(with_header(model_bytes, change))
    assert expected in load_error(path)


def test_damaged_arrays(models, tmp_path):
    """Arrays that contradict each other: a tree with a label twice, and
    dictionary entries pointing outside the byte pool."""
    model, _ = models["hs"]
    d = model.dictionary
    arrays = {"pool": d.pool, "entry_off": d.entry_off, "entry_len": d.entry_len,
              "counts": d.counts, "children": model.children,
              "w_in": np.asarray(model.w_in), "w_out": np.asarray(model.w_out)}
    header = {"kind": "supervised", "args": option_values(model.args, saved_only=True),
              "nwords": d.nwords, "has_tree": True}
    children = model.children.copy()
    children[children == 1] = 0  # label 0 twice, label 1 nowhere
    entry_off = d.entry_off.copy()
    entry_off[2] = len(d.pool) + 100
    entry_len = d.entry_len.copy()
    entry_len[0] = -3
    for name, value, expected in (("children", children, "corrupt tree"),
                                  ("entry_off", entry_off, "corrupt model"),
                                  ("entry_len", entry_len, "corrupt model"),
                                  ("counts", d.counts[:-1], "corrupt model")):
        path = tmp_path / f"bad_{name}.bin"
        modelfile.save(str(path), header, dict(arrays, **{name: value}))
        assert expected in load_error(path), name
    # the untouched arrays load
    path = tmp_path / "good.bin"
    modelfile.save(str(path), header, arrays)
    assert treexc.load_model(str(path)).predict("ball")[0] == model.predict("ball")[0]


def test_random_bit_flips_in_header(model_bytes, tmp_path):
    """The preamble and header are covered by a checksum (or are the magic,
    version and length it depends on): every flipped bit is refused, with
    one message naming the file."""
    rng = np.random.default_rng(1)
    length = struct.unpack("<Q", model_bytes[16:24])[0]
    path = tmp_path / "flip.bin"
    for _ in range(150):
        data = bytearray(model_bytes)
        pos = int(rng.integers(0, 24 + length))
        data[pos] ^= 1 << int(rng.integers(8))
        path.write_bytes(bytes(data))
        with pytest.raises(TreexcError) as refused:
            treexc.load_model(str(path))
        assert str(refused.value).startswith(str(path)), (pos, str(refused.value))
        assert "\n" not in str(refused.value)


# -- crafted files: the bad-input audit's cases -------------------------------------------
# Each is written with correct checksums (modelfile.save or reseal), as an
# attacker would, so only the checks behind the checksums stand in the way.


def parts(path):
    """``(header, arrays)`` of a model file, arrays as writable copies."""
    header, arrays = modelfile.load(str(path))
    return header, {k: np.array(v) for k, v in arrays.items()}


def crafted(tmp_path, path, header_change=None, **array_changes):
    """A copy of the model at ``path`` with arrays replaced (or, given
    ``None``, removed) and the header edited, saved with valid checksums."""
    header, arrays = parts(path)
    for name, value in array_changes.items():
        if value is None:
            del arrays[name]
        else:
            arrays[name] = value
    if header_change is not None:
        header = header_change(header)
    out = tmp_path / f"crafted{len(list(tmp_path.iterdir()))}.bin"
    modelfile.save(str(out), header, arrays)
    return out


def lm_error(path):
    with pytest.raises(TreexcError) as info:
        load_lm(str(path))
    message = str(info.value)
    assert str(path) in message and "\n" not in message
    return message


def test_entry_offset_overflow(models, lm, tmp_path):
    """entry_off = 2**63-1 made entry_off + entry_len wrap and pass."""
    _, path = models["softmax"]
    _, arrays = parts(path)
    for value in (2 ** 63 - 1, 2 ** 63 - 4, -2 ** 63):
        entry_off = arrays["entry_off"].copy()
        entry_off[3] = value
        assert "outside the byte pool" in load_error(crafted(tmp_path, path,
                                                              entry_off=entry_off))
        _, lm_arrays = parts(lm[1])
        entry_off = lm_arrays["entry_off"].copy()
        entry_off[1] = value
        assert "outside the byte pool" in lm_error(crafted(tmp_path, lm[1],
                                                           entry_off=entry_off))


def test_bad_entry_length_in_language_model(lm, tmp_path):
    _, arrays = parts(lm[1])
    pool_size = len(arrays["pool"])
    for value in (-1, pool_size + 1, 2 ** 31 - 1, -2 ** 31):
        entry_len = arrays["entry_len"].copy()
        entry_len[0] = value
        assert "outside the byte pool" in lm_error(crafted(tmp_path, lm[1],
                                                           entry_len=entry_len))
    # the last entry's bytes run one past the pool
    entry_len = arrays["entry_len"].copy()
    entry_len[-1] = pool_size - arrays["entry_off"][-1] + 1
    assert "outside the byte pool" in lm_error(crafted(tmp_path, lm[1], entry_len=entry_len))


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf, 1e30])
def test_non_finite_weights_are_refused(models, lm, tmp_path, value):
    """NaN weights ended in ZeroDivisionError tracebacks when predicting."""
    for name in ("w_in", "w_out"):
        _, path = models["softmax"]
        w = parts(path)[1][name]
        w[-1, -1] = value
        message = load_error(crafted(tmp_path, path, **{name: w}))
        assert f"weights '{name}' are NaN, infinite or above" in message
    for name in ("U", "C", "W"):
        w = parts(lm[1])[1][name]
        w.reshape(-1)[0] = value
        assert f"weights '{name}'" in lm_error(crafted(tmp_path, lm[1], **{name: w}))


def test_arrays_of_another_rank_or_dtype(models, lm, tmp_path):
    _, path = models["softmax"]
    _, arrays = parts(path)
    w_in = arrays["w_in"]
    cases = {"w_in": [w_in[None], w_in.reshape(-1), w_in.astype(np.float64),
                      np.array(["ab"] * 4)],
             "children": [arrays["children"][None], arrays["children"].astype(np.int64)],
             "entry_off": [arrays["entry_off"].astype(np.int32),
                           arrays["entry_off"][:, None]],
             "pool": [arrays["pool"].astype("S1")]}
    for name, values in cases.items():
        for value in values:
            message = load_error(crafted(tmp_path, path, **{name: value}))
            assert "corrupt model" in message, (name, value.dtype, message)
    _, lm_arrays = parts(lm[1])
    for name, value in (("C", lm_arrays["C"][0]), ("U", lm_arrays["U"][None]),
                        ("children", lm_arrays["children"].astype(np.uint8))):
        assert "corrupt language model" in lm_error(crafted(tmp_path, lm[1],
                                                            **{name: value}))


def test_string_and_structured_dtypes_in_the_directory(model_bytes, tmp_path):
    for dtype in ("<U4", "|S4", "|V8", ">f4", "<f4,<f4", "(2,)<f4", "<M8[s]", "|b1"):
        path = tmp_path / "dtype.bin"
        path.write_bytes(with_header(model_bytes, edit_array("w_in", "dtype", dtype)))
        assert "corrupt model" in load_error(path), dtype


def test_deeply_nested_json(model_bytes, tmp_path):
    """100,000 nested lists: json raises RecursionError, refused cleanly."""
    raw = b'{"arrays": [], "args": ' + b"[" * 100000 + b"]" * 100000 + b"}"
    path = tmp_path / "nested.bin"
    path.write_bytes(seal_header(model_bytes[:16] + struct.pack("<Q", len(raw)) + raw
                                 + bytes(64) + modelfile.END_MAGIC))
    assert "corrupt model header" in load_error(path)


@pytest.mark.parametrize("key,value", [
    ("dim", float("inf")), ("dim", 4.0), ("dim", 4.5), ("dim", True), ("dim", [4]),
    ("lr", float("inf")), ("lr", float("nan")), ("lr", -1.0), ("bucket", 2 ** 63),
    ("wordNgrams", 2 ** 40), ("label", ["__label__"]), ("label", 5), ("loss", ["hs"]),
    ("loss", {"a": 1}), ("maxn", -1), ("saveOutput", "yes")])
def test_bad_header_options(model_bytes, tmp_path, key, value):
    path = tmp_path / "options.bin"
    path.write_bytes(with_header(model_bytes, edit(key, value, inside="args")))
    assert "corrupt model" in load_error(path)


@pytest.mark.parametrize("key,value", [
    ("context", 0), ("context", -1), ("batch", 0), ("batch", -1), ("batch", 2.5),
    ("batch", 10 ** 9), ("dim", 4.5), ("dim", 1e400), ("lr", float("inf")),
    ("loss", ["tree"]), ("tree", None), ("depth", 0), ("minCount", "5")])
def test_bad_language_model_options(lm, tmp_path, key, value):
    data = lm[1].read_bytes()
    path = tmp_path / "options.bin"
    path.write_bytes(with_header(data, edit(key, value, inside="args")))
    assert "corrupt language model" in lm_error(path)


@pytest.mark.parametrize("threshold", [None, 0])  # read into memory; mapped
def test_a_thousand_arrays(models, tmp_path, monkeypatch, threshold):
    """1,100 extra arrays: one mapping (or one read), not one open file each."""
    if threshold is not None:
        monkeypatch.setattr(modelfile, "MAP_THRESHOLD", threshold)
        monkeypatch.setenv(modelfile.MAP_ENV, "1")
    model, path = models["softmax"]
    header, arrays = parts(path)
    extra = {f"extra{i}": np.full(3, i, dtype=np.int32) for i in range(1100)}
    out = tmp_path / "many.bin"
    modelfile.save(str(out), header, dict(arrays, **extra))
    again = treexc.load_model(str(out))
    assert repr(again.predict(PROBES, k=2)) == repr(model.predict(PROBES, k=2))
    assert len(modelfile.load(str(out))[1]) == 1107


def test_duplicate_entries_are_refused_in_linear_time(models, lm, tmp_path):
    """200,000 copies of one word: inserting them all into the hash table
    took quadratic time (22 s for 7 MB); now the first copy is refused."""
    n = 200_000
    _, path = models["softmax"]
    _, arrays = parts(path)
    nwords = parts(path)[0]["nwords"]
    labels = slice(nwords, None)
    entry_off = np.concatenate([np.full(n, arrays["entry_off"][1]),
                                arrays["entry_off"][labels]])
    entry_len = np.concatenate([np.full(n, arrays["entry_len"][1]),
                                arrays["entry_len"][labels]]).astype(np.int32)
    counts = np.ones(len(entry_off), dtype=np.int64)
    w_in = np.zeros((n, arrays["w_in"].shape[1]), np.float32)

    def header_change(h):
        h["nwords"] = n
        return h

    start = time.perf_counter()
    message = load_error(crafted(tmp_path, path, header_change, entry_off=entry_off,
                                 entry_len=entry_len, counts=counts, w_in=w_in))
    assert "appears twice" in message
    assert time.perf_counter() - start < 30  # quadratic: minutes
    _, lm_arrays = parts(lm[1])
    entry_off = lm_arrays["entry_off"].copy()
    entry_len = lm_arrays["entry_len"].copy()
    entry_off[3], entry_len[3] = entry_off[2], entry_len[2]
    assert "appears twice" in lm_error(crafted(tmp_path, lm[1], entry_off=entry_off,
                                               entry_len=entry_len))


def test_chain_tree_with_long_paths_is_refused(models, tmp_path):
    """A binary chain over K labels has paths adding up to K^2/2 nodes:
    memory out of proportion to the file, refused before allocation."""
    _, path = models["hs"]
    header, arrays = parts(path)
    k = 3000
    children = np.empty((k - 1, 2), dtype=np.int32)
    children[:, 0] = np.arange(k - 1)
    children[:-1, 1] = k + np.arange(1, k - 1)
    children[-1, 1] = k - 1
    n_labels = len(arrays["entry_off"]) - header["nwords"]
    entry_off = np.concatenate([arrays["entry_off"][:header["nwords"]],
                                np.zeros(k, np.int64)])
    entry_len = np.concatenate([arrays["entry_len"][:header["nwords"]],
                                np.ones(k, np.int32)])
    assert n_labels < k
    # labels of one byte each would be duplicates: give each its own bytes
    pool = np.concatenate([arrays["pool"], np.frombuffer(
        b"".join(b"%06d" % i for i in range(k)), dtype=np.uint8)])
    entry_off[header["nwords"]:] = len(arrays["pool"]) + 6 * np.arange(k)
    entry_len[header["nwords"]:] = 6
    counts = np.ones(len(entry_off), np.int64)
    w_out = np.zeros((2 * (k - 1), arrays["w_out"].shape[1]), np.float32)
    message = load_error(crafted(tmp_path, path, children=children, pool=pool,
                                 entry_off=entry_off, entry_len=entry_len, counts=counts,
                                 w_out=w_out))
    assert "paths too long" in message


# -- checksums, versions, replacement ----------------------------------------------------

def test_a_flipped_weight_byte_is_reported(models, tmp_path):
    _, path = models["softmax"]
    header, arrays = modelfile.load(str(path))
    data = bytearray(path.read_bytes())
    w_out = [a for a in json.loads(data[24:24 + struct.unpack("<Q", data[16:24])[0]])
             ["arrays"] if a["name"] == "w_out"][0]
    data[w_out["offset"] + 5] ^= 0x10  # a float32 mantissa bit: still finite
    bad = tmp_path / "flipped.bin"
    bad.write_bytes(bytes(data))
    assert "checksum mismatch in array 'w_out'" in load_error(bad)
    result = CliRunner().invoke(main, ["check", str(bad)])
    assert result.exit_code == 1
    assert result.stderr.strip() == (f"treexc: {bad}: corrupt model file (checksum "
                                     "mismatch in array 'w_out')")
    result = CliRunner().invoke(main, ["check", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output == (f"{path}: ok (supervised model, format version 2, 7 arrays, "
                             "checksums verified)\n")


def test_large_files_are_mapped_and_checked_by_check(models, tmp_path, monkeypatch):
    """With mapping asked for (TREEXC_MAP_MODELS), above MAP_THRESHOLD the
    weights are mapped and not verified at load; `treexc check` verifies
    them; the index arrays are always verified."""
    monkeypatch.setattr(modelfile, "MAP_THRESHOLD", 0)
    monkeypatch.setenv(modelfile.MAP_ENV, "1")
    model, path = models["hs"]
    header, arrays = modelfile.load(str(path), mapped=("w_in", "w_out"))
    assert isinstance(arrays["w_in"].base, (type(None), object))
    assert not arrays["w_in"].flags.owndata and arrays["children"].flags.owndata
    data = bytearray(path.read_bytes())
    directory = json.loads(data[24:24 + struct.unpack("<Q", data[16:24])[0]])["arrays"]
    where = {a["name"]: a["offset"] for a in directory}
    flipped = bytearray(data)
    flipped[where["w_out"] + 5] ^= 0x10
    bad = tmp_path / "big.bin"
    bad.write_bytes(bytes(flipped))
    treexc.load_model(str(bad))  # loads: the weights are mapped, not verified
    result = CliRunner().invoke(main, ["check", str(bad)])
    assert result.exit_code == 1 and "checksum mismatch in array 'w_out'" in result.stderr
    monkeypatch.delenv(modelfile.MAP_ENV)  # read into memory: every checksum at load
    assert "checksum mismatch in array 'w_out'" in load_error(bad)
    monkeypatch.setenv(modelfile.MAP_ENV, "1")
    flipped = bytearray(data)
    flipped[where["children"]] ^= 0x01
    bad.write_bytes(bytes(flipped))
    assert "checksum mismatch in array 'children'" in load_error(bad)


def version_1(data):
    """A version-1 file (no checksums) with the same arrays."""
    length = struct.unpack("<Q", data[16:24])[0]
    header = json.loads(data[24:24 + length])
    for a in header["arrays"]:
        del a["crc32"]
    raw = json.dumps(header).encode()
    first = min(a["offset"] for a in header["arrays"])
    return (data[:8] + struct.pack("<IIQ", 1, 0, len(raw)) + raw
            + bytes(first - 24 - len(raw)) + data[first:])


def test_version_1_files_are_still_read(models, lm, tmp_path):
    model, path = models["tree"]
    old = tmp_path / "v1.bin"
    old.write_bytes(version_1(path.read_bytes()))
    again = treexc.load_model(str(old))
    assert repr(again.predict(PROBES, k=3)) == repr(model.predict(PROBES, k=3))
    result = CliRunner().invoke(main, ["check", str(old)])
    assert result.exit_code == 0 and "no checksums (format version 1)" in result.output
    old_lm = tmp_path / "v1lm.bin"
    old_lm.write_bytes(version_1(lm[1].read_bytes()))
    assert load_lm(str(old_lm)).predict_next(["the"], 3) == lm[0].predict_next(["the"], 3)
    # without checksums the structural checks still hold
    _, arrays = parts(path)
    entry_off = arrays["entry_off"].copy()
    entry_off[0] = 2 ** 63 - 1
    bad = version_1(crafted(tmp_path, path, entry_off=entry_off).read_bytes())
    old.write_bytes(bad)
    assert "outside the byte pool" in load_error(old)


def test_model_overwritten_in_place_while_loaded(models, tmp_path):
    """`cp other.bin model.bin` over a loaded small model: it was read into
    memory, so its answers do not change (a mapped one would crash)."""
    model, path = models["softmax"]
    live = tmp_path / "live.bin"
    live.write_bytes(path.read_bytes())
    loaded = treexc.load_model(str(live))
    before = loaded.predict(PROBES, k=3), loaded.get_sentence_vector("ball bread").tolist()
    other = models["ns"][1].read_bytes()
    with open(live, "r+b") as f:  # what cp does: truncate, write in place
        f.truncate(0)
        f.write(other)
    after = loaded.predict(PROBES, k=3), loaded.get_sentence_vector("ball bread").tolist()
    assert repr(after) == repr(before)


def test_mapped_model_replaced_by_rename_while_loaded(models, tmp_path, monkeypatch):
    """A large (mapped) model must be replaced by rename, as treexc saves:
    the loaded process keeps the old file's pages."""
    monkeypatch.setattr(modelfile, "MAP_THRESHOLD", 0)
    monkeypatch.setenv(modelfile.MAP_ENV, "1")
    model, path = models["softmax"]
    live = tmp_path / "live.bin"
    live.write_bytes(path.read_bytes())
    loaded = treexc.load_model(str(live))
    before = loaded.predict(PROBES, k=3)
    models["ns"][0].save_model(str(live))  # written aside, then renamed over
    assert repr(loaded.predict(PROBES, k=3)) == repr(before)
    assert treexc.load_model(str(live)).args.loss == "ns"


@pytest.mark.parametrize("command", ["predict", "predict-prob", "test", "test-label",
                                     "print-word-vectors", "print-sentence-vectors",
                                     "dump", "dump-tree", "check"])
def test_every_classifier_command_refuses_a_crafted_file(models, tmp_path, command):
    _, path = models["hs"]
    _, arrays = parts(path)
    entry_off = arrays["entry_off"].copy()
    entry_off[2] = 2 ** 63 - 1
    bad = crafted(tmp_path, path, entry_off=entry_off)
    data = tmp_path / "data.txt"
    data.write_text("__label__sport ball goal\n")
    args = {"predict": [bad, data], "predict-prob": [bad, data], "test": [bad, data],
            "test-label": [bad, data], "print-word-vectors": [bad],
            "print-sentence-vectors": [bad], "dump": [bad, "dict"], "dump-tree": [bad],
            "check": [bad]}[command]
    result = CliRunner().invoke(main, [command] + [str(a) for a in args], input="ball\n")
    assert result.exit_code == 1, result.output
    assert result.stderr == (f"treexc: {bad}: corrupt model (vocabulary entries outside "
                             "the byte pool)\n")


@pytest.mark.parametrize("command", ["test-lm", "predict-next", "dump-tree", "check"])
def test_every_language_model_command_refuses_a_crafted_file(lm, tmp_path, command):
    _, arrays = parts(lm[1])
    entry_len = arrays["entry_len"].copy()
    entry_len[1] = 2 ** 31 - 1
    bad = crafted(tmp_path, lm[1], entry_len=entry_len)
    data = tmp_path / "data.txt"
    data.write_text("the cat sat\n")
    args = {"test-lm": [bad, data], "predict-next": [bad, data], "dump-tree": [bad],
            "check": [bad]}[command]
    result = CliRunner().invoke(main, [command] + [str(a) for a in args])
    assert result.exit_code == 1, result.output
    assert result.stderr == (f"treexc: {bad}: corrupt language model (vocabulary entries "
                             "outside the byte pool)\n")


def test_language_model_round_trip_after_checks(lm, tmp_path):
    model, path = lm
    again = load_lm(str(path))
    ids = model.vocab.encode(np.frombuffer(b"the cat sat on a mat\n", np.uint8))
    assert perplexity(again, ids) == perplexity(model, ids)
    assert again.predict_next(["the", "cat"], 3) == model.predict_next(["the", "cat"], 3)


# -- compressed arrays (format version 4: quantised files) -------------------

def compressed_file(tmp_path, version=modelfile.QUANTIZED_VERSION):
    arrays = {"words": np.arange(1000, dtype=np.int64) // 7,
              "rows": np.zeros((30, 4), dtype=np.float32),
              "codes": np.arange(256, dtype=np.uint8)}
    path = tmp_path / "c.ftz"
    modelfile.save(path, {"kind": "test"}, arrays, version=version,
                   compressed=("words", "rows"))
    return path, arrays


def test_compressed_arrays_round_trip(tmp_path):
    path, arrays = compressed_file(tmp_path)
    assert path.stat().st_size < 4000  # 8,000 + 480 bytes of arrays uncompressed
    header, loaded = modelfile.load(path)
    assert header == {"kind": "test"}
    for name, arr in arrays.items():
        assert loaded[name].dtype == arr.dtype and np.array_equal(loaded[name], arr)
        assert not loaded[name].flags.writeable
    assert modelfile.verify(path)[1:] == (modelfile.QUANTIZED_VERSION, 3)


def test_compression_needs_its_format_version(tmp_path):
    with pytest.raises(ValueError):
        compressed_file(tmp_path, version=modelfile.FORMAT_VERSION)


def header_of(raw):
    length = struct.unpack("<Q", raw[16:24])[0]
    return json.loads(raw[24:24 + length])


def with_entry_changed(raw, name, change):
    """``raw`` with directory entry ``name`` changed, the header resealed
    (the arrays keep their places: the header has room to spare)."""
    header = header_of(raw)
    first = min(a["offset"] for a in header["arrays"])
    next(a for a in header["arrays"] if a["name"] == name).update(change)
    text = json.dumps(header).encode()
    return seal_header(raw[:16] + struct.pack("<Q", len(text)) + text
                       + bytes(first - 24 - len(text)) + raw[first:])


def test_damaged_compressed_arrays_are_refused(tmp_path):
    path, _ = compressed_file(tmp_path)
    good = path.read_bytes()
    words = next(a for a in header_of(good)["arrays"] if a["name"] == "words")
    # a flipped byte inside the zlib data: the checksum (of the stored bytes)
    flipped = bytearray(good)
    flipped[words["offset"] + 5] ^= 0xFF
    path.write_bytes(bytes(flipped))
    for check in (modelfile.load, modelfile.verify):
        with pytest.raises(TreexcError, match="checksum mismatch in array 'words'"):
            check(path)
    # an entry whose shape promises more, or less, than its data inflates to
    for shape in ([2000], [10], [1000, 1000, 1000], [10 ** 12, 10 ** 12]):
        path.write_bytes(with_entry_changed(good, "words", {"shape": shape}))
        with pytest.raises(TreexcError, match="does not inflate to its shape"):
            modelfile.load(path)
    # compressed data that is not zlib, its checksum right
    garbage = bytearray(good)
    garbage[words["offset"]:words["offset"] + 4] = b"\xff\xff\xff\xff"
    path.write_bytes(with_entry_changed(bytes(garbage), "words", {"crc32": zlib.crc32(
        bytes(garbage[words["offset"]:words["offset"] + words["zlib"]]))}))
    with pytest.raises(TreexcError, match="does not inflate to its shape"):
        modelfile.load(path)
    # a stored size past the end of the file, and compression in a version-3 file
    path.write_bytes(with_entry_changed(good, "words", {"zlib": 10 ** 9}))
    with pytest.raises(TreexcError, match="truncated"):
        modelfile.load(path)
    path.write_bytes(good[:8] + struct.pack("<I", 3) + good[12:])
    with pytest.raises(TreexcError, match="corrupt model header"):
        modelfile.load(path)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs signal.setitimer")
def test_ctrl_c_during_an_array_write_stays_a_ctrl_c(tmp_path):
    """numpy's ``tofile`` turned a Ctrl-C landing inside it into "TypeError:
    expected str, bytes or os.PathLike object" (about 1 interrupt in 20), and
    autotune's Ctrl-C then ended in a traceback. Interrupt many writes at
    random points: every one must surface as KeyboardInterrupt."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    arr = np.zeros(1, np.int64)
    others = []
    try:
        with open(tmp_path / "a.bin", "wb") as f:
            for _ in range(400):
                try:
                    # armed inside the try: on a loaded machine the 1 ms can
                    # run out before setitimer returns
                    signal.setitimer(signal.ITIMER_REAL, 1e-3)
                    while True:
                        modelfile.write_array(f, arr)
                except KeyboardInterrupt:
                    pass
                except Exception as error:  # noqa: BLE001 - what the test looks for
                    others.append(repr(error))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert others == []
