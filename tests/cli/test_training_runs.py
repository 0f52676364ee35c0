"""Training runs under stress: signals at any moment, outputs that cannot be
written, concurrent runs on one -output, numerical blow-up, memory that
is not there, and the progress lines of `treexc lm` in a log.

Signal tests run `treexc` as a real process and send real signals; the
rest run in-process.  The "previous set" of outputs is a pair of files with
known bytes: a run that fails or is interrupted must leave it as it was.
"""

import gzip
import os
import pty
import resource
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from cli_util import run

import treexc
from treexc import memory
from treexc.io import publish

ROOT = Path(__file__).resolve().parents[2]
TREEXC = [sys.executable, "-c", "from treexc.cli.main import main; main()"]
OLD = {".bin": b"previous model\n", ".vec": b"1 1\nprevious 0.5\n"}


@pytest.fixture(scope="module")
def big(tmp_path_factory, word_label_file):
    """Trains for seconds at -epoch 100; its .vec (30,000 words x dim 64)
    takes about a second to format."""
    return word_label_file(tmp_path_factory.mktemp("data") / "big.txt", 4000, 30000)


@pytest.fixture(scope="module")
def small(tmp_path_factory, word_label_file):
    return word_label_file(tmp_path_factory.mktemp("data") / "small.txt", 400, 60, n_labels=4)


def previous_set(out):
    for ext, data in OLD.items():
        Path(str(out) + ext).write_bytes(data)


def assert_previous_set(out):
    for ext, data in OLD.items():
        assert Path(str(out) + ext).read_bytes() == data, ext


def leftovers(folder):
    return sorted(p.name for p in Path(folder).iterdir() if ".tmp" in p.name)


def start(args, **kw):
    return subprocess.Popen(TREEXC + [str(a) for a in args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, **kw)


def wait_for_line(proc, fragment, timeout=120):
    """Read the process's stderr until a line contains ``fragment``."""
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        line = proc.stderr.readline().decode(errors="replace")
        if not line:
            break
        seen.append(line)
        if fragment in line:
            return seen
    raise AssertionError(f"no line with {fragment!r} in {seen}")


def wait_for_file(folder, prefix, proc, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(p.name.startswith(prefix) for p in Path(folder).iterdir()):
            return
        if proc.poll() is not None:
            raise AssertionError(f"exited ({proc.returncode}) before writing {prefix}*: "
                                 + proc.stderr.read().decode(errors="replace"))
        time.sleep(0.005)
    raise AssertionError(f"no {prefix}* file")


def train_args(data, out, *extra):
    return ["supervised", "-input", data, "-output", out, "-dim", "64", "-thread", "2",
            "-loss", "softmax", *extra]


# -- signals ---------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("sig, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143),
                                         (signal.SIGHUP, 129)])
def test_signal_during_training_publishes_nothing(big, tmp_path, sig, status):
    out = tmp_path / "model"
    previous_set(out)
    proc = start(train_args(big, out, "-epoch", "100", "-verbose", "1"))
    wait_for_line(proc, "Number of labels")
    time.sleep(0.3)  # inside the training threads
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == status, err
    assert err.decode().splitlines()[-1] == "treexc: interrupted"
    assert_previous_set(out)
    assert leftovers(tmp_path) == []


