"""fastText's top-k heap, element for element (Numba).

fastText keeps its k best (score, id) pairs with ``std::push_heap`` and
``std::pop_heap`` under ``comparePairs`` (``a.first > b.first``: a min-heap
on the score) and orders them with ``std::sort_heap``.  Which of two equal
scores survives, and in which order equal scores come out, is decided by
libstdc++'s algorithms (``bits/stl_heap.h``), which are reproduced here step
for step: with them, answers with tied scores (a saturated sigmoid, two
identical word vectors) come out in fastText's order too.

The heap is ``(score, ident)`` in two arrays of at least ``k + 1`` slots.
"""

from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)


@njit(cache=True, nogil=True, inline="always")
def _sift_up(score, ident, hole, top, value_score, value_ident):
    """libstdc++'s ``__push_heap``: move the hole up while the parent is
    "less" (``comp(parent, value)``: a higher score)."""
    parent = (hole - 1) // 2
    while hole > top and score[parent] > value_score:
        score[hole] = score[parent]
        ident[hole] = ident[parent]
        hole = parent
        parent = (hole - 1) // 2
    score[hole] = value_score
    ident[hole] = value_ident


@njit(cache=True, nogil=True)
def push_heap(score, ident, size):
    """``std::push_heap`` over the first ``size`` slots (the new element
    is at ``size - 1``)."""
    hole = size - 1
    _sift_up(score, ident, hole, 0, score[hole], ident[hole])


@njit(cache=True, nogil=True)
def pop_heap(score, ident, size):
    """``std::pop_heap`` over the first ``size`` slots: the front moves to
    ``size - 1`` (libstdc++'s ``__pop_heap`` and ``__adjust_heap``)."""
    if size <= 1:
        return
    last = size - 1
    value_score, value_ident = score[last], ident[last]
    score[last] = score[0]
    ident[last] = ident[0]
    length = last
    hole = 0
    second = 0
    while second < (length - 1) // 2:
        second = 2 * (second + 1)
        if score[second] > score[second - 1]:  # comp(first[second], first[second - 1])
            second -= 1
        score[hole] = score[second]
        ident[hole] = ident[second]
        hole = second
    if (length & 1) == 0 and second == (length - 2) // 2:
        second = 2 * (second + 1)
        score[hole] = score[second - 1]
        ident[hole] = ident[second - 1]
        hole = second - 1
    _sift_up(score, ident, hole, 0, value_score, value_ident)


@njit(cache=True, nogil=True)
def offer(score, ident, size, k, s, i):
    """fastText's step: skip ``s`` if the heap is full and ``s`` is below
    its front, else push and drop the front when over ``k``.  Returns the
    new size."""
    if size == k and s < score[0]:
        return size
    score[size] = s
    ident[size] = i
    size += 1
    push_heap(score, ident, size)
    if size > k:
        pop_heap(score, ident, size)
        size -= 1
    return size


@njit(cache=True, nogil=True)
def sort_heap(score, ident, size):
    """``std::sort_heap``: best score first."""
    while size > 1:
        pop_heap(score, ident, size)
        size -= 1
