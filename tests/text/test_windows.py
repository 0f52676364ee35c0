"""Shuffled epochs read a window at a time (text/windows.py): the windows
of an epoch hold every line of the corpus once, as it is in the corpus,
read from the token cache's file or from memory; a window is a few random
blocks; epochs, seeds and threads differ; and training with windows is
reproducible and as good as a file that fits one window."""

import numpy as np
import pytest

import treexc
from treexc.classify.options import Args
from treexc.text import token_cache, windows
from treexc.text.epoch_order import WINDOW_BLOCKS

FIELDS = ("feat_off", "feats", "label_off", "labels", "ntokens")


def _line(c, i):
    """Line ``i`` of corpus ``c``: its features, labels and token count."""
    return (tuple(c.feats[c.feat_off[i]:c.feat_off[i + 1]]),
            tuple(c.labels[c.label_off[i]:c.label_off[i + 1]]), int(c.ntokens[i]))


def _epoch(reader):
    """The lines of the reader's next epoch, window by window, with the
    number of distinct blocks each window came from."""
    lines, blocks = [], []
    for _ in range(reader.n_windows):
        reader.position = reader.lines.n_lines if reader.lines is not None else 0
        w = reader.current()
        lines.extend(_line(w, i) for i in range(w.n_lines))
        blocks.append(len(reader.blocks()))
    return lines, blocks


def _file(path, n_lines=2000, seed=0):
    rng = np.random.default_rng(seed)
    rows = [f"__label__{rng.integers(0, 9)} " + " ".join(
        f"w{rng.integers(0, 300)}" for _ in range(rng.integers(1, 12)))
        for _ in range(n_lines)]
    path.write_text("\n".join(rows) + "\n")
    return str(path)


@pytest.mark.slow
@pytest.mark.parametrize("block", [1, 7, 64, 5000])
def test_an_epoch_of_windows_holds_every_line_once(tmp_path, monkeypatch, block):
    path = _file(tmp_path / "train.txt")
    monkeypatch.setattr(windows, "block_lines", lambda n, nbytes, threads: min(block, n))
    args = Args(input=path, output="x", wordNgrams=2, bucket=1000)
    with token_cache.training_corpus(args, "t", lambda: None, lambda m: None) as (_, c, _):
        assert c.source is not None  # the token cache: windows are read with pread
        want = sorted(_line(c, i) for i in range(c.n_lines))
        in_memory = type(c)(*(np.array(getattr(c, f)) for f in FIELDS))
        for corpus in (c, in_memory):
            reader = windows.WindowReader(corpus, seed=3, thread=0, n_threads=1)
            for _ in range(2):  # two epochs
                lines, blocks = _epoch(reader)
                assert sorted(lines) == want
                assert max(blocks) <= WINDOW_BLOCKS
            assert (reader.lap, reader.window) == (1, reader.n_windows - 1)


def test_windows_are_random_blocks_and_differ_by_epoch_seed_and_thread(tmp_path, monkeypatch):
    path = _file(tmp_path / "train.txt", n_lines=5000)
    monkeypatch.setattr(windows, "block_lines", lambda n, nbytes, threads: 10)
    args = Args(input=path, output="x")
    with token_cache.training_corpus(args, "t", lambda: None, lambda m: None) as (_, c, _):
        reader = windows.WindowReader(c, seed=0, thread=0, n_threads=1)
        reader.current()
        first = reader.blocks()
        assert len(first) == WINDOW_BLOCKS and first != list(range(0, 10 * WINDOW_BLOCKS, 10))
        assert np.ptp(first) > 2500  # from all over the file
        reader.lap = 1
        assert reader.blocks() != first
        assert windows.WindowReader(c, seed=1, thread=0, n_threads=1).blocks() != first
        again = windows.WindowReader(c, seed=0, thread=0, n_threads=1)
        assert again.blocks() == first and again.key() != reader.key()
        other = windows.WindowReader(c, seed=0, thread=1, n_threads=2)
        assert other.window == reader.n_windows // 2


def test_one_window_starts_the_threads_apart(tmp_path):
    path = _file(tmp_path / "train.txt", n_lines=300)
    with token_cache.training_corpus(Args(input=path, output="x"), "t", lambda: None,
                                     lambda m: None) as (_, c, _):
        readers = [windows.WindowReader(c, seed=0, thread=t, n_threads=3) for t in range(3)]
        assert {r.n_windows for r in readers} == {1}
        # a copy in memory, not the mapping another process may write to
        for r in readers:
            lines = r.current()
            assert lines is not c and lines.source is None
            for name in ("feat_off", "feats", "label_off", "labels", "ntokens"):
                assert np.array_equal(getattr(lines, name), getattr(c, name))
        assert [r.position for r in readers] == [0, c.n_lines // 3, 2 * c.n_lines // 3]


def test_training_on_windows_is_reproducible_and_learns(tmp_path, monkeypatch):
    path = _file(tmp_path / "train.txt", n_lines=3000)
    flags = dict(epoch=3, dim=10, thread=1, seed=5, verbose=0, lr=0.5)

    def trained():
        model = treexc.train_supervised(path, **flags)
        return model, model.get_output_matrix()

    one_window, w_one = trained()
    monkeypatch.setattr(windows, "block_lines", lambda n, nbytes, threads: 50)  # 4 windows
    many, w_many = trained()
    again, w_again = trained()
    assert np.array_equal(w_many, w_again)
    assert not np.array_equal(w_many, w_one)
    # labels are random here: what is learned is the label prior; both orders
    # find it equally (the same loss within a few percent)
    loss_one = one_window.test(path)[1]
    loss_many = many.test(path)[1]
    assert abs(loss_one - loss_many) < 0.05
