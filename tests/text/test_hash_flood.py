"""Hash flooding (text/table.py): words that share one FNV-1a hash do not
share a probe sequence in the vocabulary's table, so a text of 65,536 of
them trains about as fast as random words, while the FNV-1a values that
define model bytes (n-gram buckets) stay fastText's."""

import time

import numpy as np
import pytest

import treexc
from treexc.text import table

from fnv_flood import flood_words, fnv1a, random_words, training_text


@pytest.fixture(scope="module")
def flood():
    return flood_words()


def _longest_probe(words, seed):
    """The longest distance from a word's home slot to where it was put."""
    pool = np.frombuffer(b"".join(words), dtype=np.uint8).copy()  # writable: compiled once
    lengths = np.array([len(w) for w in words], dtype=np.int32)
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    slots, keys = table.build_table(offsets, lengths, pool, np.uint64(seed))
    mask = len(slots) - 1
    used = np.flatnonzero(slots >= 0)
    home = keys[slots[used]].astype(np.int64) & mask
    return int(((used - home) & mask).max())


def test_the_words_share_one_fnv1a_hash(flood):
    assert len(set(flood)) == 65536
    assert len({fnv1a(w) for w in flood[::997]}) == 1
    raw = np.frombuffer(flood[0], dtype=np.uint8)
    assert int(table.fnv_hash(raw, 0, len(raw))) == fnv1a(flood[0])  # fastText's hash


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_colliding_words_get_short_probes(flood, seed):
    # one FNV-1a hash as the probe key would make one chain of 65,536
    assert _longest_probe(flood, seed) < 100
    assert _longest_probe(flood, seed) < 3 * _longest_probe(random_words(65536, 96), seed) + 30


def test_the_flood_trains_within_three_times_random_words(flood, tmp_path):
    paths = {}
    for name, words in (("flood", flood), ("random", random_words(len(flood), 96))):
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_bytes(training_text(words))

    def seconds(name):
        t = time.perf_counter()
        model = treexc.train_supervised(str(paths[name]), epoch=1, dim=10, thread=1)
        assert len(model.get_words()) == 65537  # every word and </s>
        return time.perf_counter() - t

    seconds("random")  # kernels loaded, file system warm
    control = min(seconds("random") for _ in range(2))
    assert seconds("flood") <= 3 * control
