"""-checkpoint and -resume (io/checkpoint.py, classify/checkpoint.py,
lm/checkpoint.py): a ``-thread 1 -seed 7`` run killed (SIGKILL) at several
moments and resumed ends in the same files, byte for byte, as a run never
interrupted; what a resume refuses.

The runs are processes of their own (a SIGKILL ends the process): the
test knobs TREEXC_CHECKPOINT_EVERY (a checkpoint every N steps instead
of minutes) and TREEXC_CHECKPOINT_KILL (SIGKILL at the safe point after
the K-th checkpoint) put the kills at known places."""

import json
import os
import signal
import struct
import subprocess
import sys

import numpy as np
import pytest

from treexc.io import modelfile
from treexc.io.checkpoint import EVERY_ENV, KILL_ENV

TREEXC = [sys.executable, "-c", "from treexc.cli.main import main; main()"]

EMBEDDING = ["supervised", "-model", "embedding", "-input", "../train.txt", "-output", "m",
             "-thread", "1", "-seed", "7", "-epoch", "8", "-dim", "12",
             "-lrUpdateRate", "10", "-verbose", "0"]
LM = ["lm", "-input", "../train.txt", "-valid", "../valid.txt", "-output", "m", "-log",
      "m.jsonl", "-thread", "1", "-seed", "7", "-epoch", "3", "-dim", "12", "-batch", "16",
      "-minCount", "1", "-treeUpdates", "4", "-evalPerEpoch", "2", "-verbose", "0"]


def treexc(args, folder, kill=None, every=None):
    """``treexc ARGS`` in ``folder``; a checkpoint every 20 steps of the
    classifier (200 tokens) or 10 batches of the language model."""
    env = dict(os.environ)
    env.pop(KILL_ENV, None)
    env[EVERY_ENV] = every or ("10" if args[0] == "lm" else "20")
    if kill is not None:
        env[KILL_ENV] = str(kill)
    return subprocess.run(TREEXC + [str(a) for a in args], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=300)


def killed(done):
    assert done.returncode == -signal.SIGKILL, (done.returncode, done.stderr)


def finished(done):
    assert done.returncode == 0, done.stderr


def one_line_error(done, *fragments):
    assert done.returncode == 1, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("treexc: "), done.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


def files(folder, names):
    return {name: (folder / name).read_bytes() for name in names}


@pytest.fixture
def data(tmp_path, word_label_file, sentence_text):
    """A training folder with a classifier's or a language model's text."""
    def make(kind):
        if kind == "lm":
            (tmp_path / "train.txt").write_text(sentence_text(240, 1))
            (tmp_path / "valid.txt").write_text(sentence_text(40, 2))
        else:
            word_label_file(tmp_path / "train.txt", 300, 60, n_labels=12, seed=3)
        for name in ("plain", "resumed"):
            (tmp_path / name).mkdir()
        return tmp_path
    return make


CASES = {
    # the learned tree (rebuilds: the learner's statistics), shuffled epochs
    "embedding-tree": (EMBEDDING + ["-loss", "tree", "-treeUpdates", "3"], ["m.bin", "m.vec"]),
    # ns: the kernel's random state draws the negatives; the file's order
    "embedding-ns": (EMBEDDING + ["-loss", "ns", "-order", "file"], ["m.bin", "m.vec"]),
    # the learned tree, Adagrad, -keepBest's weights, the evaluation records
    "lm": (LM, ["m.bin"]),
}


@pytest.mark.slow  # whole runs killed and resumed: seconds each
@pytest.mark.parametrize("case", sorted(CASES))
def test_killed_and_resumed_runs_end_in_the_same_bytes(case, data):
    args, outputs = CASES[case]
    root = data("lm" if case == "lm" else "classifier")
    plain, resumed = root / "plain", root / "resumed"
    finished(treexc(args, plain, every="0"))
    # killed before its first checkpoint: nothing to resume from
    killed(treexc(args + ["-checkpoint", "1"], resumed, kill=0))
    one_line_error(treexc(args + ["-checkpoint", "1", "-resume"], resumed),
                   "m.ckpt", "no checkpoint to resume from")
    # after 1 checkpoint, then 12 more (the trees rebuilt meanwhile), then 4,
    # then to the end (the language model's run makes 18)
    killed(treexc(args + ["-checkpoint", "1"], resumed, kill=1))
    assert (resumed / "m.ckpt").exists()
    killed(treexc(args + ["-checkpoint", "1", "-resume"], resumed, kill=12))
    killed(treexc(args + ["-checkpoint", "1", "-resume"], resumed, kill=4))
    finished(treexc(args + ["-checkpoint", "1", "-resume"], resumed))
    assert files(plain, outputs) == files(resumed, outputs)
    assert not (resumed / "m.ckpt").exists()  # removed once the model was published
    assert sorted(os.listdir(resumed)) == sorted(os.listdir(plain))  # no temporaries left
    if case == "lm":  # the log has every record (timings differ)
        records = len((plain / "m.jsonl").read_text().splitlines())
        assert len((resumed / "m.jsonl").read_text().splitlines()) == records >= 4


