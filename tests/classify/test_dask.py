"""Prediction on a Dask cluster (treexc/dask.py, `predict -dask`): on a
LocalCluster of two worker processes, the answers equal `treexc predict`'s
line for line and in order."""

import gzip

import pytest
from cli_util import ok, user_error

distributed = pytest.importorskip(
    "distributed", reason="dask[distributed] is not installed (pip install 'treexc[dask]')")
import dask.bag as db  # noqa: E402

import treexc  # noqa: E402
from treexc import dask as treexc_dask  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as c:
        yield c


@pytest.fixture(scope="module")
def client(cluster):
    with distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def model_path(tmp_path_factory, topic_file):
    folder = tmp_path_factory.mktemp("dask")
    path = topic_file(folder / "train.txt", n=300)
    model = treexc.train_supervised(path, epoch=5, dim=8, thread=1, seed=1, verbose=0,
                                    loss="hs")
    model.save_model(str(folder / "m.bin"))
    return str(folder / "m.bin")


def shards(folder, topic_lines):
    """Three input files: plain, gzip (with an empty line), and one whose
    last line has no newline; names sort in the order written."""
    lines = topic_lines(90, seed=7)
    folder.mkdir()
    (folder / "a.txt").write_text("\n".join(lines[:30]) + "\n")
    (folder / "b.txt.gz").write_bytes(gzip.compress(
        ("\n".join(lines[30:60]) + "\n\nball goal bread\n").encode()))
    (folder / "c.txt").write_text("\n".join(lines[60:]))
    return sorted(str(p) for p in folder.iterdir())


def treexc_cli(*args):
    """The standard output of ``treexc ARGS`` (run in-process: quick)."""
    return ok(args).stdout_bytes


@pytest.mark.parametrize("command,k", [("predict", "1"), ("predict-prob", "3")])
def test_cli_route_equals_predict(tmp_path, model_path, topic_lines, cluster, command, k):
    files = shards(tmp_path / "shards", topic_lines)
    want = b"".join(treexc_cli(command, model_path, f, k) for f in files)
    got = treexc_cli(command, model_path, str(tmp_path / "shards" / "*"), k,
                     "-dask", cluster.scheduler_address)
    assert got == want
    assert len(got.splitlines()) == 30 + 32 + 30
    out = tmp_path / "answers"
    out.mkdir()
    assert treexc_cli(command, model_path, str(tmp_path / "shards" / "*"), k,
                      "-dask", cluster.scheduler_address, "-daskOutput", str(out)) == b""
    for f in files:
        name = f.rsplit("/", 1)[1]
        assert (out / (name + ".pred")).read_bytes() == treexc_cli(command, model_path, f, k)


def test_bag_equals_predict(tmp_path, model_path, topic_lines, client):
    files = shards(tmp_path / "shards", topic_lines)
    text = [x for f in files for x in
            (gzip.open(f, "rt") if f.endswith(".gz") else open(f)).read().splitlines()]
    # an element is a whole line: answered as a line ending in a newline
    joined = tmp_path / "all.txt"
    joined.write_text("\n".join(text) + "\n")
    want = treexc_cli("predict-prob", model_path, str(joined), "2")
    lines = db.from_sequence(text, npartitions=5)
    got = treexc_dask.predict_bag(lines, model_path, k=2, probabilities=True).compute()
    assert "\n".join(got) + "\n" == want.decode()
    # read_text keeps each line's newline: the same answers
    plain = db.read_text(files[0])
    assert treexc_dask.predict_bag(plain, model_path).compute() == \
        treexc_cli("predict", model_path, files[0]).decode().splitlines()


def test_model_loaded_once_per_worker(model_path, client, topic_lines):
    bag = db.from_sequence(topic_lines(40), npartitions=8)
    treexc_dask.predict_bag(bag, model_path).compute()
    ids = client.run(lambda: [id(treexc_dask._LOADED[p][1]) for p in treexc_dask._LOADED])
    treexc_dask.predict_bag(bag, model_path).compute()
    assert client.run(lambda: [id(treexc_dask._LOADED[p][1])
                               for p in treexc_dask._LOADED]) == ids
    assert all(len(v) == 1 for v in ids.values())  # one model per worker process


def test_bad_inputs_are_one_line(tmp_path, model_path, cluster):
    pattern = str(tmp_path / "none*.txt")
    user_error(["predict", model_path, pattern, "-dask", cluster.scheduler_address],
               f"{pattern}: no such file (nor files matching it)")
    user_error(["predict", model_path, model_path, "-dask", "local:0"], "local:N, N >= 1")
    user_error(["predict", model_path, pattern, "-daskOutput", str(tmp_path)],
               "-daskOutput needs -dask SCHEDULER")
    user_error(["predict", model_path, "-", "-dask", cluster.scheduler_address],
               "not standard input (-)")
    # a scheduler file: missing (distributed waited for it for ever), foreign
    # (distributed asserted), and one as `dask scheduler --scheduler-file` writes
    missing = str(tmp_path / "missing.json")
    user_error(["predict", model_path, model_path, "-dask", missing],
               f"-dask {missing}: cannot read the scheduler file (No such file or directory)")
    for name, text in (("empty.json", "{}"), ("text.json", "nonsense"), ("list.json", "[1]")):
        path = tmp_path / name
        path.write_text(text)
        user_error(["predict", model_path, model_path, "-dask", str(path)],
                   f"-dask {path}: not a Dask scheduler file")
    good = tmp_path / "scheduler.json"
    good.write_text(f'{{"type": "Scheduler", "address": "{cluster.scheduler_address}"}}')
    line = ok(["predict", model_path, "-"], input="ball goal\n").stdout_bytes
    (tmp_path / "one.txt").write_text("ball goal\n")
    assert treexc_cli("predict", model_path, str(tmp_path / "one.txt"), "-dask", str(good)) == line


def test_dataframe_column_equals_predict(tmp_path, model_path, topic_lines, client):
    dd = pytest.importorskip("dask.dataframe", reason="dask.dataframe (pandas) is not "
                             "installed: the dataframe route is not tested")
    import pandas as pd

    text = topic_lines(50, seed=3)
    joined = tmp_path / "all.txt"
    joined.write_text("\n".join(text) + "\n")
    frame = dd.from_pandas(pd.DataFrame({"text": text}), npartitions=3)
    got = treexc_dask.predict_series(frame["text"], model_path, k=2).compute()
    assert got.tolist() == treexc_cli("predict", model_path, str(joined), "2") \
        .decode().splitlines()
    assert got.index.tolist() == list(range(50))


def test_treexc_dask_is_the_classifier_s_dask_module():
    """``treexc.dask``, the documented name, serves the functions of
    ``treexc.dask``."""
    import treexc.dask as public

    for name in ("predict_bag", "predict_series", "predict_files", "worker_model"):
        assert getattr(public, name) is getattr(treexc_dask, name)
