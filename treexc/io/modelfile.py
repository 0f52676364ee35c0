"""The on-disk container for models: magic, version, JSON header, arrays.

Layout (little-endian)::

    b"TREEXC\\x00M"           8 bytes, magic
    uint32 version            FORMAT_VERSION (2; version 1 is still read), or
                              QUANTIZED_VERSION (4; 3 is still read) for a
                              quantised classifier, or COMPACT_LINEAR_VERSION
                              (6; 5 is still read) for a linear model
    uint32 header_crc         CRC-32 of the header bytes (version 1: 0, unused)
    uint64 header_length
    header                    JSON (UTF-8): metadata + array directory; each
                              directory entry has name, dtype, shape, offset
                              and (version 2) the CRC-32 of the array's bytes;
                              from version 4 an entry may say "zlib": N, the
                              array is then stored as N bytes of zlib data
                              (its CRC-32 is of those bytes)
    arrays                    each at a 64-byte aligned offset from the
                              start of the file (so they can be mapped;
                              compressed arrays are inflated into memory)
    b"TREEXEND"               8 bytes, end marker (detects truncation)

Files are written to a temporary name in the destination folder and then
renamed, so a crash never leaves a half-written file under the final name.

A model file is untrusted input: :func:`load` checks every directory entry
(dtype, rank, shape, offset) against the file's size with Python integers,
so nothing can overflow, before any array is touched.

**Mapped models.**  A model is read whole into memory and every checksum is
verified (about 1 ms per MB), whatever its size, as fastText does: a file
overwritten in place while a process uses it (``cp`` over it truncates it,
then writes) changes nothing in that process.  Mapping is asked for with
the environment variable :data:`MAP_ENV` (``TREEXC_MAP_MODELS=1``): files
over :data:`MAP_THRESHOLD` bytes are then mapped once (``mmap``; they open
at once and processes share their pages), the arrays named in ``mapped``
stay views of the mapping, unverified (``treexc check`` verifies them),
every other array is copied and verified.  A mapped file must be replaced
by renaming a new file over it, as treexc itself writes: an in-place
rewrite is detected between pieces of input (``textio.read_line_chunks``
calls :func:`check_mapped_files`: one ``fstat``) and stops the command
with one line, and a page of a truncated file ends the process with one
line instead of a bare bus error (``io/bus_error``).
``treexc check`` (:func:`verify`) verifies every checksum of any file.  The checks of the arrays' contents that both
model kinds need (vocabulary entries inside the pool, tree size, finite
weights) are in ``io/contents.py``.  No Numba here:
``classify/firstlines.py`` loads a model before Numba is imported.
"""

import json
import math
import mmap
import os
import struct
import weakref
import zlib

import numpy as np

from ..errors import TreexcError, os_error_message
from .publish import refuse_special

MAGIC = b"TREEXC\x00M"
END_MAGIC = b"TREEXEND"
FORMAT_VERSION = 2
# Quantised classifiers (``treexc quantize``) hold other arrays than a
# version-2 reader expects: their own version, so an older treexc refuses
# them as newer instead of calling them corrupt.  Other models stay version 2.
# Version 4 compresses a quantised file's small arrays (vocabulary, an
# unquantised output matrix): entries with "zlib", which a version-3 reader
# would misread; version-3 files (nothing compressed) are still read.
QUANTIZED_VERSION = 4
COMPRESSED_VERSION = 4  # the first version whose arrays may be compressed
# Version 5: a linear model's compact node weights (one-byte child slots and
# column entry counts, float16 weights "<f2"), which a version-4 reader would
# call corrupt; version 6 (5 still read): columns as 16 low bits ("<u2").
COMPACT_LINEAR_VERSION = 6
NEWEST_VERSION = COMPACT_LINEAR_VERSION
FASTTEXT_MAGIC = struct.pack("<i", 793712314)
_PREAMBLE = struct.Struct("<8sIIQ")
_ALIGN = 64
# With mapping asked for (MAP_ENV), files over this size are mapped, so they
# open fast and processes share their pages; smaller ones, and every file
# without it, are read into memory and verified whole (about 1 ms per MB).
# A file read into memory is immune to being overwritten in place while in
# use; a mapped one must be replaced by rename, as treexc itself does
# (docs/format.md).
MAP_THRESHOLD = 64 << 20
MAP_ENV = "TREEXC_MAP_MODELS"
# (path, descriptor, file_state) of each mapped model file still in use
_MAPPED_FILES = []
_CRC_BLOCK = 16 << 20
# The dtypes a model array may have (numba compiles kernels for these only).
# the dtypes an array may have, spelled as `save` writes them (numpy.dtype.str):
# compared as strings, since numpy's own parser of a hostile string can raise
# anything (a SyntaxError for "(,)f4")
_DTYPES = ("<f4", "<f8", "<i4", "<i8", "|u1", "|i1", "<f2", "<u2")
_MAX_RANK = 4


