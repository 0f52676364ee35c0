"""The linear family's input: sparse rows, from text (tf-idf) or given.

:class:`SparseRows` is a CSR matrix (one row a line) with the lines'
labels beside it.  :class:`TfidfFeatures` turns the text dictionary's
encoded ids into such rows: the idf of every id seen in at least
``-minDf`` training lines (counted over the token cache block by block,
so a corpus larger than memory is counted through its mapping), the kept
ids renumbered compactly (``kept``: their ids in increasing order), the
end-of-line token left out (it is on every line).
"""

from dataclasses import dataclass

import numpy as np

from ..errors import TreexcError
from . import feature_kernels as fk

BIAS = 1.0  # the bias column's value (PECOS's default)
COUNT_BLOCK = 1 << 16  # lines counted per kernel call


@dataclass
class SparseRows:
    indptr: np.ndarray      # int64 (n + 1,)
    indices: np.ndarray     # int32, sorted within a row; the bias column is n_cols - 1
    data: np.ndarray        # float32
    n_cols: int             # columns, the bias column included
    label_off: np.ndarray   # int64 (n + 1,)
    labels: np.ndarray      # int32
    label_weight: np.ndarray = None  # float64 a label (text/label_weights), or None

    @property
    def n_rows(self):
        return len(self.indptr) - 1

    # what the meter reads of an encoded corpus (every row has the bias)
    @property
    def n_lines(self):
        return self.n_rows

    @property
    def feat_off(self):
        return self.indptr


class TfidfFeatures:
    """Which encoded ids are features, and their idf."""

    def __init__(self, kept, idf, n_ids, eos_id):
        self.kept = np.ascontiguousarray(kept, dtype=np.int32)
        self.idf = np.ascontiguousarray(idf, dtype=np.float32)
        self.n_ids = int(n_ids)
        self.eos_id = int(eos_id)
        self._column_of_id = None

    @property
    def n_cols(self):
        return len(self.kept) + 1  # and the bias

    @classmethod
    def fit(cls, corpus, n_ids, eos_id, min_df):
        """Count each id's lines over ``corpus`` and keep those in at least
        ``min_df``: sklearn's smooth idf, ``ln((1 + n) / (1 + df)) + 1``."""
        df = np.zeros(n_ids, dtype=np.int64)
        last = np.full(n_ids, -1, dtype=np.int64)
        n = corpus.n_lines
        for start in range(0, n, COUNT_BLOCK):
            stop = min(n, start + COUNT_BLOCK)
            off = np.asarray(corpus.feat_off[start:stop + 1])
            fk.add_document_frequencies(off - off[0], np.asarray(corpus.feats[off[0]:off[-1]]),
                                        df, last, start)
        del last
        if 0 <= eos_id < n_ids:
            df[eos_id] = 0
        kept = np.flatnonzero(df >= min_df).astype(np.int32)
        idf = np.log((1.0 + n) / (1.0 + df[kept])) + 1.0
        return cls(kept, idf, n_ids, eos_id)

    def column_of_id(self):
        if self._column_of_id is None:
            m = np.full(self.n_ids, -1, dtype=np.int32)
            m[self.kept] = np.arange(len(self.kept), dtype=np.int32)
            self._column_of_id = m
        return self._column_of_id

    def rows(self, corpus):
        """The :class:`SparseRows` of an encoded corpus (labels kept)."""
        indptr, indices, data = fk.tfidf_rows(
            np.asarray(corpus.feat_off), np.asarray(corpus.feats), self.column_of_id(),
            self.idf, BIAS)
        return SparseRows(indptr, indices, data, self.n_cols,
                          np.array(corpus.label_off), np.array(corpus.labels))


def rows_from_arrays(indptr, indices, data, labels_indptr, labels, n_features=None):
    """Checked :class:`SparseRows` of CSR arrays (copied), the bias column
    ``n_features`` (default: one past the largest index) appended."""
    indptr = np.asarray(indptr, dtype=np.int64)
    indices = np.asarray(indices)
    data = np.asarray(data, dtype=np.float32)
    label_off = np.asarray(labels_indptr, dtype=np.int64)
    label_ids = np.asarray(labels)
    n = len(indptr) - 1
    if indptr.ndim != 1 or n < 0 or indptr[0] != 0 or (np.diff(indptr) < 0).any() \
            or indptr[-1] != len(indices) or len(indices) != len(data):
        raise TreexcError("features: indptr must rise from 0 to len(indices) == len(data)")
    if len(label_off) != n + 1 or label_off[0] != 0 or (np.diff(label_off) < 0).any() \
            or label_off[-1] != len(label_ids):
        raise TreexcError("labels: labels_indptr must have one offset per row and one more, "
                          "rising from 0 to len(labels)")
    if len(indices) and indices.min() < 0:
        raise TreexcError("features: negative column index")
    if len(label_ids) and label_ids.min() < 0:
        raise TreexcError("labels: negative label id")
    if not np.isfinite(data).all():
        raise TreexcError("features: NaN or infinite values")
    width = int(indices.max()) + 1 if len(indices) else 0
    n_features = width if n_features is None else int(n_features)
    if width > n_features or n_features >= 2 ** 31 - 1:
        raise TreexcError(f"features: a column index beyond {n_features} columns")
    counts = np.diff(indptr)
    out_ptr = np.concatenate([[0], np.cumsum(counts + 1)]).astype(np.int64)
    out_idx = np.empty(out_ptr[-1], dtype=np.int32)
    out_val = np.empty(out_ptr[-1], dtype=np.float32)
    place = np.ones(out_ptr[-1], dtype=bool)
    place[out_ptr[1:] - 1] = False  # each row's last place: the bias
    out_idx[place], out_val[place] = indices.astype(np.int32), data
    out_idx[~place], out_val[~place] = n_features, BIAS
    fk.sort_rows(out_ptr, out_idx, out_val)
    same = (np.diff(out_idx) == 0) & (np.diff(np.repeat(np.arange(n), counts + 1)) == 0)
    if same.any():
        row = int(np.repeat(np.arange(n), counts + 1)[np.flatnonzero(same)[0]])
        raise TreexcError(f"features: row {row} has a column twice")
    return SparseRows(out_ptr, out_idx, out_val, n_features + 1, label_off,
                      label_ids.astype(np.int32))
