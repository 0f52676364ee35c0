"""Work and memory a hostile input can ask for are bounded: ``-loss ns`` with
a -neg that draws every label many times over is refused, and one very long
line costs about what its text in many lines costs, plus the line twice
(the line joined from its reads), not six times its size."""

import os
import subprocess
import sys

import numpy as np
import pytest

from cli_util import user_error

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_a_needless_neg_is_refused(tmp_path, topic_file):
    data = topic_file(tmp_path / "train.txt", n=200)
    user_error(["supervised", "-input", data, "-output", tmp_path / "m", "-loss", "ns",
                "-neg", "1000000", "-epoch", "1", "-verbose", "0"], "-neg 1000000", "lower -neg")
    assert not (tmp_path / "m.bin").exists()


def _peak_mb(path, tmp_path):
    """Peak RSS (MB) of a child that trains on ``path`` (its VmHWM: the
    rusage maximum would count the parent's, inherited through exec)."""
    code = ("import sys; from treexc.cli.main import main; "
            "sys.argv = ['treexc', 'supervised', *sys.argv[1:]]\n"
            "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
            "print([l.split()[1] for l in open('/proc/self/status') if "
            "l.startswith('VmHWM')][0])")
    done = subprocess.run([sys.executable, "-c", code, "-input", str(path), "-output",
                           str(tmp_path / "m"), "-epoch", "1", "-dim", "4", "-thread", "1",
                           "-verbose", "0"], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, check=True)
    return int(done.stdout.split()[-1]) / 1024


@pytest.mark.slow  # two trainings on 46 MB: about 25 s on 2 busy cores
def test_one_long_line_costs_about_its_text_twice(tmp_path):
    rng = np.random.default_rng(0)
    words = [bytes(rng.integers(97, 123, size=5).astype(np.uint8)) for _ in range(3000)]
    picks = rng.integers(0, len(words), size=8_000_000)
    body = [words[i] for i in picks]
    long_line = b"__label__a " + b" ".join(body) + b"\n"
    many = b"".join(b"__label__a " + b" ".join(body[i:i + 50]) + b"\n"
                    for i in range(0, len(body), 50))
    (tmp_path / "long.txt").write_bytes(long_line + b"__label__b x y\n")
    (tmp_path / "many.txt").write_bytes(many + b"__label__b x y\n")
    line_mb = len(long_line) / 2 ** 20
    extra = _peak_mb(tmp_path / "long.txt", tmp_path) - _peak_mb(tmp_path / "many.txt",
                                                                 tmp_path)
    assert extra < 2.75 * line_mb, (extra, line_mb)  # 3.65 before: 6 bytes a word more
