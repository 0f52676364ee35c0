"""Vocabulary of words and labels, and encoding text into id arrays.

Words and labels share one entry space as in fastText: entries
``0..nwords-1`` are words (most frequent first), then the labels (most
frequent first).  Ties keep the order of first occurrence, so a vocabulary
is a deterministic function of the file.

Entries are byte strings; as ``str`` they are decoded with
``surrogateescape`` (``textio.to_str``), so a word with invalid UTF-8 keeps
its bytes through ``words()``, ``word_id()`` and the ``.vec`` file.
"""

from dataclasses import dataclass

import numpy as np

from ..errors import TreexcError
from ..io.textio import to_bytes, to_str, warn
from . import count_kernels as ck
from . import kernels as tk
from . import table


@dataclass
class Corpus:
    """A text file encoded into compressed-sparse-row arrays, one row a line."""

    feat_off: np.ndarray   # int64 (n_lines + 1,)
    feats: np.ndarray      # int32: input-matrix rows (words, n-gram buckets)
    label_off: np.ndarray  # int64 (n_lines + 1,)
    labels: np.ndarray     # int32: label ids
    ntokens: np.ndarray    # int32 (n_lines,): tokens per line, as fastText counts
    bare_first: int = -1   # first line (0-based) with labels but no words
    bare_count: int = 0
    usable: bool = True    # some line has labels and words (drop_bare_lines)
    labelled: int = 0      # lines with at least one label (drop_bare_lines)
    label_pairs: int = 0   # distinct (line, label) pairs (drop_bare_lines)
    known_tokens: int = -1  # the sum of ntokens where known (the token cache's index)
    # where the arrays can be read without mapping them in (the token cache's
    # io.bigarrays.MappedArrays), or None: they are in memory
    source: object = None

    @property
    def labels_per_line(self):
        """Mean number of distinct labels of a labelled line (after
        drop_bare_lines): 1 for single-label data."""
        return self.label_pairs / self.labelled if self.labelled else 0.0

    def token_count(self):
        """Tokens of all lines, as fastText counts them.  From the token
        cache's index where it says: summing the mapped ``ntokens`` would
        bring 4 bytes a line into memory (14 MB on gutenberg_books x16)."""
        return self.known_tokens if self.known_tokens >= 0 else int(self.ntokens.sum())

    @property
    def n_lines(self):
        return len(self.ntokens)

    @property
    def nbytes(self):
        """Bytes of the encoded arrays (what an epoch reads)."""
        return sum(a.nbytes for a in (self.feat_off, self.feats, self.label_off, self.labels,
                                      self.ntokens))

    def read_into(self, name, start, out):
        """``out[:] = <array name>[start:start + len(out)]``, from the file
        when the arrays are a mapping (``source``), so that nothing is mapped in."""
        if self.source is not None:
            self.source.read_into(name, start, out)
        else:
            out[:] = getattr(self, name)[start:start + len(out)]

    def skip_bare_lines(self, eos_id, name):
        """Leave lines with labels but no words out of training (their labels
        are dropped: the kernels skip a line without labels), with one
        warning; raise if no line is left to train on.

        fastText 0.9.2 trains such a line on the ``</s>`` row alone; a line
        without text teaches nothing about text, so it is skipped here.  A
        line's words are its tokens other than its labels and ``</s>``
        (unknown words count: the line has text); a label below
        -minCountLabel next to known ones counts as a word here.
        """
        self.drop_bare_lines(eos_id, last_piece=True)
        self.report_bare_lines(name)

    def report_bare_lines(self, name):
        """The warning about the lines :meth:`drop_bare_lines` dropped, or
        the error when no line is left to train on."""
        report_bare_lines(name, self.bare_count, self.bare_first, self.usable)

    def drop_bare_lines(self, eos_id, last_piece):
        """The work of :meth:`skip_bare_lines` without its message, on a
        corpus that may be one piece of a file (``last_piece``: whether the
        file's last line is its last line): sets ``bare_count``,
        ``bare_first`` (0-based in the piece) and ``usable`` (some line is
        left to train on), and returns ``usable``."""
        n_labels = np.diff(self.label_off)
        has_eos = np.ones(self.n_lines, dtype=np.int64)
        if self.n_lines and last_piece:  # no </s> without a final newline
            last = self.feats[self.feat_off[-2]:self.feat_off[-1]]
            has_eos[-1] = int(eos_id >= 0 and (last == eos_id).any())
        bare = (n_labels > 0) & (self.ntokens - n_labels - has_eos <= 0)
        lines = np.flatnonzero(bare)
        self.bare_count = len(lines)
        self.bare_first = int(lines[0]) if len(lines) else -1
        if len(lines):
            keep = np.repeat(~bare, n_labels)
            self.labels = self.labels[keep]
            n_labels = n_labels * ~bare
            self.label_off = np.concatenate([[0], np.cumsum(n_labels)])
        labelled = n_labels > 0
        self.labelled = int(labelled.sum())
        line = np.repeat(np.arange(self.n_lines, dtype=np.int64), n_labels)
        self.label_pairs = len(np.unique(line << 32 | self.labels.astype(np.int64)))
        self.usable = bool((labelled & (np.diff(self.feat_off) > 0)).any())
        return self.usable


