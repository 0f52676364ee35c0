"""Prediction on a Dask cluster: labels of text lines spread over workers.

Training stays on one machine (Hogwild threads, as fastText); prediction
over a corpus that outgrows one machine maps over partitions.  Tasks carry
the model's *path*, never the model: each worker process loads the file
once (a large one is memory-mapped, so the processes of one machine share
its pages) and keeps it for every later task, until the file changes.  The
model file and the input files must be readable at the same path by every
worker (a shared or replicated filesystem), as for ``dask.bag.read_text``.

Answers are exactly those of ``treexc predict`` / ``predict-prob``: the
same kernels, the same formatting (``classify/predict``), one answer per
line, in input order.

    import dask.bag as db
    from treexc.dask import predict_bag
    lines = db.read_text("shards/*.txt")                # one element per line
    answers = predict_bag(lines, "model.bin", k=3, probabilities=True)
    answers.to_textfiles("answers/*.txt")

``predict_series`` does the same for a text column of a Dask dataframe, and
``predict_files`` is the CLI's route (``treexc predict model.bin
'shards/*.txt' -dask tcp://scheduler:8786``).  Needs ``pip install
'treexc[dask]'`` (``dask[distributed]``); importing this module without
it raises ``ImportError``.
"""

import glob
import json
import os
from contextlib import contextmanager

import numpy as np
from distributed import Client, LocalCluster

from . import jitstart
from .errors import TreexcError
from .io.answers import format_predictions, label_names
from .io.modelfile import atomic_writer
from .io.textio import ByteCheck, read_line_chunks, to_bytes
from .supervised import load_model  # either family: both answer encode_text/predict_corpus

# model path -> (file identity, model, printable label names), per process
_LOADED = {}


def worker_model(model_path):
    """The model of ``model_path`` and its label names, loaded once per
    process (and again only if the file was replaced)."""
    try:
        st = os.stat(model_path)
    except OSError as e:
        raise TreexcError(f"{model_path}: cannot read on this worker: {e.strerror}") from None
    identity = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    held = _LOADED.get(model_path)
    if held is None or held[0] != identity:
        jitstart.prepare()
        model = load_model(model_path)
        held = (identity, model, label_names(model.get_labels()))
        _LOADED[model_path] = held
    return held[1], held[2]


def answer_text(model_path, data, k=1, threshold=0.0, probabilities=False):
    """Answer lines (bytes, one per line of ``data``, newline-ended) of
    ``data``, bytes made of whole lines."""
    model, names = worker_model(model_path)
    corpus = model.encode_text(np.frombuffer(data, dtype=np.uint8))
    answer = model.predict_corpus(corpus, k, threshold)
    return to_bytes(format_predictions(names, *answer, probabilities))


def answer_lines(lines, model_path, k=1, threshold=0.0, probabilities=False):
    """One answer string per element of ``lines`` (str or bytes).  An
    element is one whole line, answered as ``treexc predict`` answers a line
    ending in a newline (with fastText's ``</s>`` token; ``treexc predict``
    reads a file's last line without one as it is): a final newline (as
    ``dask.bag.read_text`` keeps) is dropped, one inside is read as a
    space."""
    lines = [to_bytes(x) for x in lines]
    if not lines:
        return []
    data = b"\n".join(x[:-1].replace(b"\n", b" ") if x.endswith(b"\n") else
                      x.replace(b"\n", b" ") for x in lines) + b"\n"
    text = answer_text(model_path, data, k, threshold, probabilities)
    return text.decode("utf-8", "surrogateescape").split("\n")[:-1]


def predict_bag(bag, model_path, k=1, threshold=0.0, probabilities=False):
    """A Dask bag of the answers to a bag of text lines, element for element
    (``"__label__a __label__b"``, or ``"__label__a 0.9 __label__b 0.1"``
    with ``probabilities``).  The model path should be absolute: it is read
    where the workers run."""
    model_path = os.path.abspath(model_path)
    return bag.map_partitions(answer_lines, model_path, k, threshold, probabilities)


