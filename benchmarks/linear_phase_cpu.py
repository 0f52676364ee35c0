"""Where the linear model's training goes, phase by phase, for one k-means
tree of a training file at the default shape: the k-means tree's CPU
seconds, then the node classifiers' in threads, split into the root's jobs
(a node read in place, one job per group of slots) and every other node
(each one job), summed over the worker threads (``time.thread_time``
around each solver call), beside the whole call's wall and process CPU.

    PYTHONPATH=. .venv/bin/python benchmarks/linear_phase_cpu.py TRAIN [--thread 2] [--seed 0]
"""

import argparse
import threading
import time

from treexc.linear import kmeans_kernels as kk
from treexc.linear import node_training
from treexc.linear import solver_kernels as sk
from treexc.linear.features import TfidfFeatures
from treexc.linear.kmeans_tree import kmeans_tree
from treexc.linear.options import LinearArgs
from treexc.text.token_cache import training_corpus


def timed(kernel, name, totals, lock):
    def call(*args):
        start = time.thread_time()
        out = kernel(*args)
        spent = time.thread_time() - start
        with lock:
            jobs, cpu = totals.get(name, (0, 0.0))
            totals[name] = (jobs + 1, cpu + spent)
        return out
    return call


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("train")
    p.add_argument("--thread", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    opts = p.parse_args()
    args = LinearArgs(input=opts.train, output="-", thread=opts.thread, seed=opts.seed)
    with training_corpus(args, opts.train, lambda: None, lambda _: None) as (dictionary,
                                                                            corpus, _):
        features = TfidfFeatures.fit(corpus, dictionary.nwords + dictionary.bucket,
                                     dictionary.eos_id(), args.minDf)
        rows = features.rows(corpus)
    centroids = kk.label_centroids(rows.indptr, rows.indices, rows.data, rows.label_off,
                                   rows.labels, dictionary.nlabels, rows.n_cols - 1)
    start = time.process_time()
    tree = kmeans_tree(centroids, rows.n_cols - 1, dictionary.nlabels, args.arity,
                       args.leafSize, args.seed)
    print(f"{rows.n_rows} lines, {rows.n_cols - 1} columns, {dictionary.nlabels} labels")
    print(f"k-means tree: {tree.n_internal} nodes, {time.process_time() - start:.1f} CPU s")
    totals, lock = {}, threading.Lock()
    sk.train_slots = timed(sk.train_slots, "the root's jobs", totals, lock)
    sk.train_node = timed(sk.train_node, "the other nodes", totals, lock)
    wall, cpu = time.monotonic(), time.process_time()
    node_training.train_nodes(tree, rows, args)
    print(f"node classifiers: {time.monotonic() - wall:.1f} s wall, "
          f"{time.process_time() - cpu:.1f} process CPU s")
    for name, (jobs, spent) in totals.items():
        print(f"  {name}: {jobs} jobs, {spent:.1f} CPU s")


if __name__ == "__main__":
    main()