def report_bare_lines(name, bare_count, bare_first, usable):
    """The warning about skipped bare lines, or the error when no line is
    left to train on (``usable`` false)."""
    what = (f"{bare_count} line(s) with labels but no words (first: line "
            f"{bare_first + 1})")
    if not usable:
        raise TreexcError(f"{name}: no line has both labels and words"
                          + (f"; {what}" if bare_count else ""))
    if bare_count:
        warn(f"{name}: {what} skipped")


class Dictionary:
    """Entries' bytes live in ``pool``; ``entry_off``/``entry_len`` index it."""

    def __init__(self, pool, entry_off, entry_len, counts, nwords, label_prefix,
                 word_ngrams, bucket, minn, maxn):
        self.pool = np.ascontiguousarray(pool, dtype=np.uint8)
        self.entry_off = np.ascontiguousarray(entry_off, dtype=np.int64)
        self.entry_len = np.ascontiguousarray(entry_len, dtype=np.int32)
        self.counts = np.ascontiguousarray(counts, dtype=np.int64)
        self.nwords = int(nwords)
        self.label_prefix = label_prefix
        self.word_ngrams = int(word_ngrams)
        self.bucket = int(bucket)
        self.minn = int(minn)
        self.maxn = int(maxn)
        self._table = None

    @property
    def nlabels(self):
        return len(self.entry_off) - self.nwords

    @property
    def label_counts(self):
        return self.counts[self.nwords:]

    def entry_bytes(self, i):
        off = self.entry_off[i]
        return bytes(self.pool[off:off + self.entry_len[i]])

    def entry(self, i):
        return to_str(self.entry_bytes(i))

    def word(self, i):
        return self.entry(i)

    def label(self, i):
        return self.entry(self.nwords + i)

    def words(self):
        return [self.entry(i) for i in range(self.nwords)]

    def labels(self):
        return [self.label(i) for i in range(self.nlabels)]

    def table(self):
        if self._table is None:
            self._table = table.build_table(self.entry_off, self.entry_len, self.pool,
                                            table.PROBE_SEED)
        return self._table

    def word_id(self, word):
        """Id of ``word`` (str, or bytes) or -1."""
        raw = np.frombuffer(word if isinstance(word, bytes) else to_bytes(word),
                            dtype=np.uint8)
        slots, entry_hash = self.table()
        e = table.find_bytes(slots, entry_hash, self.entry_off, self.entry_len, self.pool,
                             raw, table.PROBE_SEED)
        return e if 0 <= e < self.nwords else -1

    def eos_id(self):
        return self.word_id("</s>")

    def encode(self, data):
        """Encode checked text (``uint8`` array) into a :class:`Corpus`."""
        slots, entry_hash = self.table()
        prefix = np.frombuffer(to_bytes(self.label_prefix), dtype=np.uint8)
        return Corpus(*tk.encode_lines(
            data, slots, entry_hash, self.entry_off, self.entry_len, self.pool,
            self.nwords, self.eos_id(), prefix, self.word_ngrams, self.bucket,
            self.minn, self.maxn, table.PROBE_SEED))

    def add_words(self, words):
        """Add words (e.g. from pretrained vectors) that are not yet known.

        New words get count 0 and go after the known words, before labels.
        """
        new = [w for w in dict.fromkeys(words) if self.word_id(w) < 0]
        if not new:
            return
        blobs = [to_bytes(w) for w in new]
        lens = np.array([len(b) for b in blobs], dtype=np.int32)
        offs = len(self.pool) + np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.int64)
        self.pool = np.concatenate([self.pool, np.frombuffer(b"".join(blobs), dtype=np.uint8)])
        nw = self.nwords
        self.entry_off = np.concatenate([self.entry_off[:nw], offs, self.entry_off[nw:]])
        self.entry_len = np.concatenate([self.entry_len[:nw], lens, self.entry_len[nw:]])
        self.counts = np.concatenate([self.counts[:nw], np.zeros(len(new), np.int64),
                                      self.counts[nw:]])
        self.nwords += len(new)
        self._table = None


