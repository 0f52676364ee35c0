"""Shared fixtures: the developer data sets, and the small generated corpora
the tests train on (each a factory: a test asks for the size and seed it
needs).  Tests are grouped by the package they exercise (tests/io,
tests/text, tests/trees, tests/classify, tests/lm, tests/cli); the
reference-model hashes (tests/test_reference_models.py) cover everything."""

import os
from pathlib import Path

import numpy as np
import pytest

# No "compiling kernels" line on a cold Numba cache: the error tests expect
# exactly one line on stderr, and which test compiles first depends on the order
# (tests/cli/test_smoke.py checks the line itself).
os.environ["TREEXC_COMPILE_NOTICE"] = "0"

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"

# Four topics of five words; "run" belongs to two (an ambiguous word).
TOPICS = {"sport": "ball goal team match run",
          "food": "bread cheese taste dish bake",
          "music": "song band guitar drum play",
          "tech": "code bug test run build"}
SENTENCE_WORDS = "the cat dog sat ran on a mat log and".split()


@pytest.fixture
def shared_data():
    """Path to ../shared/data, or skip: it exists for developers and CI only."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not available (developer data sets)")
    return SHARED_DATA


def _topic_lines(n, seed=0, multi=True):
    """Labelled lines: four words of the line's topic, sometimes a word of
    another topic; with ``multi``, every 7th line has a second label."""
    rng = np.random.default_rng(seed)
    names = list(TOPICS)
    lines = []
    for i in range(n):
        name = names[i % 4]
        words = rng.choice(TOPICS[name].split(), size=4).tolist()
        if rng.random() < 0.3:  # noise: a word of another topic
            words.append(rng.choice(TOPICS[names[(i + 1) % 4]].split()))
        labels = [f"__label__{name}"]
        if multi and i % 7 == 0:
            labels.append(f"__label__{names[(i + 2) % 4]}")
        lines.append(" ".join(labels + words))
    return lines


@pytest.fixture(scope="session")
def topic_lines():
    return _topic_lines


def _topic_file(path, n=240, seed=0):
    path.write_text("\n".join(_topic_lines(n, seed)) + "\n")
    return str(path)


@pytest.fixture(scope="session")
def topic_file():
    """``topic_file(path, n=240, seed=0)`` writes a topic training file."""
    return _topic_file


def _word_label_file(path, n_lines, n_words, n_labels=8, seed=0):
    """Lines of 8 random words (of ``n_words`` distinct ones) and a label
    that depends on the first word, so training learns something."""
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i:x}q" for i in range(n_words)])
    lines = []
    for ids in rng.integers(0, n_words, size=(n_lines, 8)):
        lines.append(f"__label__{ids[0] % n_labels} " + " ".join(vocab[ids]))
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="session")
def word_label_file():
    """``word_label_file(path, n_lines, n_words, n_labels=8, seed=0)``."""
    return _word_label_file


def _sentence_text(n_lines=300, seed=0):
    """Unlabelled text for the language model: short random sentences."""
    rng = np.random.default_rng(seed)
    lines = []
    for _ in range(n_lines):
        n = rng.integers(3, 9)
        lines.append(" ".join(rng.choice(SENTENCE_WORDS, size=n)))
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="session")
def sentence_text():
    """``sentence_text(n_lines=300, seed=0)``."""
    return _sentence_text


@pytest.fixture(autouse=True)
def _signal_handlers_restored():
    """A command that published its outputs ignores SIGINT, SIGTERM and
    SIGHUP to the end of its process (io/publish.py); run in-process by a
    test, it must not leave the test process deaf to them."""
    import signal
    names = ("SIGINT", "SIGTERM", "SIGHUP")
    saved = {s: signal.getsignal(s) for s in (getattr(signal, n) for n in names
                                              if hasattr(signal, n))}
    yield
    for s, handler in saved.items():
        if handler is not None and signal.getsignal(s) != handler:
            signal.signal(s, handler)

