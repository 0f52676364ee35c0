"""Hash-flooding text: many distinct words that share one FNV-1a value.

FNV-1a is iterated over bytes with its 32-bit state as the hash, so a
collision of two blocks from one state is a collision from then on (Joux's
multicollisions): 16 stages, each a pair of 6-letter blocks that collide
from the state the previous stages end in, spell 2^16 distinct 96-letter
words with one hash.  A stage finds its pair among 2^17 random blocks by
the birthday bound (numpy, a tenth of a second), so the whole set takes
about a second to make.
"""

import numpy as np

FNV_OFFSET = 2166136261
FNV_PRIME = 16777619
BLOCK = 6       # letters a block
CANDIDATES = 1 << 17


def fnv1a(data, h=FNV_OFFSET):
    """fastText's 32-bit FNV-1a of ASCII ``data`` (no byte >= 0x80)."""
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & 0xFFFFFFFF
    return h


def _colliding_pair(state, rng):
    """Two distinct blocks of lowercase letters whose FNV-1a from ``state``
    agree; returns ``(block_a, block_b, next_state)``."""
    while True:
        blocks = rng.integers(ord("a"), ord("z") + 1, size=(CANDIDATES, BLOCK),
                              dtype=np.uint64)
        h = np.full(CANDIDATES, state, dtype=np.uint64)
        for j in range(BLOCK):
            h = ((h ^ blocks[:, j]) * np.uint64(FNV_PRIME)) & np.uint64(0xFFFFFFFF)
        order = np.argsort(h, kind="stable")
        same = np.flatnonzero(h[order][1:] == h[order][:-1])
        for k in same:
            a, b = blocks[order[k]], blocks[order[k + 1]]
            if (a != b).any():
                return bytes(a.astype(np.uint8)), bytes(b.astype(np.uint8)), int(h[order[k]])


def flood_words(stages=16, seed=0):
    """``2 ** stages`` distinct words of ``stages * BLOCK`` letters, all of
    one FNV-1a hash."""
    rng = np.random.default_rng(seed)
    state, pairs = FNV_OFFSET, []
    for _ in range(stages):
        a, b, state = _colliding_pair(state, rng)
        pairs.append((a, b))
    words = [b""]
    for a, b in pairs:
        words = [w + a for w in words] + [w + b for w in words]
    return words


def random_words(n, length, seed=1):
    """``n`` random lowercase words of ``length`` letters (the control)."""
    rng = np.random.default_rng(seed)
    letters = rng.integers(ord("a"), ord("z") + 1, size=(n, length), dtype=np.uint8)
    return [bytes(row) for row in letters]


def training_text(words, per_line=8, n_labels=10):
    """A classifier's training text: each word once, ``per_line`` to a line,
    a label of ``n_labels`` in front."""
    lines = []
    for i in range(0, len(words), per_line):
        label = b"__label__%d " % (i // per_line % n_labels)
        lines.append(label + b" ".join(words[i:i + per_line]))
    return b"\n".join(lines) + b"\n"
