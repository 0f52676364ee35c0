"""Arrays larger than memory: appended to disk piece by piece, read back
through one memory mapping whose pages are handed back while it is read.

A data file (docs/format.md, "Token cache")::

    b"TREEXC\\x00A"            8 bytes, magic
    uint32 version            DATA_VERSION
    uint32 0                  reserved
    uint64 n_arrays
    arrays                    each at a 64-byte aligned offset
    b"TREEXEND"               8 bytes, end marker

The directory of its arrays (name, dtype, shape, offset, CRC-32) is kept by
whoever names the file (the token cache keeps it in its index, a model
container), so the data file is written in one pass without knowing sizes
in advance: each array is first appended to a part file of its own, then
the parts are copied behind the preamble.  Reading never trusts the file:
:func:`check_data_file` compares its magic, version, size and every
array's CRC-32 with the directory, reading with ``read`` in blocks (a
mapping would leave every page resident in the process).

Pages of a file mapping count in a process's resident memory (RSS) while
they are mapped in; :meth:`MappedArrays.release` hands them back
(``madvise(MADV_DONTNEED)``: the data stay in the page cache, the next read
maps them in again), and :meth:`MappedArrays.releasing` does it every
``interval`` seconds from a thread, so reading a file of any size keeps
only the pages read since the last release: a tenth of a second, where a
second let an epoch in the file's order (``-order file``) hold 60-100 MB
of the token cache (gutenberg_books: 268 -> 203 MiB at 1x, 306 -> 210 at
4x, the same speed; docs/results/classify.md, "Corpora larger than memory").  A release of
pages nobody touched (the shuffled epochs read with ``pread``) costs one
system call.
"""

import mmap
import os
import shutil
import struct
import threading
import zlib
from contextlib import contextmanager

import numpy as np

from ..errors import TreexcError
from .modelfile import atomic_writer, crc32, write_array

DATA_MAGIC = b"TREEXC\x00A"
DATA_END = b"TREEXEND"
DATA_VERSION = 1
_PREAMBLE = struct.Struct("<8sIIQ")
_ALIGN = 64
_COPY_BLOCK = 4 << 20


def _aligned(n):
    return (n + _ALIGN - 1) // _ALIGN * _ALIGN


class ArrayParts:
    """One-dimensional arrays appended piece by piece to part files
    (``PREFIX.NAME.part``); :meth:`write` copies them into one data file."""

    def __init__(self, prefix, names_dtypes):
        self.parts = {}
        for name, dtype in names_dtypes:
            path = f"{prefix}.{name}.part"
            self.parts[name] = {"path": path, "file": open(path, "wb"),
                                "dtype": np.dtype(dtype), "count": 0, "crc32": 0}

    def append(self, name, values):
        part = self.parts[name]
        arr = np.ascontiguousarray(values, dtype=part["dtype"])
        part["crc32"] = crc32(arr, part["crc32"])
        part["count"] += len(arr)
        write_array(part["file"], arr)

    def close(self):
        for part in self.parts.values():
            part["file"].close()

    def discard(self):
        """Close and remove the part files (a build that failed)."""
        self.close()
        for part in self.parts.values():
            try:
                os.unlink(part["path"])
            except OSError:
                pass

    def write(self, path):
        """Write the data file ``path`` (under a temporary name, then
        renamed) and remove the parts; returns ``(directory, size)``."""
        self.close()
        directory = []
        offset = _aligned(_PREAMBLE.size)
        for name, part in self.parts.items():
            directory.append({"name": name, "dtype": part["dtype"].str,
                              "shape": [part["count"]], "offset": offset,
                              "crc32": part["crc32"]})
            offset = _aligned(offset + part["count"] * part["dtype"].itemsize)
        size = offset + len(DATA_END)

        def write(f):
            f.write(_PREAMBLE.pack(DATA_MAGIC, DATA_VERSION, 0, len(directory)))
            for entry, part in zip(directory, self.parts.values()):
                f.write(b"\0" * (entry["offset"] - f.tell()))
                with open(part["path"], "rb") as src:
                    shutil.copyfileobj(src, f, _COPY_BLOCK)
            f.write(b"\0" * (_aligned(f.tell()) - f.tell()))
            f.write(DATA_END)

        try:
            atomic_writer(path, write)
        except OSError as e:  # a part that vanished, a full disk
            raise TreexcError(f"{path}: cannot write: {e.strerror or e}") from None
        finally:
            self.discard()
        return directory, size


def file_state(st):
    """What an in-place write of a file changes in its ``stat``: its size
    and modification time (with the inode).  Not the change time: renaming
    another file over this one's name (the way to replace a file in use)
    changes it too."""
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _nbytes(entry):
    return np.dtype(entry["dtype"]).itemsize * int(np.prod(entry["shape"]))