def _aligned(n):
    return (n + _ALIGN - 1) // _ALIGN * _ALIGN


def atomic_writer(path, write):
    """Call ``write(file)`` on a temporary file, then rename it to ``path``."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        why = "is not a folder" if os.path.exists(folder) else "does not exist"
        raise TreexcError(f"{path}: folder {folder} {why}")
    if os.path.isdir(path):  # the rename would say "Device or resource busy"
        raise TreexcError(f"{path}: is a directory, not a model file")
    refuse_special(path)
    # imported here: tempfile (with random, shutil, bz2, lzma) is of no use
    # to the commands that only read models, and costs their start-up
    import tempfile

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


def crc32(arr, crc=0):
    """CRC-32 of an array's bytes, in blocks (a block at a time is paged in)."""
    flat = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
    for start in range(0, len(flat), _CRC_BLOCK):
        crc = zlib.crc32(flat[start:start + _CRC_BLOCK], crc)
    return crc


def write_array(f, arr):
    """Write a C-contiguous array's bytes to the open file ``f``. Not
    ``arr.tofile(f)``: numpy turns a Ctrl-C that lands inside it into
    "TypeError: expected str, bytes or os.PathLike object"."""
    f.write(arr.reshape(-1).view(np.uint8))


def save(path, header, arrays, version=FORMAT_VERSION, compressed=()):
    """Write ``header`` (JSON-able dict) and ``arrays`` (name -> ndarray) in
    format ``version`` (the layout is the same in versions 2 to 5), the
    arrays named in ``compressed`` as zlib data (version 4 and later)."""
    if compressed and version < COMPRESSED_VERSION:
        raise ValueError(f"format version {version} has no compressed arrays")
    arrays = {name: np.ascontiguousarray(arr) for name, arr in arrays.items()}
    zipped = {name: zlib.compress(arrays[name].tobytes(), 9)
              for name in compressed if name in arrays}
    crcs = {name: zlib.crc32(zipped[name]) if name in zipped else crc32(arr)
            for name, arr in arrays.items()}
    # the header's length depends on the offsets it lists: lay out until the
    # header fits in front of the first array (1 KB spare: room for edits)
    data_start = _aligned(_PREAMBLE.size + 1024)
    while True:
        directory = []
        offset = data_start
        for name, arr in arrays.items():
            directory.append({"name": name, "dtype": arr.dtype.str,
                              "shape": list(arr.shape), "offset": offset,
                              "crc32": crcs[name]})
            if name in zipped:
                directory[-1]["zlib"] = len(zipped[name])
            offset = _aligned(offset + (len(zipped[name]) if name in zipped else arr.nbytes))
        header_bytes = json.dumps(dict(header, arrays=directory)).encode("utf-8")
        if _PREAMBLE.size + len(header_bytes) <= data_start:
            break
        data_start = _aligned(_PREAMBLE.size + len(header_bytes) + 1024)

    def write(f):
        f.write(_PREAMBLE.pack(MAGIC, version, zlib.crc32(header_bytes),
                               len(header_bytes)))
        f.write(header_bytes)
        for entry, (name, arr) in zip(directory, arrays.items()):
            f.write(b"\0" * (entry["offset"] - f.tell()))
            if name in zipped:
                f.write(zipped[name])
            else:
                write_array(f, arr)
        f.write(b"\0" * (_aligned(f.tell()) - f.tell()))
        f.write(END_MAGIC)

    atomic_writer(path, write)


