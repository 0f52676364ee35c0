"""Reading text input as bytes: plain or gzip files, standard input, pipes.

Text is bytes, as in fastText: a token is the bytes between the separators
``' ' \\n \\r \\t \\v \\f \\0`` (NUL separates tokens, as in fastText's
``readWord``), and no byte makes a file unreadable.  Invalid UTF-8 is kept as
it is: the kernels hash and compare raw bytes, so an undecodable word is a
word like any other and a line with one still gets its answer.  Where Python
needs a ``str`` (the word list, the Python API, ``.vec`` files) bytes are
decoded with ``surrogateescape`` (:func:`to_str`), as fastText's own Python
binding can, so each undecodable byte round-trips to itself
(:func:`to_bytes`).  One warning line counts the lines with invalid UTF-8 or
NUL bytes and names the first.

Gzip is recognised by its magic bytes (``1f 8b``), whatever the name, on
files, pipes and standard input alike.  Nothing is ever seeked: named pipes,
``/dev/stdin`` and ``<(...)`` read like files.
"""

import os
import re
import sys
import zlib

import numpy as np

from .. import memory
from ..errors import TreexcError, os_error_message
from .modelfile import check_mapped_files

GZIP_MAGIC = b"\x1f\x8b"
READ_SIZE = 1 << 22
_BLOCK = 1 << 20  # lines are checked a block at a time when a file has bad bytes


def display_name(path):
    return "standard input" if path == "-" else str(path)


def to_str(raw):
    """Text of token bytes; undecodable bytes become lone surrogates."""
    return raw.decode("utf-8", "surrogateescape")


def to_bytes(text):
    """The bytes of a token given as ``str`` (inverse of :func:`to_str`);
    bytes are taken as they are."""
    if isinstance(text, bytes):
        return text
    if not isinstance(text, str):
        raise TypeError(f"expected a str (or bytes), not {type(text).__name__}")
    return text.encode("utf-8", "surrogateescape")


def warn(message):
    """One warning line on standard error (the Python API prints it too, as
    fastText prints its own)."""
    err = sys.stderr
    if err is not None:
        try:
            err.write(f"treexc: warning: {message}\n")
            err.flush()
        except (OSError, ValueError):
            pass


# -- printing tokens -------------------------------------------------------------------

# C0 controls, DEL and C1 controls (as UTF-8 code points): a label holding one
# must not end an answer line early or drive the terminal (ESC [ ...).
_CONTROL = re.compile("[\x00-\x1f\x7f\x80-\x9f]")


def _escape_match(m):
    return "".join(f"\\x{b:02x}" for b in m.group().encode("utf-8"))


def printable(text):
    """``text`` with control characters written as ``\\xNN`` (their UTF-8
    bytes).  Backslashes are left alone, as fastText prints them, so a label
    spelled with a literal ``\\x1b`` looks the same: only training data or
    model files crafted that way can tell them apart.  Invalid UTF-8 bytes
    (lone surrogates of :func:`to_str`) are left for :func:`to_bytes`: the
    output has the input's bytes, as fastText's."""
    return _CONTROL.sub(_escape_match, text) if _CONTROL.search(text) else text


# -- what the bytes hold ---------------------------------------------------------------