def check_data_file(f, path, directory, size):
    """Raise :class:`TreexcError` (why) unless the open file ``f`` (named
    ``path``) is the data file that ``directory`` and ``size`` describe,
    every checksum verified.  Map the same open file (:class:`MappedArrays`):
    a file renamed over ``path`` meanwhile is not the one checked."""
    try:
        actual = os.fstat(f.fileno()).st_size
        f.seek(0)
        preamble = f.read(_PREAMBLE.size)
        if len(preamble) < _PREAMBLE.size or preamble[:8] != DATA_MAGIC:
            raise TreexcError(f"{path}: not a treexc data file (wrong magic number)")
        _, version, _, n_arrays = _PREAMBLE.unpack(preamble)
        if version != DATA_VERSION:
            raise TreexcError(f"{path}: data format version {version}, not {DATA_VERSION}")
        if actual != size or n_arrays != len(directory):
            raise TreexcError(f"{path}: truncated or foreign data file ({actual} bytes, "
                              f"expected {size})")
        f.seek(size - len(DATA_END))
        if f.read(len(DATA_END)) != DATA_END:
            raise TreexcError(f"{path}: corrupt data file (no end marker)")
        block = bytearray(_COPY_BLOCK)
        for entry in directory:
            f.seek(entry["offset"])
            left, crc = _nbytes(entry), 0
            while left:
                n = f.readinto(memoryview(block)[:min(left, len(block))])
                if not n:
                    raise TreexcError(f"{path}: truncated data file")
                crc = zlib.crc32(memoryview(block)[:n], crc)
                left -= n
            if crc != entry["crc32"]:
                raise TreexcError(f"{path}: corrupt data file (checksum mismatch in array "
                                  f"'{entry['name']}')")
    except OSError as e:
        raise TreexcError(f"{path}: cannot read: {e.strerror or e}") from None


class MappedArrays:
    """The arrays of a checked data file as views of one mapping.  The
    mapping is private (copy on write), so the arrays are writable numpy
    arrays like those made in memory (the kernels compile once for both);
    nothing writes to them.

    :meth:`read_into` copies a slice of an array with ``pread`` instead,
    without mapping anything: reading small pieces at random places through
    the mapping maps far more than the pieces (on ext4 with Linux 6.18 a
    touched page brings its whole page-cache folio, up to megabytes, into
    the process), so the classifier's shuffled epochs read their windows
    this way (``text/windows``)."""

    def __init__(self, f, path, directory):
        self.path = path
        try:
            self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
            self._fd = os.dup(f.fileno())  # the same file as the mapping
            self._identity = file_state(os.fstat(self._fd))
        except (OSError, ValueError) as e:
            raise TreexcError(f"{path}: cannot map: {getattr(e, 'strerror', None) or e}") \
                from None
        self._offsets = {e["name"]: int(e["offset"]) for e in directory}
        self.arrays = {}
        for entry in directory:
            count = int(np.prod(entry["shape"]))
            dtype = np.dtype(entry["dtype"])
            self.arrays[entry["name"]] = (
                np.frombuffer(self._map, dtype=dtype, count=count, offset=entry["offset"])
                if count else np.zeros(0, dtype=dtype))

    def read_into(self, name, start, out):
        """``out[:] = arrays[name][start:start + len(out)]``, read from the
        file (``pread``), not through the mapping."""
        view = memoryview(out).cast("B")
        offset = self._offsets[name] + start * out.itemsize
        while len(view):
            try:
                n = os.preadv(self._fd, [view], offset)
            except OSError as e:
                raise TreexcError(f"{self.path}: cannot read: {e.strerror or e}") from None
            if n == 0:
                raise TreexcError(f"{self.path}: truncated data file")
            view, offset = view[n:], offset + n

    def check_unchanged(self):
        """Raise :class:`TreexcError` when the file was written to since it
        was mapped (its size or modification time differ): another
        process rewrote it in place, and what is read from it now was never
        checked.  One ``fstat``; a file renamed over the path is another
        file and does not count (the mapping keeps the checked one)."""
        if self._fd < 0:
            return
        try:
            now = file_state(os.fstat(self._fd))
        except OSError:
            return
        if now != self._identity:
            raise TreexcError(f"{self.path}: rewritten in place while training read it (by "
                              "another process); train again (a new cache is built)")

    def close(self):
        """Close the descriptor :meth:`read_into` reads (the arrays stay)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def release(self):
        """Hand the mapping's resident pages back (they are read again from
        the page cache or the disk when next touched)."""
        try:
            self._map.madvise(mmap.MADV_DONTNEED)
        except (OSError, ValueError, AttributeError):
            pass  # a platform without madvise: the pages stay resident

    @contextmanager
    def releasing(self, interval=0.1):
        """Call :meth:`release` every ``interval`` seconds while inside."""
        stop = threading.Event()

        def loop():
            while not stop.wait(interval):
                self.release()

        thread = threading.Thread(target=loop, name="treexc-release-pages", daemon=True)
        thread.start()
        try:
            yield self
        finally:
            stop.set()
            thread.join()
