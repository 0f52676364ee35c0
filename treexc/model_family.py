"""Which family a model file belongs to, read from its header alone: numpy
but no Numba, so that ``predict``'s first answers (``classify/firstlines``)
still start without the kernels."""

from .errors import TreexcError
from .io import modelfile
from .io.fasttext_model import starts_like_fasttext

LINEAR, EMBEDDING = "linear", "embedding"


def model_family(path):
    """``"linear"`` for a linear model file, else ``"embedding"`` (a
    classifier, a fastText file, or something its loader will refuse)."""
    if starts_like_fasttext(path):
        return EMBEDDING
    try:
        kind = modelfile.load_header(path).get("kind")
    except TreexcError:
        return EMBEDDING  # the classifier's loader says what is wrong
    return LINEAR if kind == "linear" else EMBEDDING
