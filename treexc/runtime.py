"""What every training run uses, whatever the model: worker threads over
nogil kernels, BLAS thread limits, progress reporters (a rich bar on a
terminal, plain lines otherwise, both with fastText's figures; a silent
one), and the checks for a run that diverged."""

import contextlib
import ctypes
import re
import threading
import time
from dataclasses import dataclass

import numpy as np

from .errors import TrainingDiverged, TreexcError
from .io import contents


def format_eta(seconds):
    if seconds == float("inf"):
        return "--h--m--s"
    s = int(seconds)
    return f"{s // 3600}h{s // 60 % 60:2d}m{s % 60:2d}s"


def progress_line(p):
    return (f"Progress: {100 * p.fraction:5.1f}% words/sec/thread: "
            f"{p.words_per_sec_thread:8.0f} lr: {p.lr:9.6f} avg.loss: {p.loss:9.6f} "
            f"ETA: {format_eta(p.eta_seconds)}")


class SummaryReporter:
    """``-verbose 1``: what was read, no progress."""

    def __init__(self, stream):
        self.stream = stream

    def info(self, message):
        print(message, file=self.stream, flush=True)

    def update(self, p):
        pass

    def finish(self, p):
        # fastText prints the final progress line at -verbose 1 too
        print(progress_line(p), file=self.stream, flush=True)

    def abort(self):
        """Training stopped early (an error, a signal): no final line."""

    def pause(self):
        """Other output follows (a live bar steps aside)."""


class LineReporter(SummaryReporter):
    """A line every ``every`` seconds and one at the end."""

    def __init__(self, stream, every=5.0):
        super().__init__(stream)
        self.every = every
        self.last = time.monotonic()

    def update(self, p):
        now = time.monotonic()
        if p.fraction > 0 and now - self.last >= self.every:
            self.last = now
            print(progress_line(p), file=self.stream, flush=True)

    def finish(self, p):
        print(progress_line(p), file=self.stream, flush=True)


class RichReporter:
    def __init__(self):
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn

        self.console = Console(stderr=True)
        self.bar = Progress(
            TextColumn("[bold]training"), BarColumn(),
            TextColumn("{task.percentage:5.1f}%"),
            TextColumn("words/sec/thread {task.fields[wst]:>8.0f}"),
            TextColumn("lr {task.fields[lr]:.6f}"),
            TextColumn("loss {task.fields[loss]:.6f}"),
            TextColumn("ETA {task.fields[eta]}"),
            console=self.console, transient=False)
        self.task = None
        self.paused = False

    def info(self, message):
        self.console.print(message, highlight=False)

    def update(self, p):
        self.paused = False
        if self.task is None:
            self.bar.start()
            self.task = self.bar.add_task("train", total=1.0, wst=0, lr=0, loss=0, eta="")
        self.bar.update(self.task, completed=p.fraction, wst=p.words_per_sec_thread,
                        lr=p.lr, loss=p.loss, eta=format_eta(p.eta_seconds))

    def finish(self, p):
        if self.paused:
            return  # the bar left by pause() is the last state, and lines follow it
        self.update(p)
        self.bar.stop()

    def abort(self):
        """Stop the live bar, which also shows the terminal's cursor again
        (rich hides it while the bar is drawn)."""
        self.pause()

    def pause(self):
        """Leave the bar as a line, so that other output can follow it; the
        next update starts a new one."""
        if self.task is not None:
            self.bar.stop()
            self.bar.remove_task(self.task)
            self.task = None
            self.paused = True


@dataclass
class Progress:
    """What a progress reporter is told, about every 0.1 s."""

    fraction: float
    words_per_sec_thread: float
    lr: float
    loss: float
    eta_seconds: float


class SilentReporter:
    def info(self, message):
        pass

    def update(self, progress):
        pass

    def finish(self, progress):
        pass

    def abort(self):
        """Training stopped early (an error, a signal): no final line."""

    def pause(self):
        """Other output follows (a live bar steps aside)."""


def reporter_factory(verbose, stream, summary=True, live=True):
    """What makes a run's progress reporter (a class or a function of no
    arguments), for both commands: at ``verbose`` 2 and up a live bar on a
    terminal (``live``), plain lines otherwise; at 1 what was read and the
    final line where ``summary`` (the classifier, as fastText; the language
    model prints its evaluation records there instead); else nothing."""
    if verbose >= 2:
        if live and stream.isatty():
            return RichReporter
        return lambda: LineReporter(stream)
    if verbose == 1 and summary:
        return lambda: SummaryReporter(stream)
    return SilentReporter


