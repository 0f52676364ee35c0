"""The mapped-model policy (io/modelfile.py): a model is read into memory
unless TREEXC_MAP_MODELS asks for mapping; a mapped model rewritten in
place is detected between pieces of input, a truncated one ends the process
with one line instead of a bus error, and one replaced by rename is simply
the old file still."""

import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import treexc
from treexc.errors import TreexcError
from treexc.io import modelfile, textio

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def two_models(tmp_path_factory, topic_file):
    """Two classifiers of the same size (other seeds) and a test file."""
    folder = tmp_path_factory.mktemp("mapped")
    data = topic_file(folder / "train.txt", n=300)
    paths = []
    for seed in (1, 2):
        model = treexc.train_supervised(str(data), epoch=3, dim=16, seed=seed, thread=1,
                                        bucket=20000, wordNgrams=2, verbose=0)
        path = folder / f"m{seed}.bin"
        model.save_model(str(path))
        paths.append(str(path))
    assert os.path.getsize(paths[0]) == os.path.getsize(paths[1])
    return folder, paths, str(data)


def _mapped(arr):
    base = arr
    while base is not None and not isinstance(base, bytes):
        if type(base).__name__ == "mmap":
            return True
        base = getattr(base, "base", None) if not hasattr(base, "obj") else base.obj
    return False


def _answers(model, data):
    answers = []
    for line in open(data).read().splitlines()[:40]:
        labels, probs = model.predict(line.split(" ", 1)[1], k=2)
        answers.append((labels, [float(p) for p in probs]))
    return answers


def test_a_model_is_read_into_memory_without_the_variable(two_models, monkeypatch, tmp_path):
    folder, (m1, m2), data = two_models
    monkeypatch.delenv(modelfile.MAP_ENV, raising=False)
    monkeypatch.setattr(modelfile, "MAP_THRESHOLD", 0)
    path = tmp_path / "in_use.bin"
    shutil.copy(m1, path)
    model = treexc.load_model(str(path))
    assert not _mapped(model.get_input_matrix())
    before = _answers(model, data)
    with open(path, "r+b") as f:  # cp of a same-size model over it
        f.write(open(m2, "rb").read())
    assert _answers(model, data) == before  # the old model, whole
    modelfile.check_mapped_files()  # nothing mapped, nothing to say


def _mapped_copy(model, tmp_path, monkeypatch):
    """``(path, arrays)``: a copy of ``model`` loaded with mapping asked for."""
    monkeypatch.setenv(modelfile.MAP_ENV, "1")
    monkeypatch.setattr(modelfile, "MAP_THRESHOLD", 0)
    path = tmp_path / "in_use.bin"
    shutil.copy(model, path)
    return path, modelfile.load(str(path), mapped=("w_in", "w_out"))[1]


def test_a_mapped_model_rewritten_in_place_stops_between_pieces(two_models, monkeypatch,
                                                                 tmp_path):
    folder, (m1, m2), data = two_models
    path, arrays = _mapped_copy(m1, tmp_path, monkeypatch)
    assert _mapped(arrays["w_in"]) and not _mapped(arrays["pool"])
    list(textio.read_line_chunks(data))  # unchanged: no complaint
    with open(path, "r+b") as f:
        f.write(open(m2, "rb").read())
    with pytest.raises(TreexcError, match="rewritten in place while in use"):
        list(textio.read_line_chunks(data))
    del arrays


def test_a_mapped_model_replaced_by_rename_is_not_an_error(two_models, monkeypatch,
                                                            tmp_path):
    folder, (m1, m2), data = two_models
    path, arrays = _mapped_copy(m1, tmp_path, monkeypatch)
    w_in = np.array(arrays["w_in"])
    shutil.copy(m2, tmp_path / "new.bin")
    os.replace(tmp_path / "new.bin", path)
    list(textio.read_line_chunks(data))
    assert np.array_equal(arrays["w_in"], w_in)  # still the file that was mapped


TRUNCATED = textwrap.dedent("""
    import os, sys
    from treexc.io import modelfile
    modelfile.MAP_THRESHOLD = 0
    import treexc
    model = treexc.load_model(sys.argv[1])
    os.truncate(sys.argv[1], 4096)
    print(float(model.get_input_matrix().sum()))
""")


def test_a_truncated_mapped_model_ends_with_one_line_not_a_bus_error(two_models, tmp_path):
    folder, (m1, _), data = two_models
    path = tmp_path / "in_use.bin"
    shutil.copy(m1, path)
    env = dict(os.environ, **{modelfile.MAP_ENV: "1"})
    done = subprocess.run([sys.executable, "-c", TRUNCATED, str(path)], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 1, (done.returncode, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("treexc: ") and "bus error" in lines[0]