@pytest.mark.slow
@pytest.mark.parametrize("sig, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_during_the_save_publishes_nothing(big, tmp_path, sig, status):
    out = tmp_path / "model"
    previous_set(out)
    proc = start(train_args(big, out, "-epoch", "1", "-verbose", "0"))
    # the .bin is written (under its temporary name), the .vec is being formatted
    wait_for_file(tmp_path, "model.vec.treexc-", proc)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == status, err
    assert err.decode().splitlines() == ["treexc: interrupted"]
    assert_previous_set(out)
    assert leftovers(tmp_path) == []


def test_sigkill_leftovers_removed_by_the_next_run(big, small, tmp_path):
    out = tmp_path / "model"
    previous_set(out)
    proc = start(train_args(big, out, "-epoch", "1", "-verbose", "0"))
    wait_for_file(tmp_path, "model.vec.treexc-", proc)
    proc.kill()
    proc.wait()
    assert_previous_set(out)
    killed = leftovers(tmp_path)
    assert any(name.startswith("model.bin.treexc-") for name in killed), killed
    # what must survive the clean-up: a live process's temporary (pytest's
    # parent: the run below is in this process), a file that only looks
    # alike, and another output's temporary
    live = tmp_path / f"model.bin.treexc-{publish.host_tag()}-{os.getppid()}.tmp"
    live.write_bytes(b"live")
    alike = tmp_path / "model.bin.notes.tmp"
    alike.write_bytes(b"mine")
    other = tmp_path / f"other.bin.treexc-{publish.host_tag()}-{proc.pid}.tmp"
    other.write_bytes(b"other")
    result = run(["supervised", "-input", small, "-output", out, "-dim", "8", "-epoch", "1",
                  "-thread", "1", "-verbose", "0", "-loss", "softmax"])
    assert result.exit_code == 0, result.output
    assert leftovers(tmp_path) == sorted([live.name, alike.name, other.name])
    assert (tmp_path / "model.bin").read_bytes() != OLD[".bin"]


def test_old_temporaries_of_another_host_are_removed(small, tmp_path):
    out = tmp_path / "model"
    old = tmp_path / "model.vec.treexc-elsewhere-123.tmp"
    old.write_bytes(b"x")
    recent = tmp_path / "model.vec.treexc-elsewhere-124.tmp"
    recent.write_bytes(b"x")
    day_ago = time.time() - publish.STALE_AGE - 60
    os.utime(old, (day_ago, day_ago))
    result = run(["supervised", "-input", small, "-output", out, "-dim", "8", "-epoch", "1",
                  "-thread", "1", "-verbose", "0"])
    assert result.exit_code == 0, result.output
    assert leftovers(tmp_path) == [recent.name]


def test_ctrl_c_on_a_terminal_restores_the_cursor(big, tmp_path):
    master, slave = pty.openpty()
    # -epoch 1000: far longer than the wait before the signal, so that on an
    # idle machine the run cannot end before SIGINT reaches it
    proc = subprocess.Popen(TREEXC + [str(a) for a in train_args(
        big, tmp_path / "model", "-epoch", "1000", "-verbose", "2")],
        stdout=subprocess.DEVNULL, stderr=slave, env=dict(os.environ, TERM="xterm"))
    os.close(slave)
    shown = b""
    deadline = time.monotonic() + 120
    interrupted = False
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the process is gone
                break
            if not chunk:
                break
            shown += chunk
        if not interrupted and b"\x1b[?25l" in shown and b"training" in shown:
            time.sleep(0.3)
            proc.send_signal(signal.SIGINT)
            interrupted = True
    os.close(master)
    proc.wait(timeout=60)
    assert interrupted, shown[-500:]
    assert proc.returncode == 130
    assert b"treexc: interrupted" in shown
    assert shown.rindex(b"\x1b[?25h") > shown.rindex(b"\x1b[?25l")  # cursor shown again


# -- outputs that cannot be published ---------------------------------------

def test_a_folder_in_the_way_of_the_vec_is_refused_before_training(small, tmp_path):
    out = tmp_path / "model"
    previous_set(out)
    (tmp_path / "model.vec").unlink()
    (tmp_path / "model.vec").mkdir()
    result = run(["supervised", "-input", small, "-output", out, "-epoch", "1"])
    assert result.exit_code == 1
    assert result.stderr.strip().startswith("treexc: -output")
    assert "model.vec is a folder" in result.stderr
    assert (tmp_path / "model.bin").read_bytes() == OLD[".bin"]
    assert leftovers(tmp_path) == []


def test_a_folder_appearing_before_publication_publishes_nothing(small, tmp_path):
    out = tmp_path / "model"
    previous_set(out)
    outputs = publish.OutputSet([str(out) + ".vec", str(out) + ".bin"])
    with pytest.raises(treexc.TreexcError, match="is a folder; nothing was published"):
        with outputs:
            for final in outputs.finals:
                Path(outputs.temp(final)).write_bytes(b"new")
            (tmp_path / "model.vec").unlink()
            (tmp_path / "model.vec").mkdir()
            outputs.publish()
    assert (tmp_path / "model.bin").read_bytes() == OLD[".bin"]
    assert leftovers(tmp_path) == []


def test_file_size_limit_keeps_the_previous_set(big, tmp_path):
    out = tmp_path / "model"
    previous_set(out)

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1_000_000, resource.RLIM_INFINITY))

    proc = start(train_args(big, out, "-epoch", "1", "-verbose", "0"), preexec_fn=limit)
    _, err = proc.communicate(timeout=120)
    lines = err.decode().splitlines()
    assert proc.returncode == 1, err
    assert len(lines) == 1 and lines[0].startswith("treexc: "), lines
    assert "model.bin: cannot write" in lines[0]  # the final name, not the temporary
    assert_previous_set(out)
    assert leftovers(tmp_path) == []


