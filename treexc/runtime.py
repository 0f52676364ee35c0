"""Training progress on stderr: a rich bar on a terminal, plain lines
otherwise (logs, pipes), both with fastText's figures."""

import time


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
