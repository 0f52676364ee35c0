"""When the first answers of ``predict`` (Python and numpy, no Numba:
``classify/firstlines.py``, ``linear/firstlines.py``) give way to the
kernels, for the command line and the Python API alike, and the model
``treexc.load_model`` returns before its kernels
(:class:`ModelBeforeKernels`).

Importing Numba and loading the cached kernels costs a fixed few tenths
of a second of CPU (and, in the Python API, about 100 MiB of memory for
llvmlite's library); numpy answers a line in a fraction of a millisecond
to a few milliseconds, the kernels in microseconds.  So numpy answers
pieces of at most :data:`FIRST_PIECE` lines (the embedding model, a line
at a time) or of the family's whole budget (the linear model, a batch of
lines at once: ``linear/firstlines.first_answers``) and at most
:data:`FIRST_BYTES` bytes, until a family's number of lines (and bytes)
has been answered; from the first piece past that, the kernels answer,
for good.  The answers are the same either way.
"""

from .answers import api_answers, api_lines

FIRST_PIECE = 100
# numpy holds a Python object per token: a 50 MB line took 1.5 GB and 20 s
FIRST_BYTES = 1 << 20


class FirstAnswers:
    """Counts the lines and bytes answered without the kernels; ``take``
    says whether the next piece may be too: a piece of at most
    ``piece_lines`` lines and ``piece_bytes`` bytes, while at most
    ``first_lines`` lines and ``first_bytes`` bytes have been answered in
    all.  A family whose numpy answers a batch of lines at once (the linear
    model's) takes pieces as big as its whole budget."""

    def __init__(self, first_lines, piece_lines=FIRST_PIECE, first_bytes=None,
                 piece_bytes=FIRST_BYTES):
        self.first_lines, self.piece_lines = first_lines, piece_lines
        self.first_bytes, self.piece_bytes = first_bytes, piece_bytes
        self.answered = self.answered_bytes = 0

    def take(self, n_lines, n_bytes):
        self.answered += n_lines
        self.answered_bytes += n_bytes
        return (n_lines <= self.piece_lines and n_bytes <= self.piece_bytes
                and self.answered <= self.first_lines
                and (self.first_bytes is None or self.answered_bytes <= self.first_bytes))


def piece_lines(piece):
    """The lines of a piece of input (bytes): its newlines, and one more for
    a last line without one."""
    return piece.count(b"\n") + (len(piece) > 0 and not piece.endswith(b"\n"))


class ModelBeforeKernels:
    """What ``treexc.load_model`` returns for a classifier file: the model
    before its kernels.

    ``predict`` is answered by ``first`` (a family's ``firstlines``: Python
    and numpy, the kernels' answers to the bit) while ``gate`` (the
    family's :class:`FirstAnswers`) takes the calls; then, and for every other
    member, the kernels' model is loaded (once; Numba imported then) and
    everything is forwarded to it, attribute reads and writes alike.  So a
    script that loads a model and predicts a line pays neither Numba's
    import nor its memory, and gets the same answers as later calls.
    ``kernel_model(first)`` loads the kernels' model of ``first.loaded``."""

    def __init__(self, family, first, kernel_model, gate):
        own = object.__setattr__
        own(self, "_family", family)
        own(self, "_first", first)
        own(self, "_kernel_model", kernel_model)
        own(self, "_model", None)
        own(self, "_gate", gate)

    def kernel_model(self):
        """The kernels' model (loaded at the first call)."""
        if self._model is None:
            object.__setattr__(self, "_model", self._kernel_model(self._first))
            object.__setattr__(self, "_first", None)  # its arrays are the model's now
        return self._model

    def predict(self, text, k=1, threshold=0.0, on_unicode_error=None):
        """The kernels' model's ``predict``: fastText's."""
        first = self._first
        if first is not None and first.answers_text():
            single, n_lines, data = api_lines(text)
            if self._gate.take(n_lines, len(data)):
                answer = first.predict(data.tobytes(), k, threshold)
                if answer is not None:
                    return api_answers(first.labels, *answer, single)
        return self.kernel_model().predict(text, k, threshold, on_unicode_error)

    def __getattr__(self, name):  # every other member: the kernels' model's
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.kernel_model(), name)

    def __setattr__(self, name, value):
        setattr(self.kernel_model(), name, value)

    def __dir__(self):
        return sorted(set(dir(type(self.kernel_model()))) | set(vars(self.kernel_model())))

    def __reduce__(self):  # pickle, copy: the kernels' model itself
        return _same, (self.kernel_model(),)

    def __repr__(self):
        labels = self._first.labels if self._first is not None else self.get_labels()
        return f"<treexc {self._family} model, {len(labels)} labels>"


def _same(model):
    return model
