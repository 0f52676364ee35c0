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

    @property
    def n_rows(self):
        return len(self.indptr) - 1


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
