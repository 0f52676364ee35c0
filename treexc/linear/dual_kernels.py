"""Numba kernels of the dual coordinate descent solvers of the node
classifiers (Hsieh et al. 2008, LIBLINEAR), each an L2-regularised linear
model:

* ``svm``: the L2-loss (squared hinge) SVM, ``min_w 1/2 |w|^2 + C sum
  max(0, 1 - y w.x)^2``; the dual's coordinate step is closed-form.  The
  slots of a group are solved side by side, each line read once a pass
  for all of them (:func:`solve_svm`).
* ``lr``: logistic regression, ``min_w 1/2 |w|^2 + C sum log(1 + exp(-y
  w.x))``; the dual's coordinate step is a few Newton steps on one
  variable kept inside ``(0, C)`` (Yu, Huang & Lin 2011).

The cost is per line: ``C_i = C * w_i``, ``w_i`` the line's label weight
at the slot (``teacher_kernels.node_costs``; 1 without label weights), so
the primal's loss term of line ``i`` is scaled by ``w_i``; in the dual it
is the box bound of ``alpha_i`` (``[0, C_i]`` for LR) and the SVM's
diagonal ``1 / (2 C_i)``, as LIBLINEAR's per-instance weights.
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)


@njit(cache=True, nogil=True, inline="always")
def _next_random(state):
    """xorshift64* step: ``(new state, value)``."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(2685821657736338717)


@njit(cache=True, nogil=True)
def _shuffle(order, state):
    for i in range(len(order) - 1, 0, -1):
        j = np.int64(_next_random(state) % np.uint64(i + 1))
        order[i], order[j] = order[j], order[i]


@njit(cache=True, nogil=True)
def _dot(w, indptr, indices, data, i):
    s = 0.0
    for k in range(indptr[i], indptr[i + 1]):
        s += w[indices[k]] * data[k]
    return s


@njit(cache=True, nogil=True)
def _axpy(w, a, indptr, indices, data, i):
    for k in range(indptr[i], indptr[i + 1]):
        w[indices[k]] += a * data[k]


@njit(cache=True, nogil=True)
def solve_svm(lines, positive, slots, xnorm2, indptr, indices, data, C, line_weight, max_iter,
              eps, W, state):
    """L2-loss SVM dual CD of the classifiers of ``slots`` at once, on the
    rows ``lines`` (line ``s`` positive for slot ``j`` where ``positive[s,
    j]``; its cost ``C``, times ``line_weight[s, j]`` unless that is
    empty), into ``W`` (zero on entry, a row a column, a column a slot of
    ``slots``), with LIBLINEAR's shrinking (a variable at its bound whose
    gradient points outwards beyond the last pass's range leaves its
    slot's active set until the end).  Each slot is its own problem; they
    share the order of each pass, so that one read of a line and of its
    columns' rows of ``W`` serves every slot (the root's weights span
    every column, and a slot at a time missed the cache on most reads).
    A slot stops when it converges or after ``max_iter`` passes; returns
    the passes of all slots."""
    n = len(lines)
    S = len(slots)
    weighted = line_weight.shape[0] > 0
    alpha = np.zeros((n, S), dtype=np.float64)
    active = np.ones((n, S), dtype=np.uint8)
    n_active = np.full(S, n, dtype=np.int64)
    live = np.ones(S, dtype=np.uint8)
    passes = np.zeros(S, dtype=np.int64)
    pg_max_old = np.full(S, np.inf)
    pg_max = np.empty(S)
    pg_min = np.empty(S)
    d = np.empty(S)
    delta = np.empty(S)
    order = np.arange(n)
    n_live = S if max_iter > 0 else 0
    while n_live > 0:
        _shuffle(order, state)
        pg_max[:] = -np.inf
        pg_min[:] = np.inf
        for t in range(n):
            s = order[t]
            todo = False
            for j in range(S):
                if live[j] and active[s, j]:
                    todo = True
                    break
            if not todo:
                continue
            i = lines[s]
            d[:] = 0.0
            for k in range(indptr[i], indptr[i + 1]):
                c = indices[k]
                v = data[k]
                for j in range(S):
                    d[j] += W[c, j] * v
            moved = False
            for j in range(S):
                delta[j] = 0.0
                if not (live[j] and active[s, j]):
                    continue
                y = 1.0 if positive[s, slots[j]] else -1.0
                diag = 0.5 / (C * line_weight[s, slots[j]] if weighted else C)
                g = y * d[j] - 1.0 + diag * alpha[s, j]
                pg = g
                if alpha[s, j] == 0.0:
                    if g > pg_max_old[j]:  # at the bound and staying there: shrink
                        active[s, j] = 0
                        n_active[j] -= 1
                        continue
                    if g > 0.0:
                        pg = 0.0
                pg_max[j] = max(pg_max[j], pg)
                pg_min[j] = min(pg_min[j], pg)
                if abs(pg) > 1e-12:
                    old = alpha[s, j]
                    alpha[s, j] = max(old - g / (xnorm2[s] + diag), 0.0)
                    delta[j] = (alpha[s, j] - old) * y
                    moved = True
            if moved:
                for k in range(indptr[i], indptr[i + 1]):
                    c = indices[k]
                    v = data[k]
                    for j in range(S):
                        W[c, j] += delta[j] * v
        for j in range(S):
            if not live[j]:
                continue
            passes[j] += 1
            if pg_max[j] - pg_min[j] <= eps:
                if n_active[j] == n:
                    live[j] = 0
                else:  # converged on the active set: check them all once more
                    active[:, j] = 1
                    n_active[j] = n
                    pg_max_old[j] = np.inf
            else:
                pg_max_old[j] = pg_max[j] if pg_max[j] > 0.0 else np.inf
            if live[j] and passes[j] >= max_iter:
                live[j] = 0
            if not live[j]:
                n_live -= 1
    return passes.sum()