# -- concurrent runs ----------------------------------------------------------

def read_vec(path):
    lines = Path(path).read_text().splitlines()
    n, dim = map(int, lines[0].split())
    rows = {}
    for line in lines[1:]:
        parts = line.split()
        rows[parts[0]] = np.array([float(x) for x in parts[1:]], dtype=np.float32)
    assert len(rows) == n
    return dim, rows


@pytest.mark.slow
def test_concurrent_runs_end_with_one_consistent_set(small, tmp_path):
    out = tmp_path / "model"
    for _ in range(2):  # before the folder lock: a mismatched pair in 2 of 6 rounds
        procs = [start(["supervised", "-input", small, "-output", out, "-dim", str(dim),
                        "-epoch", "1", "-thread", "1", "-verbose", "0", "-seed", str(dim),
                        "-loss", "softmax"]) for dim in (8, 12)]
        for p in procs:
            _, err = p.communicate(timeout=120)
            assert p.returncode == 0, err
        model = treexc.load_model(str(out) + ".bin")
        dim, rows = read_vec(str(out) + ".vec")
        assert model.args.dim == dim
        for word in list(rows)[:5]:
            np.testing.assert_allclose(model.get_word_vector(word), rows[word],
                                       rtol=1e-4, atol=1e-6)
        assert leftovers(tmp_path) == []


# -- numerical blow-up ----------------------------------------------------------

@pytest.mark.parametrize("loss", ["softmax", "hs", "ova", "ns", "tree"])
@pytest.mark.parametrize("thread", [1, 2])
def test_diverging_run_says_so_and_saves_nothing(small, tmp_path, loss, thread):
    out = tmp_path / "model"
    previous_set(out)
    result = run(["supervised", "-input", small, "-output", out, "-dim", "8", "-epoch", "5",
                  "-thread", thread, "-verbose", "0", "-loss", loss, "-lr", "1000"])
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("treexc: training diverged (NaN or infinite values) at epoch ")
    assert lines[0].endswith("; lower -lr (now 1000)")
    assert_previous_set(out)
    assert leftovers(tmp_path) == []


def test_a_sane_rate_does_not_trip_the_check(small, tmp_path):
    # fastText 0.9.2 trains these without "Encountered NaN." (docs/robustness.md)
    for loss in ("softmax", "hs", "ns", "tree"):
        result = run(["supervised", "-input", small, "-output", tmp_path / loss, "-dim", "8",
                      "-epoch", "5", "-thread", "2", "-verbose", "0", "-loss", loss,
                      "-lr", "1"])
        assert result.exit_code == 0, (loss, result.output)