class ByteCheck:
    """Counts the lines with invalid UTF-8 and with NUL bytes, over one file
    read whole or piece by piece, for one warning line."""

    def __init__(self):
        self.bad_lines = 0
        self.bad_first = 0
        self.nul_lines = 0
        self.nul_first = 0

    def add(self, data, first_line=1):
        """Check ``data`` (bytes made of whole lines but maybe the last),
        whose first line is line ``first_line`` of the file.  Clean text
        costs one decoding pass, a block at a time (a whole-file ``str``
        would take up to 4 times the file's memory); a block with bad bytes
        is searched with array operations, not a Python loop over lines
        (a Latin-1 file has a bad byte on most lines)."""
        has_nul = data.find(b"\0") >= 0
        view = memoryview(data)
        line = first_line
        for start, end in _line_blocks(data):
            block = view[start:end]
            if not _is_utf8(block):
                n, first = _lines_with_invalid_utf8(block)
                self.bad_lines += n
                self.bad_first = self.bad_first or line + first
            if has_nul and data.find(b"\0", start, end) >= 0:
                raw = np.frombuffer(block, np.uint8)
                lines = np.unique(np.searchsorted(np.flatnonzero(raw == 10),
                                                  np.flatnonzero(raw == 0)))
                self.nul_lines += len(lines)
                self.nul_first = self.nul_first or line + int(lines[0])
            line += data.count(b"\n", start, end) + 1

    def message(self, name):
        """The warning about ``name``, or None when its bytes were clean."""
        parts = []
        if self.bad_lines:
            parts.append(f"{self.bad_lines} line(s) with invalid UTF-8 (first: line "
                         f"{self.bad_first}), read as the bytes they are")
        if self.nul_lines:
            parts.append(f"{self.nul_lines} line(s) with NUL bytes (first: line "
                         f"{self.nul_first}), NUL read as a token separator as fastText "
                         "does")
        return f"{name}: " + "; ".join(parts) if parts else None

    def warn(self, name):
        message = self.message(name)
        if message:
            warn(message)


def _lines_with_invalid_utf8(block):
    """``(number of lines with invalid UTF-8, 0-based index of the first)``.
    Decoding with ``ignore`` drops exactly the invalid bytes and keeps every
    newline, so a line lost bytes in the round trip iff it was invalid: line
    lengths compared as arrays, no Python loop over lines."""
    clean = str(block, "utf-8", "ignore").encode("utf-8")
    ends = np.append(np.flatnonzero(np.frombuffer(block, np.uint8) == 10), len(block))
    clean_ends = np.append(np.flatnonzero(np.frombuffer(clean, np.uint8) == 10), len(clean))
    lines = np.flatnonzero(np.diff(ends - clean_ends, prepend=0))
    return len(lines), int(lines[0]) if len(lines) else 0


def _is_utf8(data):
    try:
        str(data, "utf-8")
        return True
    except UnicodeDecodeError:
        return False


def _line_blocks(data):
    """``(start, end)`` of blocks of about ``_BLOCK`` bytes of ``data`` made
    of whole lines; ``end`` is the block's last newline, left out (or the
    end of the data), so ``data[start:end].split(b"\\n")`` are its lines."""
    start, n = 0, len(data)
    while start < n:
        cut = data.find(b"\n", min(start + _BLOCK, n) - 1)
        if cut < 0:
            yield start, n
            return
        yield start, cut
        start = cut + 1


def line_of(data, offset):
    """1-based line number of byte ``offset``."""
    return data.count(b"\n", 0, offset) + 1


# -- reading ---------------------------------------------------------------------------

def read_bytes(path):
    """The whole content of ``path`` (``-`` = standard input), gunzipped,
    read piece by piece (pipes and other non-seekable paths work).  Input
    that outgrows half the memory available (``/dev/zero``, a gzip bomb) is
    refused as it arrives, before it exhausts the machine."""
    name = display_name(path)
    limit = memory.available_bytes() // 2
    pieces, total = [], 0
    for chunk in read_chunks(path, READ_SIZE):
        total += len(chunk)
        if total > limit:
            raise TreexcError(f"{name}: more than {memory.format_bytes(limit)}, half the "
                              f"memory available: treexc holds this text in memory")
        pieces.append(chunk)
    return b"".join(pieces)


def read_text(path):
    """Content of ``path`` as a ``uint8`` array, with one warning if some
    lines hold invalid UTF-8 or NUL bytes."""
    data = read_bytes(path)
    check = ByteCheck()
    check.add(data)
    check.warn(display_name(path))
    return np.frombuffer(data, dtype=np.uint8)


