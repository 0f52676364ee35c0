"""Streaming prediction: answer each line as soon as it has been read.

Input is read in whatever pieces the pipe delivers (``os.read`` returns what
is available; ``textio.read_chunks``, which also gunzips), cut after the
last newline, and each piece's complete lines are encoded and predicted in
one kernel call.  So a slow producer gets an answer per line at once, and a
fast one gets batch throughput.

The first pieces are answered without Numba (``classify/firstlines.py``):
importing it and loading the kernels costs more than answering a few lines
with numpy.  The kernels take over for good as ``io/first_answers.py``
says (a big piece, or the model's ``first_lines()`` lines answered), or at
once for a model only they answer; the answers are the same either way.

Every input line gets exactly one output line, whatever its bytes (see
``textio``): labels are printed with control characters escaped
(``textio.printable``), so a label cannot split an answer in two.
"""

import numpy as np

from ..io.answers import format_predictions, label_names  # noqa: F401 (also used from here)
from ..io.first_answers import FirstAnswers, piece_lines
from ..io.textio import ByteCheck, display_name, read_line_chunks, to_bytes
from . import firstlines


def stream_predictions(model_path, path, k, threshold, with_prob, kernel_model):
    """Yield output bytes, one line per input line, piece by piece; then warn
    once if some lines held invalid UTF-8 or NUL bytes.  The model file is
    read and checked before any input; ``kernel_model(first)`` gives the
    kernels' ``Model`` of that file (``first.loaded``) when they take over."""
    first = firstlines.load(model_path)
    names = label_names(first.labels)
    check = ByteCheck()
    model = None
    gate = FirstAnswers(first.first_lines())
    for _, piece in read_line_chunks(path, check):
        answer = None
        if model is None:
            if gate.take(piece_lines(piece), len(piece)):
                answer = first.predict(piece, k, threshold)
            if answer is None:
                model = kernel_model(first)
        if answer is None:
            corpus = model.encode_text(np.frombuffer(piece, dtype=np.uint8))
            answer = model.predict_corpus(corpus, k, threshold)
        yield to_bytes(format_predictions(names, *answer, with_prob))
    check.warn(display_name(path))