@pytest.fixture(scope="module")
def lm_text(tmp_path_factory):
    rng = np.random.default_rng(3)
    words = [f"v{i}" for i in range(40)]
    lines = [" ".join(rng.choice(words, size=12)) for _ in range(600)]
    path = tmp_path_factory.mktemp("lm") / "text.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("loss", ["softmax", "tree"])
@pytest.mark.parametrize("thread", [1, 2])
def test_diverging_lm_says_so_and_saves_nothing(lm_text, tmp_path, loss, thread):
    out = tmp_path / "lm"
    (tmp_path / "lm.bin").write_bytes(OLD[".bin"])
    result = run(["lm", "-input", lm_text, "-valid", lm_text, "-output", out, "-dim", "8",
                  "-epoch", "2", "-minCount", "1", "-thread", thread, "-loss", loss,
                  "-lr", "1e18", "-verbose", "0", "-log", tmp_path / "lm.jsonl"])
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("treexc: training diverged (")
    assert lines[0].endswith("; lower -lr (now 1e+18)")
    assert (tmp_path / "lm.bin").read_bytes() == OLD[".bin"]
    assert not (tmp_path / "lm.jsonl").exists()
    assert leftovers(tmp_path) == []


# -- memory up front -------------------------------------------------------------

def test_oversized_options_are_refused_before_reading(tmp_path):
    start_time = time.monotonic()
    # the input does not even exist: the options alone ask for 4 TB
    result = run(["supervised", "-input", tmp_path / "missing.txt", "-output",
                  tmp_path / "m", "-dim", "100000", "-bucket", "10000000", "-wordNgrams", "2"])
    assert time.monotonic() - start_time < 5
    assert result.exit_code == 1
    line = result.stderr.strip()
    assert line.startswith("treexc: this run needs about 4,000.0 GB of memory "
                           "(input matrix 4,000.0 GB"), line
    assert line.endswith("lower -dim/-bucket")
    # an arity is cut to the label count once they are counted: not refused
    result = run(["supervised", "-input", tmp_path / "missing.txt", "-output",
                  tmp_path / "m", "-loss", "tree", "-arity", "2000000000"])
    assert result.exit_code == 1 and "GB" not in result.stderr and "missing.txt" in result.stderr
    result = run(["lm", "-input", tmp_path / "missing.txt", "-output", tmp_path / "m",
                  "-arity", "100000000", "-depth", "2"])
    assert result.exit_code == 1 and "tree weights" in result.stderr
    assert "-arity" in result.stderr
    result = run(["lm", "-input", tmp_path / "missing.txt", "-output", tmp_path / "m",
                  "-arity", "2000000000", "-depth", "3"])  # 2e9^3 leaves: beyond int64 counts
    assert result.exit_code == 1
    assert result.stderr.startswith("treexc: -arity 2000000000 -depth 3: the tree holds more "
                                    "than 2^62 leaves; lower -arity or -depth")
    assert leftovers(tmp_path) == []


def test_shapes_of_the_data_are_checked_before_allocating(small, tmp_path, monkeypatch):
    monkeypatch.setattr(memory, "available_bytes", lambda: 30_000_000)
    # 60 words x dim 20,000 x 4 bytes = 4.8 MB (twice: the .vec's rows) fits;
    # at dim 100,000 the input matrix alone is 24 MB, the .vec's rows as much
    result = run(["supervised", "-input", small, "-output", tmp_path / "m", "-dim", "20000",
                  "-epoch", "1", "-thread", "1", "-verbose", "0", "-loss", "softmax"])
    assert result.exit_code == 0, result.output
    result = run(["supervised", "-input", small, "-output", tmp_path / "m2", "-dim", "100000",
                  "-epoch", "1", "-thread", "1", "-verbose", "0", "-loss", "ova"])
    assert result.exit_code == 1
    assert "needs about" in result.stderr and "input matrix 24 MB" in result.stderr
    assert "30 MB are available" in result.stderr
    assert not (tmp_path / "m2.bin").exists()


