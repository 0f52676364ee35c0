"""What ``treexc.load_model`` returns for a linear model file: the model
before its kernels.

``predict`` is answered with Python and numpy (``linear/firstlines.py``,
the kernels' answers to the bit) for calls of a few lines, until
``firstlines.FIRST_LINES`` lines have been answered; then, and for every
other member, the kernels' :class:`linear.model.LinearModel` is loaded
(once; Numba imported then) and everything is forwarded to it, attribute
reads and writes alike.  So a script that loads a model and predicts a line
pays neither Numba's import nor its memory.
"""

from ..io.answers import api_answers, api_lines
from ..io.first_answers import FirstAnswers
from . import firstlines


def load_before_kernels(path, kernel_model):
    """The model in ``path``, read and checked now (``firstlines.load``);
    ``kernel_model(first)`` loads the kernels' model of ``first.loaded``."""
    return LinearModelBeforeKernels(firstlines.load(path), kernel_model)


class LinearModelBeforeKernels:
    """A linear model whose kernels are loaded at its first big use."""

    def __init__(self, first, kernel_model):
        own = object.__setattr__
        own(self, "_first", first)
        own(self, "_kernel_model", kernel_model)
        own(self, "_model", None)
        own(self, "_gate", FirstAnswers(firstlines.FIRST_LINES))

    def kernel_model(self):
        """The kernels' ``LinearModel`` (loaded at the first call)."""
        if self._model is None:
            object.__setattr__(self, "_model", self._kernel_model(self._first))
            object.__setattr__(self, "_first", None)  # its arrays are the model's now
        return self._model

    def predict(self, text, k=1, threshold=0.0, on_unicode_error=None):
        """``LinearModel.predict``: fastText's ``predict``."""
        first = self._first
        if first is not None and first.text_input:
            single, n_lines, data = api_lines(text)
            if self._gate.take(n_lines, len(data)):
                answer = first.predict(data.tobytes(), k, threshold)
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
        return f"<treexc linear model, {len(self.get_labels())} labels>"


def _same(model):
    return model