class _Layout:
    """The checked preamble, header and array directory of an open file."""

    def __init__(self, path, f, size):
        preamble = f.read(_PREAMBLE.size)
        if len(preamble) < _PREAMBLE.size or preamble[:8] != MAGIC:
            raise TreexcError(f"{path}: {_what_is_it(preamble)}")
        _, self.version, header_crc, header_length = _PREAMBLE.unpack(preamble)
        if self.version > NEWEST_VERSION:
            raise TreexcError(f"{path}: model format version {self.version} is newer than "
                              f"this treexc reads ({NEWEST_VERSION}); upgrade treexc")
        # version 1 left the checksum field 0: a damaged version number
        # must not turn the checksums off
        if self.version < 1 or (self.version == 1 and header_crc != 0):
            raise TreexcError(f"{path}: corrupt model file (format version {self.version})")
        if _PREAMBLE.size + header_length > size:
            raise TreexcError(f"{path}: truncated model file")
        raw = f.read(header_length)
        if len(raw) != header_length:
            raise TreexcError(f"{path}: truncated model file")
        if self.version >= 2 and zlib.crc32(raw) != header_crc:
            raise TreexcError(f"{path}: corrupt model file (header checksum mismatch)")
        try:
            header = json.loads(raw.decode("utf-8"))
            if not isinstance(header, dict) or not isinstance(header.get("arrays"), list):
                raise ValueError("header")
            data_start = _PREAMBLE.size + header_length
            self.directory = [_entry(a, data_start, self.version) for a in header["arrays"]]
        except (UnicodeDecodeError, ValueError, KeyError, TypeError, OverflowError,
                RecursionError):
            raise TreexcError(f"{path}: corrupt model header") from None
        names = [a["name"] for a in self.directory]
        if len(set(names)) != len(names):
            raise TreexcError(f"{path}: corrupt model header (an array is listed twice)")
        end = _aligned(max([data_start] + [a["offset"] + a["stored"]
                                           for a in self.directory]))
        if size < end + len(END_MAGIC):
            raise TreexcError(f"{path}: truncated model file ({size} bytes, "
                              f"expected {end + len(END_MAGIC)})")
        f.seek(end)
        if f.read(len(END_MAGIC)) != END_MAGIC:
            raise TreexcError(f"{path}: corrupt model file (no end marker)")
        header.pop("arrays")
        self.header = header


def _entry(a, data_start, version):
    """A checked array directory entry (``ValueError``/``TypeError`` if bad).
    Sizes are Python integers, so no shape or offset can overflow."""
    if not isinstance(a, dict) or not isinstance(a["name"], str):
        raise TypeError("entry")
    dtype = a["dtype"]
    if not isinstance(dtype, str) or dtype not in _DTYPES:
        raise ValueError(a["name"])
    shape, offset = a["shape"], a["offset"]
    if (not isinstance(shape, list) or len(shape) > _MAX_RANK
            or not all(type(n) is int and n >= 0 for n in shape)
            or type(offset) is not int or offset < data_start):
        raise ValueError(a["name"])
    crc = a.get("crc32")
    if version >= 2 and not (type(crc) is int and 0 <= crc < 2 ** 32):
        raise ValueError(a["name"])
    dtype = np.dtype(dtype)
    nbytes = dtype.itemsize * math.prod(shape)
    stored = a.get("zlib", nbytes)
    if "zlib" in a and (version < COMPRESSED_VERSION or type(stored) is not int
                        or stored < 0):
        raise ValueError(a["name"])
    return {"name": a["name"], "dtype": dtype, "shape": tuple(shape), "offset": offset,
            "nbytes": nbytes, "stored": stored, "compressed": "zlib" in a, "crc32": crc}


def _open(path):
    path = os.fspath(path)
    try:
        f = open(path, "rb")
        size = os.fstat(f.fileno()).st_size
    except OSError as e:
        raise TreexcError(os_error_message(path, e, "model file")) from None
    return path, f, size


def load(path, mapped=()):
    """Read a file written by :func:`save`: ``(header, arrays)``.

    Arrays are read-only.  A file is read whole and every checksum is
    verified, unless mapping is asked for (:func:`mapping_wanted`) and it is
    larger than ``MAP_THRESHOLD``: then the arrays named in ``mapped`` (the
    weight matrices) are views of one read-only mapping and are not
    verified here (see :func:`verify`), the others are copied and verified.
    """
    path, f, size = _open(path)
    try:
        with f:
            layout = _Layout(path, f, size)
            if size <= MAP_THRESHOLD or not mapped or not mapping_wanted():
                f.seek(0)
                buffer = f.read(size)
                if len(buffer) != size:
                    raise TreexcError(f"{path}: truncated model file (changed while read)")
                keep = ()
            else:
                # one mapping for all arrays (not one per array: a file may
                # list thousands); the views keep it alive
                buffer = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
                keep = mapped
                _watch(path, f, buffer)
    except OSError as e:
        raise TreexcError(os_error_message(path, e, "model file")) from None
    except (ValueError, OverflowError):  # mmap of a file that shrank
        raise TreexcError(f"{path}: truncated model file (changed while read)") from None
    arrays = {}
    for a in layout.directory:
        if a["compressed"]:
            arrays[a["name"]] = _inflate(path, a, buffer)
            continue
        try:
            view = _view(buffer, a)
        except ValueError:  # a mapped file that shrank after its size was read
            raise TreexcError(f"{path}: truncated model file (changed while read)") from None
        if a["name"] not in keep:
            if isinstance(buffer, mmap.mmap):
                view = view.copy()
                view.flags.writeable = False
            _verify(path, layout.version, a, view)
        arrays[a["name"]] = view
    return layout.header, arrays


