"""Numba kernel of AssignLabels (Jernite et al. 2017, Algorithms 2 and 3).

The tree is rebuilt top-down, breadth-first, in one call.  Statistics are
indexed by *path position*: entry ``p`` of ``stats_p`` (an M-vector, the
sum of the child distributions) and ``stats_n`` (a count) belong to the
node ``path_node[p]`` on the path of the label that owns ``p`` (see
``tree.compute_paths``).  So the memory is exactly one M-vector per (label,
node on its path), with no hash maps.

A label's statistics at depth ``d`` are used at a new node only if the label
reached the *same* old node at that depth (the new node inherits the old
node's identity, weights included, when it sits at the same place); a label
that moved has no information there yet.
"""

import numpy as np
from numba import njit

from .. import jitstart  # noqa: F401  (keys the kernel caches on every kernel's source)
from ..array_kernels import grown
from .huffman_kernels import huffman_root_leaves

# the "room by labels alone" pass's mass cap: any finite mass fits, a child
# closed with infinite mass does not
_LABELS_ONLY = np.finfo(np.float64).max


@njit(cache=True, nogil=True)
def _first_max(values):
    """``np.argmax(values)``, written out: Numba's own puts
    numba.np.arraymath in the cached kernel's environment, whose loading
    imports scipy.linalg (0.2 s) in every learned-tree run."""
    best = 0
    for j in range(1, len(values)):
        if values[j] > values[best]:
            best = j
    return best


@njit(cache=True, nogil=True)
def _expansions(count, arity):
    """Internal nodes needed below a subtree of ``count`` labels in a full
    ``arity``-ary tree: ceil((count - 1) / (arity - 1))."""
    if count <= 1:
        return 0
    return (count - 2) // (arity - 1) + 1


@njit(cache=True, nogil=True)
def _node_scores(labels, start, length, depth, old_node, old_path_off, old_path_node,
                 stats_p, stats_n, arity, log_likelihood, scores, informed, old_slot,
                 old_path_slot, was_leaf):
    """Fill ``scores[r, j]`` = dJ_n / dp_{j|i} for label ``labels[start + r]``
    (times p_{j|i} for the log-likelihood variant); ``informed[r]`` says
    whether the label has statistics here, ``old_slot[r]`` its old slot at
    this node (-1 if it did not pass here), ``was_leaf[r]`` whether that
    slot held the label itself."""
    p_avg = np.zeros(arity)
    total = 0.0
    for r in range(length):
        i = labels[start + r]
        informed[r] = False
        old_slot[r] = -1
        was_leaf[r] = False
        if old_node < 0:
            continue
        depth_i = old_path_off[i + 1] - old_path_off[i]
        if depth >= depth_i:
            continue
        pos = old_path_off[i] + depth
        if old_path_node[pos] != old_node:
            continue
        old_slot[r] = old_path_slot[pos]
        was_leaf[r] = depth == depth_i - 1
        if stats_n[pos] > 0:
            informed[r] = True
            total += stats_n[pos]
            for j in range(arity):
                p_avg[j] += stats_p[pos, j]
    if total > 0:
        for j in range(arity):
            p_avg[j] /= total
    for r in range(length):
        i = labels[start + r]
        if not informed[r]:
            for j in range(arity):
                scores[r, j] = 0.0
            continue
        pos = old_path_off[i] + depth
        n_i = stats_n[pos]
        q = n_i / total
        weight = 2.0 / arity * q * (1.0 - q)
        for j in range(arity):
            p_ji = stats_p[pos, j] / n_i
            diff = p_ji - p_avg[j]
            g = weight * (1.0 if diff > 0 else (-1.0 if diff < 0 else 0.0))
            if log_likelihood:
                g *= p_ji
            # a tiny tie-breaker: among equal gradients prefer larger p_{j|i} - p_j
            scores[r, j] = g + 1e-12 * diff


@njit(cache=True, nogil=True, inline="always")
def _before(key, a, b):
    """Heap order: the higher score of each label's next candidate first,
    the lower label index on ties (so the result equals a stable sort of
    all (label, child) pairs)."""
    return key[a] > key[b] or (key[a] == key[b] and a < b)


@njit(cache=True, nogil=True)
def _sift_down(heap, size, i, key):
    while True:
        c = 2 * i + 1
        if c >= size:
            return
        if c + 1 < size and _before(key, heap[c + 1], heap[c]):
            c += 1
        if not _before(key, heap[c], heap[i]):
            return
        heap[i], heap[c] = heap[c], heap[i]
        i = c


