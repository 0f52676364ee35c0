"""When the first answers of ``predict`` (Python and numpy, no Numba:
``classify/firstlines.py``, ``linear/firstlines.py``) give way to the
kernels, for the command line and the Python API alike.

Importing Numba and loading the cached kernels costs a fixed few tenths
of a second of CPU (and, in the Python API, about 100 MiB of memory for
llvmlite's library); numpy answers a line in a fraction of a millisecond
to a few milliseconds, the kernels in microseconds.  So numpy answers
pieces of at most :data:`FIRST_PIECE` lines and :data:`FIRST_BYTES` bytes
until a family's number of lines has been answered; from the first piece
past that, the kernels answer, for good.  The answers are the same either
way.
"""

FIRST_PIECE = 100
# numpy holds a Python object per token: a 50 MB line took 1.5 GB and 20 s
FIRST_BYTES = 1 << 20


class FirstAnswers:
    """Counts the lines answered without the kernels; ``take`` says whether
    the next piece may be too."""

    def __init__(self, first_lines):
        self.first_lines = first_lines
        self.answered = 0

    def take(self, n_lines, n_bytes):
        self.answered += n_lines
        return (n_lines <= FIRST_PIECE and n_bytes <= FIRST_BYTES
                and self.answered <= self.first_lines)


def piece_lines(piece):
    """The lines of a piece of input (bytes): its newlines, and one more for
    a last line without one."""
    return piece.count(b"\n") + (len(piece) > 0 and not piece.endswith(b"\n"))