def diverged(epoch, epochs, lr, why="NaN or infinite values"):
    """The error of a diverged run: fastText says "Encountered NaN."; this
    also says what to change."""
    return TrainingDiverged(f"training diverged ({why}) at epoch {epoch:.2f} of {epochs:g}; "
                            f"lower -lr (now {lr:g})")


def check_weights_in_range(named_weights, epochs, lr):
    """Models refuse to load weights beyond ``contents.MAX_WEIGHT`` (a dot
    product could overflow): a run whose weights grew past it, finite but
    diverging, saves nothing either (one pass over the weights)."""
    for name, w in named_weights:
        if w is None:
            continue
        try:
            contents.check_weights(name, w)
        except ValueError:
            raise diverged(epochs, epochs, lr,
                           f"weights beyond {contents.MAX_WEIGHT:g}") from None


def run_workers(n_threads, work, control, poll, interval=0.1):
    """Run ``work(t)`` for ``t`` in ``range(n_threads)`` in threads (``work``
    calls a nogil kernel), calling ``poll()`` every ``interval`` seconds until
    all are done.  On Ctrl-C, an error raised by ``poll()`` or an error in a
    worker, ``control[0] = 1`` asks the kernels to stop; the error is
    re-raised here once they have."""
    errors = []

    def guarded(t):
        try:
            # an overflow is the callers' to detect (a NaN test on the loss):
            # numpy's warnings would print lines of their own
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                work(t)
        except BaseException as e:  # surfaced in the calling thread
            errors.append(e)
            control[0] = 1

    threads = [threading.Thread(target=guarded, args=(t,), daemon=True)
               for t in range(n_threads)]
    for i, th in enumerate(threads):
        try:
            th.start()
        except RuntimeError as e:  # a limit on processes or address space (ulimit -u, -v)
            control[0] = 1
            for started in threads[:i]:
                started.join()
            raise TreexcError(f"-thread {n_threads}: the system refused to start thread "
                              f"{i + 1} ({e}): lower -thread") from None
    try:
        alive = threads
        while alive:
            alive[0].join(interval)
            poll()
            alive = [th for th in alive if th.is_alive()]
    except BaseException:  # Ctrl-C, or poll() stopping the run (autotune's deadline)
        control[0] = 1
        for th in threads:
            th.join()
        raise
    for th in threads:
        th.join()
    if errors:
        raise errors[0]


def run_in_ranges(n, run, min_lines, n_threads):
    """``run(a, b)`` over ``0..n`` cut into contiguous ranges, one thread
    each (``run`` calls a nogil kernel), as many threads as ranges of at
    least ``min_lines`` lines, at most ``n_threads``; one call in this
    thread when that is one."""
    n_threads = min(n_threads, n // min_lines) if n else 0
    if n_threads <= 1:
        run(0, n)
        return
    bounds = np.linspace(0, n, n_threads + 1).astype(int)
    threads = [threading.Thread(target=run, args=(bounds[i], bounds[i + 1]))
               for i in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def _openblas():
    """numpy's OpenBLAS (set/get thread-count functions) or ``None``."""
    try:
        with open("/proc/self/maps") as f:
            maps = f.read()
    except OSError:
        return None
    for path in sorted(set(re.findall(r"(/\S*openblas\S*\.so[.\d]*)", maps))):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix, suffix in (("scipy_", "64_"), ("", "64_"), ("", "")):
            name = f"{prefix}openblas_set_num_threads{suffix}"
            if hasattr(lib, name):
                return (getattr(lib, name),
                        getattr(lib, f"{prefix}openblas_get_num_threads{suffix}"))
    return None


@contextlib.contextmanager
def blas_threads(n):
    """Run the block with BLAS limited to ``n`` threads (when it is OpenBLAS):
    the worker threads are the parallelism, and two workers each starting
    a BLAS thread pool would fight over the cores."""
    funcs = _openblas()
    if funcs is None:
        yield
        return
    set_n, get_n = funcs
    before = get_n()
    set_n(n)
    try:
        yield
    finally:
        set_n(before)


