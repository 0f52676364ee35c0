"""Product-quantised matrices (``treexc quantize``): training, encoding,
decoding, and the rows kept by ``-cutoff``.

A :class:`QuantizedMatrix` stands where a float32 weight matrix stood.  The
prediction kernels read dense rows, so a quantised model decodes, for each
batch of lines, only the rows those lines use (:meth:`QuantizedMatrix.gather`):
a few thousand rows per batch, whatever the size of the matrix, and the
codes themselves stay in the (memory-mapped) model file.
"""

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ...errors import TreexcError
from . import kernels as qk

# fastText quantises the output matrix (-qout) with 2 columns per sub-quantiser
OUTPUT_DSUB = 2


@dataclass
class QuantizedMatrix:
    codes: np.ndarray            # uint8 (rows, nsubq): a centroid per sub-vector
    centroids: np.ndarray        # float32 (KSUB, dim): sub-quantiser m's in its columns
    dsub: int                    # columns per sub-quantiser
    norm_codes: np.ndarray = None      # uint8 (rows,) with -qnorm
    norm_centroids: np.ndarray = None  # float32 (KSUB,) with -qnorm

    @property
    def shape(self):
        return (self.codes.shape[0], self.centroids.shape[1])

    @property
    def qnorm(self):
        return self.norm_codes is not None

    def rows(self, ids):
        """The decoded rows ``ids`` (int64, each in range), float32."""
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        out = np.empty((len(ids), self.shape[1]), dtype=np.float32)
        norm_codes = self.norm_codes if self.qnorm else np.zeros(1, np.uint8)
        norm_centroids = self.norm_centroids if self.qnorm else np.ones(1, np.float32)
        qk.decode_rows(self.codes, self.centroids, self.dsub, norm_codes, norm_centroids,
                       self.qnorm, ids, out)
        return out

    def dense(self):
        """The whole matrix decoded."""
        return self.rows(np.arange(self.shape[0]))

    def gather(self, feats):
        """``(rows, local)``: the decoded rows ``feats`` refers to and
        ``feats`` renumbered into them, so ``rows[local]`` is the decoded
        ``matrix[feats]``."""
        used, local = np.unique(feats, return_inverse=True)
        return self.rows(used), local.astype(np.int32).reshape(-1)

    def arrays(self, prefix):
        """The arrays a model file holds, named ``prefix_*``."""
        out = {f"{prefix}_codes": self.codes, f"{prefix}_centroids": self.centroids}
        if self.qnorm:
            out[f"{prefix}_norm_codes"] = self.norm_codes
            out[f"{prefix}_norm_centroids"] = self.norm_centroids
        return out

    def nbytes(self):
        return sum(a.nbytes for a in self.arrays("x").values())


def product_quantize(w, dsub, qnorm, seed, threads=1):
    """Quantise the float32 matrix ``w`` (rows, dim): ``dim / dsub``
    sub-quantisers of :data:`qk.KSUB` centroids, each trained by k-means on
    at most :data:`qk.MAX_POINTS` rows drawn from ``seed``, as fastText.
    ``qnorm``: the norms quantised apart and the rows divided by them."""
    rows, dim = w.shape
    if rows < qk.KSUB:
        raise TreexcError(f"a matrix of {rows} rows is too small to quantise: it must "
                          f"have at least {qk.KSUB} rows")
    if not 1 <= dsub <= dim:
        raise TreexcError(f"-dsub {dsub}: must be between 1 and -dim ({dim})")
    root = np.random.SeedSequence(seed)
    norm_seed, *sub_seeds = root.spawn(1 + -(-dim // dsub))
    norm_codes = norm_centroids = None
    row_scale = np.ones(rows, dtype=np.float32)
    if qnorm:
        norms = row_norms(w).astype(np.float32)
        norm_q = _train(norms[:, None], np.ones(rows, np.float32), 1, [norm_seed], threads)
        norm_codes = _encode(norms[:, None], np.ones(rows, np.float32), norm_q, 1, threads)
        norm_codes = norm_codes.reshape(-1)
        norm_centroids = np.ascontiguousarray(norm_q[:, 0])
        nonzero = norms > 0
        row_scale[nonzero] = 1.0 / norms[nonzero]
    centroids = _train(w, row_scale, dsub, sub_seeds, threads)
    codes = _encode(w, row_scale, centroids, dsub, threads)
    return QuantizedMatrix(codes, centroids, dsub, norm_codes, norm_centroids)


def _train(w, row_scale, dsub, seeds, threads):
    """The (KSUB, dim) centroids of every sub-quantiser of the rows of ``w``
    times ``row_scale``, the sub-quantisers trained in parallel (each from
    its own seed, so the result does not depend on ``threads``)."""
    rows, dim = w.shape
    centroids = np.empty((qk.KSUB, dim), dtype=np.float32)

    def train_one(m):
        rng = np.random.default_rng(seeds[m])
        sample = (rng.permutation(rows)[:qk.MAX_POINTS] if rows > qk.MAX_POINTS
                  else np.arange(rows))
        lo, hi = m * dsub, min(m * dsub + dsub, dim)
        x = np.ascontiguousarray(w[sample, lo:hi] * row_scale[sample, None],
                                 dtype=np.float32)
        first = rng.permutation(len(x))[:qk.KSUB]
        state = np.array([rng.integers(1, 2 ** 63)], dtype=np.uint64)
        centroids[:, lo:hi] = qk.kmeans(x, first, qk.KMEANS_ITERATIONS, state)

    _run(train_one, range(len(seeds)), threads)
    return centroids


def _encode(w, row_scale, centroids, dsub, threads):
    rows, dim = w.shape
    codes = np.empty((rows, -(-dim // dsub)), dtype=np.uint8)
    bounds = np.linspace(0, rows, max(1, threads) + 1).astype(np.int64)

    def encode_part(i):
        a, b = bounds[i], bounds[i + 1]
        qk.encode_rows(w[a:b], row_scale[a:b], centroids, dsub, codes[a:b])

    _run(encode_part, range(len(bounds) - 1), threads)
    return codes


def _run(work, items, threads):
    """``work(item)`` for each item on ``threads`` threads (the kernels
    release the GIL); the first exception is raised."""
    with ThreadPoolExecutor(max(1, threads)) as pool:
        for future in [pool.submit(work, item) for item in items]:
            future.result()


def select_rows(w_in, cutoff, eos_id):
    """fastText's ``selectEmbeddings``: the ``cutoff`` rows of largest L2
    norm, ``</s>``'s row (``eos_id``, -1 if none) always first among them;
    ties by row number.  Returned sorted."""
    norms = row_norms(w_in)
    if eos_id >= 0:
        norms[eos_id] = np.inf
    order = np.argsort(-norms, kind="stable")[:cutoff]
    return np.sort(order)


def row_norms(w, block=1 << 16):
    """The L2 norm of every row (float64), a block of rows at a time: no
    copy of a large (mapped) matrix."""
    out = np.empty(len(w), dtype=np.float64)
    for a in range(0, len(w), block):
        part = w[a:a + block].astype(np.float64)
        out[a:a + block] = np.sqrt(np.einsum("ij,ij->i", part, part))
    return out
