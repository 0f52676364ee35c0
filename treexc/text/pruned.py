"""A dictionary pruned by ``quantize -cutoff``: fewer words, and only some
n-gram buckets kept.

fastText's ``Dictionary::prune``: the words kept stay in their order (a
pruned word becomes unknown: it no longer has a row, but its hash still
enters word n-grams, as any unknown word's), the labels all stay, and the
hashed n-gram buckets kept get rows after the words.  Hashing must still
find a kept bucket: text is encoded exactly as before (a bucket is
``nwords + hash % bucket``, with the model's ``-bucket``), then each
bucket feature is renumbered to its kept row, or dropped when its bucket
was pruned (fastText's ``pruneidx``; a dropped feature does not count in
the line's mean either).  Kept buckets are stored sorted, so the
renumbering is a binary search.
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)
from ..array_kernels import searchsorted
from .dictionary import Corpus, Dictionary


@njit(cache=True, nogil=True)
def keep_buckets(feat_off, feats, nwords, kept):
    """``(feat_off, feats)`` with every bucket feature (``>= nwords``)
    renumbered to ``nwords + its index in kept`` (sorted bucket numbers),
    or dropped when its bucket is not in ``kept``."""
    out_off = np.empty_like(feat_off)
    out = np.empty_like(feats)
    n = 0
    out_off[0] = 0
    for line in range(len(feat_off) - 1):
        for k in range(feat_off[line], feat_off[line + 1]):
            f = feats[k]
            if f >= nwords:
                b = f - nwords
                j = searchsorted(kept, b, False)
                if j == len(kept) or kept[j] != b:
                    continue
                f = nwords + j
            out[n] = f
            n += 1
        out_off[line + 1] = n
    return out_off, out[:n].copy()


class PrunedDictionary(Dictionary):
    """A :class:`Dictionary` whose input rows are its words, then the
    buckets ``kept_buckets`` (sorted bucket numbers) in that order."""

    def __init__(self, pool, entry_off, entry_len, counts, nwords, label_prefix,
                 word_ngrams, bucket, minn, maxn, kept_buckets):
        super().__init__(pool, entry_off, entry_len, counts, nwords, label_prefix,
                         word_ngrams, bucket, minn, maxn)
        self.kept_buckets = np.ascontiguousarray(kept_buckets, dtype=np.int64)

    @property
    def n_rows(self):
        """Rows of the input matrix: words, then the kept buckets."""
        return self.nwords + len(self.kept_buckets)

    def encode(self, data):
        c = super().encode(data)
        feat_off, feats = keep_buckets(c.feat_off, c.feats, self.nwords, self.kept_buckets)
        return Corpus(feat_off, feats, c.label_off, c.labels, c.ntokens, c.bare_first,
                      c.bare_count)


def prune(dictionary, rows):
    """The dictionary keeping the input rows ``rows`` (sorted row numbers of
    ``dictionary``'s input matrix: words, then buckets) and every label."""
    d = dictionary
    rows = np.asarray(rows, dtype=np.int64)
    words = rows[rows < d.nwords]
    entries = np.concatenate([words, np.arange(d.nwords, len(d.entry_off))])
    # a pool of the kept entries' bytes only (the pruned words' would stay in
    # the file otherwise)
    lengths = d.entry_len[entries].astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    take = np.repeat(d.entry_off[entries] - offsets, lengths) + np.arange(lengths.sum())
    return PrunedDictionary(d.pool[take], offsets, lengths.astype(np.int32),
                            d.counts[entries], len(words), d.label_prefix, d.word_ngrams,
                            d.bucket, d.minn, d.maxn, rows[rows >= d.nwords] - d.nwords)