def check_duplicates(entry_off, entry_len, pool):
    """The vocabulary's hash table ``(slots, entry_hash)`` of a model file's
    entries, refusing duplicate entries with ``ValueError`` (a table holding
    them could cost quadratic time to build)."""
    slots, entry_hash, duplicate = table.build_table_checked(entry_off, entry_len, pool,
                                                             table.PROBE_SEED)
    if duplicate >= 0:
        raise ValueError(f"vocabulary entry {duplicate} appears twice")
    return slots, entry_hash


class TokenCounter:
    """Counts the tokens of a file given piece by piece (pieces of whole
    lines, but maybe the last), in memory bounded by its vocabulary:
    ``counted()`` is what ``count_kernels.count_tokens`` gives for the whole file.
    Given ``label_prefix`` (bytes), the same pass keeps each line's distinct
    label entries (``label_rows``)."""

    def __init__(self, label_prefix=None):
        *self._arrays, self._state = ck.new_count_arrays(1 << 20, table.PROBE_SEED)
        if label_prefix is None:
            self._prefix = np.empty(0, dtype=np.uint8)
            self._rows = np.empty((0, 4), dtype=np.int64)
        else:
            # a writable copy: the kernel compiled once for both kinds of count
            self._prefix = np.frombuffer(label_prefix, dtype=np.uint8).copy()
            self._rows = np.empty((1 << 16, 4), dtype=np.int64)

    def add(self, data):
        *arrays, self._rows = ck.count_more(data, *self._arrays, self._state, self._prefix,
                                            self._rows)
        self._arrays = arrays

    def counted(self):
        """``(entry_off, entry_len, counts, pool)``, as count_tokens."""
        _, entry_off, entry_len, _, counts, pool = self._arrays
        n, used = self._state[ck.N_ENTRIES], self._state[ck.POOL_USED]
        return entry_off[:n], entry_len[:n], counts[:n], pool[:used]

    def label_rows(self):
        """A row ``(line, entry, tokens, words)`` per distinct label entry
        of each line counted (``count_kernels.count_more``), in the file's order."""
        return self._rows[:self._state[ck.N_ROWS]]


def build_dictionary(data, args, name):
    """Count the tokens of ``data`` and keep those passing the thresholds."""
    return dictionary_from_counts(ck.count_tokens(data, table.PROBE_SEED)[:4], args, name)


def dictionary_from_counts(counted, args, name, labels_needed=True):
    """The dictionary of counted tokens (``TokenCounter.counted``): the
    tokens passing the thresholds.  ``labels_needed``: a file without labels
    is refused (the classifier; word vectors train on words alone)."""
    entry_off, entry_len, counts, pool = counted
    prefix = np.frombuffer(to_bytes(args.label), dtype=np.uint8)
    is_label = tk.mark_labels(entry_off, entry_len, pool, prefix)
    seen = counts > 0  # </s> has count 0 when the file has no newline
    word_ids = np.flatnonzero(seen & ~is_label & (counts >= args.minCount))
    label_ids = np.flatnonzero(seen & is_label & (counts >= args.minCountLabel))
    if len(word_ids) + len(label_ids) == 0 and (labels_needed or not seen.any()):
        raise TreexcError(f"{name}: empty file (no tokens)")
    if len(label_ids) == 0 and labels_needed:
        if is_label.any():
            raise TreexcError(f"{name}: no label occurs at least -minCountLabel "
                              f"{args.minCountLabel} times")
        raise TreexcError(f"{name}: no labels found (labels are words starting with "
                          f"'{args.label}', e.g. '{args.label}sport some text')")
    if len(word_ids) == 0:
        raise TreexcError(f"{name}: no words found besides labels"
                          + (f" (none occurs -minCount {args.minCount} times)"
                             if args.minCount > 1 else ""))
    # most frequent first; a stable sort keeps first-occurrence order on ties
    word_ids = word_ids[np.argsort(-counts[word_ids], kind="stable")]
    label_ids = label_ids[np.argsort(-counts[label_ids], kind="stable")]
    order = np.concatenate([word_ids, label_ids])
    return Dictionary(pool, entry_off[order], entry_len[order], counts[order],
                      len(word_ids), args.label, args.wordNgrams, args.bucket,
                      args.minn, args.maxn)
