import os
import subprocess
import sys

import pytest

import treexc
from treexc import jitstart


def test_train_predict_roundtrip(tmp_path):
    lines = []
    for i in range(200):
        lines.append(f"__label__sport ball goal team match{i % 7}")
        lines.append(f"__label__food bread cheese taste dish{i % 5}")
    path = tmp_path / "train.txt"
    path.write_text("\n".join(lines) + "\n")
    model = treexc.train_supervised(input=str(path), epoch=5, lr=0.5, thread=1)
    labels, probs = model.predict("ball goal team")
    assert labels == ("__label__sport",)
    assert probs[0] > 0.5
    model.save_model(str(tmp_path / "m.bin"))
    again = treexc.load_model(str(tmp_path / "m.bin"))
    assert again.predict("bread cheese")[0] == ("__label__food",)


# -- start-up (jitstart) ------------------------------------------------------------------

def python(code, **env):
    """Run ``code`` in a fresh interpreter; ``(stdout, stderr)``."""
    environ = {k: v for k, v in os.environ.items() if k != "TREEXC_COMPILE_NOTICE"}
    environ.update(env)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=environ, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr


@pytest.mark.slow  # compiles kernels in a fresh cache folder
def test_compile_notice_once_and_compiling_after_fast_cache_loads():
    """The first real compilation of a process prints the notice, once; and
    after kernels were loaded without the compiler's registries, a new
    function that needs them (arrays, math) still compiles and runs."""
    code = ("import numpy as np, numba\nfrom treexc import jitstart\njitstart.prepare()\n"
            "from treexc.text.table import fnv_hash\n"
            "print(fnv_hash(np.frombuffer(b'bread', np.uint8), 0, 5))\n"
            "f = numba.njit(lambda a: np.sqrt(a.sum()) + a.max() * 2.0)\n"
            "print(f(np.ones(4)), numba.njit(lambda x: x * 3)(2))\n")
    out, err = python(code)
    assert out == "3362029541\n4.0 6\n"  # 3362029541: FNV-1a of "bread"
    assert err == jitstart.NOTICE + "\n"
    assert python("import numba\nfrom treexc import jitstart\njitstart.prepare()\n"
                  "numba.njit(lambda x: x + 1)(1)\n", TREEXC_COMPILE_NOTICE="0")[1] == ""


def test_warm_cache_loads_say_nothing_and_answer_alike(tmp_path):
    path = tmp_path / "train.txt"
    path.write_text("__label__a x y\n__label__b z w\n" * 30)
    treexc.train_supervised(input=str(path), epoch=2, thread=1).save_model(
        str(tmp_path / "m.bin"))
    model = treexc.load_model(str(tmp_path / "m.bin"))
    model.kernel_model().predict("x y", k=2)  # fills the cache
    # the kernels' model: a short predict of treexc.load_model's is numpy's
    code = (f"import treexc\nm = treexc.load_model({str(tmp_path / 'm.bin')!r})\n"
            "print(m.kernel_model().predict('x y', k=2))\n"
            "from treexc import jitstart\nprint(jitstart.fast_loads())\n")
    out, err = python(code)
    assert err == ""  # no compilation: no notice
    answer, fast = out.splitlines()
    assert fast == str(jitstart.patchable())  # True with the Numba it was written for
    assert "__label__" in answer
    unpatched, _ = python(code, TREEXC_NUMBA_PATCH="0")
    assert unpatched.splitlines() == [answer, "False"]


def test_help_imports_neither_numpy_nor_numba():
    # `treexc --help`, `-version` and usage errors stay instant: numpy and
    # Numba are imported by the commands that compute, not by the CLI's modules
    out, _ = python("import sys\nfrom treexc.cli import main\n"
                    "print(sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'numba'}))\n")
    assert out.strip() == "[]"


def test_every_kernel_module_keys_its_caches_on_all_kernel_sources(tmp_path, monkeypatch):
    """A cached kernel must not outlive an edit of a kernel it calls in
    another file (jitstart's docstring): each kernel module imports
    jitstart before its first @njit, and its kernels' freshness stamp is the
    hash of every kernel source, which any edit of one changes."""
    from treexc.loss import topk

    files = jitstart.kernel_files()
    assert len(files) >= 10
    for path in files:
        text = open(path, encoding="utf-8").read()
        assert "import jitstart" in text.split("\n@njit")[0], path
    stamp = jitstart.kernel_sources_stamp()
    assert topk.tree_top_k._cache._cache_file._source_stamp == stamp
    # a change to one kernel source changes the stamp
    (tmp_path / "a.py").write_text("@njit\ndef f(): pass\n")
    (tmp_path / "b.py").write_text("no kernels here\n")
    monkeypatch.setattr(jitstart, "PACKAGE_DIR", str(tmp_path))
    jitstart.kernel_sources_stamp.cache_clear()
    try:
        before = jitstart.kernel_sources_stamp()
        assert jitstart.kernel_files() == [str(tmp_path / "a.py")]
        (tmp_path / "a.py").write_text("@njit\ndef f(): return 1\n")
        jitstart.kernel_sources_stamp.cache_clear()
        assert jitstart.kernel_sources_stamp() != before
    finally:
        monkeypatch.undo()
        jitstart.kernel_sources_stamp.cache_clear()
    assert jitstart.kernel_sources_stamp() == stamp
