"""What ``treexc.load_model`` returns for a linear model file: the model
before its kernels (``io.first_answers.ModelBeforeKernels``), whose first
answers are ``linear/firstlines.py``'s."""

from ..io.first_answers import ModelBeforeKernels
from . import firstlines


def load_before_kernels(path, kernel_model):
    """The model in ``path``, read and checked now (``firstlines.load``);
    ``kernel_model(first)`` loads the kernels' model of ``first.loaded``."""
    first = firstlines.load(path)
    return ModelBeforeKernels("linear", first, kernel_model, first.first_answers())
