"""Sparse input files: the Extreme Classification Repository's format and
plain ``labels f:v`` lines, beside fastText's text.

* XC format: a header line ``N F L`` (lines, features, labels), then per
  line ``l1,l2,... f:v f:v ...`` (label ids below ``L``, feature indices
  below ``F``, both 0-based; a line may have no labels).
* Headerless sparse lines: the same lines without the header; labels are
  comma-separated integers or ``__label__x`` tokens (any names).

:func:`sniff` tells the three apart from the first line.  Files are read
in pieces of whole lines (``textio.read_line_chunks``; gzip recognised),
each parsed by ``sparse_kernels.parse_sparse``; a malformed line is one
``TreexcError`` ``FILE:LINE: what``.  The rows' columns are sorted and a
bias column appended after the features (``linear/features.SparseRows``).
"""

import re

import numpy as np

from ..errors import TreexcError
from . import sparse_kernels as sk
from .textio import display_name, read_line_chunks, to_str

TEXT, XC, SPARSE = "text", "xc", "sparse"
HEADER = re.compile(rb"^\s*(\d+)\s+(\d+)\s+(\d+)\s*$")
PAIR = re.compile(rb"^\d+:[-+0-9.eE]+$")
ERRORS = {sk.BAD_PAIR: "a token without ':' among the index:value pairs",
          sk.BAD_INDEX: "a feature index that is not a non-negative integer",
          sk.BAD_VALUE: "a feature value that is not a finite number",
          sk.EMPTY_LABEL: "an empty label in a comma-separated label list"}


def sniff(path):
    """``XC``, ``SPARSE`` or ``TEXT`` by the file's first non-empty line
    (standard input is read as text: it cannot be read twice)."""
    if path == "-":
        return TEXT
    for _, piece in read_line_chunks(path):
        for line in piece.split(b"\n"):
            if line.strip():
                if HEADER.match(line):
                    return XC
                return SPARSE if PAIR.match(line.split()[-1]) else TEXT
        break
    return TEXT


def parse_piece(data, name, first_line, header):
    """``(indptr, indices, values, labels)`` of a piece: ``labels`` a list
    per line of label names (bytes).  ``header``: skip the piece's first
    line (the XC header)."""
    buf = np.asarray(data, dtype=np.uint8)
    if header:
        end = np.flatnonzero(buf == 10)
        buf = buf[end[0] + 1:] if len(end) else buf[:0]
        first_line += 1
    indptr, indices, values, label_off, starts, ends, error, line = sk.parse_sparse(buf)
    if error != sk.OK:
        raise TreexcError(f"{name}:{first_line + line}: {ERRORS[error]}")
    raw = buf.tobytes()
    names = [raw[a:b] for a, b in zip(starts.tolist(), ends.tolist())]
    labels = [names[a:b] for a, b in zip(label_off[:-1].tolist(), label_off[1:].tolist())]
    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    key = rows.astype(np.int64) << 32 | indices
    order = np.argsort(key, kind="stable")
    twice = np.flatnonzero(key[order][1:] == key[order][:-1])
    if len(twice):
        raise TreexcError(f"{name}:{first_line + int(rows[order][twice[0]])}: feature "
                          f"{int(indices[order][twice[0]])} given twice")
    return indptr, indices, values, labels


def read_training(path, fmt):
    """``(indptr, indices, values, label_off, labels, label_names,
    n_features)`` of a whole sparse training file."""
    name = display_name(path)
    parts, label_lists, n_features, n_labels = [], [], None, None
    for first, piece in read_line_chunks(path):
        header = fmt == XC and first == 1
        if header:
            m = HEADER.match(piece.split(b"\n", 1)[0])
            _, n_features, n_labels = (int(g) for g in m.groups())
        indptr, indices, values, labels = parse_piece(np.frombuffer(piece, np.uint8), name,
                                                      first, header)
        if n_features is not None and len(indices) and indices.max() >= n_features:
            line = first + header + int(np.searchsorted(indptr, np.argmax(indices >= n_features),
                                                        side="right")) - 1
            raise TreexcError(f"{name}:{line}: a feature index beyond the header's "
                              f"{n_features} features")
        parts.append((indptr, indices, values, first + header))
        label_lists.extend(labels)
    ids, label_names = _label_ids(label_lists, n_labels, name, parts)
    label_off = np.concatenate([[0], np.cumsum([len(x) for x in ids])]).astype(np.int64)
    labels = np.array([i for x in ids for i in x], dtype=np.int32)
    indptr = np.concatenate([[0]] + [p[0][1:] + base for p, base in
                                     zip(parts, np.cumsum([0] + [p[0][-1] for p in parts]))])
    indices = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, np.int32)
    values = np.concatenate([p[2] for p in parts]) if parts else np.zeros(0, np.float32)
    if n_features is None:
        n_features = int(indices.max()) + 1 if len(indices) else 1
    return indptr, indices, values, label_off, labels, label_names, n_features


def _label_ids(label_lists, n_labels, name, parts):
    """Each line's label ids and the label names: with an XC header the
    ids themselves (names "0".."L-1"), else the names by frequency (ties:
    first seen)."""
    if n_labels is not None:
        names = [str(i) for i in range(n_labels)]
        ids = []
        for line, labels in enumerate(label_lists):
            try:
                got = [int(x) for x in labels]
            except ValueError:
                got = [-1]
            if any(not 0 <= i < n_labels for i in got):
                raise TreexcError(f"{name}:{_line_number(parts, line)}: a label that is not "
                                  f"an id below the header's {n_labels} labels")
            ids.append(sorted(set(got)))
        return ids, names
    count, first = {}, {}
    for labels in label_lists:
        for x in labels:
            count[x] = count.get(x, 0) + 1
            first.setdefault(x, len(first))
    order = sorted(count, key=lambda x: (-count[x], first[x]))
    index = {x: i for i, x in enumerate(order)}
    return [sorted({index[x] for x in labels}) for labels in label_lists], \
        [to_str(x) for x in order]


def _line_number(parts, row):
    for indptr, _, _, first in parts:
        if row < len(indptr) - 1:
            return first + row
        row -= len(indptr) - 1
    return row


def rows_of_piece(data, path, first_line, n_cols, label_index):
    """A piece of input to predict or test on, as ``(indptr, indices,
    values, label_off, labels)`` over a model's ``n_cols`` columns (the
    bias the last): columns it does not know and labels it does not know
    are left out, the bias added."""
    buf = np.asarray(data, dtype=np.uint8)
    header = first_line == 1 and HEADER.match(buf[:200].tobytes().split(b"\n", 1)[0])
    indptr, indices, values, labels = parse_piece(buf, display_name(path), first_line,
                                                  bool(header))
    ids = [sorted({label_index[to_str(x)] for x in line if to_str(x) in label_index})
           for line in labels]
    label_off = np.concatenate([[0], np.cumsum([len(x) for x in ids])]).astype(np.int64)
    label_ids = np.array([i for x in ids for i in x], dtype=np.int32)
    known = indices < n_cols - 1
    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))[known]
    kept = np.bincount(rows, minlength=len(indptr) - 1)
    indptr = np.concatenate([[0], np.cumsum(kept)]).astype(np.int64)
    return indptr, indices[known], values[known], label_off, label_ids
