"""Streaming prediction: answer each line as soon as it has been read.

Input is read in whatever pieces the pipe delivers (``os.read`` returns what
is available; ``textio.read_chunks``, which also gunzips), cut after the
last newline, and each piece's complete lines are encoded and predicted in
one kernel call.  So a slow producer gets an answer per line at once, and a
fast one gets batch throughput.

Every input line gets exactly one output line, whatever its bytes (see
``textio``): labels are printed with control characters escaped
(``textio.printable``), so a label cannot split an answer in two.
"""

import numpy as np

from ..io import textio
from ..errors import TreexcError
from ..io.textio import ByteCheck, display_name, printable, read_chunks, to_bytes

READ_SIZE = textio.READ_SIZE
# A line is answered once it is whole; one longer than this (``/dev/zero``,
# a binary file) is refused instead of held in memory without end.
MAX_LINE_BYTES = 1 << 28


def read_line_chunks(path, check=None):
    """Yield ``(first_line_number, bytes)`` pieces made of whole lines; the
    last piece may lack its final newline.  ``check`` (a
    :class:`textio.ByteCheck`) is shown every piece."""
    pending = []  # the bytes since the last newline, in pieces: a line of
    line_no = 1   # gigabytes is joined once, not copied at every read
    pending_bytes = 0
    for chunk in read_chunks(path, READ_SIZE):
        cut = chunk.rfind(b"\n")
        if cut < 0:
            pending.append(chunk)
            pending_bytes += len(chunk)
            if pending_bytes > MAX_LINE_BYTES:
                raise TreexcError(f"{display_name(path)}: line {line_no}: longer than "
                                  f"{MAX_LINE_BYTES >> 20} MiB (no end of line)")
            continue
        pending_bytes = len(chunk) - cut - 1
        pending.append(chunk[:cut + 1])
        piece = b"".join(pending)
        pending = [chunk[cut + 1:]] if cut + 1 < len(chunk) else []
        if check is not None:
            check.add(piece, line_no)
        yield line_no, piece
        line_no += piece.count(b"\n")
    if pending:
        piece = b"".join(pending)
        if check is not None:
            check.add(piece, line_no)
        yield line_no, piece


def label_names(model):
    """Printable label names, plus ``""`` for a slot with no label."""
    return np.array([printable(name) for name in model.get_labels()] + [""], dtype=object)


def stream_predictions(model, path, k, threshold, with_prob):
    """Yield output bytes, one line per input line, piece by piece; then warn
    once if some lines held invalid UTF-8 or NUL bytes."""
    names = label_names(model)
    check = ByteCheck()
    for _, piece in read_line_chunks(path, check):
        corpus = model.encode_text(np.frombuffer(piece, dtype=np.uint8))
        labels, scores, counts = model.predict_corpus(corpus, k, threshold)
        yield to_bytes(format_predictions(names, labels, scores, counts, with_prob))
    check.warn(display_name(path))


def format_predictions(names, labels, scores, counts, with_prob):
    n, k = labels.shape
    shown = np.where(np.arange(k)[None, :] < counts[:, None], labels, len(names) - 1)
    if not with_prob:
        if k == 1:
            return "\n".join(names[shown[:, 0]].tolist()) + "\n"
        return "".join(" ".join(row[:c]) + "\n"
                       for row, c in zip(names[shown].tolist(), counts.tolist()))
    probs = np.exp(scores).tolist()
    out = []
    for row, p, c in zip(names[shown].tolist(), probs, counts.tolist()):
        out.append(" ".join(f"{row[j]} {p[j]:.6g}" for j in range(c)) + "\n")
    return "".join(out)