def predict_series(series, model_path, k=1, threshold=0.0, probabilities=False):
    """A Dask series of the answers to a Dask series (a dataframe column) of
    text, same index (needs ``dask.dataframe``)."""
    model_path = os.path.abspath(model_path)

    def partition(part):
        # a pandas Series of the partition's answers (pandas itself is not
        # imported: only dataframe users have it)
        return type(part)(answer_lines(part.tolist(), model_path, k, threshold,
                                       probabilities), index=part.index, dtype=object)

    return series.map_partitions(partition, meta=(series.name, object))


# -- the CLI's route: files in, answers out --------------------------------------------

def expand_inputs(pattern):
    """The input files of ``pattern`` (a file, or a glob such as
    ``'shards/*.txt'``), sorted by name: the order of the answers."""
    if pattern == "-":
        raise TreexcError("-dask predicts files, each read by a worker: INPUT names a file "
                          "or a quoted glob, not standard input (-)")
    paths = [pattern] if os.path.isfile(pattern) else sorted(glob.glob(pattern))
    paths = [os.path.abspath(p) for p in paths if os.path.isfile(p)]
    if not paths:
        raise TreexcError(f"{pattern}: no such file (nor files matching it)")
    return paths


def predict_file(path, model_path, k, threshold, probabilities, out_path=None):
    """On a worker: the answers to file ``path`` (bytes), or with
    ``out_path`` written there (temporary name, then renamed) and None;
    and the warning about bad bytes, if any."""
    check = ByteCheck()
    pieces = (answer_text(model_path, piece, k, threshold, probabilities)
              for _, piece in read_line_chunks(path, check))
    if out_path is None:
        answers = b"".join(pieces)
    else:
        answers = None

        def write(f):
            for piece in pieces:
                f.write(piece)

        atomic_writer(out_path, write)
    return answers, check.message(path)


def scheduler_address(path):
    """The address in a scheduler file, read here: distributed's own
    reading waits for a missing file for ever and asserts on a foreign one."""
    try:
        with open(path, "rb") as f:
            address = json.loads(f.read(1 << 20)).get("address")
    except OSError as e:
        raise TreexcError(f"-dask {path}: cannot read the scheduler file "
                          f"({e.strerror or e})") from None
    except (ValueError, AttributeError):
        address = None
    if not isinstance(address, str):
        raise TreexcError(f"-dask {path}: not a Dask scheduler file (no \"address\"; "
                          "dask scheduler --scheduler-file writes one)")
    return address


@contextmanager
def connect(scheduler):
    """A ``distributed.Client`` for ``-dask SCHEDULER`` while inside:
    ``local:N`` (a cluster of N worker processes on this machine, for
    trying; closed on leaving), a scheduler file (``*.json``, as ``dask
    scheduler --scheduler-file`` writes), or an address
    (``tcp://host:8786``)."""
    if scheduler.startswith("local:"):
        n = scheduler[len("local:"):]
        if not n.isdigit() or int(n) < 1:
            raise TreexcError(f"-dask {scheduler}: expected local:N, N >= 1 workers")
        with LocalCluster(n_workers=int(n), threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            yield client
        return
    address = scheduler_address(scheduler) if scheduler.endswith(".json") else scheduler
    try:
        client = Client(address, timeout="20s")
    except (OSError, TimeoutError, ValueError) as e:
        raise TreexcError(f"-dask {scheduler}: cannot reach the scheduler ({e})") from None
    with client:
        yield client


def predict_files(client, paths, model_path, k, threshold, probabilities, out_dir=None):
    """Yield ``(path, answers or None, warning or None)`` of each input file,
    in the order of ``paths``, each predicted by a task on the cluster of
    ``client``.  With ``out_dir``, the workers write ``out_dir/NAME.pred``
    (NAME: the input's file name) and no answer travels back."""
    model_path = os.path.abspath(model_path)
    outs = [None] * len(paths)
    if out_dir is not None:
        outs = [os.path.join(os.path.abspath(out_dir), os.path.basename(p) + ".pred")
                for p in paths]
        if len(set(outs)) != len(outs):
            raise TreexcError("-daskOutput: two input files have the same name")
    futures = [client.submit(predict_file, p, model_path, k, threshold, probabilities, o,
                             pure=False) for p, o in zip(paths, outs)]
    for path, future in zip(paths, futures):
        answers, warning = future.result()
        yield path, answers, warning
