"""Language-model vocabulary and token streams.

The vocabulary is built with the classifier's tokeniser and counting
kernel (``count_kernels.count_tokens``): the same separators, the same
``</s>`` at each line end.  Words seen at least ``minCount`` times are kept,
most frequent first (ties in order of first occurrence); the others become
``<unk>``, the last word of the vocabulary (count = the rare words'
occurrences).  ``</s>`` is always a word, and it also pads the context
before the first token.  A file is one stream of token ids: contexts run
across line ends, as in the running text of a book.
"""

from dataclasses import dataclass

import numpy as np

from ..errors import TreexcError
from ..io.textio import display_name, read_text
from .count_kernels import count_tokens
from .dictionary import Dictionary
from .kernels import encode_stream
from .table import PROBE_SEED, build_table, find_bytes

UNK = "<unk>"
EOS = "</s>"


class Vocab:
    """Words of a language model: ``words`` ids ``0..V-1`` over a byte pool."""

    def __init__(self, pool, entry_off, entry_len, counts):
        # a Dictionary without labels gives the hash table and word lookups
        self.dictionary = Dictionary(pool, entry_off, entry_len, counts, len(entry_off),
                                     "\x00", 1, 0, 0, 0)
        self.unk_id = self.dictionary.word_id(UNK)
        self.eos_id = self.dictionary.word_id(EOS)
        if self.unk_id < 0 or self.eos_id < 0:
            raise TreexcError("corrupt vocabulary: no <unk> or </s>")

    @property
    def size(self):
        return self.dictionary.nwords

    @property
    def counts(self):
        return self.dictionary.counts

    def words(self):
        return self.dictionary.words()

    def word(self, i):
        return self.dictionary.word(i)

    def word_id(self, word):
        """Id of ``word``; ``<unk>``'s for an unknown word."""
        i = self.dictionary.word_id(word)
        return i if i >= 0 else self.unk_id

    def arrays(self):
        d = self.dictionary
        return {"pool": d.pool, "entry_off": d.entry_off, "entry_len": d.entry_len,
                "counts": d.counts}

    def encode(self, data):
        """int32 token ids of checked text (``uint8`` array)."""
        d = self.dictionary
        slots, entry_hash = d.table()
        identity = np.arange(d.nwords, dtype=np.int32)
        return encode_stream(data, slots, entry_hash, d.entry_off, d.entry_len, d.pool,
                             identity, self.eos_id, self.unk_id, PROBE_SEED)


def build_vocab(data, min_count, name):
    """Count the tokens of ``data`` and keep words seen ``min_count`` times."""
    entry_off, entry_len, counts, pool, _, _ = count_tokens(data, PROBE_SEED)
    total = int(counts.sum())
    if total == 0:
        raise TreexcError(f"{name}: empty file (no tokens)")
    if total == counts[0]:  # a model of </s> alone predicts nothing
        raise TreexcError(f"{name}: no words, only empty lines")
    if len(data) and data[-1] != 10:
        counts[0] += 1  # the final line without newline still ends with </s>
    raw = np.frombuffer(UNK.encode(), dtype=np.uint8)
    slots, entry_hash = build_table(entry_off, entry_len, pool, PROBE_SEED)
    unk = find_bytes(slots, entry_hash, entry_off, entry_len, pool, raw, PROBE_SEED)
    keep = counts >= min_count
    keep[0] = True  # </s>
    if unk >= 0:
        keep[unk] = False
    rare = int(counts[~keep].sum())
    ids = np.flatnonzero(keep)
    ids = ids[np.argsort(-counts[ids], kind="stable")]
    # a compact pool of the kept words, then <unk>
    blobs = [pool[entry_off[e]:entry_off[e] + entry_len[e]] for e in ids] + [raw]
    lens = np.array([len(b) for b in blobs], dtype=np.int32)
    offs = np.zeros(len(blobs), dtype=np.int64)
    np.cumsum(lens[:-1], out=offs[1:])
    pool = np.concatenate(blobs).astype(np.uint8)
    entry_off, entry_len = offs, lens
    counts = np.concatenate([counts[ids], [rare]]).astype(np.int64)
    return Vocab(pool, entry_off, entry_len, counts)


@dataclass
class Stream:
    name: str
    ids: np.ndarray  # int32 token ids

    @property
    def n_tokens(self):
        return len(self.ids)



def read_stream(path, vocab):
    name = display_name(path)
    ids = vocab.encode(read_text(path))
    if len(ids) == 0:
        raise TreexcError(f"{name}: empty file (no tokens)")
    if not (ids != vocab.eos_id).any():  # as build_vocab refuses such a training file
        raise TreexcError(f"{name}: no words, only empty lines")
    return Stream(name, ids)

