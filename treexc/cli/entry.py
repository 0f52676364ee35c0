"""The ``treexc`` command's entry point: the full command line
(``cli/main.py``, click), except for a small input to a linear model,
which ``test``, ``predict`` and ``predict-prob`` answer here with numpy
(``linear/firstlines.py``) before click is imported.

Why: of the full command's 0.21 s of CPU for 10 lines of
agnews_testonly, click with the commands' options is about 0.05 s; numpy
without click answers them in 0.16 s (docs/results/startup.md, "Small
inputs without click").

Taken only for the plain form ``treexc CMD MODEL INPUT [K] [THRESHOLD]``
(INPUT a regular file that is not gzipped, or ``-`` where standard input
is one), valid K and THRESHOLD, a text-input linear model and an input
within :data:`INPUT_LINES` and :data:`INPUT_BYTES`, valid UTF-8 without
NUL bytes, which numpy's first answers take (``firstlines.answers_at_once``).
Anything else, a flag, ``--help``, an input or a model that is not so,
runs the full command, which also gives every error its one line: the
output and exit status are the same either way, to the byte
(tests/cli/test_entry.py).
"""

import gc
import os
import stat
import sys

from .stdout import silence_stdout

COMMANDS = ("test", "predict", "predict-prob")
# the largest input read here (numpy's first answers take at most
# firstlines.FIRST_LINES lines and FIRST_BYTES bytes of it)
INPUT_LINES = 4000
INPUT_BYTES = 1 << 20
GZIP_MAGIC = b"\x1f\x8b"


def main():
    """``treexc``: what ``sys.exit`` gets."""
    code = small_answer(sys.argv[1:])
    if code is not None:
        return code
    from .main import main as full_command

    return full_command()


def small_answer(args):
    """The exit status of ``treexc ARGS`` answered here, or ``None``: the
    full command's (nothing written, standard input where it was)."""
    if not args or args[0] not in COMMANDS or sys.stdout is None:
        return None
    positional = _positional(args[0], args[1:])
    if positional is None:
        return None
    model_path, input_path, k, threshold = positional
    gc.disable()  # a short process: its few objects need no collections
    try:
        return _answer(args[0], model_path, input_path, k, threshold)
    except KeyboardInterrupt:
        sys.stderr.write("treexc: interrupted\n")
        return 130
    finally:
        gc.enable()


def _positional(command, rest):
    """``(MODEL, INPUT, K, THRESHOLD)`` of the plain form, or ``None``."""
    if command == "predict" and len(rest) == 1:  # INPUT defaults to standard input
        if sys.stdin is None or sys.stdin.isatty():
            return None  # the full command prints its help (usage_if_typing)
        rest = [rest[0], "-"]
    if not 2 <= len(rest) <= 4 or rest[0].startswith("-") \
            or (rest[1].startswith("-") and rest[1] != "-"):
        return None
    try:
        k = int(rest[2]) if len(rest) > 2 else 1  # click's INT and FLOAT
        threshold = float(rest[3]) if len(rest) > 3 else 0.0
    except ValueError:
        return None
    if (k < 1 and k != -1) or not 0.0 <= threshold <= 1.0:  # check_k_threshold
        return None
    return rest[0], rest[1], k, threshold


def _answer(command, model_path, input_path, k, threshold):
    read = _read_input(input_path)
    if read is None:
        return None
    data, rewind = read
    try:
        out = _numpy_answer(command, model_path, data, k, threshold)
    except (ArithmeticError, LookupError, ValueError, TypeError, MemoryError,
            RecursionError):
        out = None
    if out is None:
        rewind()
        return None
    return _write(out)


def _numpy_answer(command, model_path, data, k, threshold):
    """The answers of numpy (``linear/firstlines.py``, as the full command
    gives them for an input within its rule), or ``None``."""
    # as cli/main.py: one BLAS thread (numpy starts OpenBLAS's pool on import)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    import numpy as np

    from ..errors import TreexcError
    from ..linear import firstlines
    from ..model_family import LINEAR, model_family

    if model_family(model_path) != LINEAR:  # from the header: the file is not read twice
        return None
    try:
        first = firstlines.load(model_path)
    except TreexcError:
        return None  # a damaged file: the full command says what is wrong
    array = np.frombuffer(data, dtype=np.uint8)
    if not first.answers_at_once(array):
        return None
    if command == "test":
        meter = first.evaluate(array, k, threshold)
        return (f"N\t{meter.n_examples}\nP@{k}\t{meter.precision():.3g}\n"
                f"R@{k}\t{meter.recall():.3g}\n").encode()
    from ..io.answers import format_predictions, label_names
    from ..io.textio import to_bytes

    answer = first.predict(data, k, threshold)
    if answer is None:
        return None
    return to_bytes(format_predictions(label_names(first.labels), *answer,
                                       command == "predict-prob"))


def _read_input(path):
    """``(bytes, rewind)`` of a small plain input, or ``None``."""
    try:
        if path == "-":
            fd = 0
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None  # a pipe or a terminal: answered as it arrives
            start = os.lseek(fd, 0, os.SEEK_CUR)
            if os.fstat(fd).st_size - start > INPUT_BYTES:
                return None
            data = _read_all(fd)
            rewind = lambda: os.lseek(fd, start, os.SEEK_SET)  # noqa: E731
        else:
            if not os.path.isfile(path) or os.path.getsize(path) > INPUT_BYTES:
                return None  # (not opened: a FIFO would wait for a writer)
            fd = os.open(path, os.O_RDONLY)
            try:
                data = _read_all(fd)
            finally:
                os.close(fd)
            rewind = lambda: None  # noqa: E731
    except OSError:
        return None
    if len(data) > INPUT_BYTES or not data or data[:2] == GZIP_MAGIC \
            or data.count(b"\n") + (not data.endswith(b"\n")) > INPUT_LINES \
            or b"\0" in data or not _is_utf8(data):
        rewind()  # the full command warns of NUL bytes and invalid UTF-8
        return None
    return data, rewind


def _read_all(fd):
    parts = []
    while True:
        part = os.read(fd, INPUT_BYTES + 1)
        if not part:
            return b"".join(parts)
        parts.append(part)
        if sum(map(len, parts)) > INPUT_BYTES:
            return b"".join(parts)


def _is_utf8(data):
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def _write(out):
    """Write the answers as ``common.write_stdout`` does: a reader gone
    away is a quiet exit, a failed write one line and status 1."""
    try:
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is None:
            return None
        sys.stdout.flush()
        rest = memoryview(out)
        while rest:
            rest = rest[buffer.write(rest):]
        buffer.flush()
    except BrokenPipeError:
        silence_stdout()
        return 0
    except (OSError, ValueError) as e:
        silence_stdout()
        sys.stderr.write(f"treexc: standard output: cannot write: "
                         f"{getattr(e, 'strerror', None) or e}\n")
        return 1
    gc.freeze()  # nothing for the collections at exit to free (cli/main.py)
    return 0
