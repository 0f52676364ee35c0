"""Streaming prediction of a linear model: each piece of input answered as
it arrives, one answer line per input line (as the embedding model's
``classify/predict``), text encoded and weighted as in training, or
sparse lines read as they are (``io/sparse_format``)."""

import numpy as np

from ..io.answers import format_predictions, label_names
from ..io.textio import ByteCheck, display_name, read_line_chunks, to_bytes


def stream_predictions(model, path, k, threshold, with_prob):
    """Yield output bytes piece by piece; then warn once about lines with
    invalid UTF-8 or NUL bytes."""
    names = label_names(model.get_labels())
    check = ByteCheck()
    for first_line, piece in read_line_chunks(path, check):
        rows = model.rows_of_piece(np.frombuffer(piece, dtype=np.uint8), path, first_line)
        yield to_bytes(format_predictions(names, *model.predict_rows(rows, k, threshold),
                                          with_prob))
    check.warn(display_name(path))
