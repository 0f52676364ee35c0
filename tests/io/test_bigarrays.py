"""Arrays larger than memory (io/bigarrays.py): what is appended piece by
piece reads back whole, through the mapping and with ``pread``; a data file
cut short while it is read is refused with a one-line error."""

import os

import numpy as np
import pytest

from treexc.errors import TreexcError
from treexc.io.bigarrays import ArrayParts, MappedArrays, check_data_file


def _written(tmp_path):
    rng = np.random.default_rng(0)
    values = {"a": rng.integers(0, 1 << 40, 5000), "b": rng.integers(0, 1 << 20, 333)}
    parts = ArrayParts(str(tmp_path / "x"), (("a", np.int64), ("b", np.int32)))
    for name, dtype in (("a", np.int64), ("b", np.int32)):
        for piece in np.array_split(values[name], 7):
            parts.append(name, piece.astype(dtype))
    path = str(tmp_path / "x.data")
    directory, size = parts.write(path)
    with open(path, "rb") as f:
        check_data_file(f, path, directory, size)
        mapped = MappedArrays(f, path, directory)
    return path, mapped, values


def test_pieces_read_back_through_the_mapping_and_with_pread(tmp_path):
    _, mapped, values = _written(tmp_path)
    try:
        for name, want in values.items():
            assert np.array_equal(mapped.arrays[name], want)
            for start, stop in ((0, 1), (17, 300), (len(want) - 5, len(want))):
                out = np.empty(stop - start, dtype=mapped.arrays[name].dtype)
                mapped.read_into(name, start, out)
                assert np.array_equal(out, want[start:stop])
    finally:
        mapped.close()
        mapped.close()  # twice is harmless


def test_a_file_cut_short_while_read_is_a_one_line_error(tmp_path):
    path, mapped, _ = _written(tmp_path)
    try:
        os.truncate(path, 4096)  # another process cuts the file after the check
        out = np.empty(100, dtype=np.int32)
        with pytest.raises(TreexcError, match=r"x\.data: truncated data file"):
            mapped.read_into("b", 200, out)
    finally:
        mapped.close()
