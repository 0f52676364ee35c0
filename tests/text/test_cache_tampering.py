"""A token cache is untrusted input (text/token_cache.py, text/windows.py):
a forged cache with valid checksums is refused when opened, a cache
rewritten in place while training reads it stops the run with one clean
error and never crashes it, an edit of the input that keeps its size and
modification time is seen, runs sharing one ``-cache`` folder all succeed,
and the build files of a killed run are removed by the next one."""

import glob
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import treexc
from treexc.classify.options import Args
from treexc.classify.training import train_on_corpus
from treexc.errors import TreexcError
from treexc.io import modelfile
from treexc.runtime import SilentReporter
from treexc.text import cache_folder, token_cache

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FLAGS = dict(epoch=2, dim=8, thread=1, seed=3, verbose=0)


def _corpus_file(path, n=600, seed=0):
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(80)]
    lines = [f"__label__{rng.integers(0, 6)} " + " ".join(rng.choice(words, size=6))
             for _ in range(n)]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _args(path, cache, **flags):
    return Args(input=path, output="x", cache=str(cache), **{**FLAGS, **flags})


def _built(tmp_path, **flags):
    """A corpus file and its cache in ``tmp_path/cache``: ``(path, args, base)``."""
    path = _corpus_file(tmp_path / "train.txt")
    cache = tmp_path / "cache"
    cache.mkdir(exist_ok=True)
    args = _args(path, cache, **flags)
    with token_cache.training_corpus(args, "t", lambda: None, lambda m: None):
        pass
    (index,) = glob.glob(str(cache / "*.index"))
    return path, args, index[:-len(".index")]


def _forge(base, name, index, value):
    """Write ``value`` at ``index`` of array ``name`` of the data file and
    store the new checksum in the index: a cache whose checksums all hold."""
    header, arrays = modelfile.load(base + ".index")
    entry = next(e for e in header["directory"] if e["name"] == name)
    dtype = np.dtype(entry["dtype"])
    with open(base + ".tokens", "r+b") as f:
        f.seek(entry["offset"] + index * dtype.itemsize)
        f.write(np.array([value], dtype=dtype).tobytes())
        f.seek(entry["offset"])
        data = np.frombuffer(f.read(dtype.itemsize * entry["shape"][0]), dtype=dtype)
    entry["crc32"] = modelfile.crc32(data)
    modelfile.save(base + ".index", header, {k: np.array(v) for k, v in arrays.items()})


@pytest.mark.parametrize("name, value", [
    ("feats", 10 ** 8), ("feats", -5), ("labels", 6), ("labels", -1),
    ("feat_off", 10 ** 9), ("ntokens", -7)])
def test_a_forged_cache_is_refused_when_opened_and_rebuilt(tmp_path, name, value):
    path, args, base = _built(tmp_path)
    _forge(base, name, 17, value)
    said = []
    with token_cache.training_corpus(args, "t", lambda: None, said.append) as (d, c, _):
        assert c.feats.max() < d.nwords + args.bucket and c.labels.max() < d.nlabels
        assert np.all(np.diff(c.feat_off) >= 0) and c.ntokens.min() >= 0
    assert any("rebuilding" in m for m in said), said


def test_forged_ids_never_reach_a_kernel_unchecked(tmp_path):
    """Past the check at opening (as if the file changed after it), an id
    out of range stops training with one clean error, not a crash."""
    path, args, base = _built(tmp_path)
    with token_cache.training_corpus(args, "t", lambda: None, lambda m: None) as (d, c, _):
        c.feats = c.feats.copy()
        c.feats[5] = d.nwords + args.bucket + 1000
        c.source = None  # read as given: what the kernel meets
        with pytest.raises(TreexcError, match="out of range"):
            train_on_corpus(args, SilentReporter(), None, d, c, None)


def test_a_cache_rewritten_while_training_reads_it_stops_cleanly(tmp_path):
    path, args, base = _built(tmp_path)
    with token_cache.training_corpus(args, "t", lambda: None, lambda m: None) as (d, c, _):
        with open(base + ".tokens", "r+b") as f:  # in place, as cp or dd would
            f.seek(4096)
            f.write(np.random.default_rng(0).bytes(4096))
        with pytest.raises(TreexcError, match="rewritten in place"):
            train_on_corpus(args, SilentReporter(), None, d, c, None)


MUTATION_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    from treexc.classify.options import Args
    from treexc.classify.training import train_on_corpus
    from treexc.errors import TreexcError
    from treexc.io.bigarrays import MappedArrays
    from treexc.runtime import SilentReporter
    from treexc.text import epoch_order, token_cache, windows

    # many small windows, so that training reads the file again and again
    windows.block_lines = lambda n, nbytes, threads: 7
    # the times are not looked at: only the offset and id checks stand
    MappedArrays.check_unchanged = lambda self: None
    path, cache, tokens, seeds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    size = len(open(tokens, "rb").read())
    outcomes = {"trained": 0, "refused": 0}
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        args = Args(input=path, output="x", cache=cache, epoch=2, dim=8, thread=1 + seed % 2,
                    seed=seed, verbose=0)
        with token_cache.training_corpus(args, "t", lambda: None, lambda m: None) as (d, c, _):
            with open(tokens, "r+b") as f:  # in place, after the checks at opening
                for _ in range(1 + seed % 4):
                    at = int(rng.integers(64, size - 64))
                    n = int(rng.integers(1, 64))
                    f.seek(at)
                    f.write(rng.bytes(n) if seed % 3 else b"\\xff" * n)
            try:
                train_on_corpus(args, SilentReporter(), None, d, c, None)
                outcomes["trained"] += 1
            except TreexcError as e:
                assert "out of range" in str(e), e
                outcomes["refused"] += 1
    print(outcomes["trained"], outcomes["refused"])
