"""A training run's outputs published as one set, and signals that stop it.

A run (``treexc supervised``, ``treexc lm``) writes every output under a
temporary name in its destination folder, ``OUTPUT.vec.treexc-HOST-PID.tmp``,
and renames them into place only when all of them were written (and
flushed to disk): the ``.bin`` last, because it is what the other commands
load and what a watcher of the file reacts to, so a new ``.bin`` never sits
next to an old ``.vec``.  A failure before that point (a full disk, a file
size limit, a folder in the way) removes the temporaries and leaves the
previous set as it was.

SIGINT (Ctrl-C), SIGTERM and SIGHUP stop a run at any moment before the
renames: the workers stop, the temporaries are removed, nothing is
published, and the command says ``treexc: interrupted`` and exits with 128 +
the signal's number (130, 143, 129).  From the renames (microseconds) on,
those signals are ignored and the run completes: a run that published
reports success, a run reported as interrupted published nothing.  They
stay ignored after the block that published, to the end of the process
(a signal during Python's own shutdown would otherwise end a run that had
published with status 143).

Concurrent runs on one ``-output``: the renames happen under an exclusive
``flock`` on the destination folder, so each run publishes its complete
set without the other's renames in between; the last run to finish wins.

Temporaries left by a killed run (SIGKILL, power loss) carry the writer's
host and process id in their name: the next run on the same ``-output``
removes them when that process is gone (same host) or when they are older
than a day (a concurrent run's live temporaries are never that old).
"""

import os
import re
import signal
import stat
import threading
import time
from contextlib import contextmanager

from ..errors import TreexcError

SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                if hasattr(signal, name))
STALE_AGE = 24 * 3600.0
_TAG_RE = re.compile(r"\.treexc-(?P<host>\w*)-(?P<pid>\d+)\.tmp(\.\w+\.tmp)?$")
# modelfile.atomic_writer's own temporary names (tempfile.mkstemp: 8 characters)
_MKSTEMP_RE = re.compile(r"\.[a-z0-9_]{8}\.tmp$")


# Set when a set of outputs was published: a signal after that point is
# ignored (the run is done; reporting it as interrupted would be wrong).
_published = []


class Interrupted(KeyboardInterrupt):
    """A signal asked the run to stop; ``signum`` says which."""

    def __init__(self, signum=signal.SIGINT):
        super().__init__(signum)
        self.signum = signum


def _main_thread():
    return threading.current_thread() is threading.main_thread()


@contextmanager
def interrupt_on_signals():
    """Within the block, SIGINT, SIGTERM and SIGHUP raise :class:`Interrupted`
    in the main thread (Python's default would kill the process on SIGTERM
    and SIGHUP without removing anything).  Later signals are ignored while
    the first one unwinds, so the clean-up itself is not cut short."""
    if not _main_thread():
        yield
        return
    raised = []
    _published.clear()

    def handler(signum, frame):
        if raised or _published:
            return
        raised.append(signum)
        raise Interrupted(signum)

    previous = {s: signal.signal(s, handler) for s in SIGNALS}
    try:
        yield
    finally:
        for s, h in previous.items():
            # SIG_IGN, not a Python handler: Python's shutdown resets those
            signal.signal(s, signal.SIG_IGN if _published else h)


@contextmanager
def _signals_held():
    """Within the block, SIGINT, SIGTERM and SIGHUP are ignored: the renames
    run to the end (a signal before them has already stopped the run)."""
    if not _main_thread():
        yield
        return
    previous = {s: signal.signal(s, lambda signum, frame: None) for s in SIGNALS}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


def refuse_special(final, named=None):
    """Refuse to publish onto a device, FIFO or socket (``-log /dev/null``):
    the rename that publishes a file would replace it by a regular file (as
    root, /dev/null itself).  A symbolic link is followed to judge it."""
    try:
        mode = os.stat(final).st_mode
    except (OSError, ValueError):
        return  # nothing there yet (or a name the write will report)
    kind = next((what for test, what in _SPECIAL if test(mode)), None)
    if kind:
        raise TreexcError(f"{named or final}: is a {kind}, not a regular file; treexc writes a new "
                          "file and renames it into place (give a file name)")


