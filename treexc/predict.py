"""Streaming prediction: answer each line as soon as it has been read.

Input is read in whatever pieces the pipe delivers (``os.read`` returns what
is available), cut after the last newline, and each piece's complete lines
are encoded and predicted in one kernel call.  So a slow producer gets an
answer per line at once, and a fast one gets batch throughput.
"""

import gzip
import os
import sys

import numpy as np

from .errors import TreexcError, os_error_message
from .textio import GZIP_MAGIC, check_text, display_name

READ_SIZE = 1 << 22


def _open_raw(path):
    if path == "-":
        try:
            return sys.stdin.buffer.fileno(), None
        except (AttributeError, OSError, ValueError):
            # an in-memory stdin (embedding, tests): no descriptor to read
            return None, _Unclosed(sys.stdin.buffer)
    try:
        f = open(path, "rb", buffering=0)  # unbuffered: os.read follows seek
    except OSError as e:
        raise TreexcError(os_error_message(path, e)) from None
    if f.read(2) == GZIP_MAGIC:
        f.seek(0)
        return None, gzip.open(f)
    f.seek(0)
    return f.fileno(), f


class _Unclosed:
    """A stream to read from but not to close (someone else's stdin)."""

    def __init__(self, stream):
        self.stream = stream

    def read1(self, size):
        read1 = getattr(self.stream, "read1", self.stream.read)
        return read1(size)

    def close(self):
        pass


def read_line_chunks(path):
    """Yield ``(first_line_number, bytes)`` pieces made of whole lines; the
    last piece may lack its final newline."""
    fd, f = _open_raw(path)
    pending = b""
    line_no = 1
    try:
        while True:
            try:
                chunk = os.read(fd, READ_SIZE) if fd is not None else f.read1(READ_SIZE)
            except (OSError, EOFError) as e:
                raise TreexcError(f"{display_name(path)}: cannot read: {e}") from None
            if not chunk:
                break
            pending += chunk
            cut = pending.rfind(b"\n")
            if cut >= 0:
                piece, pending = pending[:cut + 1], pending[cut + 1:]
                yield line_no, piece
                line_no += piece.count(b"\n")
        if pending:
            yield line_no, pending
    finally:
        if f is not None:
            f.close()


def stream_predictions(model, path, k, threshold, with_prob):
    """Yield output bytes, one line per input line, piece by piece."""
    names = np.array(model.get_labels() + [""], dtype=object)
    for first_line, piece in read_line_chunks(path):
        try:
            check_text(piece, display_name(path))
        except TreexcError as e:
            raise TreexcError(_shift_line(str(e), first_line - 1)) from None
        corpus = model.encode_text(np.frombuffer(piece, dtype=np.uint8))
        labels, scores, counts = model.predict_corpus(corpus, k, threshold)
        yield format_predictions(names, labels, scores, counts, with_prob).encode("utf-8")


def _shift_line(message, offset):
    """Turn 'file: line N: ...' of a piece into the line number in the file."""
    head, sep, rest = message.partition(": line ")
    if not sep:
        return message
    number, _, tail = rest.partition(":")
    return f"{head}: line {int(number) + offset}:{tail}"


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
