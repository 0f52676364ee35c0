"""Model files are byte-identical to the ones the reference code wrote.

Each case trains a small model with ``-thread 1`` and a seed (bit-for-bit
reproducible) and compares the SHA-256 of every file it writes with
``tests/reference_models.json``, written by the code before a refactoring.
A change that alters what training computes shows up here as a hash
mismatch; a deliberate one regenerates the file and says why in the commit:

    TREEXC_WRITE_REFERENCE=1 .venv/bin/python -m pytest tests/test_reference_models.py

Floating-point results depend on the CPU's instruction set and on the
compiler stack, so the hashes are kept per platform (numba, llvmlite and
numpy versions and the CPU's flags) and compared on a platform that has
them; elsewhere the test is skipped with that reason.  ``=1`` writes this
platform's hashes and drops the others' (what the code computes changed);
``=add`` adds or replaces this platform's and keeps the others' (the same
code on a new machine: run it where the others still pass).  Where a
deliberate change alters some cases only, the other platforms keep their
hashes of the cases it left alone and drop those of the changed ones,
which are skipped there until ``=add`` writes them.
"""

import hashlib
import json
import os
import platform
from pathlib import Path

import llvmlite
import numba
import numpy as np
import pytest
from cli_util import ok

REFERENCE = Path(__file__).with_name("reference_models.json")
WRITE = os.environ.get("TREEXC_WRITE_REFERENCE", "") in ("1", "add")
KEEP_OTHER_PLATFORMS = os.environ.get("TREEXC_WRITE_REFERENCE") == "add"

CLASSIFIER_CASES = {
    "softmax": ["-loss", "softmax"],
    "hs": ["-loss", "hs"],
    "hs-arity4": ["-loss", "hs", "-arity", "4"],
    "tree": ["-loss", "tree", "-arity", "4"],
    "tree-file-order": ["-loss", "tree", "-arity", "4", "-order", "file"],
    "tree-maxdepth": ["-loss", "tree", "-arity", "3", "-maxDepth", "4", "-treeGradient",
                      "plain"],
    "ova": ["-loss", "ova"],
    "ns": ["-loss", "ns", "-neg", "3"],
    "auto-ngrams-subwords": ["-wordNgrams", "2", "-minn", "2", "-maxn", "4",
                             "-bucket", "5000", "-saveOutput"],
    "auto-tree": ["-arity", "5", "-wordNgrams", "2", "-bucket", "5000"],
}
# the linear model over 40 labels: a 20-slot root (two groups of slots solved
# together, read in place), k-means below it, the learned tree, the LR solver
LINEAR_CASES = {
    "linear": ["-arity", "20", "-leafSize", "2"],
    "linear-learned": ["-arity", "4", "-leafSize", "3", "-tree", "learned"],
    "linear-lr": ["-arity", "4", "-leafSize", "3", "-solver", "lr"],
}
LM_CASES = {
    "lm-softmax": ["-loss", "softmax"],
    "lm-learned": ["-loss", "tree", "-tree", "learned", "-treeUpdates", "4"],
    "lm-learned-mass": ["-loss", "tree", "-tree", "learned", "-depth", "2", "-massSlack",
                        "2.0", "-leafRows", "0"],
    "lm-random": ["-loss", "tree", "-tree", "random"],
    "lm-cluster": ["-loss", "tree", "-tree", "cluster", "-clusterEpoch", "0.5"],
}


def platform_key():
    flags = ""
    if Path("/proc/cpuinfo").exists():
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                flags = line
                break
    return {"numba": numba.__version__, "llvmlite": llvmlite.__version__,
            "numpy": np.__version__, "machine": platform.machine(),
            "cpu_flags_sha256": hashlib.sha256(flags.encode()).hexdigest()[:16]}


def classifier_text(n_lines=400, n_labels=12, seed=3):
    """Labels that depend on the words, two labels on some lines."""
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(150)]
    lines = []
    for _ in range(n_lines):
        label = int(rng.integers(n_labels))
        own = [words[(label * 11 + j) % 150] for j in rng.integers(0, 12, size=4)]
        noise = list(rng.choice(words, size=int(rng.integers(1, 6))))
        labels = [f"__label__c{label}"]
        if rng.random() < 0.2:
            labels.append(f"__label__c{(label + 1) % n_labels}")
        lines.append(" ".join(labels + own + noise))
    return "\n".join(lines) + "\n"


def lm_text(n_lines=300, seed=4):
    rng = np.random.default_rng(seed)
    words = [f"v{i}" for i in range(60)]
    lines = []
    for _ in range(n_lines):
        start = int(rng.integers(60))
        lines.append(" ".join(words[(start + 3 * j + int(rng.integers(3))) % 60]
                              for j in range(int(rng.integers(4, 12)))))
    return "\n".join(lines) + "\n"


def file_hashes(folder, stem):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.glob(stem + ".*"))}


def train_case(tmp_path, name):
    os.chdir(tmp_path)
    if name in CLASSIFIER_CASES:
        Path("train.txt").write_text(classifier_text())
        ok(["supervised", "-input", "train.txt", "-output", name, "-dim", "8", "-epoch", "3",
            "-lr", "0.5", "-thread", "1", "-seed", "7", "-verbose", "0",
            *CLASSIFIER_CASES[name]])
    elif name in LINEAR_CASES:
        Path("train.txt").write_text(classifier_text(n_labels=40))
        ok(["supervised", "-input", "train.txt", "-output", name, "-model", "linear",
            "-thread", "1", "-seed", "7", "-verbose", "0", *LINEAR_CASES[name]])
    else:
        Path("train.txt").write_text(lm_text())
        ok(["lm", "-input", "train.txt", "-output", name, "-dim", "8", "-epoch", "2",
            "-lr", "0.1", "-batch", "16", "-minCount", "1", "-thread", "1", "-seed", "7",
            "-verbose", "0", "-context", "3", *LM_CASES[name]])
    return file_hashes(tmp_path, name)


@pytest.fixture(scope="module")
def reference():
    """This platform's ``{"platform": ..., "models": {case: hashes}}``."""
    here = platform_key()
    entries = json.loads(REFERENCE.read_text())["platforms"]
    if WRITE:
        store = {"platform": here, "models": {}}
        yield store
        kept = [e for e in entries if KEEP_OTHER_PLATFORMS and e["platform"] != here]
        REFERENCE.write_text(json.dumps({"platforms": [*kept, store]}, indent=1,
                                        sort_keys=True) + "\n")
        return
    store = next((e for e in entries if e["platform"] == here), None)
    if store is None:
        pytest.skip(f"no reference hashes for this platform ({here}; written on "
                    f"{[e['platform'] for e in entries]})")
    yield store


@pytest.mark.parametrize("name", [*CLASSIFIER_CASES, *LINEAR_CASES, *LM_CASES])
def test_model_files_match_reference(tmp_path, monkeypatch, reference, name):
    monkeypatch.chdir(tmp_path)
    hashes = train_case(tmp_path, name)
    assert hashes, "no model file written"
    if WRITE:
        reference["models"][name] = hashes
    elif name not in reference["models"]:
        # a case whose model changed on purpose keeps only the hashes of the
        # platforms it was rewritten on (=add there writes it again)
        pytest.skip(f"no reference hash of {name} for this platform")
    else:
        assert hashes == reference["models"][name]
