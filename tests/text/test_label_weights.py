"""``-labelWeights FILE`` read and checked, ``-weightBalanced`` computed
(``text/label_weights.py``)."""

import numpy as np
import pytest

from treexc.errors import TreexcError
from treexc.text.label_weights import balanced_weights, read_weights

NAMES = ["__label__a", "__label__b", "__label__c"]


def write(tmp_path, text, name="w.txt"):
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return str(path)


def test_both_spellings_and_left_out_labels(tmp_path):
    path = write(tmp_path, "__label__a 2.5\n\nc 0.25\n")
    assert read_weights(path, NAMES, "__label__").tolist() == [2.5, 1.0, 0.25]


def test_unknown_labels_warned_once(tmp_path, capsys):
    path = write(tmp_path, "a 2\nzz 3\n__label__yy 4\n")
    assert read_weights(path, NAMES, "__label__").tolist() == [2.0, 1.0, 1.0]
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "2 label(s) no training line has" in err[0]
    assert "first: zz, line 2" in err[0]


@pytest.mark.parametrize("text,line,fragment", [
    ("a 1\nb\n", 2, "expected 'label weight'"),
    ("a 1 2\n", 1, "expected 'label weight'"),
    ("a x\n", 1, "is not a number"),
    ("a nan\n", 1, "finite and > 0"),
    ("b inf\n", 1, "finite and > 0"),
    ("a 1\nb 0\n", 2, "finite and > 0"),
    ("c -1\n", 1, "finite and > 0"),
    ("a 1\n__label__a 2\n", 2, "given twice (first on line 1)"),
    (b"a 1\n\xff 2\n", 2, "not UTF-8"),
])
def test_malformed_lines_refused_with_file_and_line(tmp_path, text, line, fragment):
    path = write(tmp_path, text)
    with pytest.raises(TreexcError) as info:
        read_weights(path, NAMES, "__label__")
    message = str(info.value)
    assert message.startswith(f"{path}:{line}: ") and fragment in message
    assert "\n" not in message


def test_missing_file(tmp_path):
    with pytest.raises(TreexcError, match="cannot read it"):
        read_weights(str(tmp_path / "none.txt"), NAMES, "__label__")


def _csr(lines):
    off = np.cumsum([0] + [len(x) for x in lines])
    return off, np.array([l for x in lines for l in x], dtype=np.int32)


def test_balanced_is_scikit_learns_on_single_label_lines():
    y = [0, 0, 0, 0, 0, 0, 1, 1, 2, 0]
    off, labels = _csr([[v] for v in y])
    counts = np.bincount(y, minlength=4)
    got = balanced_weights(off, labels, 4)
    # sklearn.utils.class_weight.compute_class_weight("balanced"): n / (K * n_l)
    expect = len(y) / (3 * counts[:3])
    assert np.allclose(got[:3], expect) and got[3] == 1.0  # label 3: no line
    assert np.isclose(np.mean(got[y]), 1.0)


def test_balanced_multi_label_mean_line_weight_is_one():
    lines = [[0, 1], [0], [0, 0, 2], [1, 2, 3], [0], [3]]
    off, labels = _csr(lines)
    w = balanced_weights(off, labels, 4)
    lines_with = np.array([4, 2, 2, 2])  # a label repeated on a line counts once
    assert np.allclose(w * lines_with, (w * lines_with)[0])  # inverse to the line counts
    line_weight = [np.mean(w[sorted(set(x))]) for x in lines]
    assert np.isclose(np.mean(line_weight), 1.0)


def test_balanced_skips_lines_without_labels():
    off, labels = _csr([[0], [], [1], [1]])
    w = balanced_weights(off, labels, 2)
    assert np.isclose((w[0] + 2 * w[1]) / 3, 1.0)


def test_file_weights_are_normalised_to_a_mean_line_weight_of_one(tmp_path):
    from types import SimpleNamespace

    from treexc.text.label_weights import label_weights
    off, labels = _csr([[0], [0, 1], [2], [1], [0]])
    args = SimpleNamespace(weightBalanced=False, label="__label__",
                           labelWeights=write(tmp_path, "a 3\nb 6\n"))
    w = label_weights(args, NAMES, off, labels)
    assert np.allclose(w / w[0], [1.0, 2.0, 1 / 3])  # the ratios kept (c: 1 before)
    assert np.isclose(np.mean([w[0], (w[0] + w[1]) / 2, w[2], w[1], w[0]]), 1.0)
    args.labelWeights = write(tmp_path, "a 1\nb 1\nc 1\n", "ones.txt")
    assert label_weights(args, NAMES, off, labels).tolist() == [1.0, 1.0, 1.0]
    args.labelWeights, args.weightBalanced = "", False
    assert label_weights(args, NAMES, off, labels) is None
