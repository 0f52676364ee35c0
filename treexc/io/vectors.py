"""Text output of vectors in fastText's format (``.vec`` files and friends).

fastText prints each value with 5 significant digits followed by a space,
so lines end with a space; ``.vec`` files start with ``<count> <dim>``.
"""

import numpy as np

from ..errors import TreexcError
from .modelfile import atomic_writer
from .textio import display_name, read_text, to_bytes, to_str, warn


def format_vector(vec):
    return "".join(f"{x:.5g} " for x in vec.tolist())


def format_rows(words, vectors):
    """``word v1 v2 ... \\n`` lines; row formatting is the slow part, so it
    goes through one %-format per row."""
    if len(words) == 0:
        return ""
    template = "%s " + "%.5g " * vectors.shape[1] + "\n"
    values = np.asarray(vectors, dtype=np.float64).tolist()
    return "".join(template % (w, *v) for w, v in zip(words, values))


def write_vec(path, n_rows, dim, rows):
    """A ``.vec`` file of ``n_rows`` lines of a word and ``dim`` values.

    ``rows(start, stop)`` gives the words and vectors of rows ``start..stop``;
    they are asked for a block at a time, so a whole vocabulary's words (as
    Python strings) and vectors (a copy of the input matrix) are never held
    at once: on gutenberg_books the two made writing the ``.vec`` the peak of
    a whole training run's memory (262 MiB against 194 while training)."""
    def write(f):
        f.write(f"{n_rows} {dim}\n".encode())
        # about 50K values a block (their Python floats and text take a few
        # MB), whatever the dimension
        step = max(1, 50000 // max(1, dim))
        for start in range(0, n_rows, step):
            words, vectors = rows(start, min(start + step, n_rows))
            # words keep their bytes, invalid UTF-8 included, as in fastText
            f.write(to_bytes(format_rows(words, vectors)))

    atomic_writer(path, write)


def write_vec_arrays(path, words, vectors):
    """:func:`write_vec` of a list of words and the array of their vectors."""
    write_vec(path, len(words), vectors.shape[1],
              lambda start, stop: (words[start:stop], vectors[start:stop]))


_FLOAT32_MAX = float(np.finfo(np.float32).max)


def read_vec(path, dim, label=None):
    """Words and vectors of a ``.vec`` file (first line: count and dimension).

    Words are bytes (as ``textio.to_str`` strings): invalid UTF-8 is kept.
    Words starting with the ``label`` prefix are skipped with one warning:
    they cannot be input words (fastText 0.9.2 adds them to the dictionary
    as new labels, which no training line has).
    """
    name = display_name(path)
    lines = bytes(read_text(path)).rstrip(b"\n").split(b"\n")
    try:
        n, file_dim = (int(x) for x in lines[0].split())
    except (IndexError, ValueError):
        raise TreexcError(f"{name}: line 1: expected '<number of words> <dimension>'") \
            from None
    if file_dim != dim:
        raise TreexcError(f"{name}: vectors have dimension {file_dim}, but -dim is {dim}")
    if n < 0:
        raise TreexcError(f"{name}: line 1: negative number of words {n}")
    prefix = to_bytes(label) if label else None
    words, vectors = [], np.zeros((min(n, len(lines) - 1), dim), dtype=np.float32)
    skipped, first_skipped = 0, 0
    for i, line in enumerate(lines[1:n + 1]):
        parts = line.split()  # white space, as fastText's `in >> word >> value`
        if len(parts) != dim + 1:
            raise TreexcError(f"{name}: line {i + 2}: expected a word and {dim} numbers")
        if prefix is not None and parts[0].startswith(prefix):
            skipped += 1
            first_skipped = first_skipped or i + 2
            continue
        try:
            values = np.array([float(x) for x in parts[1:]])
        except ValueError:
            raise TreexcError(f"{name}: line {i + 2}: expected a word and {dim} numbers") \
                from None
        # nan, inf or beyond float32 would surface as a diverged training
        if not (np.abs(values) <= _FLOAT32_MAX).all():
            bad = next(x for x, v in zip(parts[1:], values) if not abs(v) <= _FLOAT32_MAX)
            raise TreexcError(f"{name}: line {i + 2}: {to_str(bad)} is not a finite "
                              "32-bit float")
        vectors[len(words)] = values
        words.append(to_str(parts[0]))
    if len(lines) - 1 < n:
        raise TreexcError(f"{name}: {len(lines) - 1} vector line(s), but line 1 says {n}: "
                          "truncated?")
    if skipped:
        warn(f"{name}: {skipped} vector(s) of label tokens (words starting with "
             f"'{label}', first: line {first_skipped}) skipped: labels are not input words")
    return words, vectors[:len(words)]
