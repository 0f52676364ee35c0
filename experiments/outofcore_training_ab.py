"""Training speed from the token cache's mapping against the in-memory
corpus, in one process: the same dictionary and corpus, encoded whole in
memory (main's path) and read from the cache (text/token_cache.py);
Session.run alternated between the two, ROUNDS times each, with the flags
of bench_outofcore.py.  Training alone is timed, so the comparison is not
drowned by reading, encoding and process start-up, which vary more than
the 5% in question on a shared machine.

    PYTHONPATH=. .venv/bin/python experiments/outofcore_training_ab.py FILE ROUNDS
"""
import statistics
import sys
import time

import numpy as np

from treexc.classify import training as T
from treexc.classify.model import Model
from treexc.classify.options import make_args
from treexc.classify.plan import LabelStats, plan
from treexc.io import textio
from treexc.runtime import SilentReporter
from treexc.text import token_cache
from treexc.text.dictionary import build_dictionary

path = sys.argv[1]
args = make_args(input=path, output="x", epoch=1, dim=50, loss="hs", thread=2, verbose=0)
data = textio.read_text(path)
d_mem = build_dictionary(data, args, path)
c_mem = d_mem.encode(data); c_mem.skip_bare_lines(d_mem.eos_id(), path); del data
res = {"memory": [], "mapped": []}
with token_cache.training_corpus(args, path, lambda: None, lambda m: None) as (d_map, c_map, _):
    for r in range(int(sys.argv[2])):
        for name, d, c in (("memory", d_mem, c_mem), ("mapped", d_map, c_map)):
            args = plan(args, LabelStats.of(d.label_counts)).args(args)
            w_in = T.init_input_matrix(d.nwords + args.bucket, args.dim, args.seed)
            tree = T.make_initial_tree(args, d.label_counts)
            w_out = np.zeros((tree.n_internal * tree.arity, args.dim), np.float32)
            s = T.Session(Model(args, d, tree, w_in, w_out), c, SilentReporter())
            t = time.perf_counter(); s.run(); dt = time.perf_counter() - t
            wps = s.total_tokens / dt / args.thread
            res[name].append(wps)
            print(f"round {r}: {name} {dt:.2f} s {wps:,.0f} words/sec/thread", flush=True)
for k, v in res.items():
    print(k, f"median {statistics.median(v):,.0f}")
print("mapped/memory", statistics.median(res["mapped"]) / statistics.median(res["memory"]))
