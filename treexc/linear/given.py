"""Training on given sparse features: the Python API's CSR arrays
(``treexc.train_linear``), checked and taken as they are
(``features.rows_from_arrays``)."""

from dataclasses import fields

from ..errors import TreexcError
from ..options import flag_names
from .features import rows_from_arrays
from .options import LinearArgs, make_linear_args
from .training import train_linear_rows


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
    field_of = {name: f.name for f in fields(LinearArgs) for name in flag_names(f)}
    given = {field_of.get(name, name) for name, value in flags.items() if value is not None}
    return train_linear_rows(rows, label_names, args, given=given)
