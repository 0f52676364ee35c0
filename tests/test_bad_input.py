"""Bad input, files and flags: each is one line ``treexc: ...`` naming the
file (and line), exit status 1, no traceback, and no output file."""

import gzip
import os

import pytest

import treexc
from cli_util import ok, run, user_error
from treexc import predict as predict_module

GOOD = "__label__a ball goal\n__label__b bread cheese\n" * 5
FAST = ["-dim", "4", "-epoch", "1", "-thread", "1", "-verbose", "0", "-loss", "softmax"]


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "good.txt").write_text(GOOD)
    return tmp_path


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bad_input_model")
    (folder / "good.txt").write_text(GOOD)
    ok(["supervised", "-input", folder / "good.txt", "-output", folder / "m"] + FAST)
    return folder / "m.bin"


def train_fails(folder, input_path, *fragments, extra=(), input=None):
    """``supervised`` on ``input_path`` fails with a message containing the
    fragments, and leaves nothing new in ``folder``."""
    before = set(os.listdir(folder))
    line = user_error(["supervised", "-input", input_path, "-output", folder / "model"]
                      + FAST + list(extra), *fragments, input=input)
    assert set(os.listdir(folder)) == before
    return line


def write(folder, name, data):
    path = folder / name
    path.write_bytes(data)
    return path


# -- training input -----------------------------------------------------------------------

def test_missing_file(folder):
    path = folder / "missing.txt"
    train_fails(folder, path, f"{path}: no such file")


def test_directory_as_input(folder):
    sub = folder / "sub"
    sub.mkdir()
    train_fails(folder, sub, f"{sub}: is a directory")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file(folder):  # pragma: no cover - tests usually run as root here
    path = write(folder, "secret.txt", GOOD.encode())
    path.chmod(0)
    try:
        train_fails(folder, path, f"{path}: permission denied")
    finally:
        path.chmod(0o644)


def test_empty_file(folder):
    path = write(folder, "empty.txt", b"")
    train_fails(folder, path, f"{path}: empty file")


def test_only_white_space(folder):
    path = write(folder, "blank.txt", b"\n  \n\t\r\n")
    train_fails(folder, path, f"{path}: no labels found")


def test_no_labels(folder):
    path = write(folder, "nolabels.txt", b"just some text\nand more text\n")
    train_fails(folder, path, f"{path}: no labels found", "__label__")


def test_labels_below_min_count(folder):
    path = write(folder, "rare.txt", GOOD.encode())
    train_fails(folder, path, f"{path}: no label occurs", extra=["-minCountLabel", "100"])


def test_only_labels(folder):
    path = write(folder, "onlylabels.txt", b"__label__a\n__label__b __label__c\n")
    train_fails(folder, path, f"{path}: line 1: labels but no words")
    path = write(folder, "onelabel.txt", b"__label__a __label__b")  # no newline: no </s>
    train_fails(folder, path, f"{path}: no words found")


def test_line_with_labels_and_no_words(folder):
    data = b"__label__a ball goal\n__label__b bread\n__label__a  \t\n__label__b cheese\n"
    path = write(folder, "bare.txt", data)
    train_fails(folder, path, f"{path}: line 3: labels but no words")


def test_nul_bytes(folder):
    path = write(folder, "binary.txt", b"__label__a ball\n__label__b x\x00\x01\x02\xff\n")
    train_fails(folder, path, f"{path}: line 2: NUL byte")


def test_binary_garbage(folder):
    data = bytes(range(256)) * 20
    path = write(folder, "garbage.bin", data)
    train_fails(folder, path, f"{path}: line 1:")


def test_invalid_utf8(folder):
    data = "__label__a ball\n__label__b héllo\n\n".encode() + b"__label__a caf\xe9 x\n"
    path = write(folder, "latin1.txt", data)
    train_fails(folder, path, f"{path}: line 4: invalid UTF-8", "0xe9")


def test_truncated_utf8_at_end_of_file(folder):
    path = write(folder, "cut.txt", GOOD.encode() + "__label__a é".encode()[:-1])
    train_fails(folder, path, f"{path}: line 11: invalid UTF-8")


