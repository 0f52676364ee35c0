"""Bad input, files and flags: each is one line ``treexc: ...`` naming the
file (and line), exit status 1, no traceback, and no output file."""

import gzip
import io
import os
import shutil
import stat
import subprocess
import sys
import threading

import numpy as np
import pytest
from cli_util import ok, run, user_error

import treexc
from treexc.classify import firstlines
from treexc.io import textio
from treexc.lm.model import LanguageModel

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


def trains_with_warning(folder, input_path, warning, input=None):
    """``supervised`` succeeds and prints exactly ``warning`` on stderr;
    returns the model."""
    result = run(["supervised", "-input", input_path, "-output", folder / "model"] + FAST,
                 input=input)
    assert result.exit_code == 0, result.output
    assert result.stderr == f"treexc: warning: {warning}\n"
    return treexc.load_model(str(folder / "model.bin"))


def test_only_labels(folder):
    path = write(folder, "onlylabels.txt", b"__label__a\n__label__b __label__c\n")
    train_fails(folder, path, f"{path}: no line has both labels and words; 2 line(s) "
                "with labels but no words (first: line 1)")
    path = write(folder, "onelabel.txt", b"__label__a __label__b")  # no newline: no </s>
    train_fails(folder, path, f"{path}: no words found")


def test_line_with_labels_and_no_words_is_skipped(folder):
    data = (b"__label__a ball goal\n__label__b bread\n__label__a  \t\n__label__b cheese\n"
            b"__label__c\n") * 3
    path = write(folder, "bare.txt", data)
    model = trains_with_warning(
        folder, path, f"{path}: 6 line(s) with labels but no words (first: line 3) skipped")
    assert model.get_labels() == ["__label__a", "__label__b", "__label__c"]


def test_nul_bytes_separate_tokens(folder):
    # NUL is a token separator, as in fastText's readWord (see test_text)
    path = write(folder, "nul.txt", GOOD.replace("ball goal", "ball\0goal").encode())
    model = trains_with_warning(folder, path, f"{path}: 5 line(s) with NUL bytes (first: "
                                "line 1), NUL read as a token separator as fastText does")
    assert sorted(model.get_words()) == sorted(["</s>", "ball", "goal", "bread", "cheese"])


def test_binary_garbage(folder):
    data = bytes(range(256)) * 20
    path = write(folder, "garbage.bin", data)
    result = run(["supervised", "-input", path, "-output", folder / "model"] + FAST)
    assert result.exit_code == 1
    # what the bytes hold, then why nothing can be trained
    assert result.stderr.splitlines() == [
        f"treexc: warning: {path}: 20 line(s) with invalid UTF-8 (first: line 2), read as "
        "the bytes they are; 20 line(s) with NUL bytes (first: line 1), NUL read as a "
        "token separator as fastText does",
        f"treexc: {path}: no labels found (labels are words starting with '__label__', "
        "e.g. '__label__sport some text')"]
    assert not (folder / "model.bin").exists()


def test_invalid_utf8_is_kept_as_bytes(folder):
    data = "__label__a ball\n__label__b héllo\n\n".encode() + b"__label__a caf\xe9 x\n"
    path = write(folder, "latin1.txt", data * 2)
    model = trains_with_warning(folder, path, f"{path}: 2 line(s) with invalid UTF-8 "
                                "(first: line 4), read as the bytes they are")
    assert "caf\udce9" in model.get_words()  # surrogateescape: the byte 0xe9
    # the .vec file has the word's own bytes, as fastText writes it
    vec = (folder / "model.vec").read_bytes()
    assert b"\ncaf\xe9 " in vec and "\nhéllo ".encode() in vec
    # the Python API takes the word back
    assert model.get_word_vector("caf\udce9").any()


def test_truncated_utf8_at_end_of_file(folder):
    path = write(folder, "cut.txt", GOOD.encode() + "__label__a é".encode()[:-1])
    trains_with_warning(folder, path, f"{path}: 1 line(s) with invalid UTF-8 (first: "
                        "line 11), read as the bytes they are")


