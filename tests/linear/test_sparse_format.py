"""Sparse input: the Extreme Classification Repository's format and plain
``labels f:v`` lines, sniffed, trained on, predicted, and refused when
malformed (one line naming file and line)."""

from pathlib import Path

import numpy as np
import pytest
from cli_util import ok, user_error

import treexc
from treexc.io import sparse_format as sf

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_sniff(tmp_path):
    (tmp_path / "xc.txt").write_text("2 5 3\n0,2 1:0.5 4:1\n 3:2\n")
    (tmp_path / "sp.txt").write_text("__label__a 1:0.5 4:1\n")
    (tmp_path / "tx.txt").write_text("__label__a some words 1:2 here\n")
    assert sf.sniff(str(tmp_path / "xc.txt")) == sf.XC
    assert sf.sniff(str(tmp_path / "sp.txt")) == sf.SPARSE
    assert sf.sniff(str(tmp_path / "tx.txt")) == sf.TEXT


def test_read_xc(tmp_path):
    (tmp_path / "xc.txt").write_text("3 6 4\n0,2 1:0.5 4:1e-1\n 3:2\n3 5:-1.25 0:1\n")
    indptr, indices, values, label_off, labels, names, n_features = \
        sf.read_training(str(tmp_path / "xc.txt"), sf.XC)
    assert indptr.tolist() == [0, 2, 3, 5] and indices.tolist() == [1, 4, 3, 5, 0]
    assert np.allclose(values, [0.5, 0.1, 2.0, -1.25, 1.0])
    assert label_off.tolist() == [0, 2, 2, 3] and labels.tolist() == [0, 2, 3]
    assert names == ["0", "1", "2", "3"] and n_features == 6


def test_read_named_labels(tmp_path):
    (tmp_path / "sp.txt").write_text("__label__b 0:1\n__label__a __label__b 1:1\nb,c 2:1\n")
    *_, label_off, labels, names, n_features = sf.read_training(str(tmp_path / "sp.txt"),
                                                                sf.SPARSE)
    assert names == ["__label__b", "__label__a", "b", "c"]  # by count, then first seen
    assert labels.tolist() == [0, 0, 1, 2, 3] and n_features == 3


@pytest.mark.parametrize("text,line,what", [
    ("2 5 2\n0 1:0.5\n1 2:x\n", 3, "not a finite number"),
    ("2 5 2\n0 1:0.5\n1 2:1 junk\n", 3, "without ':'"),
    ("2 5 2\n0 -1:0.5\n", 2, "non-negative integer"),
    ("2 5 2\n0,,1 1:0.5\n", 2, "empty label"),
    ("2 5 2\n0 1:0.5\n7 1:1\n", 3, "below the header's 2 labels"),
    ("2 5 2\n0 1:0.5 9:1\n", 2, "beyond the header's 5 features"),
    ("1 5 2\n0 1:0.5 1:2\n", 2, "feature 1 given twice"),
    ("0 1:1e999\n", 1, "not a finite number"),
])
def test_malformed_lines(tmp_path, text, line, what):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    user_error(["supervised", "-input", path, "-output", tmp_path / "m", "-verbose", "0"],
               f"{path}:{line}:", what)


def test_train_and_test_the_example(tmp_path):
    out = tmp_path / "xc"
    ok(["supervised", "-input", EXAMPLES / "xc_train.txt", "-output", out, "-thread", "1",
        "-verbose", "0", "-arity", "2", "-leafSize", "2"])
    model = treexc.load_model(str(out) + ".bin")
    n, p1, _ = model.test(str(EXAMPLES / "xc_test.txt"))
    assert n == 30 and p1 > 0.9
    printed = ok(["test", str(out) + ".bin", EXAMPLES / "xc_test.txt"]).stdout
    assert printed.startswith("N\t30\n")
    answers = ok(["predict", str(out) + ".bin", "-", "2"],
                 input="1:1 2:1\n7:1 8:0.5 99:3\n\n").stdout.splitlines()
    assert answers[0].split()[0] == "0" and answers[1].split()[0] == "1" and len(answers) == 3
    user_error(["test", str(out) + ".bin", "-"], "standard input:1:", input="0 1:zz\n")
    user_error(["dump", str(out) + ".bin", "dict"], "no dictionary")
