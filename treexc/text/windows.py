"""The classifier's shuffled epochs, read a window at a time.

An epoch in a new random order has to read the corpus at random places,
and the corpus is the token cache, a file that may be larger than memory.
Read line by line through its mapping, memory grew with the corpus (a
touched page brings its whole page-cache folio into the process; docs/trees.md,
"The order of the lines").  So each thread reads its epoch a *window* at a
time: the corpus is cut into blocks of consecutive lines, the blocks are
taken in a new random order each epoch, :data:`text.epoch_order.WINDOW_BLOCKS`
(16) at a time, copied (``pread``, nothing mapped) into the thread's own
buffers, and the kernel trains on the window's lines in a random order,
one pass (``classify.kernels.train_thread``).  The threads' windows
together hold about :data:`text.epoch_order.WINDOWS_BYTES` (8 MiB: with
two threads 4 MiB each, blocks of 256 KiB), whatever the corpus and the
number of threads; the lines trained together come from 16 random places
of the file, and a corpus of one window is shuffled whole.

The token cache is a file another process may write to (a shared
``-cache`` folder), so nothing read from it is trusted: a window's offsets
are checked before they say where to read (:func:`_check_offsets`), the
file's size and times are compared with those it had when it was checked
after every window (``MappedArrays.check_unchanged``), and the kernel
checks every id before it indexes with it (``classify.kernels.line_is_sane``).
A corpus of one window is read into memory once, as its windows would be,
and not trained on through its mapping.

Thread ``t`` of ``T`` starts at window ``t * n_windows // T`` of epoch 0
and walks the windows in order, on into the next epoch's, as threads walk
the lines in the file's order.  Everything is a function of the seed, the
epoch and the window, so ``-thread 1`` training is reproducible.
"""

import numpy as np

from ..errors import TreexcError
from .dictionary import Corpus
from .epoch_order import WINDOW_BLOCKS, block_lines, epoch_key, half_bits, shuffled_line

_WINDOW_SALT = 0x5EED  # the lines' order in a window is keyed apart from the blocks'


