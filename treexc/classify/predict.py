"""Streaming prediction: answer each line as soon as it has been read.

Input is read in whatever pieces the pipe delivers (``os.read`` returns what
is available; ``textio.read_chunks``, which also gunzips), cut after the
last newline, and each piece's complete lines are encoded and predicted in
one kernel call.  So a slow producer gets an answer per line at once, and a
fast one gets batch throughput.

Every input line gets exactly one output line, whatever its bytes (see
``textio``): labels are printed with control characters escaped
(``textio.printable``), so a label cannot split an answer in two.
"""

import numpy as np

from ..io.textio import ByteCheck, display_name, printable, read_line_chunks, to_bytes


def label_names(model):
    """Printable label names, plus ``""`` for a slot with no label."""
    return np.array([printable(name) for name in model.get_labels()] + [""], dtype=object)


def stream_predictions(model, path, k, threshold, with_prob):
    """Yield output bytes, one line per input line, piece by piece; then warn
    once if some lines held invalid UTF-8 or NUL bytes."""
    names = label_names(model)
    check = ByteCheck()
    for _, piece in read_line_chunks(path, check):
        corpus = model.encode_text(np.frombuffer(piece, dtype=np.uint8))
        labels, scores, counts = model.predict_corpus(corpus, k, threshold)
        yield to_bytes(format_predictions(names, labels, scores, counts, with_prob))
    check.warn(display_name(path))


def format_predictions(names, labels, scores, counts, with_prob):
    n, k = labels.shape
    shown = np.where(np.arange(k)[None, :] < counts[:, None], labels, len(names) - 1)
    if not with_prob:
        if k == 1:
            return "\n".join(names[shown[:, 0]].tolist()) + "\n"
        return "".join(" ".join(row[:c]) + "\n"
                       for row, c in zip(names[shown].tolist(), counts.tolist()))
    probs = np.exp(scores).tolist()
    out = []
    for row, p, c in zip(names[shown].tolist(), probs, counts.tolist()):
        out.append(" ".join(f"{row[j]} {p[j]:.6g}" for j in range(c)) + "\n")
    return "".join(out)
