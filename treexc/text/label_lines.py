"""The label statistics of a training file from its counting pass alone:
the label counts (the dictionary's) and the mean number of distinct labels
of a labelled line, exactly as the encoded corpus gives them
(``Corpus.labels_per_line``: bare lines, with labels but no words,
dropped; labels below ``-minCountLabel`` ignored), without encoding it.

The counting kernel keeps, in the same pass over the bytes, each line's
distinct label entries with the line's other tokens
(``TokenCounter(label_prefix)``, ``count_kernels.count_more``); which entries are
labels the dictionary keeps is known once the whole file is counted.  What
``treexc supervised -plan`` reads (``classify/plan.py``).
"""

import numpy as np

from ..io.textio import ByteCheck, read_line_chunks, to_bytes, warn
from .dictionary import TokenCounter, dictionary_from_counts
from .kernels import mark_labels


def count_with_label_lines(args, name):
    """``(dictionary, labels_per_line)`` of ``args.input``, read once."""
    counter = TokenCounter(label_prefix=to_bytes(args.label))
    prefix = np.frombuffer(to_bytes(args.label), dtype=np.uint8)
    check = ByteCheck()
    for _, piece in read_line_chunks(args.input, check):
        counter.add(np.frombuffer(piece, dtype=np.uint8))
    byte_warning = check.message(name)
    if byte_warning:
        warn(byte_warning)
    counted = counter.counted()
    dictionary = dictionary_from_counts(counted, args, name)
    # the entries the dictionary keeps as labels (-minCountLabel), as it chose them
    entry_off, entry_len, counts, pool = counted
    kept = mark_labels(entry_off, entry_len, pool, prefix) & (counts > 0) \
        & (counts >= args.minCountLabel)
    rows = counter.label_rows()
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
