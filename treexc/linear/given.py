"""Training on given sparse features (the Python API's CSR arrays, and
sparse input files): the rows taken as they are, columns sorted within a
row and checked, the bias column appended after the given ones."""

import numpy as np

from ..errors import TreexcError
from . import feature_kernels as fk
from .features import BIAS, SparseRows
from .options import make_linear_args
from .training import train_linear_rows


def rows_from_arrays(indptr, indices, data, labels_indptr, labels, n_features=None):
    """Checked :class:`SparseRows` of CSR arrays (copied), the bias column
    ``n_features`` (default: one past the largest index) appended."""
    indptr = np.asarray(indptr, dtype=np.int64)
    indices = np.asarray(indices)
    data = np.asarray(data, dtype=np.float32)
    label_off = np.asarray(labels_indptr, dtype=np.int64)
    label_ids = np.asarray(labels)
    n = len(indptr) - 1
    if indptr.ndim != 1 or n < 0 or indptr[0] != 0 or (np.diff(indptr) < 0).any() \
            or indptr[-1] != len(indices) or len(indices) != len(data):
        raise TreexcError("features: indptr must rise from 0 to len(indices) == len(data)")
    if len(label_off) != n + 1 or label_off[0] != 0 or (np.diff(label_off) < 0).any() \
            or label_off[-1] != len(label_ids):
        raise TreexcError("labels: labels_indptr must have one offset per row and one more, "
                          "rising from 0 to len(labels)")
    if len(indices) and indices.min() < 0:
        raise TreexcError("features: negative column index")
    if len(label_ids) and label_ids.min() < 0:
        raise TreexcError("labels: negative label id")
    if not np.isfinite(data).all():
        raise TreexcError("features: NaN or infinite values")
    width = int(indices.max()) + 1 if len(indices) else 0
    n_features = width if n_features is None else int(n_features)
    if width > n_features or n_features >= 2 ** 31 - 1:
        raise TreexcError(f"features: a column index beyond {n_features} columns")
    counts = np.diff(indptr)
    out_ptr = np.concatenate([[0], np.cumsum(counts + 1)]).astype(np.int64)
    out_idx = np.empty(out_ptr[-1], dtype=np.int32)
    out_val = np.empty(out_ptr[-1], dtype=np.float32)
    place = np.ones(out_ptr[-1], dtype=bool)
    place[out_ptr[1:] - 1] = False  # each row's last place: the bias
    out_idx[place], out_val[place] = indices.astype(np.int32), data
    out_idx[~place], out_val[~place] = n_features, BIAS
    fk.sort_rows(out_ptr, out_idx, out_val)
    same = (np.diff(out_idx) == 0) & (np.diff(np.repeat(np.arange(n), counts + 1)) == 0)
    if same.any():
        row = int(np.repeat(np.arange(n), counts + 1)[np.flatnonzero(same)[0]])
        raise TreexcError(f"features: row {row} has a column twice")
    return SparseRows(out_ptr, out_idx, out_val, n_features + 1, label_off,
                      label_ids.astype(np.int32))


def train_given(indptr, indices, data, labels_indptr, labels, label_names, flags):
    """The Python API's ``treexc.train_linear``."""
    args = make_linear_args(input="(arrays)", output="", **flags)
    rows = rows_from_arrays(indptr, indices, data, labels_indptr, labels)
    n_labels = int(rows.labels.max()) + 1 if len(rows.labels) else 0
    if label_names is None:
        label_names = [str(i) for i in range(n_labels)]
    label_names = [str(name) for name in label_names]
    if len(label_names) < n_labels or n_labels == 0:
        raise TreexcError(f"labels: {n_labels} label ids need as many label_names "
                          f"(got {len(label_names)})")
    if len(set(label_names)) != len(label_names):
        raise TreexcError("label_names: a name given twice")
    return train_linear_rows(rows, label_names, args)
