"""One line instead of a bare bus error when a mapped file shrinks under us.

A page of a memory mapping whose file was truncated (or rewritten by
``cp``, which truncates first) raises SIGBUS on the next touch, inside
numpy or a kernel, where Python cannot turn it into an exception: its own
handler would return to the faulting instruction, which faults again.  So
the handler is native code (a Numba ``cfunc``, cached on disk): it
writes one ``treexc:`` line on stderr and ends the process with status 1,
running nothing else (a signal handler may only call async-signal-safe
functions; ``write`` and ``_exit`` are).  Outputs being written stay under
their temporary names, which the next run removes (``io/publish``).

:func:`install` costs one cached-function load the
first time and nothing after, but that load initialises Numba's compiler
(1-1.5 s and 44 MB on a busy machine), so it is installed only where a
mapping is read: by the command line (``cli/main``) and the kernels'
loaders (``classify.model.load_model``, ``lm.model.load_lm``) when mapping
models is asked for, by training in the file's order (``-order file``) and
for a clustering tree's label vectors, which read the token cache's
mapping.  The shuffled epochs and the checks of a cache read it with
``pread``, which reports a truncated file as an error.
"""

import ctypes
import signal

import numpy as np
from numba import cfunc, types

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)

MESSAGE = (b"treexc: a memory-mapped file (a model or token cache) was truncated or "
           b"rewritten while in use (bus error); replace files in use by renaming a new "
           b"file over them\n")
_MESSAGE = np.frombuffer(MESSAGE, dtype=np.uint8).copy()
# resolved by name from the C library when the handler is linked (no
# process-specific address in the code, so it can be cached)
_write = types.ExternalFunction("write", types.intp(types.int32, types.voidptr, types.uintp))
_exit = types.ExternalFunction("_exit", types.void(types.int32))
_installed = []


def _on_bus_error(signum):
    _write(2, _MESSAGE.ctypes.data, len(_MESSAGE))
    _exit(1)


def install():
    """Make SIGBUS print :data:`MESSAGE` and exit 1 (once per process; a
    no-op where the C library cannot be reached)."""
    if _installed or not hasattr(signal, "SIGBUS"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        set_handler = libc.signal
    except (OSError, AttributeError):
        return
    # compiled here, not on import: a cfunc compiles (or loads) when it is made
    handler = cfunc(types.void(types.int32), cache=True)(_on_bus_error)
    set_handler.argtypes = [ctypes.c_int, ctypes.c_void_p]
    set_handler.restype = ctypes.c_void_p
    set_handler(signal.SIGBUS, handler.address)
    _installed.append(handler)  # the handler's code must outlive the call
