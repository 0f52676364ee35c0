"""Numba start-up: what a treexc process does before its first kernel call.

First, on import: **cached kernels are keyed on every kernel's source.**
Numba checks a cached kernel against its own file only, so after an edit
of a kernel it calls in another file (``loss.kernels.node_probabilities``
called from ``loss.topk``) the cache would keep serving machine code built
from the old callee: silently wrong results after a ``git pull`` into an
editable install.  Importing this module makes the freshness stamp of
every kernel in the package one hash over the sources of all of them, so
any kernel edit recompiles them all (once: 25-45 s).  Every kernel module
imports this module before its first ``@njit`` (a test checks that); the
stamp costs one read of the kernel sources (about 130 KB) per process.

Then two things, both set up once per process by :func:`prepare`:

* **Say when kernels compile, and for how long.**  A command compiles the
  kernels it calls that are not cached yet (seconds to minutes) and caches
  the machine code on disk (next to the sources, or under
  ``NUMBA_CACHE_DIR`` / ``~/.cache/numba`` when the package is read-only);
  ``treexc compile`` (``cli/warmup.py``) compiles every command's at once.
  Numba announces a real compilation, that is a cache miss, with its
  ``numba:compile`` event; the first one prints :data:`NOTICE` on stderr.
  A warm cache never triggers it, so the check costs nothing.
  ``TREEXC_COMPILE_NOTICE=0`` turns the notice off (the test suite does, as
  its error tests count stderr lines).  The same events time the
  compilations (:func:`compile_seconds`), which training leaves out of its
  speed and ETA: a first run's first progress lines would otherwise
  promise hours.
* **Load cached kernels without initialising the compiler.**  Before it
  loads a cached kernel, Numba refreshes its typing and lowering registries
  (it imports about 80 modules and registers some 2,000 implementations,
  0.15-0.25 s of a 0.6-1 s start-up) although a cached kernel needs none of
  them: only the runtime (NRT) its machine code links against.  So cache
  loads initialise just the runtime; a real compilation still refreshes
  everything itself (Numba's ``CompilerBase`` does so on construction).
  The patch is applied only where Numba's ``Cache.load_overload`` is the
  one it was written against (the same in Numba 0.59.1, 0.67 and 0.68: its
  code uses exactly the names ``refresh``,
  ``_guard_against_spurious_io_errors`` and ``_load_overload``);
  ``TREEXC_NUMBA_PATCH=0`` leaves Numba untouched.

Only this module touches Numba's internals; kernels stay plain ``@njit``.
"""

import functools
import hashlib
import os
import re
import sys
import time

from numba.core import caching, event
from numba.core.runtime import rtsys

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_numba_source_stamp = caching._SourceFileBackedLocatorMixin.get_source_stamp


KERNEL = re.compile(rb"^@njit", re.MULTILINE)


def _kernel_sources():
    """``(path, bytes)`` of the package's modules that define Numba
    kernels, sorted by path; each file read once (caches not walked)."""
    found = []
    for folder, subfolders, names in os.walk(PACKAGE_DIR):
        subfolders[:] = [d for d in subfolders if d != "__pycache__"]
        for name in names:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, "rb") as f:
                    source = f.read()
                if KERNEL.search(source):
                    found.append((path, source))
    return sorted(found)


def kernel_files():
    """The package's modules that define Numba kernels, sorted."""
    return [path for path, _ in _kernel_sources()]


@functools.lru_cache(maxsize=1)
def kernel_sources_stamp():
    """One hash over the names and bytes of every kernel module."""
    h = hashlib.sha256()
    for path, source in _kernel_sources():
        h.update(os.path.relpath(path, PACKAGE_DIR).encode() + b"\0" + source + b"\0")
    return h.digest()


def _source_stamp(self):
    if os.path.abspath(self._py_file).startswith(PACKAGE_DIR + os.sep):
        return kernel_sources_stamp()
    return _numba_source_stamp(self)


caching._SourceFileBackedLocatorMixin.get_source_stamp = _source_stamp

NOTICE = ("treexc: compiling this command's kernels for this machine (a minute or more; "
          "cached for later runs; `treexc compile` compiles every command's at once)")

# The names Numba's Cache.load_overload uses, where it is the function that
# `_load_cached` replaces; another Numba keeps its own.
_KNOWN_LOAD_OVERLOAD = ("refresh", "_guard_against_spurious_io_errors", "_load_overload")
_numba_load_overload = caching.Cache.load_overload

_prepared = False


class _CompileNotice(event.Listener):
    """Prints :data:`NOTICE` at the first real compilation of the process."""

    def __init__(self, stream):
        self.stream = stream
        self.said = False

    def on_start(self, ev):
        if not self.said:
            self.said = True
            stream = self.stream or sys.stderr
            print(NOTICE, file=stream, flush=True)

    def on_end(self, ev):
        pass


class _CompileClock(event.Listener):
    """Seconds spent in real compilations.  Numba nests the events of a
    kernel's callees in the kernel's own, and compiles under one global
    lock: only the outermost event of a nest is timed."""

    def __init__(self):
        self.depth = 0
        self.started = 0.0
        self.seconds = 0.0

    def on_start(self, ev):
        self.depth += 1
        if self.depth == 1:
            self.started = time.perf_counter()

    def on_end(self, ev):
        self.depth -= 1
        if self.depth == 0:
            self.seconds += time.perf_counter() - self.started

    def total(self):
        running = time.perf_counter() - self.started if self.depth > 0 else 0.0
        return self.seconds + running


_clock = _CompileClock()


def compile_seconds():
    """Seconds this process has spent compiling kernels so far (one that is
    under way included; 0 before :func:`prepare`)."""
    return _clock.total()


def _load_cached(self, sig, target_context):
    # Numba's version minus `target_context.refresh()`: the runtime is all
    # that cached machine code needs.
    rtsys.initialize(target_context)
    with self._guard_against_spurious_io_errors():
        return self._load_overload(sig, target_context)


def patchable():
    """Whether Numba's ``Cache.load_overload`` is the one we know."""
    code = getattr(_numba_load_overload, "__code__", None)
    return (code is not None and code.co_names == _KNOWN_LOAD_OVERLOAD
            and code.co_varnames[:code.co_argcount] == ("self", "sig", "target_context"))


def prepare(stream=None):
    """Set up the compile notice and fast cache loads, once per process."""
    global _prepared
    if _prepared:
        return
    _prepared = True
    event.register("numba:compile", _clock)
    if os.environ.get("TREEXC_COMPILE_NOTICE", "1") != "0":
        event.register("numba:compile", _CompileNotice(stream))
    if os.environ.get("TREEXC_NUMBA_PATCH", "1") != "0" and patchable():
        caching.Cache.load_overload = _load_cached


def fast_loads():
    """Whether cached kernels load without the compiler's registries."""
    return caching.Cache.load_overload is _load_cached