_SPECIAL = ((stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
            (stat.S_ISFIFO, "named pipe (FIFO)"), (stat.S_ISSOCK, "socket"))


def host_tag():
    """This host's name in temporary names: letters, digits and ``_``
    (``os.uname().nodename``: the name ``socket.gethostname()`` gives,
    without importing ``socket`` at every command's start)."""
    return re.sub(r"\W", "_", os.uname().nodename)[:32]


def temp_name(final):
    """The temporary name of ``final`` for this process."""
    return f"{final}.treexc-{host_tag()}-{os.getpid()}.tmp"


class OutputSet:
    """The files one run publishes together, in publishing order (put the
    ``.bin`` last).  Use as a context manager: leaving the block without
    :meth:`publish` (an error, a signal) removes every temporary.

    >>> outputs = OutputSet(["model.vec", "model.bin"])   # doctest: +SKIP
    >>> with outputs:
    ...     outputs.write("model.bin", model.save_model)
    ...     outputs.write("model.vec", lambda tmp: write_vec(tmp, n, dim, rows))
    ...     outputs.publish()
    """

    def __init__(self, finals):
        self.finals = [os.fspath(f) for f in finals]
        self.temps = {f: temp_name(f) for f in self.finals}
        self.published = False

    def temp(self, final):
        return self.temps[os.fspath(final)]

    def write(self, final, writer):
        """``writer(temporary name of final)``; its errors name ``final``."""
        final = os.fspath(final)
        tmp = self.temp(final)
        try:
            writer(tmp)
        except TreexcError as e:
            raise TreexcError(str(e).replace(tmp, final)) from None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if not self.published:
            self.discard()
        return False

    def discard(self):
        for tmp in self.temps.values():
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            except OSError:
                pass  # removed by the next run's stale clean-up

    def remove_stale(self, now=None):
        """Remove temporaries of these outputs left by runs that are gone."""
        now = time.time() if now is None else now
        host = host_tag()
        by_folder = {}
        for final in self.finals:
            folder, base = os.path.split(os.path.abspath(final))
            by_folder.setdefault(folder, set()).add(base)
        for folder, bases in by_folder.items():
            try:
                names = os.listdir(folder)
            except OSError:
                continue
            for name in names:
                if _is_stale(name, bases, host, folder, now):
                    try:
                        os.unlink(os.path.join(folder, name))
                    except OSError:
                        pass

    def publish(self):
        """Rename every temporary to its final name, under the folder lock."""
        with _signals_held():
            with _folder_lock(os.path.dirname(os.path.abspath(self.finals[-1]))) as fd:
                for final in self.finals:
                    refuse_special(final)
                    if os.path.isdir(final):
                        raise TreexcError(f"{final}: is a folder; nothing was published "
                                          "(remove it or choose another -output)")
                for final in self.finals:
                    try:
                        os.replace(self.temps[final], final)
                    except OSError as e:
                        raise TreexcError(f"{final}: cannot publish: "
                                          f"{e.strerror or e}") from None
                self.published = True
                _published.append(self)
                if fd is not None:
                    try:
                        os.fsync(fd)  # the renames themselves on disk
                    except OSError:
                        pass


def _is_stale(name, bases, host, folder, now):
    """Is ``name`` (in ``folder``) a temporary of one of ``bases`` whose
    writer is gone?"""
    for base in bases:
        if not name.startswith(base + "."):
            continue
        rest = name[len(base):]
        m = _TAG_RE.fullmatch(rest)
        if m is None and not _MKSTEMP_RE.fullmatch(rest):
            continue
        try:
            age = now - os.lstat(os.path.join(folder, name)).st_mtime
        except OSError:
            return False
        if age > STALE_AGE:
            return True
        if m is not None and m.group("host") == host:
            return not pid_alive(int(m.group("pid")))
    return False


def pid_alive(pid):
    """Whether process ``pid`` of this host exists (not this process: an
    earlier one with its id left what is being checked)."""
    if pid == os.getpid():
        return False  # an earlier process that had our id: we have written nothing yet
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


@contextmanager
def _folder_lock(folder):
    """An exclusive ``flock`` on the folder itself (no lock file to leave
    behind); yields the folder's descriptor, or ``None`` where the folder
    cannot be locked (some network file systems): then concurrent runs are
    last-writer-wins file by file."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        yield None
        return
    try:
        try:
            import fcntl
            fcntl.flock(fd, fcntl.LOCK_EX)
        except (ImportError, OSError):
            pass
        yield fd
    finally:
        os.close(fd)  # releases the lock
