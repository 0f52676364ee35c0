"""Text output of vectors in fastText's format (``.vec`` files and friends).

fastText prints each value with 5 significant digits followed by a space,
so lines end with a space; ``.vec`` files start with ``<count> <dim>``.
"""

import numpy as np

from .modelfile import atomic_writer


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