def mapping_wanted():
    """Has the environment asked for large models to be mapped (MAP_ENV)?"""
    return os.environ.get(MAP_ENV, "") not in ("", "0")


def _watch(path, f, buffer):
    """Remember what the mapped file ``f`` is, for :func:`check_mapped_files`,
    while its mapping ``buffer`` lives (SIGBUS's one-line handler is the
    caller's: ``io/bus_error``, which needs Numba)."""
    fd = os.dup(f.fileno())
    st = os.fstat(fd)
    # not the change time: a new file renamed over this one's name changes it
    entry = (path, fd, (st.st_ino, st.st_size, st.st_mtime_ns))
    _MAPPED_FILES.append(entry)
    weakref.finalize(buffer, _unwatch, entry)


def _unwatch(entry):
    if entry in _MAPPED_FILES:
        _MAPPED_FILES.remove(entry)
        os.close(entry[1])


def check_mapped_files():
    """Raise :class:`TreexcError` when a mapped model file in use was written
    to in place since it was mapped: its answers would mix two files (the
    old vocabulary and tree, the new weights)."""
    for path, fd, state in list(_MAPPED_FILES):
        try:
            st = os.fstat(fd)
        except OSError:
            continue
        if (st.st_ino, st.st_size, st.st_mtime_ns) != state:
            raise TreexcError(f"{path}: the model file was rewritten in place while in use "
                              "(a mapped model must be replaced by renaming a new file "
                              "over it); start again")


def _view(buffer, a):
    count = math.prod(a["shape"])
    if count == 0:
        return np.zeros(a["shape"], dtype=a["dtype"])
    view = np.frombuffer(buffer, dtype=a["dtype"], count=count, offset=a["offset"])
    return view.reshape(a["shape"])


def _inflate(path, a, buffer):
    """A compressed array, its checksum (of the stored bytes) verified and
    its inflated size checked against its shape; read-only."""
    raw = bytes(buffer[a["offset"]:a["offset"] + a["stored"]])
    if zlib.crc32(raw) != a["crc32"]:
        raise TreexcError(f"{path}: corrupt model file (checksum mismatch in array "
                          f"'{a['name']}')")
    inflater = zlib.decompressobj()
    # at most the declared size, and zlib inflates at most ~1,032 bytes per
    # byte: a hostile entry cannot ask for unbounded memory (nor overflow)
    limit = min(a["nbytes"], 1100 * len(raw)) + 1
    try:
        data = inflater.decompress(raw, limit)
    except zlib.error:
        data = None
    if data is None or len(data) != a["nbytes"] or not inflater.eof:
        raise TreexcError(f"{path}: corrupt model file (array '{a['name']}' does not "
                          "inflate to its shape)")
    return np.frombuffer(data, dtype=a["dtype"]).reshape(a["shape"])


def _verify(path, version, a, arr):
    if version >= 2 and crc32(arr) != a["crc32"]:
        raise TreexcError(f"{path}: corrupt model file (checksum mismatch in array "
                          f"'{a['name']}')")


def load_header(path):
    """The header of a model file (its directory checked, no array read)."""
    path, f, size = _open(path)
    try:
        with f:
            return _Layout(path, f, size).header
    except OSError as e:
        raise TreexcError(os_error_message(path, e, "model file")) from None


def verify(path):
    """Verify every checksum of a model file, mapped or not: ``(header,
    version, n_arrays)``.  Version-1 files have no checksums."""
    path, f, size = _open(path)
    try:
        with f:
            layout = _Layout(path, f, size)
            buffer = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
    except OSError as e:
        raise TreexcError(os_error_message(path, e, "model file")) from None
    except (ValueError, OverflowError):
        raise TreexcError(f"{path}: truncated model file (changed while read)") from None
    for a in layout.directory:
        if a["compressed"]:
            _inflate(path, a, buffer)
            continue
        try:
            view = _view(buffer, a)
        except ValueError:
            raise TreexcError(f"{path}: truncated model file (changed while read)") from None
        _verify(path, layout.version, a, view)
    return layout.header, layout.version, len(layout.directory)


def _what_is_it(preamble):
    if preamble[:4] == FASTTEXT_MAGIC:
        return ("this is a fastText model, not a treexc model file (the classifier's "
                "commands read a fastText supervised .bin directly; `treexc convert` "
                "makes a treexc model of it)")
    if len(preamble) < _PREAMBLE.size:
        return "not a treexc model file (too short)"
    return "not a treexc model file (wrong magic number)"
