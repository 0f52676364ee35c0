"""The token cache (text/token_cache.py): the corpus encoded piece by piece
on disk is the corpus encoded whole in memory, stdin and pipes work, a kept
cache is reused only when everything matches, and temporary ones vanish."""

import hashlib
import io
import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import treexc
from treexc.classify.options import Args
from treexc.errors import TreexcError
from treexc.io import publish, textio
from treexc.text import token_cache
from treexc.text.dictionary import build_dictionary

FIELDS = ("feat_off", "feats", "label_off", "labels", "ntokens")


def _text(rng, n_lines=400, final_newline=True):
    """Lines with word and char n-gram material, bare lines (labels, no
    words), unknown-looking rare labels and an empty line."""
    words = [f"w{i}" for i in range(60)] + ["</s>", "héllo", "a\x01b"]
    lines = []
    for i in range(n_lines):
        labels = [f"__label__{rng.integers(0, 12)}"]
        if i % 50 == 7:
            labels.append(f"__label__rare{i}")
        body = list(rng.choice(words, size=rng.integers(0, 9)))
        if i % 37 == 5:
            body = []  # a bare line
        if i % 91 == 3:
            lines.append("")
            continue
        lines.append(" ".join(labels + body if i % 2 else body + labels))
    text = "\n".join(lines)
    return (text + "\n" if final_newline else text).encode()


def _in_memory(path, args):
    """What main's in-memory path computes: the whole file encoded once."""
    data = textio.read_text(path)
    d = build_dictionary(data, args, str(path))
    corpus = d.encode(data)
    corpus.drop_bare_lines(d.eos_id(), last_piece=True)
    return d, corpus


class Recorder:
    def __init__(self):
        self.messages = []

    def __call__(self, message):
        self.messages.append(message)


@pytest.mark.parametrize("final_newline", [True, False])
@pytest.mark.parametrize("flags", [
    {},
    {"wordNgrams": 3, "minn": 2, "maxn": 4, "bucket": 1000},
    {"minCount": 3, "minCountLabel": 2},
    {"minCount": 10_000},  # </s> itself below -minCount: eos_id is -1
])
def test_pieces_encode_as_the_whole_file(tmp_path, monkeypatch, flags, final_newline):
    rng = np.random.default_rng(len(flags))
    path = tmp_path / "train.txt"
    path.write_bytes(_text(rng, final_newline=final_newline))
    args = Args(input=str(path), output="x", **flags)
    try:
        d_ref, c_ref = _in_memory(str(path), args)
    except TreexcError:
        assert flags == {"minCount": 10_000}  # no words at all: both refuse
        with pytest.raises(TreexcError, match="no words"):
            with token_cache.training_corpus(args, "t", lambda: None, Recorder()):
                pass
        return
    monkeypatch.setattr(textio, "READ_SIZE", 97)  # hundreds of pieces, lines cut anywhere
    with token_cache.training_corpus(args, "t", lambda: None, Recorder()) as (d, c, _):
        for name in ("pool", "entry_off", "entry_len", "counts"):
            assert np.array_equal(getattr(d, name), getattr(d_ref, name)), name
        assert d.nwords == d_ref.nwords
        for name in FIELDS:
            assert np.array_equal(getattr(c, name), getattr(c_ref, name)), name
        assert (c.bare_count, c.bare_first, c.usable, c.labelled) == \
            (c_ref.bare_count, c_ref.bare_first, c_ref.usable, c_ref.labelled)
        assert c.bare_count > 0
        labelled_lines = int((np.diff(c_ref.label_off) > 0).sum())
        assert c.labelled == labelled_lines > 0
        pairs = sum(len(set(c_ref.labels[a:b])) for a, b in
                    zip(c_ref.label_off[:-1], c_ref.label_off[1:]))
        assert c.label_pairs == c_ref.label_pairs == pairs
        assert c.labels_per_line == pairs / labelled_lines


def _sha(model, path):
    model.save_model(str(path))
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_stdin_trains_as_the_file(tmp_path, monkeypatch, topic_file):
    path = topic_file(tmp_path / "train.txt", n=300)
    flags = dict(epoch=2, dim=8, thread=1, seed=3, verbose=0, loss="hs")
    want = _sha(treexc.train_supervised(path, **flags), tmp_path / "a.bin")
    raw = open(path, "rb").read()
    monkeypatch.setattr(textio, "READ_SIZE", 211)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    cache = tmp_path / "cache"
    cache.mkdir()
    assert _sha(treexc.train_supervised("-", cache=str(cache), **flags),
                tmp_path / "b.bin") == want
    assert list(cache.iterdir()) == []  # stdin's cache was temporary


def test_kept_cache_is_reused_only_when_everything_matches(tmp_path, topic_file):
    path = topic_file(tmp_path / "train.txt", n=200)
    cache = tmp_path / "cache"
    cache.mkdir()
    args = Args(input=path, output="x", cache=str(cache))

    def run():
        said = Recorder()
        with token_cache.training_corpus(args, "t", lambda: None, said) as (_, c, _p):
            feats = np.array(c.feats)
        return said.messages, feats

    said, first = run()
    assert any("written" in m for m in said)
    index, = cache.glob("*.index")
    tokens, = cache.glob("*.tokens")
    said, again = run()
    assert said == [f"token cache: reusing {index}"]
    assert np.array_equal(first, again)

    def rebuilt(why):
        said, feats = run()
        assert any(why in m and "rebuilding" in m for m in said), said
        assert np.array_equal(feats, first)
        assert run()[0] == [f"token cache: reusing {index}"]  # and then trusted again

    data = bytearray(tokens.read_bytes())
    data[200] ^= 0xFF  # damaged in an array
    tokens.write_bytes(bytes(data))
    rebuilt("checksum mismatch")
    tokens.write_bytes(tokens.read_bytes()[:-100])  # truncated
    rebuilt("truncated")
    index.write_bytes(b"something else entirely, not a cache")  # foreign
    rebuilt("not a treexc model file")
    st = os.stat(path)  # the same bytes, touched: stale
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10 ** 9))
    rebuilt("another input")
    args.minCount = 2  # other options: another cache, beside the first
    said, _ = run()
    assert any("written" in m for m in said)
    assert len(list(cache.glob("*.index"))) == 2


