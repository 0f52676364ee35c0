"""The order of the lines in an epoch (text/epoch_order.py): every epoch
visits every line exactly once, in an order that changes from epoch to
epoch and with the seed and that a seed reproduces; the classifier's
blocks share a fixed budget among the threads; and training on a file sorted by label
gains from it."""

import numpy as np
import pytest
from numba import njit

import treexc
from treexc.text.epoch_order import block_lines, epoch_key, half_bits, shuffled_line


@njit(cache=False)
def _order(n, seed, lap):
    key = epoch_key(seed, lap)
    h = half_bits(n)
    out = np.empty(n, np.int64)
    for i in range(n):
        out[i] = shuffled_line(i, n, key, h)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 15, 16, 17, 255, 1000, 65537])
def test_every_epoch_is_a_permutation(n):
    for seed, lap in ((0, 0), (0, 1), (7, 0), (7, 12345)):
        assert np.array_equal(np.sort(_order(n, seed, lap)), np.arange(n))


def test_orders_differ_by_epoch_and_seed_and_repeat_for_both():
    n = 10_000
    first = _order(n, 0, 0)
    assert np.array_equal(first, _order(n, 0, 0))
    for other in (_order(n, 0, 1), _order(n, 1, 0)):
        assert (other != first).mean() > 0.99
    # a shuffle, not a stride: neighbours in the order are far apart in the file
    # and the position tells nothing about the line
    assert np.median(np.abs(np.diff(first))) > n / 10
    assert abs(np.corrcoef(np.arange(n), first)[0, 1]) < 0.05


def test_blocks_share_the_windows_bytes_among_the_threads():
    assert block_lines(1_000_000, 400_000_000, 2) == 655   # 400 bytes a line: 256 KiB
    assert block_lines(1_000_000, 400_000_000, 32) == 40   # 16 KiB
    assert block_lines(10, 400_000_000, 2) == 1            # 40 MB lines: one a block
    assert block_lines(100, 1000, 2) == 100                # never more than the corpus


def _sorted_by_label(path, n_labels=8, per_label=150, seed=0):
    """Each label's lines together, in label order: the worst case for an
    epoch that always ends on the same lines.  Words are shared among
    neighbouring labels, so the last labels seen pull the shared ones."""
    rng = np.random.default_rng(seed)
    lines = []
    for label in range(n_labels):
        for _ in range(per_label):
            words = [f"w{(label + int(rng.integers(0, 2))) % n_labels}_{int(rng.integers(0, 3))}"
                     for _ in range(4)]
            lines.append(f"__label__{label} " + " ".join(words))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_sorted_file_trains_better_shuffled(tmp_path):
    train = _sorted_by_label(tmp_path / "sorted.txt")
    valid = _sorted_by_label(tmp_path / "valid.txt", seed=1)
    scores = {}
    for order in ("file", "shuffled"):
        model = treexc.train_supervised(str(train), order=order, epoch=2, lr=0.5, dim=10,
                                        thread=1, verbose=0, loss="softmax")
        scores[order] = model.test(str(valid))[1]
    assert scores["shuffled"] > scores["file"] + 0.05, scores


def test_order_is_checked_and_saved_only_when_not_the_default(tmp_path):
    train = _sorted_by_label(tmp_path / "sorted.txt")
    with pytest.raises(treexc.TreexcError, match="unknown order"):
        treexc.train_supervised(str(train), order="random", verbose=0)
    for order in ("file", "shuffled"):
        model = treexc.train_supervised(str(train), order=order, epoch=1, dim=5, thread=1,
                                        verbose=0)
        model.save_model(str(tmp_path / f"{order}.bin"))
        assert treexc.load_model(str(tmp_path / f"{order}.bin")).args.order == order