""")


# 200 seeds is an audit (minutes): TREEXC_AUDIT_TESTS=1 runs it
AUDIT = pytest.mark.skipif(os.environ.get("TREEXC_AUDIT_TESTS") != "1",
                           reason="an audit of minutes: TREEXC_AUDIT_TESTS=1 runs it")


@pytest.mark.parametrize("seeds", [pytest.param(8, id="8-seeds"),
                                   pytest.param(200, id="200-seeds", marks=AUDIT)])
def test_seeded_in_place_mutations_of_a_cache_in_use_never_crash(tmp_path, seeds):
    """Random bytes written into the data file after it was checked, one
    mutation a seed: each run trains (the bytes were harmless) or stops with
    the clean error; a SIGSEGV or a traceback fails.  In a child process, so
    a crash is reported as one."""
    path, args, base = _built(tmp_path)
    done = subprocess.run([sys.executable, "-c", MUTATION_SCRIPT, path, args.cache,
                           base + ".tokens", str(seeds)], capture_output=True, text=True,
                          timeout=60 + 5 * seeds, cwd=ROOT)
    assert done.returncode == 0, (done.returncode, done.stderr[-3000:])
    trained, refused = map(int, done.stdout.split())
    assert trained + refused == seeds and refused >= seeds // 4, done.stdout


def test_an_edit_keeping_size_and_mtime_is_seen(tmp_path):
    path, args, base = _built(tmp_path)
    st = os.stat(path)
    data = open(path, "rb").read()
    edited = data.replace(b"w1 ", b"v1 ", 1)
    assert len(edited) == len(data) and edited != data
    with open(path, "r+b") as f:  # cp -p, touch -r: same size, same mtime
        f.write(edited)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(path).st_mtime_ns == st.st_mtime_ns
    with token_cache.training_corpus(args, "t", lambda: None, lambda m: None) as (d, c, _):
        assert d.word_id("v1") >= 0


CONCURRENT = ("import sys; from treexc.cli.main import main; "
              "sys.argv = ['treexc', 'supervised', *sys.argv[1:]]; main()")


def test_concurrent_runs_sharing_a_cache_folder_all_succeed(tmp_path):
    path = _corpus_file(tmp_path / "train.txt", n=1500)
    cache = tmp_path / "cache"
    cache.mkdir()
    runs = [subprocess.Popen([sys.executable, "-c", CONCURRENT, "-input", path,
                              "-output", str(tmp_path / f"m{dim}"), "-cache", str(cache),
                              "-dim", str(dim), "-epoch", "1", "-thread", "1",
                              "-verbose", "0"],
                             stderr=subprocess.PIPE, text=True, cwd=ROOT)
            for dim in (8, 9, 10)]
    errors = [(r.wait(timeout=300), r.stderr.read()) for r in runs]
    assert all(rc == 0 for rc, _ in errors), errors
    left = sorted(os.listdir(cache))
    assert len(left) == 2 and left[0].endswith(".index") and left[1].endswith(".tokens"), left


def test_build_files_of_a_killed_run_are_removed_by_the_next(tmp_path):
    path, args, base = _built(tmp_path)
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    dead = f"{base}.{cache_folder._temp_prefix()}{gone.pid}-0123abcd"
    alive = f"{base}.{cache_folder._temp_prefix()}{os.getppid()}-4567cdef"
    for stem in (dead, alive):
        for suffix in (".feats.part", ".spool", ".tokens.k3j4h5g6.tmp"):
            with open(stem + suffix, "wb") as f:
                f.write(b"x" * 1000)
    with token_cache.training_corpus(args, "t", lambda: None, lambda m: None):
        pass
    left = os.listdir(os.path.dirname(base))
    assert not any(name.startswith(os.path.basename(dead)) for name in left), left
    assert sum(name.startswith(os.path.basename(alive)) for name in left) == 3, left


def test_a_killed_build_leaves_nothing_after_the_next_run(tmp_path):
    """SIGKILL in the middle of encoding a large corpus: its part files
    stay until the next run on the same cache folder removes them."""
    path = _corpus_file(tmp_path / "train.txt", n=3000)
    cache = tmp_path / "cache"
    cache.mkdir()
    slow = textwrap.dedent("""
        import os, signal, sys
        from treexc.text import token_cache
        encode = token_cache.Dictionary.encode
        def encode_then_die(self, data):
            out = encode(self, data)
            os.kill(os.getpid(), signal.SIGKILL)
        token_cache.Dictionary.encode = encode_then_die
        from treexc.cli.main import main
        sys.argv = ["treexc", "supervised", *sys.argv[1:]]
        main()
    """)
    flags = ["-input", path, "-output", str(tmp_path / "m"), "-cache", str(cache),
             "-epoch", "1", "-dim", "4", "-thread", "1", "-verbose", "0"]
    killed = subprocess.run([sys.executable, "-c", slow, *flags], cwd=ROOT)
    assert killed.returncode == -9
    assert any(name.endswith(".part") for name in os.listdir(cache))
    treexc.train_supervised(path, cache=str(cache), epoch=1, dim=4, thread=1, verbose=0)
    assert not any(name.endswith((".part", ".tmp", ".spool")) for name in os.listdir(cache))