def test_temporary_cache_removed_on_success_and_error(tmp_path, monkeypatch, topic_file):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    path = topic_file(tmp_path / "train.txt", n=100)
    treexc.train_supervised(path, epoch=1, dim=4, thread=1, verbose=0)
    assert os.listdir(tmp_path / "tmp") == []
    bad = tmp_path / "nolabels.txt"
    bad.write_text("just words\nand more\n")
    with pytest.raises(TreexcError, match="no labels"):
        treexc.train_supervised(str(bad), epoch=1, dim=4, thread=1, verbose=0)
    assert os.listdir(tmp_path / "tmp") == []

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr("treexc.classify.training.Session.run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        treexc.train_supervised(path, epoch=1, dim=4, thread=1, verbose=0)
    assert os.listdir(tmp_path / "tmp") == []


def test_caches_of_killed_runs_are_removed_by_the_next_run(tmp_path, monkeypatch,
                                                            topic_file):
    """A run killed outright leaves its temporary cache; the next run on the
    host removes it, and only the folders of processes that are gone."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    host = publish.host_tag()
    names = {
        "killed": f"treexc-cache-{host}-{gone.pid}-k1ll3d_x",
        "running": f"treexc-cache-{host}-{os.getppid()}-l1v3ab_c",
        "other host": f"treexc-cache-{host}x-{gone.pid}-0th3rhst",
        "not ours": "treexc-cache-abcdefgh",
    }
    for name in names.values():
        (tmp / name).mkdir()
        (tmp / name / "corpus.tokens").write_bytes(b"x" * 100)
    path = topic_file(tmp_path / "train.txt", n=100)
    treexc.train_supervised(path, epoch=1, dim=4, thread=1, verbose=0)
    assert sorted(os.listdir(tmp)) == sorted(v for k, v in names.items() if k != "killed")


def test_cache_folder_must_exist(tmp_path, topic_file):
    path = topic_file(tmp_path / "train.txt", n=50)
    with pytest.raises(TreexcError, match="does not exist"):
        treexc.train_supervised(path, epoch=1, dim=4, thread=1, verbose=0,
                                cache=str(tmp_path / "nope"))


def test_interrupted_build_leaves_nothing_in_the_cache_folder(tmp_path, monkeypatch,
                                                               topic_file):
    path = topic_file(tmp_path / "train.txt", n=100)
    cache = tmp_path / "cache"
    cache.mkdir()
    args = Args(input=path, output="x", cache=str(cache))

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(token_cache.Dictionary, "encode", interrupted)
    with pytest.raises(KeyboardInterrupt):
        with token_cache.training_corpus(args, "t", lambda: None, Recorder()):
            pass
    assert list(cache.iterdir()) == []


def test_file_changed_between_the_passes_is_refused(tmp_path, monkeypatch, topic_file):
    """The dictionary comes from the first pass and the tokens from the
    second: a file that grows in between would get tokens the dictionary
    never counted, so the build stops and leaves no cache behind."""
    path = topic_file(tmp_path / "train.txt", n=100)
    cache = tmp_path / "cache"
    cache.mkdir()
    args = Args(input=path, output="x", cache=str(cache))
    encode = token_cache.Dictionary.encode

    def encode_and_append(self, data):
        with open(path, "a") as f:  # another program writing to the file
            f.write("__label__late words written while treexc read\n")
        return encode(self, data)

    monkeypatch.setattr(token_cache.Dictionary, "encode", encode_and_append)
    with pytest.raises(TreexcError, match="changed while it was read; train again"):
        with token_cache.training_corpus(args, "train.txt", lambda: None, Recorder()):
            pass
    assert list(cache.iterdir()) == []


def test_training_from_a_reused_cache_gives_the_same_model(tmp_path, topic_file):
    path = topic_file(tmp_path / "train.txt", n=200)
    cache = tmp_path / "cache"
    cache.mkdir()
    flags = dict(epoch=2, dim=8, thread=1, seed=2, verbose=0, loss="hs", wordNgrams=2,
                 bucket=1000)
    want = _sha(treexc.train_supervised(path, **flags), tmp_path / "a.bin")
    for name in ("b", "c"):  # built, then reused
        assert _sha(treexc.train_supervised(path, cache=str(cache), **flags),
                    tmp_path / f"{name}.bin") == want
    assert len(list(cache.glob("*.tokens"))) == 1


def test_cli_says_at_verbose_2_when_it_reuses_or_rebuilds(tmp_path, topic_file):
    from cli_util import ok

    path = topic_file(tmp_path / "train.txt", n=100)
    cache = tmp_path / "cache"
    cache.mkdir()
    cmd = ["supervised", "-input", path, "-output", tmp_path / "m", "-epoch", "1", "-dim",
           "4", "-thread", "1", "-cache", cache]
    assert "token cache: written to" in ok(cmd + ["-verbose", "2"]).output
    assert "token cache: reusing" in ok(cmd + ["-verbose", "2"]).output
    assert "token cache" not in ok(cmd + ["-verbose", "1"]).output
    tokens, = cache.glob("*.tokens")
    tokens.write_bytes(tokens.read_bytes()[:64])
    out = ok(cmd + ["-verbose", "2"]).output
    assert "truncated or foreign data file" in out and "rebuilding it" in out
