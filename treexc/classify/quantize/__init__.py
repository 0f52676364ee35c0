"""``treexc quantize`` / ``Model.quantize``: its flags (``options``), the
pruning, retraining and product quantisation of a model (``quantize``), the
quantised matrix (``matrix``) and its Numba kernels (``kernels``)."""
