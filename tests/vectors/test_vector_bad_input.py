"""Bad input to ``skipgram`` and ``cbow``, as for ``supervised``: one line
``treexc: ...`` naming the file or flag, exit status 1, no traceback, no
output file; damaged word vector model files refused on load."""

import os

import pytest
from cli_util import load_error, ok, user_error

TEXT = "the ball and the goal\nthe bread and the cheese\n" * 20
FAST = ["-dim", "4", "-epoch", "1", "-thread", "1", "-verbose", "0", "-bucket", "1000",
        "-minCount", "1"]


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "good.txt").write_text(TEXT)
    return tmp_path


def train_fails(folder, input_path, *fragments, extra=(), command="skipgram"):
    before = set(os.listdir(folder))
    line = user_error([command, "-input", input_path, "-output", folder / "model"]
                      + FAST + list(extra), *fragments)
    assert set(os.listdir(folder)) == before
    return line


@pytest.mark.parametrize("command", ["skipgram", "cbow"])
def test_missing_empty_and_blank_files(folder, command):
    train_fails(folder, folder / "missing.txt", "missing.txt: no such file", command=command)
    (folder / "empty.txt").write_bytes(b"")
    train_fails(folder, folder / "empty.txt", "empty.txt: empty file", command=command)
    (folder / "blank.txt").write_bytes(b"\n \n\t\n")
    # </s> alone is a word (fastText's), but there is nothing to learn
    train_fails(folder, folder / "blank.txt", "blank.txt: no words found besides the ends",
                command=command)


def test_words_below_min_count(folder):
    train_fails(folder, folder / "good.txt", "good.txt: no words found",
                "-minCount 1000", extra=["-minCount", "1000"])


def test_a_file_of_labels_only(folder):
    (folder / "labels.txt").write_text("__label__a __label__b\n" * 3)
    train_fails(folder, folder / "labels.txt", "labels.txt: no words found besides the ends")


@pytest.mark.parametrize("flags, fragment", [
    (["-loss", "ova"], "-loss ova: unknown loss"),
    (["-loss", "ns", "-tree", "learned"], "-tree learned: only -loss hs"),
    (["-tree", "cluster", "-loss", "hs"], "-tree cluster: unknown tree"),
    (["-minn", "5", "-maxn", "3"], "-minn 5: must be at most -maxn"),
    (["-ws", "0"], "-ws 0: must be >= 1"),
    (["-t", "0"], "-t 0.0: must be > 0"),
    (["-lr", "-1"], "-lr -1.0: must be > 0"),
    (["-arity", "1", "-loss", "hs"], "-arity 1: must be >= 2"),
    (["-wordNgrams", "0"], "-wordNgrams 0"),
])
def test_nonsense_flags(folder, flags, fragment):
    train_fails(folder, folder / "good.txt", fragment, extra=flags)


def test_output_in_missing_folder(folder):
    out = folder / "no" / "model"
    user_error(["cbow", "-input", folder / "good.txt", "-output", out] + FAST,
               f"-output {out}", "does not exist")


def test_damaged_model_files_are_refused(folder):
    ok(["skipgram", "-input", folder / "good.txt", "-output", folder / "m"] + FAST)
    raw = (folder / "m.bin").read_bytes()
    bad = folder / "bad.bin"
    for size in (10, 100, len(raw) // 2, len(raw) - 1):
        bad.write_bytes(raw[:size])
        load_error(bad)
    flipped = bytearray(raw)
    flipped[len(raw) // 2] ^= 0xFF
    bad.write_bytes(bytes(flipped))
    assert "checksum" in load_error(bad) or "corrupt" in load_error(bad)
    user_error(["nn", bad, "3"], str(bad), input="ball\n")
    user_error(["print-word-vectors", bad], str(bad), input="ball\n")
    # a classifier is not a word vector model, and the other way round
    (folder / "l.txt").write_text("__label__x ball goal\n__label__y bread\n" * 3)
    ok(["supervised", "-input", folder / "l.txt", "-output", folder / "c", "-dim", "4",
        "-epoch", "1", "-verbose", "0"])
    user_error(["test", folder / "m.bin", folder / "l.txt"], "m.bin")


@pytest.mark.parametrize("command", ["skipgram", "cbow"])
def test_every_flag_has_help_and_fasttexts_default(command):
    import dataclasses

    from treexc.vectors.options import VectorArgs
    text = " ".join(ok([command, "-h"]).stdout.split())
    for field in dataclasses.fields(VectorArgs):
        if field.name != "model":  # the command is the model
            assert f"-{field.name}" in text, field.name
    defaults = VectorArgs()
    assert (defaults.dim, defaults.ws, defaults.epoch, defaults.minCount, defaults.neg,
            defaults.loss, defaults.minn, defaults.maxn, defaults.t, defaults.lrUpdateRate,
            defaults.wordNgrams, defaults.lr, defaults.bucket) == \
        (100, 5, 5, 5, 5, "ns", 3, 6, 1e-4, 100, 1, 0.05, 2000000)
