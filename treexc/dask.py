"""``treexc.dask``, the public name of :mod:`treexc.classify.dask`
(prediction on a Dask cluster): ``from treexc.dask import predict_bag``."""

from .classify.dask import predict_bag, predict_files, predict_series, worker_model  # noqa: F401
