"""The on-disk container for models: magic, version, JSON header, arrays.

Layout (little-endian)::

    b"TREEXC\\x00M"           8 bytes, magic
    uint32 version            FORMAT_VERSION
    uint32 reserved           0
    uint64 header_length
    header                    JSON (UTF-8): metadata + array directory
    arrays                    each at a 64-byte aligned offset from the
                              start of the file (so they can be mapped)
    b"TREEXEND"               8 bytes, end marker (detects truncation)

Files are written to a temporary name in the destination folder and then
renamed, so a crash never leaves a half-written file under the final name.
Loading maps the arrays read-only (``np.memmap``): a large model opens in
milliseconds and several processes share its pages.
"""

import json
import os
import struct
import tempfile

import numpy as np

from .errors import TreexcError, os_error_message

MAGIC = b"TREEXC\x00M"
END_MAGIC = b"TREEXEND"
FORMAT_VERSION = 1
FASTTEXT_MAGIC = struct.pack("<i", 793712314)
_PREAMBLE = struct.Struct("<8sIIQ")
_ALIGN = 64


def _aligned(n):
    return (n + _ALIGN - 1) // _ALIGN * _ALIGN


def atomic_writer(path, write):
    """Call ``write(file)`` on a temporary file, then rename it to ``path``."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        why = "is not a folder" if os.path.exists(folder) else "does not exist"
        raise TreexcError(f"{path}: folder {folder} {why}")
    try:
        fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp",
                                   dir=folder)
    except OSError as e:
        raise TreexcError(f"{path}: cannot write in {folder}: {e.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644 & ~_umask())
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise TreexcError(f"{path}: cannot write: {e.strerror or e}") from None
        raise


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def save(path, header, arrays):
    """Write ``header`` (JSON-able dict) and ``arrays`` (name -> ndarray)."""
    directory = []
    # the header's length depends on the offsets it lists: lay out twice
    offset = 0
    for _ in range(2):
        header_bytes = json.dumps(dict(header, arrays=directory)).encode("utf-8")
        offset = _aligned(_PREAMBLE.size + len(header_bytes) + 1024)
        directory = []
        for name, arr in arrays.items():
            directory.append({"name": name, "dtype": arr.dtype.str,
                              "shape": list(arr.shape), "offset": offset})
            offset = _aligned(offset + arr.nbytes)
    header_bytes = json.dumps(dict(header, arrays=directory)).encode("utf-8")
    data_start = directory[0]["offset"] if directory else _aligned(
        _PREAMBLE.size + len(header_bytes))
    assert _PREAMBLE.size + len(header_bytes) <= data_start

    def write(f):
        f.write(_PREAMBLE.pack(MAGIC, FORMAT_VERSION, 0, len(header_bytes)))
        f.write(header_bytes)
        for entry, arr in zip(directory, arrays.values()):
            f.write(b"\0" * (entry["offset"] - f.tell()))
            np.ascontiguousarray(arr).tofile(f)
        f.write(b"\0" * (_aligned(f.tell()) - f.tell()))
        f.write(END_MAGIC)

    atomic_writer(path, write)


def load(path):
    """Read a file written by :func:`save`: ``(header, arrays)``."""
    path = os.fspath(path)
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            preamble = f.read(_PREAMBLE.size)
            if len(preamble) < _PREAMBLE.size or preamble[:8] != MAGIC:
                raise TreexcError(f"{path}: {_what_is_it(preamble)}")
            _, version, _, header_length = _PREAMBLE.unpack(preamble)
            if version > FORMAT_VERSION:
                raise TreexcError(f"{path}: model format version {version} is newer than "
                                  f"this treexc reads ({FORMAT_VERSION}); upgrade treexc")
            if _PREAMBLE.size + header_length > size:
                raise TreexcError(f"{path}: truncated model file")
            try:
                header = json.loads(f.read(header_length).decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                raise TreexcError(f"{path}: corrupt model header") from None
            data_start = _PREAMBLE.size + header_length
            directory = [_entry(a, data_start) for a in header["arrays"]]
            end = _aligned(max([data_start] + [a["offset"] + _nbytes(a) for a in directory]))
            if size < end + len(END_MAGIC):
                raise TreexcError(f"{path}: truncated model file ({size} bytes, "
                                  f"expected {end + len(END_MAGIC)})")
            f.seek(end)
            if f.read(len(END_MAGIC)) != END_MAGIC:
                raise TreexcError(f"{path}: corrupt model file (no end marker)")
    except OSError as e:
        raise TreexcError(os_error_message(path, e, "model file")) from None
    except (KeyError, TypeError, ValueError, OverflowError):
        raise TreexcError(f"{path}: corrupt model header") from None
    header.pop("arrays")
    arrays = {}
    for a in directory:
        shape = tuple(a["shape"])
        if _nbytes(a) == 0:
            arrays[a["name"]] = np.zeros(shape, dtype=np.dtype(a["dtype"]))
        else:
            arrays[a["name"]] = np.memmap(path, dtype=np.dtype(a["dtype"]), mode="r",
                                          offset=a["offset"], shape=shape)
    return header, arrays


def _entry(a, data_start):
    """A checked array directory entry (``ValueError``/``TypeError`` if bad)."""
    entry = {"name": str(a["name"]), "dtype": np.dtype(a["dtype"]),
             "shape": [int(n) for n in a["shape"]], "offset": int(a["offset"])}
    if (entry["dtype"].hasobject or min(entry["shape"], default=0) < 0
            or entry["offset"] < data_start):
        raise ValueError(entry["name"])
    return entry


def _nbytes(entry):
    return int(np.dtype(entry["dtype"]).itemsize * np.prod(entry["shape"], dtype=np.int64))


def _what_is_it(preamble):
    if preamble[:4] == FASTTEXT_MAGIC:
        return ("this is a fastText model; treexc reads only its own models "
                "(train one with `treexc supervised`)")
    if len(preamble) < _PREAMBLE.size:
        return "not a treexc model file (too short)"
    return "not a treexc model file (wrong magic number)"
