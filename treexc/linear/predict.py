"""Streaming prediction of a linear model: each piece of input answered as
it arrives, one answer line per input line (as the embedding model's
``classify/predict``), text encoded and weighted as in training, or
sparse lines read as they are (``io/sparse_format``).

The first pieces of text are answered without Numba
(``linear/firstlines.py``, the kernels' answers to the bit); the kernels
take over as ``io/first_answers.py`` says."""

import numpy as np

from ..io.answers import format_predictions, label_names
from ..io.first_answers import piece_lines
from ..io.textio import ByteCheck, display_name, read_line_chunks, to_bytes
from . import firstlines


def stream_predictions(model_path, path, k, threshold, with_prob, kernel_model):
    """Yield output bytes piece by piece; then warn once about lines with
    invalid UTF-8 or NUL bytes.  The model file is read and checked before
    any input; ``kernel_model(first)`` gives the kernels' ``LinearModel`` of
    that file (``first.loaded``) when they take over."""
    first = firstlines.load(model_path)
    names = label_names(first.labels)
    check = ByteCheck()
    model = None
    gate = first.first_answers()
    for first_line, piece in read_line_chunks(path, check):
        answer = None
        if model is None:
            if gate.take(piece_lines(piece), len(piece)):
                answer = first.predict(piece, k, threshold)
            if answer is None:
                model = kernel_model(first)
        if answer is None:
            rows = model.rows_of_piece(np.frombuffer(piece, dtype=np.uint8), path, first_line)
            answer = model.predict_rows(rows, k, threshold)
        yield to_bytes(format_predictions(names, *answer, with_prob))
    check.warn(display_name(path))