def read_chunks(path, size=READ_SIZE):
    """Yield the bytes of ``path`` (``-`` = standard input) in the pieces in
    which they arrive (``os.read`` returns what a pipe has), gunzipped when
    they start with the gzip magic.  A damaged or truncated gzip stream
    raises :class:`TreexcError` after the pieces that decoded."""
    name = display_name(path)
    reader, closer = _open_reader(path, name)
    try:
        raw = _raw_chunks(reader, size, name)
        head = b""
        for chunk in raw:  # a pipe may deliver fewer than 2 bytes at first
            head += chunk
            if len(head) >= len(GZIP_MAGIC):
                break
        if head[:2] == GZIP_MAGIC:
            yield from _gunzip(head, raw, size, name)
        else:
            if head:
                yield head
            yield from raw
    finally:
        if closer is not None:
            closer.close()


def _open_reader(path, name):
    """``(read(size) function, object to close or None)``."""
    if path == "-":
        stream = _stdin(name)
        try:
            fd = stream.fileno()
            return (lambda size: os.read(fd, size)), None
        except (AttributeError, OSError, ValueError):
            # an in-memory stdin (embedding, tests): no descriptor to read
            return getattr(stream, "read1", stream.read), None
    try:
        f = open(path, "rb", buffering=0)  # FileIO.read is one read(2), like os.read
    except OSError as e:
        raise TreexcError(os_error_message(name, e)) from None
    return f.read, f


def _stdin(name):
    """Standard input's binary stream; Python has none when it started
    with standard input closed (``<&-``)."""
    stream = getattr(sys.stdin, "buffer", sys.stdin)
    if stream is None:
        raise TreexcError(f"{name}: closed, nothing to read")
    return stream


def _raw_chunks(read, size, name):
    while True:
        try:
            chunk = read(size)
        except OSError as e:
            raise TreexcError(f"{name}: cannot read: {e.strerror or e}") from None
        if not chunk:
            return
        yield chunk


def _gunzip(head, raw, size, name):
    """Decompress gzip members (``cat a.gz b.gz`` is one stream, as gzip
    reads it) with at most ``size`` bytes of output per step, so a small
    piece of a highly compressed file does not become gigabytes at once."""
    d = zlib.decompressobj(wbits=31)
    started = False
    pending = head
    try:
        while True:
            data = pending
            pending = b""
            while data:
                if d.eof:  # the next member, after gzip's allowed zero padding
                    data = data.lstrip(b"\0")
                    if not data:
                        break
                    d = zlib.decompressobj(wbits=31)
                started = True
                out = d.decompress(data, size)
                if out:
                    yield out
                data = d.unused_data if d.eof else d.unconsumed_tail
            pending = next(raw, None)
            if pending is None:
                break
        while started and not d.eof:
            out = d.decompress(b"", size)  # output zlib still holds, if any
            if not out:
                raise TreexcError(f"{name}: truncated gzip data (the stream ends early)")
            yield out
    except zlib.error as e:
        raise TreexcError(f"{name}: damaged gzip data ({e})") from None


# A line is answered once it is whole; one longer than this (``/dev/zero``,
# a binary file) is refused instead of held in memory without end.
MAX_LINE_BYTES = 1 << 28



def read_line_chunks(path, check=None):
    """Yield ``(first_line_number, bytes)`` pieces made of whole lines; the
    last piece may lack its final newline.  ``check`` (a
    :class:`textio.ByteCheck`) is shown every piece.  Before each piece the
    mapped model files in use are checked (``modelfile.check_mapped_files``:
    a model rewritten in place stops the command between pieces)."""
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
        check_mapped_files()
        yield line_no, piece
        line_no += piece.count(b"\n")
    if pending:
        piece = b"".join(pending)
        if check is not None:
            check.add(piece, line_no)
        check_mapped_files()
        yield line_no, piece