@pytest.mark.slow  # whole runs killed and resumed: seconds each
@pytest.mark.parametrize("case", ["embedding-tree", "lm"])
def test_resume_refusals(case, data):
    args, _ = CASES[case]
    root = data("lm" if case == "lm" else "classifier")
    folder = root / "resumed"
    killed(treexc(args + ["-checkpoint", "1"], folder, kill=2))
    ckpt = folder / "m.ckpt"
    saved = ckpt.read_bytes()
    resume = args + ["-checkpoint", "1", "-resume"]
    # other options
    one_line_error(treexc(resume + ["-seed", "8"], folder), "m.ckpt", "cannot resume",
                   "-seed was 7", "now 8")
    one_line_error(treexc(resume + ["-thread", "2"], folder), "m.ckpt", "cannot resume")
    # a changed input
    train = root / "train.txt"
    text, before = train.read_bytes(), os.stat(train)
    train.write_bytes(text + text.splitlines(keepends=True)[0])
    one_line_error(treexc(resume, folder), "m.ckpt", "-input changed since the checkpoint")
    train.write_bytes(text)
    one_line_error(treexc(resume, folder), "m.ckpt", "-input changed")  # its time, too
    os.utime(train, ns=(before.st_atime_ns, before.st_mtime_ns))  # the same file again
    # corrupt: a flipped byte in an array, a truncated file, a model file
    damaged = bytearray(saved)
    damaged[array_offset(saved, "U" if case == "lm" else "w_in") + 5] ^= 0xFF
    ckpt.write_bytes(bytes(damaged))
    one_line_error(treexc(resume, folder), "m.ckpt", "cannot resume", "corrupt")
    ckpt.write_bytes(saved[:len(saved) // 3])
    one_line_error(treexc(resume, folder), "m.ckpt", "cannot resume", "truncated")
    ckpt.write_bytes(b"not a checkpoint at all")
    one_line_error(treexc(resume, folder), "m.ckpt", "cannot resume")
    # checksums right, contents wrong: a matrix a row short, a tree's child out of range
    ckpt.write_bytes(saved)
    header, arrays = modelfile.load(str(ckpt))
    weights = "U" if case == "lm" else "w_in"
    for name, wrong in ((weights, arrays[weights][:-1]),
                        ("children", np.full_like(arrays["children"], 10 ** 6))):
        modelfile.save(str(ckpt), header, dict(arrays, **{name: wrong}))
        one_line_error(treexc(resume, folder), "m.ckpt", "cannot resume",
                       "do not fit this run")


def array_offset(contents, name):
    """Where array ``name`` starts in a container file's bytes."""
    (length,) = struct.unpack_from("<Q", contents, 16)
    header = json.loads(contents[24:24 + length])
    return next(a["offset"] for a in header["arrays"] if a["name"] == name)


def test_input_read_again_only_from_a_file(data):
    root = data("classifier")
    done = subprocess.run(TREEXC + [a if a != "../train.txt" else "-" for a in EMBEDDING]
                          + ["-checkpoint", "1"], cwd=root / "plain",
                          input=(root / "train.txt").read_text(), capture_output=True,
                          text=True, timeout=300)
    one_line_error(done, "standard input cannot be read again")


def test_the_linear_family_refuses_checkpoints(data):
    root = data("classifier")
    args = ["supervised", "-input", "../train.txt", "-output", "m", "-verbose", "0"]
    one_line_error(treexc(args + ["-checkpoint", "5"], root / "plain"),
                   "-checkpoint: the linear model", "-model embedding")
    one_line_error(treexc(args + ["-resume"], root / "plain"), "-resume: the linear model")


@pytest.mark.slow  # whole runs killed and resumed: seconds each
def test_checkpoints_due_by_time_resume_to_the_same_bytes(data):
    """-checkpoint MINUTES (here 60 ms: one at about every look at the
    progress, every 0.1 s), not the test's steps: killed after the second
    (where the run lasts that long) and resumed."""
    root = data("lm")
    plain, resumed = root / "plain", root / "resumed"
    args = list(LM)
    args[args.index("-epoch") + 1] = "6"
    finished(treexc(args, plain, every="0"))
    done = treexc(args + ["-checkpoint", "0.001"], resumed, every="0", kill=2)
    if done.returncode != 0:  # killed; a fast machine may finish first
        killed(done)
        finished(treexc(args + ["-checkpoint", "0.001", "-resume"], resumed, every="0"))
    assert files(plain, ["m.bin"]) == files(resumed, ["m.bin"])
    assert not (resumed / "m.ckpt").exists()


@pytest.mark.slow  # whole runs killed and resumed: seconds each
@pytest.mark.parametrize("case", ["embedding-tree", "lm"])
def test_a_run_of_two_threads_resumes_and_finishes(case, data):
    """Hogwild runs are not reproducible, but a resumed one continues from
    a consistent state: each thread's place, all of its steps done once."""
    args, outputs = CASES[case]
    args = list(args)
    args[args.index("-thread") + 1] = "2"
    folder = data("lm" if case == "lm" else "classifier") / "resumed"
    killed(treexc(args + ["-checkpoint", "1"], folder, kill=3))
    finished(treexc(args + ["-checkpoint", "1", "-resume"], folder))
    assert all((folder / name).stat().st_size for name in outputs)
    assert not (folder / "m.ckpt").exists()


def test_autotune_refuses_checkpoints(data):
    root = data("classifier")
    one_line_error(treexc(EMBEDDING + ["-autotune-validation", "../train.txt",
                                       "-checkpoint", "1"], root / "plain"),
                   "-checkpoint, -resume: not with -autotune-validation")