@pytest.mark.slow
def test_address_space_limit_is_respected(small, tmp_path):
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (3 * 2 ** 30, resource.RLIM_INFINITY))

    proc = start(["supervised", "-input", small, "-output", tmp_path / "m", "-dim", "1000",
                  "-wordNgrams", "2", "-bucket", "1000000"], preexec_fn=limit)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err
    assert err.decode().startswith("treexc: this run needs about 4.0 GB of memory")


def test_memory_check_names_the_largest_parts():
    parts = [("input matrix", 6e9, "-dim/-bucket"), ("output matrix", 3e9, "-dim/-arity"),
             ("tree", 10, "-arity")]
    with pytest.raises(treexc.TreexcError) as e:
        memory.check(parts, available=2e9)
    assert str(e.value) == ("this run needs about 9.0 GB of memory (input matrix 6.0 GB, "
                            "output matrix 3.0 GB); 2.0 GB are available: "
                            "lower -dim/-bucket/-arity")
    memory.check(parts, available=10e9)  # fits: no error


# -- lm progress ------------------------------------------------------------------

@pytest.mark.slow
def test_lm_progress_in_a_log_is_a_few_lines(lm_text, tmp_path):
    log = tmp_path / "curve.jsonl"
    # 2 epochs x 20 tree rebuilds: 40 training phases (a line each before)
    result = run(["lm", "-input", lm_text, "-valid", lm_text, "-output", tmp_path / "lm",
                  "-dim", "8", "-epoch", "2", "-minCount", "1", "-thread", "2", "-arity", "4",
                  "-treeUpdates", "20", "-treeEpochs", "2", "-verbose", "2", "-log", log])
    assert result.exit_code == 0, result.output
    progress = [line for line in result.stderr.splitlines() if line.startswith("Progress:")]
    assert 1 <= len(progress) <= 3, result.stderr
    assert progress[-1].startswith("Progress: 100.0%")
    records = [__import__("json").loads(line) for line in log.read_text().splitlines()]
    assert [r["epoch"] for r in records] == [1.0, 2.0]
    assert all(r["rebuilds"] > 0 and "valid_ppl" in r for r in records)
    assert leftovers(tmp_path) == []


def test_finite_but_huge_weights_are_not_saved(tmp_path):
    # weights past contents.MAX_WEIGHT load as corrupt: the run must not save them
    lines = gzip.open(ROOT / "examples" / "cooking.train.txt.gz", "rt").read().splitlines()
    data = tmp_path / "good.txt"
    data.write_text("\n".join(lines[:3000]) + "\n")
    out = tmp_path / "model"
    previous_set(out)
    result = run(["supervised", "-input", data, "-output", out, "-epoch", "1", "-dim", "10",
                  "-thread", "1", "-verbose", "0", "-lr", "10", "-loss", "ns"])
    assert result.exit_code == 1
    assert result.stderr.strip() == ("treexc: training diverged (weights beyond 1e+08) at "
                                     "epoch 1.00 of 1; lower -lr (now 10)")
    assert_previous_set(out)


@pytest.mark.slow
@pytest.mark.parametrize("loss", ["softmax", "tree"])
def test_lm_worse_than_guessing_is_diverged(lm_text, tmp_path, loss):
    # -lr 100: finite weights, a train loss far above log(V), held-out
    # perplexity beyond float's range
    result = run(["lm", "-input", lm_text, "-output", tmp_path / "lm", "-dim", "8",
                  "-epoch", "1", "-minCount", "1", "-thread", "1", "-loss", loss,
                  "-lr", "100", "-verbose", "0"])
    assert result.exit_code == 1
    assert result.stderr.startswith("treexc: training diverged (train loss ")
    assert "nats a token, guessing uniformly " in result.stderr
    assert result.stderr.strip().endswith(") at epoch 1.00 of 1; lower -lr (now 100)")
    assert not (tmp_path / "lm.bin").exists()


