"""A signal that lands after a command published its outputs (io/publish.py)
does not turn the success into status 143: ``quantize`` given SIGTERM while
saving publishes nothing and exits 143, given it after the rename publishes
and exits 0."""

import os
import subprocess
import sys
import textwrap

import pytest

import treexc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = textwrap.dedent("""
    import atexit, os, signal, sys
    from treexc.io import publish
    when = sys.argv[1]
    real_publish, real_write = publish.OutputSet.publish, publish.OutputSet.write

    def write(self, final, writer):
        if when == "saving":
            os.kill(os.getpid(), signal.SIGTERM)
        real_write(self, final, writer)

    def publish_then_signal(self):
        real_publish(self)
        if when == "published":  # as the process ends, past every block of treexc's
            atexit.register(os.kill, os.getpid(), signal.SIGTERM)

    publish.OutputSet.write = write
    publish.OutputSet.publish = publish_then_signal
    from treexc.cli.main import main
    sys.argv = ["treexc", "quantize", "-output", sys.argv[2], "-dsub", "2"]
    main()
""")


@pytest.fixture(scope="module")
def model(tmp_path_factory, topic_file):
    folder = tmp_path_factory.mktemp("quantize-signal")
    data = topic_file(folder / "train.txt", n=200)
    treexc.train_supervised(str(data), epoch=2, dim=8, thread=1, wordNgrams=2,
                            bucket=2000).save_model(
        str(folder / "m.bin"))
    return folder / "m"


@pytest.mark.parametrize("when, status, published", [("saving", 143, False),
                                                      ("published", 0, True)])
def test_sigterm_during_quantize(model, when, status, published):
    ftz = model.with_suffix(".ftz")
    if ftz.exists():
        ftz.unlink()
    done = subprocess.run([sys.executable, "-c", SCRIPT, when, str(model)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == status, done.stderr
    assert ftz.exists() == published
    assert not [n for n in os.listdir(model.parent) if n.endswith(".tmp")]