@njit(cache=True, nogil=True, inline="always")
def _has_room(j, r, arity, capacity, budget, used, counts, seg_mass, child_mass, mass_cap):
    extra = _expansions(counts[j] + 1, arity) - _expansions(counts[j], arity)
    return counts[j] + 1 <= capacity and used + extra <= budget and (
        counts[j] == 0 or child_mass[j] + seg_mass[r] <= mass_cap)


@njit(cache=True, nogil=True)
def _best_with_room(scores, r, arity, capacity, budget, used, counts, seg_mass, child_mass,
                    mass_cap):
    """Label ``r``'s best child (descending score, lower child first on
    ties) among those with room for it, or -1: one scan, where walking the
    preference order child by child cost O(arity^2) a label once the mass
    cap fills children (28,699 labels at arity 170: 0.69 s a rebuild, half
    of the training time)."""
    best = -1
    for j in range(arity):
        if (best < 0 or scores[r, j] > scores[r, best]) and _has_room(
                j, r, arity, capacity, budget, used, counts, seg_mass, child_mass, mass_cap):
            best = j
    return best


@njit(cache=True, nogil=True)
def _greedy_assign(scores, informed, length, arity, capacity, budget, counts, assign,
                   seg_mass, child_mass, mass_cap):
    """Algorithm 2's greedy: take (label, child) pairs in descending score,
    skipping assigned labels and children without room.  Instead of sorting
    all pairs, a heap holds each label's best remaining child; a child
    without room for a label never gets room back (counts, mass and
    expansions only grow), so the label moves past it for good.  Room is
    counted in labels (``capacity``) and, when ``mass_cap`` is finite, in
    mass: a child takes a label while its mass stays within ``mass_cap`` or
    while it is empty.  A label no child has room for is left unassigned.
    Returns the expansions used."""
    cand = np.empty(length, dtype=np.int64)  # each label's current candidate child
    key = np.empty(length)  # its score
    heap = np.empty(length, dtype=np.int64)
    size = 0
    for r in range(length):
        if not informed[r]:
            continue
        cand[r] = _first_max(scores[r])  # its first choice (the lower child on ties)
        key[r] = scores[r, cand[r]]
        heap[size] = r
        size += 1
    for i in range(size // 2 - 1, -1, -1):
        _sift_down(heap, size, i, key)
    used = 0
    while size > 0:
        r = heap[0]
        j = cand[r]
        if _has_room(j, r, arity, capacity, budget, used, counts, seg_mass, child_mass,
                     mass_cap):
            assign[r] = j
            counts[j] += 1
            child_mass[j] += seg_mass[r]
            used += _expansions(counts[j], arity) - _expansions(counts[j] - 1, arity)
            size -= 1
            heap[0] = heap[size]
        else:
            # its next choice is its best child that has room: every child it
            # preferred had none, and room never comes back
            j = _best_with_room(scores, r, arity, capacity, budget, used, counts, seg_mass,
                                child_mass, mass_cap)
            if j < 0:
                size -= 1
                heap[0] = heap[size]
            else:
                cand[r] = j
                key[r] = scores[r, j]
        _sift_down(heap, size, 0, key)
    return used


@njit(cache=True, nogil=True)
def _reserve_huffman_leaves(length, arity, scores, informed, old_slot, was_leaf, seg_mass,
                            counts, child_mass, assign):
    """Give each label that the node's own Huffman tree would make a leaf of
    this node a child of its own, heaviest first: its slot as a leaf here
    while that is empty, else its best empty child by the statistics, else
    its old slot, else the first empty one; those children are closed
    (infinite mass).  Returns the labels' total mass and how many they are.
    Without it the mass cap put "the" (4.98% of the next word's examples)
    at depth 2, at depth 1 in the Huffman tree.  Without the old slot first
    a frequent label took the slot its statistics prefer, often another
    frequent label's, moving the groups into slots (rows, subtrees) trained
    for others: docs/trees.md, "A leaf keeps its slot"."""
    # ascending, equal masses in descending position: builders.huffman_tree's
    # order, so that at the root the same labels are its leaves
    order = np.argsort(-seg_mass[:length], kind="mergesort")[::-1]
    n_top = huffman_root_leaves(seg_mass[order], arity)
    if n_top >= length:  # every label is a leaf here anyway
        return 0.0, 0
    reserved_mass = 0.0
    for k in range(length - 1, length - 1 - n_top, -1):
        r = order[k]
        best = -1
        if was_leaf[r] and counts[old_slot[r]] == 0:
            best = old_slot[r]
        elif informed[r]:
            for j in range(arity):
                if counts[j] == 0 and (best < 0 or scores[r, j] > scores[r, best]):
                    best = j
        elif old_slot[r] >= 0 and counts[old_slot[r]] == 0:
            best = old_slot[r]
        else:
            for j in range(arity):
                if counts[j] == 0:
                    best = j
                    break
        assign[r] = best
        counts[best] = 1
        child_mass[best] = np.inf
        informed[r] = False
        reserved_mass += seg_mass[r]
    return reserved_mass, n_top


@njit(cache=True, nogil=True)
def rebuild_tree(old_children, n_labels, old_path_off, old_path_node, old_path_slot,
                 stats_p, stats_n, log_likelihood, max_depth, exact_depth, label_mass,
                 mass_slack):
    """AssignLabels over the whole tree.

    Returns ``(children, old_id)``: the new tree's children array in
    breadth-first order (root = 0) and, for each new internal node, the old
    internal node at the same place (-1 for a new node).

    Without ``max_depth`` every subtree stays a full ``arity``-ary tree up
    to padding (label counts realisable as ``1 mod (arity - 1)``, padding as
    empty slots).  With ``max_depth = D`` each child of a node at depth ``d``
    holds at most ``arity ** (D - d - 1)`` labels; with ``exact_depth``
    every leaf is at depth ``D`` (a lone label sits under a chain of
    one-child nodes, as the language model wants), without it a node with
    at most ``arity`` labels makes them all leaves.

    With ``mass_slack > 0`` a child also takes at most ``mass_slack / arity``
    of its parent's mass (``label_mass``, e.g. word counts) unless it holds
    a single label: heavy labels end up apart from each other in small
    subtrees, as in a Huffman code, while light ones fill large subtrees
    (see docs/lm.md).  Without a depth limit the labels that a node's own
    Huffman tree makes leaves of it are also leaves here, each in a child
    of its own, and the cap applies to the others (docs/trees.md).
    """
    arity = old_children.shape[1]
    labels = np.arange(n_labels, dtype=np.int64)
    scratch = np.empty(n_labels, dtype=np.int64)
    # queue of nodes to build: label segment, depth, old node
    q_start = np.zeros(16, dtype=np.int64)
    q_len = np.zeros(16, dtype=np.int64)
    q_depth = np.zeros(16, dtype=np.int64)
    q_old = np.zeros(16, dtype=np.int64)
    children = np.full((16, arity), -1, dtype=np.int32)
    q_len[0] = n_labels
    q_old[0] = 0
    n_nodes = 1
    head = 0
    scores = np.empty((n_labels, arity))
    informed = np.empty(n_labels, dtype=np.bool_)
    old_slot = np.empty(n_labels, dtype=np.int64)
    was_leaf = np.empty(n_labels, dtype=np.bool_)
    assign = np.empty(n_labels, dtype=np.int64)
    counts = np.zeros(arity, dtype=np.int64)
    seg_mass = np.zeros(n_labels)
    child_mass = np.zeros(arity)
    while head < n_nodes:
        start, length, depth, old = q_start[head], q_len[head], q_depth[head], q_old[head]
        _node_scores(labels, start, length, depth, old, old_path_off, old_path_node,
                     stats_p, stats_n, arity, log_likelihood, scores, informed,
                     old_slot, old_path_slot, was_leaf)
        counts[:] = 0
        if max_depth > 0:
            capacity = arity ** (max_depth - depth - 1)
            if not exact_depth and length <= arity:
                capacity = 1
            budget = length * arity  # no fullness constraint: capacity rules
        else:
            capacity = length
            padded = length if length > arity else arity
            while (padded - 1) % (arity - 1) != 0:
                padded += 1
            budget = (padded - arity) // (arity - 1)  # expansions available
        child_mass[:] = 0.0
        mass_cap = np.inf
        if mass_slack > 0:
            node_mass = 0.0
            for r in range(length):
                seg_mass[r] = label_mass[labels[start + r]]
                node_mass += seg_mass[r]
            mass_cap = mass_slack * node_mass / arity
        else:
            seg_mass[:length] = 0.0
        for r in range(length):
            assign[r] = -1
        if mass_slack > 0 and max_depth <= 0 and length > arity:
            # depth by frequency as in a Huffman tree: the node's Huffman
            # leaves stay leaves here, the rest share the other children
            reserved_mass, n_reserved = _reserve_huffman_leaves(
                length, arity, scores, informed, old_slot, was_leaf, seg_mass, counts,
                child_mass, assign)
            if n_reserved > 0:
                mass_cap = mass_slack * (node_mass - reserved_mass) / (arity - n_reserved)
        # greedy over (label, child) pairs of informed labels, best first
        if length == 1:  # a chain link: nothing to choose
            informed[0] = False
        used = _greedy_assign(scores, informed, length, arity, capacity, budget, counts,
                              assign, seg_mass, child_mass, mass_cap)
        # labels left over (no statistics, or no room by mass): their old
        # slot if it has room, else the child with the fewest labels that has
        # room; room by mass first, then by labels alone (a reserved child,
        # of infinite mass, stays closed).  (_has_room spelled out: calling
        # it in this loop made a whole rebuild 4x slower.)
        for r in range(length):
            if assign[r] >= 0:
                continue
            best = -1
            for cap in (mass_cap, _LABELS_ONLY):
                j = old_slot[r]
                if j >= 0:
                    extra = _expansions(counts[j] + 1, arity) - _expansions(counts[j], arity)
                    if counts[j] + 1 <= capacity and used + extra <= budget and (
                            counts[j] == 0 or child_mass[j] + seg_mass[r] <= cap):
                        best = j
                if best < 0:
                    for j in range(arity):
                        extra = _expansions(counts[j] + 1, arity) - _expansions(counts[j],
                                                                                arity)
                        if counts[j] + 1 <= capacity and used + extra <= budget and (
                                counts[j] == 0 or child_mass[j] + seg_mass[r] <= cap):
                            if best < 0 or counts[j] < counts[best]:
                                best = j
                if best >= 0:
                    break
            if best < 0:
                raise ValueError("AssignLabels: no child has room (tree too small)")
            assign[r] = best
            counts[best] += 1
            child_mass[best] += seg_mass[r]
            used += _expansions(counts[best], arity) - _expansions(counts[best] - 1, arity)
        # regroup the segment by child (counting sort) and create children
        offsets = np.zeros(arity + 1, dtype=np.int64)
        for j in range(arity):
            offsets[j + 1] = offsets[j] + counts[j]
        fill = offsets[:arity].copy()
        for r in range(length):
            scratch[fill[assign[r]]] = labels[start + r]
            fill[assign[r]] += 1
        labels[start:start + length] = scratch[:length]
        n_new = 0  # the node's children that become internal nodes
        for j in range(arity):
            if counts[j] > 0 and not _leaf_child(counts[j], depth, max_depth, exact_depth):
                n_new += 1
        # grown by what this node adds, not by arity rows: with -arity far
        # above the labels (100,000 over 1,881 words) that asked for 80 GB
        if n_nodes + n_new > len(q_start):
            size = 2 * (n_nodes + n_new)
            q_start = grown(q_start, size)
            q_len = grown(q_len, size)
            q_depth = grown(q_depth, size)
            q_old = grown(q_old, size)
            wider = np.full((size, arity), -1, dtype=np.int32)
            wider[:len(children)] = children
            children = wider
        for j in range(arity):
            c = counts[j]
            if c == 0:
                continue
            if _leaf_child(c, depth, max_depth, exact_depth):
                children[head, j] = labels[start + offsets[j]]
                continue
            old_child = -1
            if old >= 0 and old_children[old, j] >= n_labels:
                old_child = old_children[old, j] - n_labels
            q_start[n_nodes] = start + offsets[j]
            q_len[n_nodes] = c
            q_depth[n_nodes] = depth + 1
            q_old[n_nodes] = old_child
            children[head, j] = n_labels + n_nodes
            n_nodes += 1
        head += 1
    return children[:n_nodes].copy(), q_old[:n_nodes].copy()


@njit(cache=True, nogil=True, inline="always")
def _leaf_child(count, depth, max_depth, exact_depth):
    """Whether a child of a node at ``depth`` that holds ``count`` labels is
    a leaf: one label, and with ``exact_depth`` only at the last level (a
    chain of one-child nodes above it otherwise)."""
    return count == 1 and (not exact_depth or depth + 1 == max_depth)


@njit(cache=True, nogil=True)
def carry_statistics(old_path_off, old_path_node, old_path_slot, new_path_off,
                     new_path_node, new_path_slot, old_id, stats_p, stats_n,
                     new_p, new_n):
    """Copy each label's statistics along the part of its path that did not
    change (same old node and same slot); the rest starts from zero.
    Returns the number of labels whose path changed."""
    moved = 0
    for i in range(len(old_path_off) - 1):
        old_len = old_path_off[i + 1] - old_path_off[i]
        new_len = new_path_off[i + 1] - new_path_off[i]
        same = True  # the path down to depth d is unchanged
        for d in range(min(old_len, new_len)):
            po = old_path_off[i] + d
            pn = new_path_off[i] + d
            if not (same and old_id[new_path_node[pn]] == old_path_node[po]):
                same = False
                break
            # the node is the same one: its statistics for label i stay valid
            new_p[pn] = stats_p[po]
            new_n[pn] = stats_n[po]
            same = new_path_slot[pn] == old_path_slot[po]
        if not same or new_len != old_len:
            moved += 1
    return moved


