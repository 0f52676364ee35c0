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
from .kernels import eos_bytes, has_prefix, is_separator, mark_labels
from .table import PROBE_SEED, bytes_equal, probe_hash, table_find


@njit(cache=True, nogil=True)
def line_label_entries(buf, prefix, slots, entry_hash, entry_off, entry_len, pool, seed,
                       first_line, rows, n_rows):
    """Append a row ``(line, entry, tokens, words)`` to ``rows`` (int64,
    ``n_rows`` used) for each distinct label entry of each line of ``buf``:
    the line's number (from ``first_line``), the count's entry id (its table
    probed under ``seed``), how many of the line's tokens spell it, and the
    line's other tokens less its
    ``</s>`` (what ``Corpus.drop_bare_lines`` weighs: a last line without
    a newline counts a literal ``</s>`` as its end).  Returns ``(rows,
    n_rows, lines in buf)``."""
    n = len(buf)
    eos = eos_bytes()
    i = 0
    line = first_line
    while i < n:
        start_rows = n_rows
        words = 0
        eos_literal = False
        while i < n and buf[i] != 10:
            if is_separator(buf[i]):
                i += 1
                continue
            end = i
            while end < n and not is_separator(buf[end]):
                end += 1
            if has_prefix(buf, i, end, prefix):  # only labels are looked up
                e = table_find(slots, entry_hash, entry_off, entry_len, pool, buf, i, end,
                               probe_hash(buf, i, end, seed))
                seen = False
                for k in range(start_rows, n_rows):
                    if rows[k, 1] == e:
                        rows[k, 2] += 1
                        seen = True
                        break
                if not seen:
                    if n_rows == len(rows):
                        wider = np.empty((2 * len(rows), 4), dtype=np.int64)
                        wider[:n_rows] = rows[:n_rows]
                        rows = wider
                    rows[n_rows, 0] = line
                    rows[n_rows, 1] = e
                    rows[n_rows, 2] = 1
                    n_rows += 1
            else:
                words += 1
                eos_literal = eos_literal or (end - i == 4 and bytes_equal(buf, i, 4, eos, 0))
            i = end
        # a line's newline is its </s>; the file's last line without one ends
        # at a literal </s> if it has one (drop_bare_lines' has_eos)
        if i == n and eos_literal:
            words -= 1
        for k in range(start_rows, n_rows):
            rows[k, 3] = words
        i += 1  # the newline
        line += 1
    return rows, n_rows, line - first_line


def count_with_label_lines(args, name):
    """``(dictionary, labels_per_line)`` of ``args.input``, read once."""
    counter = TokenCounter()
    prefix = np.frombuffer(to_bytes(args.label), dtype=np.uint8)
    check = ByteCheck()
    rows, n_rows, lines = np.empty((1 << 16, 4), dtype=np.int64), 0, 0
    for _, piece in read_line_chunks(args.input, check):
        buf = np.frombuffer(piece, dtype=np.uint8)
        counter.add(buf)
        rows, n_rows, n = line_label_entries(buf, prefix, *counter.table(), PROBE_SEED, lines,
                                             rows, n_rows)
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
    rows = rows[:n_rows]
    line, entry, tokens, words = rows.T
    known = kept[entry]
    # a line is bare where its tokens are all known labels: unknown labels count as words
    first = np.unique(line, return_index=True)[1]
    other = np.add.reduceat(np.where(known, 0, tokens), first) + words[first] if len(rows) \
        else np.zeros(0, dtype=np.int64)
    has_label = np.add.reduceat(known.astype(np.int64), first) > 0 if len(rows) \
        else np.zeros(0, dtype=bool)
    kept_lines = (other > 0) & has_label
    labelled = int(kept_lines.sum())
    pairs = int(np.repeat(kept_lines, np.diff(np.append(first, len(rows))))[known].sum())
    return dictionary, (pairs / labelled if labelled else 0.0)
