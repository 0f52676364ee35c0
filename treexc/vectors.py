"""Text output of vectors in fastText's format (``.vec`` files and friends).

fastText prints each value with 5 significant digits followed by a space,
so lines end with a space; ``.vec`` files start with ``<count> <dim>``.
"""

import numpy as np

from .errors import TreexcError
from .modelfile import atomic_writer
from .textio import read_text


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


def write_vec(path, words, vectors):
    def write(f):
        f.write(f"{len(words)} {vectors.shape[1]}\n".encode())
        step = 20000
        for i in range(0, len(words), step):
            f.write(format_rows(words[i:i + step], vectors[i:i + step]).encode("utf-8"))

    atomic_writer(path, write)


def read_vec(path, dim):
    """Words and vectors of a ``.vec`` file (first line: count and dimension)."""
    data = bytes(read_text(path)).decode("utf-8")
    lines = data.rstrip("\n").split("\n")
    try:
        n, file_dim = (int(x) for x in lines[0].split())
    except (IndexError, ValueError):
        raise TreexcError(f"{path}: line 1: expected '<number of words> <dimension>'") \
            from None
    if file_dim != dim:
        raise TreexcError(f"{path}: vectors have dimension {file_dim}, but -dim is {dim}")
    words, vectors = [], np.zeros((min(n, len(lines) - 1), dim), dtype=np.float32)
    for i, line in enumerate(lines[1:n + 1]):
        parts = line.rstrip().split(" ")
        try:
            vectors[i] = [float(x) for x in parts[1:]]
        except ValueError:
            raise TreexcError(f"{path}: line {i + 2}: expected a word and {dim} numbers") \
                from None
        words.append(parts[0])
    return words, vectors[:len(words)]
