"""Numba kernels of the sparse features: document frequencies and tf-idf rows.

A line's encoded ids (``text.dictionary.Corpus``: words, then hashed word
n-gram buckets) become one sparse row: each kept id once, weighted by
``(1 + ln tf) * idf`` (sublinear tf), the row scaled to unit l2 norm, its
columns sorted, and a bias column (the last, value 1) appended.  These are
scikit-learn's ``TfidfVectorizer(sublinear_tf=True, min_df=2)`` features,
which the field's tools are run on, computed without it.
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)
from ..array_kernels import grown


@njit(cache=True, nogil=True)
def add_document_frequencies(feat_off, feats, df, last_line, line_base):
    """Add to ``df[id]`` the lines ``feat_off`` holds each id in (once a
    line).  ``last_line`` (as long as ``df``, -1 at first) carries the last
    line an id was counted for across calls; ``line_base`` numbers this
    call's first line."""
    for i in range(len(feat_off) - 1):
        line = line_base + i
        for k in range(feat_off[i], feat_off[i + 1]):
            f = feats[k]
            if last_line[f] != line:
                last_line[f] = line
                df[f] += 1


@njit(cache=True, nogil=True)
def tfidf_rows(feat_off, feats, feature_of_id, idf, bias_value):
    """The tf-idf rows of encoded lines: ``(indptr, indices, data)``, each
    row's kept ids (``feature_of_id[id] >= 0``) as compact columns,
    sorted, weighted ``(1 + ln tf) * idf[column]``, l2-normalised, then the
    bias column ``len(idf)`` with ``bias_value`` (none when it is 0)."""
    n = len(feat_off) - 1
    n_features = len(idf)
    has_bias = bias_value != 0.0
    upper = len(feats) + (n if has_bias else 0)
    indptr = np.zeros(n + 1, dtype=np.int64)
    indices = np.empty(max(upper, 1), dtype=np.int32)
    data = np.empty(max(upper, 1), dtype=np.float32)
    tf = np.zeros(n_features, dtype=np.int32)
    cols = np.empty(16, dtype=np.int32)
    values = np.empty(16, dtype=np.float64)
    out = 0
    for i in range(n):
        m = 0
        for k in range(feat_off[i], feat_off[i + 1]):
            c = feature_of_id[feats[k]]
            if c < 0:
                continue
            if tf[c] == 0:
                if m == len(cols):
                    cols = grown(cols, 2 * m)
                cols[m] = c
                m += 1
            tf[c] += 1
        if len(values) < m:
            values = np.empty(len(cols), dtype=np.float64)
        order = np.argsort(cols[:m])
        norm = 0.0
        for j in range(m):
            c = cols[order[j]]
            v = (1.0 + np.log(tf[c])) * idf[c]
            values[j] = v
            norm += v * v
            tf[c] = 0
        scale = 1.0 / np.sqrt(norm) if norm > 0.0 else 0.0
        for j in range(m):
            indices[out] = cols[order[j]]
            data[out] = values[j] * scale
            out += 1
        if has_bias:
            indices[out] = n_features
            data[out] = bias_value
            out += 1
        indptr[i + 1] = out
    return indptr, indices[:out].copy(), data[:out].copy()


@njit(cache=True, nogil=True)
def sort_rows(indptr, indices, data):
    """Sort each row's columns in place (given sparse input), summing none:
    a column given twice on a line stays twice (the reader refuses it)."""
    for i in range(len(indptr) - 1):
        a, b = indptr[i], indptr[i + 1]
        if b - a < 2:
            continue
        order = np.argsort(indices[a:b], kind="mergesort")
        cols = indices[a:b][order]
        vals = data[a:b][order]
        indices[a:b] = cols
        data[a:b] = vals
