"""Nearest neighbours and analogies of word vectors, as fastText 0.9.2
computes them (``FastText::getNN``, ``getAnalogies``), to the bit.

The vocabulary's word vectors (``subwords.word_vectors``: fastText's
``getWordVector``) are normalised once per model (``precomputeWordVectors``:
each row times ``float32(1 / norm)``, a zero vector left as it is).  A query
vector's similarity to word i is ``dot(row_i, query) / norm(query)``, all in
float32 summed in index order; the k best are kept by fastText's heap
(``loss.stl_heap``), so ties come out as fastText orders them.  The query
word itself (nn) or the three query words (analogies) are left out.
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)
from ..errors import TreexcError
from ..loss.stl_heap import offer, sort_heap
from ..options import check_integer


@njit(cache=True, nogil=True)
def norm32(v):
    """``Vector::norm``: the float32 sum of squares in index order, ``sqrtf``."""
    s = np.float32(0.0)
    for j in range(len(v)):
        s += v[j] * v[j]
    return np.sqrt(s)


@njit(cache=True, nogil=True)
def normalise_rows(vectors):
    """Each row times ``float32(1 / norm)``, in place, added to a zeroed
    row as fastText does (so a -0.0 becomes 0.0); a zero row stays zero."""
    for i in range(vectors.shape[0]):
        n = norm32(vectors[i])
        scale = np.float32(1.0 / np.float64(n)) if n > 0 else np.float32(0.0)
        for j in range(vectors.shape[1]):
            vectors[i, j] = np.float32(0.0) + scale * vectors[i, j] if n > 0 else 0.0


@njit(cache=True, nogil=True)
def analogy_query(a, b, c):
    """``a / |a| - b / |b| + c / |c|`` with fastText's float32 steps."""
    query = np.zeros(len(a), dtype=np.float32)
    for vec, sign in ((a, 1.0), (b, -1.0), (c, 1.0)):
        scale = np.float32(sign / (np.float64(norm32(vec)) + 1e-8))
        for j in range(len(query)):
            query[j] += scale * vec[j]
    return query


@njit(cache=True, nogil=True)
def nearest(vectors, query, k, banned, out_score, out_word):
    """The ``k`` rows of ``vectors`` most similar to ``query`` (``banned``
    row ids left out), best first; returns how many."""
    if k <= 0:
        return 0
    query_norm = norm32(query)
    if abs(query_norm) < 1e-8:
        query_norm = np.float32(1.0)
    heap_score = np.empty(k + 1, dtype=np.float32)
    heap_word = np.empty(k + 1, dtype=np.int64)
    size = 0
    for i in range(vectors.shape[0]):
        skip = False
        for b in banned:
            if b == i:
                skip = True
        if skip:
            continue
        d = np.float32(0.0)
        for j in range(len(query)):
            d += vectors[i, j] * query[j]
        size = offer(heap_score, heap_word, size, k, d / query_norm, i)
    sort_heap(heap_score, heap_word, size)
    out_score[:size] = heap_score[:size]
    out_word[:size] = heap_word[:size]
    return size


def check_neighbour_count(k):
    """``nn``'s and ``analogies``' K (and the Python API's ``k`` of
    ``get_nearest_neighbors`` and ``get_analogies``): an integer >= 1 (0 or
    less would answer every query with nothing)."""
    check_integer("k", k)
    if k < 1:
        raise TreexcError(f"k {k}: needs to be 1 or higher")


def neighbours(model, query, k, banned_words, decode):
    """``[(similarity, word), ...]`` of the ``k`` vocabulary words nearest
    to ``query`` (float32 vector), leaving out ``banned_words`` (str)."""
    vectors = model.normalised_word_vectors()
    d = model.dictionary
    banned = np.array([i for i in (d.word_id(w) for w in banned_words) if i >= 0],
                      dtype=np.int64)
    k = int(k)
    n = max(0, min(k, vectors.shape[0]))
    scores = np.empty(n, dtype=np.float32)
    words = np.empty(n, dtype=np.int64)
    size = nearest(vectors, np.ascontiguousarray(query, dtype=np.float32), min(k, n),
                   banned, scores, words)
    return [(float(scores[r]), decode(d.entry_bytes(int(words[r])))) for r in range(size)]
