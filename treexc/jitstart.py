"""Numba start-up: what a treexc process does before its first kernel call.

Two things, both set up once per process by :func:`prepare`:

* **Say when kernels compile.**  The first run on a machine compiles every
  kernel it calls (25-45 s) and caches the machine code on disk (next to the
  sources, or under ``NUMBA_CACHE_DIR`` / ``~/.cache/numba`` when the
  package is read-only).  Numba announces a real compilation, that is a
  cache miss, with its ``numba:compile`` event; the first one prints
  :data:`NOTICE` on stderr.  A warm cache never triggers it, so the check
  costs nothing.  ``TREEXC_COMPILE_NOTICE=0`` turns it off (the test suite
  does, as its error tests count stderr lines).
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

import os
import sys

from numba.core import caching, event
from numba.core.runtime import rtsys

NOTICE = ("treexc: compiling kernels for this machine, once (up to a minute); "
          "later runs start at once")

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
    if os.environ.get("TREEXC_COMPILE_NOTICE", "1") != "0":
        event.register("numba:compile", _CompileNotice(stream))
    if os.environ.get("TREEXC_NUMBA_PATCH", "1") != "0" and patchable():
        caching.Cache.load_overload = _load_cached


def fast_loads():
    """Whether cached kernels load without the compiler's registries."""
    return caching.Cache.load_overload is _load_cached

