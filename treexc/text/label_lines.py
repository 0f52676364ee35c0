"""The label statistics of a training file from its counting pass alone:
the label counts (the dictionary's) and the mean number of distinct labels
of a labelled line, exactly as the encoded corpus gives them
(``Corpus.labels_per_line``: bare lines, with labels but no words,
dropped; labels below ``-minCountLabel`` ignored), without encoding it.

While the file is counted piece by piece, each line's label tokens are
looked up in the count's own table (the piece is counted first, so every
token of it is there) and the line's distinct label entries kept as
``(line, entry)`` pairs where the line has a word; which entries are labels
the dictionary keeps is known once the whole file is counted.  What
``treexc supervised -plan`` reads (``classify/plan.py``).
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)
from ..io.textio import ByteCheck, read_line_chunks, to_bytes, warn
from .dictionary import TokenCounter, dictionary_from_counts
from .kernels import has_prefix, is_separator, mark_labels
from .table import fnv_hash, table_find


@njit(cache=True, nogil=True)
def line_label_entries(buf, prefix, slots, entry_hash, entry_off, entry_len, pool, first_line,
                       pairs, n_pairs):
    """Append ``(line, entry)`` to ``pairs`` (int64 rows, ``n_pairs`` used)
    for each distinct label token of each line of ``buf`` that also has a
    word (a token other than labels and ``</s>``); lines numbered from
    ``first_line``.  Returns ``(pairs, n_pairs, lines in buf)``."""
    n = len(buf)
    i = 0
    line = first_line
    while i < n:
        start_pairs = n_pairs
        words = 0
        while i < n and buf[i] != 10:
            if is_separator(buf[i]):
                i += 1
                continue
            end = i
            while end < n and not is_separator(buf[end]):
                end += 1
            if has_prefix(buf, i, end, prefix):
                e = table_find(slots, entry_hash, entry_off, entry_len, pool, buf, i, end,
                               fnv_hash(buf, i, end))
                seen = False
                for k in range(start_pairs, n_pairs):
                    if pairs[k, 1] == e:
                        seen = True
                        break
                if not seen:
                    if n_pairs == len(pairs):
                        wider = np.empty((2 * len(pairs), 2), dtype=np.int64)
                        wider[:n_pairs] = pairs[:n_pairs]
                        pairs = wider
                    pairs[n_pairs, 0] = line
                    pairs[n_pairs, 1] = e
                    n_pairs += 1
            else:
                words += 1
            i = end
        if words == 0:
            n_pairs = start_pairs  # a bare line: dropped as the encoding drops it
        i += 1  # the newline
        line += 1
    return pairs, n_pairs, line - first_line


def count_with_label_lines(args, name):
    """``(dictionary, labels_per_line)`` of ``args.input``, read once."""
    counter = TokenCounter()
    prefix = np.frombuffer(to_bytes(args.label), dtype=np.uint8)
    check = ByteCheck()
    pairs, n_pairs, lines = np.empty((1 << 16, 2), dtype=np.int64), 0, 0
    for _, piece in read_line_chunks(args.input, check):
        buf = np.frombuffer(piece, dtype=np.uint8)
        counter.add(buf)
        pairs, n_pairs, n = line_label_entries(buf, prefix, *counter.table(), lines, pairs,
                                               n_pairs)
        lines += n
    byte_warning = check.message(name)
    if byte_warning:
        warn(byte_warning)
    counted = counter.counted()
    dictionary = dictionary_from_counts(counted, args, name)
    # the entries the dictionary keeps as labels (-minCountLabel), as it chose them
    entry_off, entry_len, counts, pool = counted
    kept = mark_labels(entry_off, entry_len, pool, prefix) & (counts > 0) \
        & (counts >= args.minCountLabel)
    pairs = pairs[:n_pairs]
    pairs = pairs[kept[pairs[:, 1]]]
    labelled = len(np.unique(pairs[:, 0]))
    return dictionary, (len(pairs) / labelled if labelled else 0.0)