class WindowReader:
    """One thread's walk through the windows of the shuffled epochs."""

    def __init__(self, corpus, seed, thread, n_threads):
        self.corpus = corpus
        self.seed = seed
        n = corpus.n_lines
        self.block = block_lines(n, corpus.nbytes, n_threads)
        self.n_blocks = -(-n // self.block)
        self.n_windows = max(1, -(-self.n_blocks // WINDOW_BLOCKS))
        self.lap = 0
        # thread t starts t/T of the way through the epoch's windows
        self.window = thread * self.n_windows // n_threads
        self._start = (thread * self.n_windows % n_threads, n_threads)
        self.position = 0  # within the current window
        self.lines = None
        self._buffers = {}

    def key(self):
        """The order of the current window's lines (``shuffled_line``'s key)."""
        return epoch_key(self.seed ^ _WINDOW_SALT, self.lap * self.n_windows + self.window)

    def current(self):
        """The current window's lines as a :class:`Corpus`, moving on to the
        next window when :attr:`position` has reached its end."""
        if self.lines is None:
            self.lines = (self.corpus if self.n_windows == 1 and self.corpus.source is None
                          else self._read_window())
            self.position = self._start[0] * self.lines.n_lines // self._start[1]
        elif self.position >= self.lines.n_lines:
            self.position = 0
            self.window += 1
            if self.window == self.n_windows:
                self.window, self.lap = 0, self.lap + 1
            if self.n_windows > 1:
                self.lines = self._read_window()
        return self.lines

    def restore(self, lap, window, position, started):
        """Go back to a saved place (a checkpoint's): window ``window`` of
        lap ``lap``, line ``position`` in it (``started`` false: not begun)."""
        if not (0 <= window < self.n_windows and lap >= 0 and position >= 0):
            raise ValueError("window")
        self.lap, self.window = lap, window
        if started:
            self.lines = (self.corpus if self.n_windows == 1 and self.corpus.source is None
                          else self._read_window())
            self.position = position

    def blocks(self):
        """The first lines of the current window's blocks, in file order."""
        key = epoch_key(self.seed, self.lap)
        h = half_bits(self.n_blocks)
        first = self.window * WINDOW_BLOCKS
        picks = [shuffled_line(b, self.n_blocks, key, h)
                 for b in range(first, min(first + WINDOW_BLOCKS, self.n_blocks))]
        return sorted(b * self.block for b in picks)

    def _read_window(self):
        c = self.corpus
        starts = self.blocks()
        stops = [min(s + self.block, c.n_lines) for s in starts]
        # each block's offsets first: they say where its features and labels are
        n_lines = sum(b - a for a, b in zip(starts, stops))
        ntokens = self._buffer("ntokens", n_lines, np.int32)
        feat_off = self._buffer("feat_off", n_lines + 1, np.int64)
        label_off = self._buffer("label_off", n_lines + 1, np.int64)
        spans, at = [], 0
        for a, b in zip(starts, stops):
            c.read_into("ntokens", a, ntokens[at:at + b - a])
            c.read_into("feat_off", a, feat_off[at:at + b - a + 1])
            _check_offsets(c, feat_off[at:at + b - a + 1], len(c.feats))
            f_lo, f_hi = int(feat_off[at]), int(feat_off[at + b - a])
            c.read_into("label_off", a, label_off[at:at + b - a + 1])
            _check_offsets(c, label_off[at:at + b - a + 1], len(c.labels))
            l_lo, l_hi = int(label_off[at]), int(label_off[at + b - a])
            spans.append((at, b - a, f_lo, f_hi, l_lo, l_hi))
            at += b - a
        feats = self._buffer("feats", sum(s[3] - s[2] for s in spans), np.int32)
        labels = self._buffer("labels", sum(s[5] - s[4] for s in spans), np.int32)
        f_at = l_at = 0
        for at, count, f_lo, f_hi, l_lo, l_hi in spans:
            c.read_into("feats", f_lo, feats[f_at:f_at + f_hi - f_lo])
            c.read_into("labels", l_lo, labels[l_at:l_at + l_hi - l_lo])
            # offsets into the window's arrays; a block's end offset is the
            # next block's start, so each block rebases its own starts only
            feat_off[at:at + count] += f_at - f_lo
            label_off[at:at + count] += l_at - l_lo
            f_at += f_hi - f_lo
            l_at += l_hi - l_lo
        feat_off[n_lines], label_off[n_lines] = f_at, l_at
        if c.source is not None:
            c.source.check_unchanged()
        return Corpus(feat_off, feats, label_off, labels, ntokens)

    def _buffer(self, name, size, dtype):
        """The first ``size`` items of this reader's buffer ``name``, grown
        as needed and reused from window to window."""
        buffer = self._buffers.get(name)
        if buffer is None or len(buffer) < size:
            # a quarter more: windows differ in size, and each growth allocates
            buffer = self._buffers[name] = np.empty(max(size, 1) * 5 // 4, dtype=dtype)
        return buffer[:size]


def _check_offsets(corpus, offsets, length):
    """Offsets read from the file must rise from 0 to at most ``length``
    (the array they index) before anything is read where they point."""
    if len(offsets) and not (0 <= offsets[0] and offsets[-1] <= length
                             and (np.diff(offsets) >= 0).all()):
        raise corpus_changed(corpus)


def corpus_changed(corpus):
    """The error of a corpus whose offsets or ids are out of range: its file
    was written to while training read it."""
    source = corpus.source
    if source is not None:
        source.check_unchanged()  # the clearer message when the times say so
    where = source.path if source is not None else "the encoded training text"
    return TreexcError(f"{where}: offsets or token ids out of range (rewritten while "
                       "training read it?); train again (a new cache is built)")