@pytest.mark.parametrize("loss", ["softmax", "tree"])
def test_lm_on_a_toy_corpus_of_few_words_trains_to_the_end(tmp_path, loss):
    # one batch an epoch: Adagrad's first steps overshoot to 12-16 nats a
    # token before settling, which was refused as a divergence (3 x log 4)
    toy = tmp_path / "toy.txt"
    toy.write_text("a a a a b\n" * 20)
    result = run(["lm", "-input", toy, "-output", tmp_path / "lm", "-minCount", "1",
                  "-thread", "1", "-seed", "0", "-loss", loss, "-verbose", "0"])
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "lm.bin").exists()


@pytest.mark.parametrize("depth", [64, 100, 10 ** 9])
def test_lm_depth_beyond_the_tree_counts_is_refused(lm_text, tmp_path, depth):
    # -depth 64 ended in AssignLabels' "no child has room" traceback (int64 counts)
    result = run(["lm", "-input", lm_text, "-output", tmp_path / "lm", "-dim", "8",
                  "-epoch", "1", "-minCount", "1", "-thread", "1", "-depth", depth,
                  "-verbose", "0"])
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        f"treexc: -depth {depth}: a tree of arity at least 2 and this depth holds more "
        "than 2^62 leaves; use -depth 61 or less (a few levels are enough: the default is 3)")


def test_huge_counts_of_epochs_and_update_rate(small, lm_text, tmp_path):
    huge = 2 ** 63
    result = run(["supervised", "-input", small, "-output", tmp_path / "m", "-dim", "8",
                  "-thread", "1", "-verbose", "0", "-epoch", huge])
    assert result.exit_code == 1  # was a numba typing traceback
    # refused as a number no model file holds (args.check_number_ranges)
    assert result.stderr.strip() == f"treexc: -epoch {huge}: must be between -2^31 and 2^31"
    result = run(["lm", "-input", lm_text, "-output", tmp_path / "lm", "-dim", "8",
                  "-thread", "1", "-verbose", "0", "-minCount", "1", "-epoch", huge])
    assert result.exit_code == 1 and f"-epoch {huge}: must be between" in result.stderr
    huge = 2 ** 31 - 1  # the largest -lrUpdateRate a model holds
    start_time = time.monotonic()  # trained for ever before
    result = run(["supervised", "-input", small, "-output", tmp_path / "m", "-dim", "8",
                  "-epoch", "1", "-thread", "1", "-verbose", "0", "-lrUpdateRate", huge])
    assert time.monotonic() - start_time < 30


def test_signal_inside_a_kernel_call_is_an_interruption(lm_text, tmp_path, monkeypatch):
    # a signal handled while the main thread runs a kernel (the LM's tree
    # rebuild) reaches Python as SystemError("... returned a result with an
    # exception set") caused by the handler's exception: it was a traceback
    import treexc.trees.learner
    from treexc.io.publish import Interrupted

    def rebuild_hit_by_sigterm(*args, **kwargs):
        try:
            raise Interrupted(signal.SIGTERM)
        except Interrupted as e:
            inner = SystemError("<function _numba_unpickle> returned a result with an "
                                "exception set")
            inner.__cause__ = e
            raise SystemError("CPUDispatcher(rebuild_tree) returned a result with an "
                              "exception set") from inner

    # where the LM's TreeLearner gets it
    monkeypatch.setattr(treexc.trees.learner, "assign_labels", rebuild_hit_by_sigterm)
    (tmp_path / "lm.bin").write_bytes(OLD[".bin"])
    result = run(["lm", "-input", lm_text, "-output", tmp_path / "lm", "-dim", "8",
                  "-epoch", "1", "-minCount", "1", "-thread", "1", "-verbose", "0"])
    assert (result.exit_code, result.stderr) == (143, "treexc: interrupted\n")
    assert (tmp_path / "lm.bin").read_bytes() == OLD[".bin"]
    assert sorted(os.listdir(tmp_path)) == ["lm.bin"]