def test_damaged_gzip(folder):
    data = gzip.compress(GOOD.encode())
    path = write(folder, "cut.txt.gz", data[:len(data) // 2])
    train_fails(folder, path, f"{path}: damaged or truncated gzip")


def test_bad_stdin(folder):
    train_fails(folder, "-", "standard input: line 2: invalid UTF-8",
                input=b"__label__a x\n__label__b \xff\n")


# -- output -------------------------------------------------------------------------------

def test_output_in_missing_folder(folder):
    out = folder / "no" / "such" / "model"
    before = set(os.listdir(folder))
    user_error(["supervised", "-input", folder / "good.txt", "-output", out] + FAST,
               f"-output {out}", "does not exist")
    assert set(os.listdir(folder)) == before


def test_output_inside_a_file(folder):
    out = folder / "good.txt" / "model"
    user_error(["supervised", "-input", folder / "good.txt", "-output", out] + FAST,
               f"-output {out}", "is not a folder")
    assert sorted(os.listdir(folder)) == ["good.txt"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in read-only folders")
def test_output_in_read_only_folder(folder):  # pragma: no cover - root here
    ro = folder / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        user_error(["supervised", "-input", folder / "good.txt", "-output", ro / "m"] + FAST,
                   "not writable")
        assert os.listdir(ro) == []
    finally:
        ro.chmod(0o755)


# -- flags ------------------------------------------------------------------------------------

@pytest.mark.parametrize("flags,fragment", [
    (["-lr", "-1"], "-lr -1.0: must be > 0"),
    (["-lr", "0"], "-lr 0.0: must be > 0"),
    (["-dim", "0"], "-dim 0: must be >= 1"),
    (["-epoch", "0"], "-epoch 0: must be >= 1"),
    (["-loss", "nonsense"], "-loss nonsense: unknown loss"),
    (["-wordNgrams", "0"], "-wordNgrams 0: must be >= 1"),
    (["-minn", "4", "-maxn", "2"], "-minn 4: must be <= -maxn"),
    (["-wordNgrams", "2", "-bucket", "0"], "-bucket 0: must be >= 1"),
    (["-minCount", "-2"], "-minCount -2: must be >= 0"),
    (["-arity", "1", "-loss", "hs"], "-arity 1: must be >= 2"),
    (["-label", ""], "-label"),
])
def test_nonsense_training_flags(folder, flags, fragment):
    before = set(os.listdir(folder))
    user_error(["supervised", "-input", folder / "good.txt", "-output", folder / "m"]
               + FAST + flags, fragment)
    assert set(os.listdir(folder)) == before


@pytest.mark.parametrize("flags", [["-lr", "fast"], ["-dim", "1.5"], ["-nosuchflag", "1"]])
def test_unparseable_flags(folder, flags):
    result = run(["supervised", "-input", folder / "good.txt", "-output", folder / "m"]
                 + flags)
    assert result.exit_code == 2  # click's usage error
    assert "Traceback" not in result.output
    assert flags[0] in result.stderr or "No such option" in result.stderr
    assert sorted(os.listdir(folder)) == ["good.txt"]


def test_missing_or_empty_output_flag(folder, monkeypatch):
    monkeypatch.chdir(folder)  # where a nameless model would land
    result = run(["supervised", "-input", "good.txt"] + FAST)
    assert result.exit_code == 2 and "-output" in result.stderr
    user_error(["supervised", "-input", "good.txt", "-output", ""] + FAST, "-output")
    assert sorted(os.listdir(folder)) == ["good.txt"]


# -- predict, test and friends -----------------------------------------------------------

@pytest.mark.parametrize("command", ["predict", "predict-prob", "test", "test-label"])
def test_nonsense_k_and_threshold(model_path, folder, command):
    data = folder / "good.txt"
    user_error([command, model_path, data, "0"], "k 0: must be >= 1")
    user_error([command, model_path, data, "1", "2"], "threshold 2.0: must be between 0 and 1")
    user_error([command, model_path, data, "1", "nan"], "threshold nan")


@pytest.mark.parametrize("command", ["predict", "predict-prob", "test", "test-label"])
def test_missing_and_bad_files(model_path, folder, command):
    missing = folder / "missing.bin"
    user_error([command, missing, folder / "good.txt"], f"{missing}: no such model file")
    user_error([command, folder / "good.txt", folder / "good.txt"],
               f"{folder / 'good.txt'}: not a treexc model file")
    user_error([command, model_path, folder / "missing.txt"],
               f"{folder / 'missing.txt'}: no such file")
    user_error([command, model_path, folder], f"{folder}: is a directory")
    inside = folder / "good.txt" / "x.txt"
    user_error([command, model_path, inside], f"{inside}:")
    bad = write(folder, "bad.txt", b"__label__a ball\n\n__label__b \xc3(\n")
    user_error([command, model_path, bad], f"{bad}: line 3: invalid UTF-8")
    nul = write(folder, "nul.txt", b"ball\x00\n")
    user_error([command, model_path, nul], f"{nul}: line 1: NUL byte")


def test_vector_and_dump_commands_with_bad_model(folder):
    missing = folder / "missing.bin"
    for args in (["print-word-vectors", missing], ["print-sentence-vectors", missing],
                 ["dump", missing, "args"]):
        user_error(args, f"{missing}: no such model file", input="x\n")


@pytest.mark.parametrize("command", ["print-word-vectors", "print-sentence-vectors"])
def test_bad_stdin_for_vectors(model_path, command):
    user_error([command, model_path], "standard input: line 2: invalid UTF-8",
               input=b"ball\nbr\xffead\n")


def test_predict_names_the_line_across_read_chunks(model_path, folder, monkeypatch):
    # prediction streams its input in pieces; the bad line is in a later one
    monkeypatch.setattr(predict_module, "READ_SIZE", 16)
    lines = [b"ball goal team match"] * 20 + [b"caf\xe9"] + [b"bread"] * 3
    path = write(folder, "long.txt", b"\n".join(lines) + b"\n")
    result = run(["predict", model_path, path])
    assert result.exit_code == 1
    assert result.stderr.strip() == f"treexc: {path}: line 21: invalid UTF-8 (byte 0xe9)"
    assert result.stdout.count("\n") <= 20  # the good lines before it, at most
    user_error(["predict", model_path, "-"], "standard input: line 21: invalid UTF-8",
               input=b"\n".join(lines) + b"\n")


# -- the Python API raises the same errors -------------------------------------------------------

def test_python_api_errors(folder, model_path):
    with pytest.raises(treexc.TreexcError, match="no such file"):
        treexc.train_supervised(input=str(folder / "missing.txt"))
    with pytest.raises(treexc.TreexcError, match="-dim 0"):
        treexc.train_supervised(input=str(folder / "good.txt"), dim=0)
    with pytest.raises(treexc.TreexcError, match="unknown option"):
        treexc.train_supervised(input=str(folder / "good.txt"), learningRate=0.1)
    with pytest.raises(treexc.TreexcError, match="no such file"):
        treexc.load_model(str(model_path)).test(str(folder / "missing.txt"))
