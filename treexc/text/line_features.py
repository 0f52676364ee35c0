"""One line's features with Python and numpy alone, as
``text.kernels.encode_lines`` computes them (the first answers of
``predict`` in both classifier families come through here, before Numba
is imported: ``classify/firstlines.py``, ``linear/firstlines.py``).

fastText's separators, ``</s>`` at a newline, labels skipped, FNV-1a on
sign-extended bytes (``text.table``), character n-grams of ``<word>``
counted in UTF-8 characters, word n-grams ``h * 116049371 + next``; and the
vocabulary's duplicate check of ``text.dictionary.check_duplicates``, with
its message.
"""

import re

from ..io.textio import to_bytes

# A token is a run of bytes other than fastText's separators (a newline ends
# the line with </s>).
_TOKEN = re.compile(rb"[^ \n\r\t\v\f\x00]+")


def fnv_hash(raw):
    """fastText's 32-bit FNV-1a over sign-extended bytes (``text.table``)."""
    h = 2166136261
    for b in raw:
        if b >= 128:
            b |= 0xFFFFFF00
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def signed_widen(h):  # text.table.signed_widen
    return h | 0xFFFFFFFF00000000 if h >= 0x80000000 else h


EOS_HASH = signed_widen(fnv_hash(b"</s>"))


def vocabulary_entries(pool, entry_off, entry_len):
    """Every entry's bytes, and ``{bytes: id}``; a duplicate entry is
    refused as ``text.dictionary.check_duplicates`` does."""
    raw = pool.tobytes()
    keys = [raw[o:o + n] for o, n in zip(entry_off.tolist(), entry_len.tolist())]
    ids = dict(zip(reversed(keys), range(len(keys) - 1, -1, -1)))  # the first wins
    if len(ids) != len(keys):
        duplicate = next(i for i, key in enumerate(keys) if ids[key] != i)
        raise ValueError(f"vocabulary entry {duplicate} appears twice")
    return keys, ids


def split_piece(piece):
    """The lines of ``piece`` (bytes) and whether each ended with a newline
    (a final line without one has no ``</s>``)."""
    lines = piece.split(b"\n")
    last = lines.pop()
    eos = [True] * len(lines)
    if last:
        lines.append(last)
        eos.append(False)
    return lines, eos


class LineEncoder:
    """The dictionary's encoding of one line: entry ids ``entry_ids``
    (``{bytes: id}``, words ``0..nwords-1`` then labels), the label
    prefix, ``wordNgrams``, ``bucket``, ``minn`` and ``maxn``."""

    def __init__(self, entry_ids, nwords, label, word_ngrams, bucket, minn, maxn):
        self.entry_ids, self.nwords = entry_ids, nwords
        self.prefix = to_bytes(label)
        self.word_ngrams, self.bucket, self.minn, self.maxn = word_ngrams, bucket, minn, maxn
        eos = entry_ids.get(b"</s>", -1)
        self.eos_id = eos if eos < nwords else -1

    def features(self, line, has_eos):
        """Input ids of one line (bytes without its newline), in the
        kernel's order: per token its word id and character n-grams, then
        the word n-gram buckets."""
        ids, nwords, bucket = self.entry_ids, self.nwords, self.bucket
        feats, hashes = [], []
        tokens = _TOKEN.findall(line) + ([None] if has_eos else [])
        for token in tokens:
            if token is None:  # the newline: </s>
                if self.eos_id >= 0:
                    feats.append(self.eos_id)
                hashes.append(EOS_HASH)
                continue
            e = ids.get(token, -1)
            if e >= nwords or (e < 0 and token.startswith(self.prefix)):
                continue  # a label, known or not
            if e >= 0:
                feats.append(e)
            # fastText gives </s> no character n-grams, also spelled out
            if self.maxn > 0 and token != b"</s>":
                feats.extend(self._char_ngrams(token))
            hashes.append(signed_widen(fnv_hash(token)))
        for a in range(len(hashes)):
            hh = hashes[a]
            for b in range(a + 1, min(len(hashes), a + self.word_ngrams)):
                hh = (hh * 116049371 + hashes[b]) & 0xFFFFFFFFFFFFFFFF
                feats.append(nwords + hh % bucket)
        return feats

    def _char_ngrams(self, token):
        word = b"<" + token + b">"
        n_bytes, minn, maxn = len(word), self.minn, self.maxn
        out = []
        for i in range(n_bytes):
            if word[i] & 0xC0 == 0x80:  # a UTF-8 continuation byte
                continue
            j, n = i, 1
            while j < n_bytes and n <= maxn:
                j += 1
                while j < n_bytes and word[j] & 0xC0 == 0x80:
                    j += 1
                if n >= minn and not (n == 1 and (i == 0 or j == n_bytes)):
                    out.append(self.nwords + fnv_hash(word[i:j]) % self.bucket)
                n += 1
        return out
