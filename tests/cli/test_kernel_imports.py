"""Cached kernels load without Numba's array-math implementations.

A kernel that calls ``np.searchsorted``, ``np.argmax`` or ``np.sum`` keeps
``numba.np.arraymath`` in its cached environment, and loading it imports
that module, ``numba.np.linalg`` and ``scipy.linalg`` (137 modules, 0.2 s
and 16 MiB of a gutenberg_books run's peak: docs/results/classify.md, "Corpora larger than memory").  Each command runs twice in a fresh process: the first may compile
(a compilation imports everything), the second loads cached kernels only.
"""

import subprocess
import sys

import pytest

from treexc import jitstart

SCRIPT = """
import sys
from treexc.cli.main import main
sys.argv = ["treexc", *sys.argv[1:]]
try:
    main()
except SystemExit as e:
    if e.code:
        raise
print("arraymath" if "numba.np.arraymath" in sys.modules else "clean")
"""

pytestmark = pytest.mark.skipif(not jitstart.patchable(),
                                reason="another Numba: its cache loads import everything")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("imports")
    lines = [f"__label__{i % 7} w{i % 13} w{i % 5} x{i % 11} and more words {i % 3}"
             for i in range(400)]
    path = folder / "train.txt"
    path.write_text("\n".join(lines) + "\n")
    return folder, path


@pytest.mark.parametrize("command", [
    ["supervised", "-loss", "ns"],               # negative sampling: every loss's kernel
    ["supervised", "-loss", "tree", "-arity", "3"],  # AssignLabels at each rebuild
    ["lm", "-minCount", "1", "-dim", "8"],       # the language model's learned tree
], ids=["supervised-ns", "supervised-tree", "lm"])
@pytest.mark.slow
def test_training_loads_no_array_math(corpus, command):
    folder, path = corpus
    args = [sys.executable, "-c", SCRIPT, *command, "-input", str(path),
            "-output", str(folder / "m"), "-epoch", "1", "-thread", "1", "-verbose", "0"]
    for _ in range(2):
        out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "clean"
