"""Model files: exact round trips, and a clear TreexcError -- never another
exception -- for every file that is not a sound treexc model."""

import json
import struct

import numpy as np
import pytest

import treexc
from treexc import modelfile
from treexc.args import to_dict
from treexc.errors import TreexcError

try:
    import fasttext
except ImportError:  # pragma: no cover - depends on the environment
    fasttext = None

PROBES = ["ball goal team", "bread cheese", "unknown words only", "", "ball bread taste",
          "match3 dish4 goal"]


def training_file(path):
    rng = np.random.default_rng(0)
    topics = {"sport": "ball goal team match run", "food": "bread cheese taste dish bake",
              "music": "song band guitar drum play", "tech": "code bug test run build"}
    lines = []
    for i in range(240):
        name = list(topics)[i % 4]
        words = rng.choice(topics[name].split(), size=4).tolist()
        extra = " __label__misc" if i % 10 == 0 else ""
        lines.append(f"__label__{name}{extra} " + " ".join(words) + f" x{i % 9}")
    path.write_text("\n".join(lines) + "\n")
    return str(path)


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
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("modelfile")
    train = training_file(folder / "train.txt")
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
    assert ({k: v for k, v in to_dict(again.args).items() if k not in unsaved}
            == {k: v for k, v in to_dict(model.args).items() if k not in unsaved})
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


# -- files that are not sound models ------------------------------------------------------

def load_error(path):
    """The TreexcError that loading ``path`` raises (anything else fails)."""
    with pytest.raises(TreexcError) as info:
        treexc.load_model(str(path))
    message = str(info.value)
    assert str(path) in message and "\n" not in message
    return message


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
    version = modelfile.FORMAT_VERSION + 1
    path.write_bytes(model_bytes[:8] + struct.pack("<I", version) + model_bytes[12:])
    message = load_error(path)
    assert "newer" in message and f"version {version}" in message


def test_fasttext_header_is_recognised(tmp_path):
    # fastText's .bin starts with int32 magic 793712314 and int32 version 12
    path = tmp_path / "ft.bin"
    path.write_bytes(struct.pack("<ii", 793712314, 12) + bytes(200))
    assert "fastText model" in load_error(path)


@pytest.mark.skipif(fasttext is None, reason="fasttext (fasttext-wheel) is not installed")
def test_real_fasttext_model(tmp_path):
    train = training_file(tmp_path / "train.txt")
    ft = fasttext.train_supervised(train, dim=4, epoch=1, thread=1, verbose=0)
    path = tmp_path / "ft.bin"
    ft.save_model(str(path))
    assert "fastText model" in load_error(path)


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
    return (model_bytes[:16] + struct.pack("<Q", len(raw)) + raw
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
    header = {"kind": "supervised", "args": to_dict(model.args),
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
    """Every damaged copy either loads or raises TreexcError."""
    rng = np.random.default_rng(1)
    length = struct.unpack("<Q", model_bytes[16:24])[0]
    path = tmp_path / "flip.bin"
    for _ in range(300):
        data = bytearray(model_bytes)
        pos = int(rng.integers(0, 24 + length))
        data[pos] ^= 1 << int(rng.integers(8))
        path.write_bytes(bytes(data))
        try:
            treexc.load_model(str(path))
        except TreexcError:
            pass
