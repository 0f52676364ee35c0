"""Reading text input: plain or gzip files, or standard input, as bytes.

Input is checked once, up front, so that the kernels can trust it: it must
be UTF-8 and must not contain NUL bytes (a sign of a binary file).  Errors
name the file and the line.
"""

import gzip
import sys
import zlib

import numpy as np

from .errors import TreexcError, os_error_message

GZIP_MAGIC = b"\x1f\x8b"


def display_name(path):
    return "standard input" if path == "-" else str(path)


def read_bytes(path):
    """The whole content of ``path`` (``-`` = standard input), gunzipped."""
    name = display_name(path)
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except OSError as e:
        raise TreexcError(os_error_message(name, e)) from None
    if data[:2] == GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (EOFError, OSError, zlib.error) as e:
            raise TreexcError(f"{name}: damaged or truncated gzip data ({e})") from None
    return data


def line_of(data, offset):
    """1-based line number of byte ``offset``."""
    return data.count(b"\n", 0, offset) + 1


def check_text(data, name):
    """Refuse binary data and invalid UTF-8, naming the first bad line."""
    nul = data.find(b"\0")
    if nul >= 0:
        raise TreexcError(f"{name}: line {line_of(data, nul)}: NUL byte; "
                          "this looks like a binary file, not text")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise TreexcError(f"{name}: line {line_of(data, e.start)}: invalid UTF-8 "
                          f"(byte 0x{data[e.start]:02x})") from None


def read_text(path):
    """Checked content of ``path`` as a ``uint8`` array."""
    data = read_bytes(path)
    check_text(data, display_name(path))
    return np.frombuffer(data, dtype=np.uint8)