@njit(cache=True, nogil=True)
def solve_lr(lines, y, xnorm2, indptr, indices, data, cost, max_iter, eps, w, state):
    """Logistic regression dual CD (LIBLINEAR's solver 7) into ``w``, line
    ``s``'s variable in ``(0, cost[s])``."""
    n = len(lines)
    alpha = np.empty(n, dtype=np.float64)
    for s in range(n):
        alpha[s] = min(0.001 * cost[s], 1e-8)
    comp = cost - alpha  # C - alpha, kept apart for precision
    for s in range(n):
        _axpy(w, alpha[s] * y[s], indptr, indices, data, lines[s])
    order = np.arange(n)
    inner_eps = 1e-2
    for it in range(max_iter):
        _shuffle(order, state)
        newton_iters = 0
        gmax = 0.0
        for t in range(n):
            s = order[t]
            i = lines[s]
            C = cost[s]
            a = xnorm2[s]
            b = y[s] * _dot(w, indptr, indices, data, i)
            # which of alpha and C - alpha is the variable z (the smaller one)
            c1, c2 = alpha[s], comp[s]
            sign = 1.0
            if 0.5 * a * (c2 - c1) + b < 0.0:
                c1, c2 = c2, c1
                sign = -1.0
            b = sign * b
            z = c1
            if C - z < 0.5 * C:
                z = 0.1 * z
            gp = a * (z - c1) + b + np.log(z / (C - z))
            gmax = max(gmax, abs(gp))
            for _ in range(100):
                if abs(gp) < inner_eps:
                    break
                gpp = a + C / (C - z) / z
                tmpz = z - gp / gpp
                z = z * 0.1 if tmpz <= 0.0 else tmpz
                gp = a * (z - c1) + b + np.log(z / (C - z))
                newton_iters += 1
            if sign > 0.0:
                new_alpha = z
                comp[s] = C - z
            else:
                new_alpha = C - z
                comp[s] = z
            _axpy(w, (new_alpha - alpha[s]) * y[s], indptr, indices, data, i)
            alpha[s] = new_alpha
        if gmax < eps:
            return it + 1
        if newton_iters <= n // 10:
            inner_eps = max(1e-8, 0.1 * inner_eps)
    return max_iter