def test_damaged_gzip(folder):
    data = gzip.compress(GOOD.encode())
    path = write(folder, "cut.txt.gz", data[:len(data) // 2])
    train_fails(folder, path, f"{path}: truncated gzip data (the stream ends early)")


def test_bad_bytes_on_stdin(folder):
    trains_with_warning(folder, "-", "standard input: 1 line(s) with invalid UTF-8 "
                        "(first: line 12), read as the bytes they are",
                        input=GOOD.encode() + b"__label__a x\n__label__b \xff\n")


def test_pretrained_vectors_with_label_tokens(folder):
    """fastText adds a .vec file's label tokens to its dictionary as new
    labels; treexc skips them: labels stay labels, never input words."""
    vec = write(folder, "pre.vec", b"4 4\nball 1 2 3 4\n__label__a 1 1 1 1\n"
                b"__label__z 2 2 2 2\ncaf\xe9 0 0 0 1\n")
    result = run(["supervised", "-input", folder / "good.txt", "-output", folder / "model",
                  "-pretrainedVectors", vec] + FAST)
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        f"treexc: warning: {vec}: 1 line(s) with invalid UTF-8 (first: line 5), read as "
        "the bytes they are",
        f"treexc: warning: {vec}: 2 vector(s) of label tokens (words starting with "
        "'__label__', first: line 3) skipped: labels are not input words"]
    model = treexc.load_model(str(folder / "model.bin"))
    assert model.get_labels() == ["__label__a", "__label__b"]
    assert sorted(model.get_words()) == sorted(
        ["</s>", "ball", "goal", "bread", "cheese", "caf\udce9"])
    # the training lines' labels are still read as labels
    assert model.test(str(folder / "good.txt"))[0] == 10


@pytest.mark.parametrize("data, fragment", [
    (b"2 4\nball 1 2 3 4\ngoal nan 1 1 1\n", "line 3: nan is not a finite 32-bit float"),
    (b"2 4\nball 1 2 3 1e39\ngoal 1 1 1 1\n", "line 2: 1e39 is not a finite 32-bit float"),
    (b"2 4\nball 1 2 3 -inf\ngoal 1 1 1 1\n", "line 2: -inf is not a finite 32-bit float"),
    (b"5 4\nball 1 2 3 4\ngoal 1 1 1 1\n", "2 vector line(s), but line 1 says 5: truncated?"),
])
def test_pretrained_vectors_that_are_not_numbers_or_cut_short(folder, data, fragment):
    """Refused in one line naming the file: a NaN or an overflowing value
    was reported as a diverged training, a truncated file trained."""
    vec = write(folder, "bad.vec", data)
    train_fails(folder, folder / "good.txt", f"{vec}: {fragment}",
                extra=["-pretrainedVectors", vec])


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



def test_output_naming_a_folder_is_refused(folder):
    """``-output models/`` wrote the hidden files models/.bin and models/.vec."""
    (folder / "models").mkdir()
    out = f"{folder / 'models'}/"
    user_error(["supervised", "-input", folder / "good.txt", "-output", out] + FAST,
               f"-output {out}: names a folder; give a file name in it")
    user_error(["lm", "-input", folder / "good.txt", "-output", out], "names a folder")
    assert os.listdir(folder / "models") == []


def test_output_onto_a_fifo_or_device_is_refused(folder, model_path):
    """Publishing renames a new file over the old name: a FIFO, a device
    (``-log /dev/null``, root's /dev/null itself) would become a regular
    file. Refused before anything is written, the FIFO left as it was."""
    fifo = folder / "fifo"
    os.mkfifo(fifo)
    os.mkfifo(folder / "m2.bin")
    lm = ["lm", "-input", folder / "good.txt", "-output", folder / "lm", "-epoch", "1",
          "-dim", "4", "-thread", "1", "-verbose", "0"]
    user_error(lm + ["-log", fifo], f"-log {fifo}: is a named pipe (FIFO), not a regular file")
    user_error(["supervised", "-input", folder / "good.txt", "-output", folder / "m2"] + FAST,
               f"-output {folder / 'm2'}: {folder / 'm2.bin'}: is a named pipe")
    with pytest.raises(treexc.TreexcError, match="is a named pipe"):
        treexc.load_model(str(model_path)).save_model(str(fifo))
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and stat.S_ISFIFO(os.stat(folder / "m2.bin").st_mode)
    assert sorted(os.listdir(folder)) == ["fifo", "good.txt", "m2.bin"]


def test_output_that_would_replace_an_input_is_refused(folder):
    """``-log`` naming the training or validation text replaced it with the
    log (the text lost); naming OUTPUT.bin it failed late ("cannot publish")
    after replacing the previous model. Refused before training."""
    text = folder / "good.txt"
    lm = ["lm", "-input", text, "-valid", text, "-output", folder / "lm", "-epoch", "1",
          "-dim", "4", "-thread", "1", "-verbose", "0"]
    user_error(lm + ["-log", text], f"-log {text}: the same file as {text}, which this run reads")
    user_error(lm + ["-log", folder / "lm.bin"], "which this run writes")
    shutil.copy(text, folder / "x.vec")
    user_error(["supervised", "-input", folder / "x.vec", "-output", folder / "x"] + FAST,
               f"{folder / 'x.vec'}: the same file as")
    assert text.read_text() == GOOD and (folder / "x.vec").read_text() == GOOD
    assert sorted(os.listdir(folder)) == ["good.txt", "x.vec"]


# -- flags ------------------------------------------------------------------------------------

@pytest.mark.parametrize("flags,fragment", [
    (["-lr", "-1"], "-lr -1.0: must be >= 0"),
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
    assert result.exit_code == 2  # a usage error, as click's
    assert "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("treexc: "), result.stderr
    assert flags[0] in lines[0] and "(see: treexc supervised -h)" in lines[0]
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
    # bad bytes are read as they are, with one warning
    bad = write(folder, "bad.txt", b"__label__a ball\n\n__label__b \xc3(\x00x\n")
    result = run([command, model_path, bad])
    assert result.exit_code == 0
    assert result.stderr == (
        f"treexc: warning: {bad}: 1 line(s) with invalid UTF-8 (first: line 3), read as "
        "the bytes they are; 1 line(s) with NUL bytes (first: line 3), NUL read as a "
        "token separator as fastText does\n")
    if command.startswith("predict"):
        assert result.stdout.count("\n") == 3


def test_vector_and_dump_commands_with_bad_model(folder):
    missing = folder / "missing.bin"
    for args in (["print-word-vectors", missing], ["print-sentence-vectors", missing],
                 ["dump", missing, "args"]):
        user_error(args, f"{missing}: no such model file", input="x\n")


def test_print_ngrams_of_a_label(model_path):
    """A label's entry id is past the words: print-ngrams said ``input row 5
    out of range [0, 5)`` (with -maxn, printed a hashed bucket's row under
    the label's name)."""
    user_error(["print-ngrams", model_path, "__label__a"],
               f"__label__a: a label of {model_path}, not a word")
    assert ok(["print-ngrams", model_path, "ball"]).stdout.startswith("ball ")


def test_bad_bytes_on_stdin_for_vectors(model_path):
    # a word is its bytes: the vector of b"br\xffead" is that of any unknown word
    out = ok(["print-word-vectors", model_path], input=b"ball\nbr\xffead\x1b\n").stdout_bytes
    lines = out.split(b"\n")
    assert len(lines) == 3 and lines[0].startswith(b"ball ")
    assert lines[1] == b"br\xffead\\x1b " + b"0 " * 4  # control bytes escaped
    model = treexc.load_model(str(model_path))
    out = ok(["print-sentence-vectors", model_path],
             input=b"ball\x00goal\n\xff\n").stdout.splitlines()
    assert out[0] == " ".join(f"{x:.5g}" for x in model.get_sentence_vector("ball goal")) + " "
    assert out[1] == " ".join(f"{x:.5g}" for x in model.get_sentence_vector("")) + " "


def bad_lines():
    """Input lines with every kind of byte, and the same lines with each
    odd word replaced by another word unknown to the model: the answers
    must be the same, line for line (an unknown word adds no feature)."""
    odd = [b"caf\xe9", b"\xff\xfe", b"x\x1b[31m", b"\xe6\x97", b"a\x80b", b"\x01"]
    lines, plain = [], []
    for i in range(40):
        words = [b"ball goal", b"bread cheese", b""][i % 3]
        extra = odd[i % len(odd)]
        lines.append(words + b" " + extra + (b"\x00cheese" if i % 7 == 0 else b""))
        plain.append(words + b" zzz" + (b" cheese" if i % 7 == 0 else b""))
    return b"\n".join(lines) + b"\n", b"\n".join(plain) + b"\n"


@pytest.mark.parametrize("command", ["predict", "predict-prob"])
def test_predict_answers_every_line_whatever_the_bytes(model_path, folder, monkeypatch,
                                                        command):
    # prediction streams its input in pieces: bad bytes in later ones too
    monkeypatch.setattr(textio, "READ_SIZE", 64)
    data, plain = bad_lines()
    path, plain_path = write(folder, "bad.txt", data), write(folder, "plain.txt", plain)
    expected = ok([command, model_path, plain_path, "2"]).stdout
    assert expected.count("\n") == 40 and "__label__" in expected
    warning = (" line(s) with invalid UTF-8 (first: line 1), read as the bytes they are; 6 "
               "line(s) with NUL bytes (first: line 1), NUL read as a token separator as "
               "fastText does\n")
    for source, name, stdin in ((path, str(path), None), ("-", "standard input", data)):
        result = run([command, model_path, source, "2"], input=stdin)
        assert result.exit_code == 0
        assert result.stdout == expected
        assert result.stderr == f"treexc: warning: {name}: 27" + warning


def test_gzip_is_recognised_by_its_bytes(model_path, folder, monkeypatch):
    monkeypatch.setattr(textio, "READ_SIZE", 7)  # the magic split across reads
    plain = GOOD.replace("__label__a ", "").encode() * 3
    expected = ok(["predict-prob", model_path, write(folder, "p.txt", plain)]).stdout
    tested = ok(["test", model_path, folder / "p.txt"]).stdout
    assert tested.startswith("N\t15\n")
    packed = gzip.compress(plain[:100]) + gzip.compress(plain[100:])  # two members
    for name in ("p.gz", "p.text", "p"):
        assert ok(["predict-prob", model_path, write(folder, name, packed)]).stdout == expected
        assert ok(["test", model_path, folder / name]).stdout == tested
    assert ok(["predict-prob", model_path, "-"], input=packed).stdout == expected
    model = treexc.load_model(str(model_path))
    assert model.test(str(folder / "p"))[0] == 15  # the Python API too


@pytest.mark.parametrize("cut", ["truncated", "damaged"])
def test_bad_gzip_keeps_the_answers_before_it(model_path, folder, monkeypatch, cut):
    monkeypatch.setattr(textio, "READ_SIZE", 256)
    rng = np.random.default_rng(0)
    words = ["ball", "goal", "bread", "cheese", "x"]
    plain = "".join(" ".join(rng.choice(words, 6)) + f" {i}\n" for i in range(3000)).encode()
    expected = ok(["predict", model_path, write(folder, "p.txt", plain)]).stdout
    packed = bytearray(gzip.compress(plain))
    if cut == "truncated":
        packed = packed[:len(packed) * 2 // 3]
        message = "truncated gzip data (the stream ends early)"
    else:
        packed[len(packed) * 2 // 3] ^= 0xFF
        message = "damaged gzip data (Error -3 while decompressing data:"
    path = write(folder, "p.txt.gz", bytes(packed))
    result = run(["predict", model_path, path])
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"treexc: {path}: {message}")
    # the answers of the lines before the damage are kept, each whole (a damaged
    # stream may decode into garbage before zlib notices, as with gzip -dc)
    got = result.stdout.split("\n")
    assert got[-1] == "" and len(got) > 1000
    assert got[:1000] == expected.split("\n")[:1000]
    if cut == "truncated":
        assert len(result.stdout) < len(expected) and expected.startswith(result.stdout)
    user_error(["test", model_path, path], f"{path}: {message}")


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


# -- labels with control bytes --------------------------------------------------------------

def test_control_bytes_in_labels_are_escaped(folder):
    """A label holding ESC or a newline (a crafted model) is printed with
    ``\\xNN`` escapes: one answer line per input line, no terminal codes."""
    data = b"__label__r\x1b[31m red ball\n__label__g\x01 green goal\n" * 10
    path = write(folder, "ctl.txt", data)
    ok(["supervised", "-input", path, "-output", folder / "m"] + FAST + ["-epoch", "20"])
    model = treexc.load_model(str(folder / "m.bin"))
    assert sorted(model.get_labels()) == ["__label__g\x01", "__label__r\x1b[31m"]
    out = ok(["predict", folder / "m.bin", "-", "2"], input="red ball\ngreen goal\n").stdout
    assert out == ("__label__r\\x1b[31m __label__g\\x01\n"
                   "__label__g\\x01 __label__r\\x1b[31m\n")
    dump = ok(["dump", folder / "m.bin", "dict"]).stdout.splitlines()
    assert "__label__r\\x1b[31m 10 label" in dump and "__label__g\\x01 10 label" in dump
    report = ok(["test-label", folder / "m.bin", path]).stdout
    assert "\x1b" not in report and "\x01" not in report and "  __label__g\\x01\n" in report
    # a newline, which no training file can put in a label, from a crafted model
    d = model.dictionary
    e = d.nwords + model.get_labels().index("__label__g\x01")
    d.pool = d.pool.copy()
    d.pool[d.entry_off[e] + d.entry_len[e] - 1] = ord("\n")
    model.save_model(str(folder / "crafted.bin"))
    out = ok(["predict-prob", folder / "crafted.bin", "-", "2"],
             input="green goal\n\nred\n").stdout.split("\n")
    assert len(out) == 4 and out[-1] == ""
    assert out[0].startswith("__label__g\\x0a ")
    dump = ok(["dump", folder / "crafted.bin", "dict"]).stdout.splitlines()
    assert len(dump) == 1 + len(d.entry_off) and "__label__g\\x0a 10 label" in dump
    tree_dump = ok(["dump-tree", folder / "crafted.bin"]).stdout
    assert "__label__g\\x0a" in tree_dump and "\x1b" not in tree_dump


# -- language model ----------------------------------------------------------------------------

def feed(path, data):
    """Write ``data`` into the pipe ``path`` from another thread."""
    def write_all():
        with open(path, "wb") as f:
            f.write(data)

    # a daemon with a bounded join: a reader that never comes cannot hang the tests
    thread = threading.Thread(target=write_all, daemon=True)
    thread.start()
    return thread


@pytest.mark.slow
def test_language_model_reads_bytes_and_pipes(folder):
    text = "".join(f"the old man {w} sea\n" for w in ["caf\xe9", "fish", "boat"] * 30)
    path = write(folder, "lm.txt", text.encode("latin-1"))  # é as the byte 0xe9
    result = run(["lm", "-input", path, "-output", folder / "lm", "-dim", "4", "-epoch", "1",
                  "-thread", "1", "-verbose", "0", "-loss", "softmax", "-minCount", "1"])
    assert result.exit_code == 0, result.output
    assert result.stderr == (f"treexc: warning: {path}: 30 line(s) with invalid UTF-8 "
                             "(first: line 1), read as the bytes they are\n")
    # a named pipe, written by another thread while predict-next reads it
    fifo = folder / "fifo"
    os.mkfifo(fifo)
    lines = b"the old\ncaf\xe9\x00man\n\x1b[2J\n"
    writer = feed(fifo, lines)
    result = run(["predict-next", folder / "lm.bin", fifo, "20"])  # every word
    writer.join(60)
    assert result.exit_code == 0, result.output
    out = result.stdout_bytes.split(b"\n")
    assert len(out) == 4 and out[-1] == b""
    assert b"caf\xe9 " in result.stdout_bytes  # the word's own bytes
    # a NUL separates words: "caf\xe9\0man" is the context "caf\xe9 man"
    same = ok(["predict-next", folder / "lm.bin", "-", "20"],
              input=b"caf\xe9 man\n").stdout_bytes
    assert out[1] + b"\n" == same
    writer = feed(fifo, text.encode("latin-1"))
    piped = ok(["test-lm", folder / "lm.bin", fifo]).stdout
    writer.join(60)
    assert piped == ok(["test-lm", folder / "lm.bin", path]).stdout


def test_language_model_without_words(folder):
    path = write(folder, "empty_lines.txt", b"\n\n \t\n")
    user_error(["lm", "-input", path, "-output", folder / "lm"],
               f"{path}: no words, only empty lines")
    assert not (folder / "lm.bin").exists()
    # as validation or test text: a perplexity of </s> alone measured nothing
    good = write(folder, "good.txt", b"the old man and the sea\n" * 20)
    user_error(["lm", "-input", good, "-valid", path, "-output", folder / "lm"],
               f"{path}: no words, only empty lines")
    assert not (folder / "lm.bin").exists()
    ok(["lm", "-input", good, "-output", folder / "lm", "-dim", "4", "-epoch", "1",
        "-thread", "1", "-verbose", "0", "-loss", "softmax", "-minCount", "1"])
    user_error(["test-lm", folder / "lm.bin", path], f"{path}: no words, only empty lines")


def test_plot_on_bad_logs(folder):
    for name, data in (("latin1.jsonl", b'{"epoch": 1, "run": "caf\xe9"}\n'),
                       ("deep.jsonl", b"[" * 100000 + b"\n"),
                       ("list.jsonl", b'{"epoch": 1}\n[1, 2]\n'),
                       ("text.jsonl", b'{"epoch": 1, "valid_ppl": "high"}\n')):
        path = write(folder, name, data)
        line = 2 if name == "list.jsonl" else 1
        user_error(["plot", path, "-o", folder / "x.png"],
                   f"{path}: line {line}: not a `treexc lm -log` record")


# -- processes: pipes, /dev/full, closed standard output --------------------------------------

def shell(folder, script):
    """Run a bash script in ``folder`` where ``treexc`` is this checkout's
    command; fails the test on a traceback anywhere."""
    prelude = f'treexc() {{ "{sys.executable}" -c "from treexc.cli.main import main; main()" "$@"; }}\n'
    result = subprocess.run(["bash", "-c", prelude + script], cwd=folder, capture_output=True,
                            timeout=300, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert b"Traceback" not in result.stderr, result.stderr.decode(errors="replace")
    return result


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


@needs_bash
def test_non_seekable_inputs_through_bash(model_path, folder):
    """`<(...)` and /dev/stdin, with gzip through a pipe, read like files."""
    plain = GOOD.encode() * 3
    write(folder, "p.txt", plain)
    write(folder, "p.gz", gzip.compress(plain))
    expected = ok(["predict-prob", model_path, folder / "p.txt", "2"]).stdout
    result = shell(folder, f"""
        set -e
        treexc predict-prob {model_path} <(cat p.txt) 2 > a.out
        cat p.gz | treexc predict-prob {model_path} /dev/stdin 2 > b.out
    """)
    assert result.returncode == 0 and result.stderr == b""
    assert (folder / "a.out").read_text() == expected == (folder / "b.out").read_text()


def test_training_and_testing_from_pipes(model_path, folder):
    """A named pipe and an anonymous one (/dev/fd/N, what `<(...)` gives)."""
    plain = GOOD.encode() * 3
    flags = FAST + ["-seed", "3"]
    ok(["supervised", "-input", write(folder, "p.txt", plain), "-output", folder / "plain"]
       + flags)
    fifo = folder / "fifo"
    os.mkfifo(fifo)
    writer = feed(fifo, gzip.compress(plain))
    ok(["supervised", "-input", fifo, "-output", folder / "piped"] + flags)
    writer.join(60)
    assert (folder / "piped.bin").read_bytes() == (folder / "plain.bin").read_bytes()
    tested = ok(["test-label", model_path, folder / "p.txt"]).stdout
    r, w = os.pipe()
    writer = threading.Thread(target=lambda: (os.write(w, plain), os.close(w)), daemon=True)
    writer.start()
    try:
        assert ok(["test-label", model_path, f"/dev/fd/{r}"]).stdout == tested
    finally:
        writer.join(60)
        os.close(r)


FULL = "treexc: standard output: cannot write: No space left on device\n"
needs_dev_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")


@pytest.mark.slow
@needs_bash
@needs_dev_full
def test_output_that_cannot_be_written(model_path, folder):
    """Python's own flush at exit must not be where /dev/full is found."""
    write(folder, "many.txt", b"ball goal\n" * 20000)
    result = shell(folder, f"""
        treexc predict {model_path} many.txt > /dev/full 2> full.err; echo $? > full.rc
        treexc predict {model_path} many.txt >&- 2> closed.err; echo $? > closed.rc
        treexc predict {model_path} many.txt 2> head.err | head -1 > head.out
        echo ${{PIPESTATUS[0]}} > head.rc
    """)
    assert result.returncode == 0, result.stderr

    def outcome(name):
        return int((folder / f"{name}.rc").read_text()), (folder / f"{name}.err").read_text()

    assert outcome("full") == (1, FULL)
    assert outcome("closed") == (1, "treexc: standard output is closed: nowhere to write "
                                    "the answers\n")
    assert outcome("head") == (0, "")  # a reader that went away: a quiet exit
    assert (folder / "head.out").read_text() == "__label__a\n"


@needs_dev_full
@pytest.mark.parametrize("args,stdin", [
    (["dump", "MODEL", "dict"], None),
    (["dump", "MODEL", "input"], None),
    (["dump-tree", "MODEL"], None),  # text written by print, flushed at the end
    (["test", "MODEL", "good.txt"], None),
    (["test-label", "MODEL", "good.txt"], None),
    (["predict-prob", "MODEL", "-"], b"ball\n" * 1000),
    (["print-word-vectors", "MODEL"], b"ball goal\n"),
    (["print-sentence-vectors", "MODEL"], b"ball goal\n"),
    (["--help"], None),  # printed while the arguments are parsed, before invoke
    (["--version"], None),
])
def test_commands_writing_to_a_full_disk(model_path, folder, monkeypatch, capfd, args,
                                         stdin):
    """In this process, with standard output on /dev/full as a shell would
    set it up: one line, status 1."""
    from treexc.cli.main import main

    args = [str(model_path) if a == "MODEL" else str(folder / a) if a.endswith(".txt")
            else a for a in args]
    full = open("/dev/full", "w")
    stdin_file = folder / "stdin"
    stdin_file.write_bytes(stdin or b"")
    with open(stdin_file, "rb") as f:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(f))
        monkeypatch.setattr(sys, "stdout", full)
        with pytest.raises(SystemExit) as exit_:
            main.main(args, prog_name="treexc")
    assert exit_.value.code == 1
    assert capfd.readouterr().err == FULL
    full.close()  # what was not written went to /dev/null


@pytest.mark.parametrize("command", ["predict", "test", "print-word-vectors"])
def test_closed_standard_input(model_path, monkeypatch, capfd, command):
    """Started with `<&-`, Python has no sys.stdin at all."""
    from treexc.cli.main import main

    monkeypatch.setattr(sys, "stdin", None)
    args = [command, str(model_path)] + (["-"] if command != "print-word-vectors" else [])
    with pytest.raises(SystemExit) as exit_:
        main.main(args, prog_name="treexc")
    assert exit_.value.code == 1
    assert capfd.readouterr().err == "treexc: standard input: closed, nothing to read\n"


# -- input without end -------------------------------------------------------------------

def test_training_input_beyond_memory_goes_to_disk(folder, monkeypatch):
    # /dev/zero once grew until the machine ran out of memory; now training
    # text streams into the token cache on disk, so only a line without end
    # is refused, and a gzip bomb of valid lines is just a large corpus
    from treexc import memory

    monkeypatch.setattr(memory, "available_bytes", lambda: 8 << 20)
    monkeypatch.setattr(textio, "MAX_LINE_BYTES", 1 << 20)
    train_fails(folder, "/dev/zero", "/dev/zero: line 1: longer than 1 MiB")
    bomb = write(folder, "bomb.txt.gz", gzip.compress(b"__label__a x\n" * (1 << 20)))
    model = treexc.train_supervised(str(bomb), epoch=1, dim=4, thread=1, verbose=0)
    assert model.get_labels() == ["__label__a"]


def test_a_test_file_beyond_memory_is_not_called_training_text(model_path, monkeypatch):
    """``test m.bin /dev/zero`` said ``treexc holds its training text in
    memory``, of a test file (training text streams to disk since)."""
    from treexc import memory

    monkeypatch.setattr(memory, "available_bytes", lambda: 8 << 20)
    for command in (["test", model_path, "/dev/zero"], ["test-label", model_path, "/dev/zero"]):
        line = user_error(command, "/dev/zero: more than", "half the memory available")
        assert line.endswith("treexc holds this text in memory"), line


def test_predict_refuses_a_line_without_end(model_path, monkeypatch):
    monkeypatch.setattr(textio, "MAX_LINE_BYTES", 1 << 20)
    line = user_error(["predict", model_path, "/dev/zero"], "line 1: longer than 1 MiB")
    assert line == "treexc: /dev/zero: line 1: longer than 1 MiB (no end of line)"


def test_a_long_line_goes_to_the_kernels(model_path, folder, monkeypatch):
    """predict on one 50 MB line took 20 s and 1.5 GB (150 MB: 69 s, 4.6 GB):
    the first piece, one line, went to numpy's first answers, a Python
    object per token; a piece over 1 MiB now goes to the kernels."""
    seen = []
    numpy_predict = firstlines.FirstLines.predict
    monkeypatch.setattr(firstlines.FirstLines, "predict",
                        lambda self, piece, *a: seen.append(len(piece))
                        or numpy_predict(self, piece, *a))
    line = "ball goal " * 200_000 + "\n"
    path = write(folder, "long.txt", line.encode() + b"bread\n")
    out = ok(["predict", model_path, path]).stdout.splitlines()
    assert out == ok(["predict", model_path, "-"], input="ball goal\nbread\n").stdout.splitlines()
    assert max(seen) <= 1 << 20


def test_predict_next_reads_the_end_of_a_long_line(folder, monkeypatch):
    """predict-next on one 150 MB line took 114 s and 3.7 GB: every word of
    the line was looked up, for a context of its last few."""
    text = "the old man and the sea\n" * 30
    path = write(folder, "lm.txt", text.encode())
    ok(["lm", "-input", path, "-output", folder / "lm", "-dim", "4", "-epoch", "1",
        "-thread", "1", "-verbose", "0", "-loss", "softmax", "-context", "3"])
    lengths = []
    real = LanguageModel.predict_next
    monkeypatch.setattr(LanguageModel, "predict_next",
                        lambda self, words, k=1: lengths.append(len(words))
                        or real(self, words, k))
    long_line = "sea " * 300_000 + "x" * 10_000 + " the\0old  man\n"
    answers = ok(["predict-next", folder / "lm.bin", "-", "4"], input=long_line).stdout
    assert answers == ok(["predict-next", folder / "lm.bin", "-", "4"],
                         input="the old man\n").stdout
    assert lengths == [3, 3]


def test_predict_into_a_size_limited_file_fails(model_path, folder):
    # a write cut short by the file size limit returned its count and the rest
    # was dropped: exit 0 with the answers cut off
    import resource

    lines = folder / "many.txt"
    lines.write_text("ball goal\n" * 20000)

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (16384, 16384))

    with open(folder / "answers.txt", "wb") as out:
        result = subprocess.run([sys.executable, "-c", "from treexc.cli.main import main; main()",
                                 "predict", str(model_path), str(lines)], stdout=out,
                                stderr=subprocess.PIPE, preexec_fn=limit, timeout=120)
    assert result.returncode == 1
    assert result.stderr.decode().strip() == \
        "treexc: standard output: cannot write: File too large"


def test_api_wrong_types_are_type_errors(model_path):
    model = treexc.load_model(str(model_path))
    for call in (lambda: model.get_word_vector(None), lambda: model.predict([1]),
                 lambda: model.get_sentence_vector(3)):
        with pytest.raises(TypeError, match="not (NoneType|int)"):
            call()
    assert np.array_equal(model.get_word_vector(b"ball"), model.get_word_vector("ball"))


def test_api_predict_k_and_threshold_are_checked_as_on_the_command_line(model_path, folder):
    """``predict(threshold=nan)`` returned every label above k's cut as if
    there were no threshold, ``test(threshold=nan)`` scored it, and
    ``predict(k=1.5)`` died in numpy's TypeError; the command line already
    refused them. Values are TreexcErrors, types TypeErrors naming the
    argument (as fastText's members raise for a wrong type)."""
    model = treexc.load_model(str(model_path))
    for call, error, message in [
            (lambda: model.predict("ball", threshold=float("nan")), treexc.TreexcError,
             "threshold nan: must be between 0 and 1"),
            (lambda: model.test(str(folder / "good.txt"), threshold=float("nan")),
             treexc.TreexcError, "threshold nan"),
            (lambda: model.predict("ball", k=0), treexc.TreexcError, "k 0: must be >= 1"),
            (lambda: model.predict("ball", k=1.5), TypeError, "k must be an integer, not float"),
            (lambda: model.predict("ball", threshold="0.5"), TypeError,
             "threshold must be a number, not str"),
            # bytes were read as a list of ints, None failed in list()
            (lambda: model.predict(b"ball"), TypeError,
             "predict takes a str or a list of str, not bytes"),
            (lambda: model.predict(None), TypeError,
             "predict takes a str or a list of str, not NoneType"),
            # k 0 or less answered [], as nn and analogies refuse it
            (lambda: model.get_nearest_neighbors("ball", k=0), treexc.TreexcError,
             "k 0: needs to be 1 or higher"),
            (lambda: model.get_analogies("ball", "goal", "bread", k=-1), treexc.TreexcError,
             "k -1: needs to be 1 or higher"),
            (lambda: model.get_nearest_neighbors("ball", k=2.5), TypeError,
             "k must be an integer, not float")]:
        with pytest.raises(error, match=message):
            call()
    assert model.predict("ball", k=np.int64(2), threshold=np.float32(0.0))[0]


@pytest.mark.parametrize("command, flags, message", [
    ("supervised", ["-t", str(2 ** 63)], "-t 9.223372036854776e+18: must be a finite number"),
    ("lm", ["-leafRows", "5"], "-leafRows 5: must be 0 or 1"),
])
def test_options_no_model_could_hold(folder, command, flags, message):
    user_error([command, "-input", folder / "good.txt", "-output", folder / "m"] + flags,
               message)


def test_threads_the_system_refuses_to_start(folder, monkeypatch):
    """Under ``ulimit -v 4000000``, ``-thread 100000`` (and at times
    ``-thread 500``) died with a traceback, ``RuntimeError: can't start new
    thread``; now one line, the threads already started stopped, nothing
    published."""
    real_start, started = threading.Thread.start, []

    def start(self):
        if getattr(self, "_target", None) is not None and self._target.__name__ == "guarded":
            started.append(self)
            if len(started) > 2:
                raise RuntimeError("can't start new thread")
        real_start(self)

    monkeypatch.setattr(threading.Thread, "start", start)
    train_fails(folder, folder / "good.txt", "-thread 4: the system refused to start thread 3",
                "lower -thread", extra=["-thread", "4", "-lrUpdateRate", "1"])

