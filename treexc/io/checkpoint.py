"""Checkpoints of a training run: the file, when one is due, and the checks
that let a run resume from it (``-checkpoint MINUTES``, ``-resume``).

A checkpoint is ``OUTPUT.ckpt``, a file of the model container
(``io/modelfile``: magic, version, header and array checksums, end marker)
whose header says ``"kind": "treexc-checkpoint"``, its own
:data:`CHECKPOINT_VERSION`, the family that wrote it, the options that
shape the run, the plan, and the identity of every input read (size,
modification time and the CRC-32 of its first and last MiB): a resume on
another input, other options or a corrupt file is refused with one line.
What else a family saves (weights, tree, statistics, optimiser state, the
position in the epoch, random states) is that family's
(``classify/checkpoint.py``, ``lm/checkpoint.py``).  It is written under a
temporary name carrying this process's id and renamed over the previous
one, so a kill while it is written leaves the last complete checkpoint
(and a temporary the next run removes: ``io/publish``).

A checkpoint is due every ``-checkpoint`` minutes of training, taken at
the next safe point (the workers stopped between two of their steps).  For
tests, the environment variable :data:`EVERY_ENV` makes one due every N
steps of the family instead (the embedding classifier: N times
``-lrUpdateRate`` tokens; the language model: N batches), and
:data:`KILL_ENV` = K makes the process kill itself (SIGKILL) at the safe
point after its K-th checkpoint (K = 0: at the first, writing none).
"""

import os
import signal
import time
import zlib

from ..errors import TreexcError
from . import modelfile
from .publish import OutputSet, temp_name

KIND = "treexc-checkpoint"
CHECKPOINT_VERSION = 1
SUFFIX = ".ckpt"
EVERY_ENV = "TREEXC_CHECKPOINT_EVERY"
KILL_ENV = "TREEXC_CHECKPOINT_KILL"
PAUSE = 7  # control[0] of the workers: stop at the next safe point, for a checkpoint
_EDGE = 1 << 20  # bytes of the start and of the end of an input in its identity


def checkpoint_path(output):
    return output + SUFFIX


def _env_int(name):
    value = os.environ.get(name, "")
    try:
        return int(value) if value else -1
    except ValueError:
        raise TreexcError(f"{name}={value}: not an integer") from None


def input_identity(flag, path):
    """What identifies an input file for a resume: size, modification
    time and the CRC-32 of its first and last MiB.  Standard input cannot
    be read again: refused."""
    if not path or path == "-":
        raise TreexcError(f"-{flag} -: standard input cannot be read again to resume a "
                          "checkpointed run; give a file")
    try:
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            crc = zlib.crc32(f.read(_EDGE))
            if st.st_size > _EDGE:
                f.seek(max(_EDGE, st.st_size - _EDGE))
                crc = zlib.crc32(f.read(_EDGE), crc)
    except OSError as e:
        raise TreexcError(f"-{flag} {path}: cannot read: {e.strerror}") from None
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "crc32": crc}


def refuse_without_output(args):
    """-checkpoint and -resume need -output (the checkpoint is OUTPUT.ckpt)."""
    if (args.checkpoint or args.resume) and not args.output:
        flag = "-checkpoint" if args.checkpoint else "-resume"
        raise TreexcError(f"{flag} needs -output (the checkpoint is OUTPUT{SUFFIX})")


class Clock:
    """When the next checkpoint is due: every ``minutes`` of training, or
    every :data:`EVERY_ENV` steps; the test kill of :data:`KILL_ENV`."""

    def __init__(self, minutes):
        # the test knob, where it is set, replaces the minutes of -checkpoint
        self.every_steps = max(0, _env_int(EVERY_ENV)) if minutes > 0 else 0
        self.every_s = 0.0 if self.every_steps else 60.0 * minutes
        self.kill_after = _env_int(KILL_ENV)
        self.last = time.monotonic()
        self.written = 0
        self.report = None  # told each checkpoint's size and time (-verbose 2)

    def due(self):
        """Has the time since the last checkpoint reached ``-checkpoint``?"""
        return self.every_s > 0 and time.monotonic() - self.last >= self.every_s

    def write(self, path, header, arrays):
        """Write a checkpoint at a safe point (the test kill first, if asked)."""
        if self.kill_after == self.written:
            os.kill(os.getpid(), signal.SIGKILL)
        start = time.monotonic()
        save(path, header, arrays)
        self.written += 1
        self.last = time.monotonic()
        if self.report is not None:
            self.report(f"checkpoint {path}: {os.path.getsize(path) / 1e6:.1f} MB written in "
                        f"{self.last - start:.2f} s")


def save(path, header, arrays):
    """Write ``OUTPUT.ckpt`` atomically: a temporary, renamed over the last one."""
    OutputSet([path]).remove_stale()
    tmp = temp_name(path)
    header = dict(header, kind=KIND, checkpoint_version=CHECKPOINT_VERSION)
    try:
        modelfile.save(tmp, header, arrays)
        os.replace(tmp, path)
    except OSError as e:
        raise TreexcError(f"{path}: cannot write the checkpoint: {e.strerror}") from None
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def load(path, family, expected):
    """The checkpoint at ``path`` as ``(header, arrays)``, refused with one
    line when there is none, it is corrupt or of another version or family,
    or ``expected`` (key -> value: options, plan, inputs' identity) differs
    from what it saved."""
    if not os.path.exists(path):
        raise TreexcError(f"{path}: no checkpoint to resume from (-resume continues a run "
                          "started with -checkpoint that did not finish)")
    try:
        header, arrays = modelfile.load(path)
    except TreexcError as e:
        why = str(e).replace(f"{path}: ", "").replace("model ", "")
        raise TreexcError(f"{path}: cannot resume: {why}") from None
    if header.get("kind") != KIND:
        raise TreexcError(f"{path}: cannot resume: not a checkpoint (a model file?)")
    if header.get("checkpoint_version") != CHECKPOINT_VERSION:
        raise TreexcError(f"{path}: cannot resume: checkpoint version "
                          f"{header.get('checkpoint_version')!r}, this treexc reads "
                          f"{CHECKPOINT_VERSION}")
    if header.get("family") != family:
        raise TreexcError(f"{path}: cannot resume: a checkpoint of {header.get('family')!r} "
                          f"training, not of {family!r}")
    # a changed input first: it explains a changed corpus or plan
    for key, value in sorted(expected.items(), key=lambda kv: not kv[0].startswith("input:")):
        saved = header.get(key)
        if saved != value:
            raise TreexcError(f"{path}: cannot resume: {difference(key, saved, value)}")
    return header, arrays


def difference(key, saved, now):
    """One line saying how ``now`` differs from the checkpoint's ``saved``."""
    if key == "options" and isinstance(saved, dict) and isinstance(now, dict):
        for name in sorted(set(saved) | set(now)):
            if saved.get(name) != now.get(name):
                return (f"-{name} was {saved.get(name)!r} in the checkpointed run, "
                        f"now {now.get(name)!r} (resume with the same options)")
    if key.startswith("input:"):
        return (f"-{key[6:]} changed since the checkpoint (size, time or contents); "
                "resume on the same file, or train again without -resume")
    return f"the {key} differs from the checkpointed run's (resume with the same input " \
           "and options)"


def remove(args):
    """Remove the run's checkpoint (its final model is published)."""
    if args.output and (args.checkpoint or args.resume):
        try:
            os.unlink(checkpoint_path(args.output))
        except OSError:
            pass
