"""The files of a token cache's folder: this run's own build names, their
publication, and the clean-up of what killed runs left.

A training run builds a cache under names of its own, which hold the host
and the process id (:func:`own_name`, and a temporary folder of
:func:`temporary_folder`), so that concurrent runs sharing a ``-cache``
folder never write to one file and the next run on the host can tell the
files of a process that no longer exists (:func:`sweep_abandoned`): part
files of a killed build are the size of the corpus.
"""

import os
import re
import secrets
import tempfile
from contextlib import contextmanager

from ..errors import TreexcError
from ..io.publish import host_tag, pid_alive


def own_name(base):
    """This run's build name of the cache ``base`` (``base.PREFIX PID-HEX``)."""
    return f"{base}.{_temp_prefix()}{os.getpid()}-{secrets.token_hex(4)}"


@contextmanager
def temporary_folder(folder):
    """A new temporary cache folder in ``folder`` (default: the system's),
    removed on leaving, also on errors and signals; the folders that dead
    processes left are swept first."""
    sweep_abandoned(folder)
    try:
        work = tempfile.mkdtemp(prefix=f"{_temp_prefix()}{os.getpid()}-", dir=folder)
    except OSError as e:
        raise TreexcError(f"cannot make a temporary folder for the token cache: "
                          f"{e.strerror or e}") from None
    try:
        yield work
    finally:
        remove_folder(work)


def _temp_prefix():
    """The start of this host's temporary cache folders' names; the
    process id and mkdtemp's random letters (no "-") follow."""
    return f"treexc-cache-{host_tag()}-"


def publish(own, base, mapped):
    """Rename this run's cache ``own`` into place as ``base`` (the data file
    first, the index last).  The run goes on reading what it opened either
    way; a cache that cannot be published is removed."""
    try:
        os.replace(own + ".tokens", base + ".tokens")
        mapped.path = base + ".tokens"
        os.replace(own + ".index", base + ".index")
    except OSError:
        remove_own(own)


def remove_own(own):
    for suffix in (".tokens", ".index"):
        try:
            os.unlink(own + suffix)
        except OSError:
            pass


def _own_build_files(folder, names):
    """``(name, pid)`` of the build files of a ``-cache`` folder: a key, a
    dot, then :func:`_temp_prefix`, a process id, ``-``, hex letters and a
    suffix of their own."""
    own = re.compile(r"[0-9a-f]{20}\." + re.escape(_temp_prefix()) + r"(\d+)-[0-9a-f]+\..+")
    for entry in names:
        m = own.fullmatch(entry)
        if m is not None:
            yield entry, int(m.group(1))


def sweep_abandoned(folder=None):
    """Remove the temporary caches in ``folder`` (default: the temporary
    folder) left by training processes of this host that no longer exist:
    killed before they could clean up, they would otherwise keep a copy of
    their corpus on disk for good.  A folder whose process id is taken
    again by a live process is kept (it is removed by a later run).  The
    build files of a ``-cache`` folder's caches (part files, spools, data
    files and indexes not yet renamed) go the same way."""
    folder = folder or tempfile.gettempdir()
    prefix = _temp_prefix()
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for entry, pid in _own_build_files(folder, names):
        if pid != os.getpid() and not pid_alive(pid):
            try:
                os.unlink(os.path.join(folder, entry))
            except OSError:
                pass
    for entry in names:
        pid, _, letters = entry[len(prefix):].partition("-")
        # this process's own folders are live (the Python API may train in
        # several threads at once)
        if (not entry.startswith(prefix) or not pid.isdigit() or not letters
                or "-" in letters or int(pid) == os.getpid() or pid_alive(int(pid))):
            continue
        path = os.path.join(folder, entry)
        if os.path.isdir(path) and not os.path.islink(path):
            remove_folder(path)


def remove_folder(folder):
    for entry in os.listdir(folder):
        try:
            os.unlink(os.path.join(folder, entry))
        except OSError:
            pass
    try:
        os.rmdir(folder)
    except OSError:
        pass


