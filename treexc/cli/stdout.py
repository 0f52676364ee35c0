"""Standard output after a failed write, without click: what both the full
command line (``cli/common.py``) and the entry point (``cli/entry.py``)
do once the reader has gone away or the disk is full."""

import os
import sys


def silence_stdout():
    """Point standard output at /dev/null, so that the flush at exit of what
    could not be written does not fail again (and print a traceback)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):
        pass
    finally:
        os.close(devnull)
