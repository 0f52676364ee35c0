"""Word vectors: treexc's skipgram and cbow against fastText 0.9.2's, in one run.

Both train on the same prefix of gutenberg_lm's training text (the first
``--tokens`` tokens, whole lines) at fastText's defaults (``-dim 100 -ws 5
-epoch 5 -minCount 5 -neg 5 -loss ns -minn 3 -maxn 6 -t 1e-4``) with
``--threads`` threads, each row in a process of its own (peak memory:
``ru_maxrss`` of that process while training and saving, read before the
evaluation).  Quality, computed by the same code for both on each model's
own word vectors:

* analogy: the questions of gensim's ``questions-words.txt`` (lower-cased, as
  the corpus is) whose four words are among the model's 30,000 most frequent
  words; the answer is the nearest of those 30,000 (cosine, the three
  question words left out) to ``b - a + c`` of the normalised vectors,
  word2vec's ``compute-accuracy`` restriction; accuracy over those questions.
* similarity: Spearman's rho between the human scores of ``wordsim353.tsv``
  and ``simlex999.txt`` and the cosine of the two words' vectors, every pair
  scored: a word outside the vocabulary gets its subword vector (fastText's
  ``getWordVector``), 0 where it has no known n-gram.

words/sec/thread is each tool's own final progress figure (tokens trained
over training seconds over threads); on a machine shared with other jobs
it moves with their load, so each row also records its training's CPU
seconds (all threads, ``getrusage``), and words/CPU s (the tokens trained
over those seconds) compares two rows measured at different loads.
treexc's kernels are compiled (or loaded from Numba's cache) by a warm-up
run on 50 lines before the clock starts.

    python benchmarks/bench_vectors.py --tokens 20000000 --out bench-vectors
    python benchmarks/bench_vectors.py --tokens 2000000 --models skipgram --rows treexc,fasttext

Rows: ``treexc``, ``fasttext`` (ns, the default loss), ``treexc-hs``
(``-loss hs``, the Huffman tree), ``treexc-hs-learned`` (``-loss hs -tree
learned``), ``fasttext-hs``.  Results go to ``OUT/results.json`` (rows
already there are not run again) and the tables to ``OUT/tables.md``.
"""

import argparse
import json
import os
import re
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

ROWS = ("treexc", "fasttext", "treexc-hs", "treexc-hs-learned", "fasttext-hs")
ANALOGY_VOCAB = 30000


def prefix_file(tokens, folder):
    """The first ``tokens`` tokens of gutenberg_lm's training text, whole
    lines, as a file in ``folder`` (made once)."""
    src = Path(folder) / "gutenberg_lm" / "gutenberg.train.txt"
    if not src.exists():
        os.system(f"bash {harness.DATA / 'unpack.sh'} {folder} gutenberg_lm")
    dest = Path(folder) / f"gutenberg_lm.{tokens}.txt"
    if dest.exists():
        return dest
    n = 0
    with open(src, "rb") as f, open(str(dest) + ".part", "wb") as out:
        for line in f:
            if n >= tokens:
                break
            out.write(line)
            n += len(line.split()) + 1  # the line's words and its </s>, as fastText counts
    os.rename(str(dest) + ".part", dest)
    return dest


# -- the child: one training run and its evaluation ------------------------------

def test_files():
    import gensim
    folder = Path(gensim.__file__).parent / "test" / "test_data"
    return (folder / "questions-words.txt", folder / "wordsim353.tsv", folder / "simlex999.txt")


def normalised(m):
    import numpy as np
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return m / np.where(norms > 0, norms, 1.0)


def analogy_accuracy(words, vectors, path):
    """word2vec's restricted analogy accuracy (module docstring) and the
    number of questions it counted."""
    import numpy as np
    index = {w: i for i, w in enumerate(words[:ANALOGY_VOCAB])}
    unit = normalised(vectors[:ANALOGY_VOCAB].astype(np.float32))
    questions = []
    for line in open(path, encoding="utf-8"):
        if line.startswith(":"):
            continue
        q = line.lower().split()
        if len(q) == 4 and all(w in index for w in q):
            questions.append([index[w] for w in q])
    if not questions:
        return 0.0, 0
    q = np.array(questions)
    correct = 0
    for start in range(0, len(q), 1024):
        block = q[start:start + 1024]
        query = unit[block[:, 1]] - unit[block[:, 0]] + unit[block[:, 2]]
        scores = query @ unit.T
        for k in range(3):
            scores[np.arange(len(block)), block[:, k]] = -np.inf
        correct += int((scores.argmax(axis=1) == block[:, 3]).sum())
    return correct / len(q), len(q)


def similarity(vector_of, path):
    """Spearman's rho of the human scores and the cosines; pairs counted."""
    import numpy as np
    from scipy.stats import spearmanr
    human, model = [], []
    for line in open(path, encoding="utf-8"):
        if line.startswith("#"):
            continue
        parts = line.lower().split("\t")
        if len(parts) < 3:
            continue
        a, b = vector_of(parts[0]), vector_of(parts[1])
        na, nb = np.linalg.norm(a), np.linalg.norm(b)
        human.append(float(parts[2]))
        model.append(float(a @ b / (na * nb)) if na > 0 and nb > 0 else 0.0)
    return float(spearmanr(human, model).correlation), len(human)


def cpu_seconds():
    """This process's CPU seconds so far, all threads (user and system)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def child(opts):
    """Train one row, save its .bin, measure, evaluate; one JSON line on stdout."""
    import numpy as np
    flags = json.loads(opts.flags)
    start = time.perf_counter()
    cpu_start = cpu_seconds()
    if opts.tool == "fasttext":
        import fasttext
        model = fasttext.train_unsupervised(opts.input, model=opts.model, verbose=2, **flags)
        train_s = time.perf_counter() - start
        train_cpu_s = cpu_seconds() - cpu_start
        model.save_model(opts.save)
        words = model.get_words()
        vector_of = model.get_word_vector
        top = np.array([model.get_word_vector(w) for w in words[:ANALOGY_VOCAB]])
    else:
        import tempfile

        import treexc
        # the kernels compiled or loaded from Numba's cache before the clock starts
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as warm:
            warm.write("a warm up line of text for the kernels\n" * 50)
            warm.flush()
            treexc.train_unsupervised(warm.name, model=opts.model, verbose=0, minCount=1,
                                      epoch=1, bucket=1000, **{k: v for k, v in flags.items()
                                                               if k != "thread"})
        start = time.perf_counter()
        cpu_start = cpu_seconds()
        model = treexc.train_unsupervised(opts.input, model=opts.model, verbose=2, **flags)
        train_s = time.perf_counter() - start
        train_cpu_s = cpu_seconds() - cpu_start
        model.save_model(opts.save)
        words = model.words
        vector_of = model.get_word_vector
        top = model.word_vectors(0, min(ANALOGY_VOCAB, len(words)))
    total_s = time.perf_counter() - start
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    analogies, wordsim, simlex = test_files()
    acc, n_questions = analogy_accuracy(words, top, analogies)
    ws, n_ws = similarity(vector_of, wordsim)
    sl, n_sl = similarity(vector_of, simlex)
    print(json.dumps({"train_s": train_s, "train_cpu_s": train_cpu_s, "train_save_s": total_s,
                      "maxrss_mib": maxrss,
                      "nwords": len(words), "analogy": acc, "analogy_questions": n_questions,
                      "wordsim353": ws, "wordsim_pairs": n_ws, "simlex999": sl,
                      "simlex_pairs": n_sl}))


# -- the parent: rows, results, tables ---------------------------------------------

def row_flags(row, threads):
    flags = {"thread": threads}
    if row.endswith("-hs") or "-hs-" in row:
        flags["loss"] = "hs"
    if row == "treexc-hs-learned":
        flags["tree"] = "learned"
    return flags


def words_per_sec_thread(stderr):
    found = re.findall(r"words/sec/thread:\s*(\d+)", stderr.replace("\r", "\n"))
    return int(found[-1]) if found else None


def run_row(row, model, data, out, threads):
    tool = "fasttext" if row.startswith("fasttext") else "treexc"
    flags = row_flags(row, threads)
    save = out / f"{model}-{row}.bin"
    cmd = [harness.PYTHON, __file__, "--child", "--tool", tool, "--model", model,
           "--input", str(data), "--flags", json.dumps(flags), "--save", str(save)]
    harness.log(f"{model} {row}: {' '.join(cmd[2:])}")
    r = harness.run(cmd)
    err = r.err.decode(errors="replace")
    (out / f"{model}-{row}.log").write_text(err)
    result = json.loads(r.out.decode().strip().splitlines()[-1])
    result.update(wall_s=r.wall, process_maxrss_mib=r.maxrss_mib,
                  words_per_sec_thread=words_per_sec_thread(err), flags=flags)
    try:
        save.unlink()  # 800 MB each (2M buckets x 100 floats)
    except OSError:
        pass
    return result


def version_line():
    """treexc's version (pyproject's and ``git describe --always``), the
    machine and its load."""
    import platform
    import subprocess
    from importlib.metadata import version
    described = subprocess.run(["git", "-C", str(harness.REPO), "describe", "--always",
                                "--dirty"], capture_output=True, text=True).stdout.strip()
    return (f"treexc {version('treexc')} ({described}), fasttext-wheel "
            f"{version('fasttext-wheel')}, numba {version('numba')}; {platform.machine()}, "
            f"{os.cpu_count()} CPUs shared with other jobs (load average "
            f"{os.getloadavg()[0]:.1f} at the start)")


def tables(results, opts, measured_at):
    lines = [f"{measured_at}; {opts.tokens:,} tokens of gutenberg_lm, -thread "
             f"{opts.threads}:", "",
             f"    python benchmarks/bench_vectors.py --tokens {opts.tokens} "
             f"--models {opts.models} --rows {opts.rows} --threads {opts.threads}", ""]
    head = ["model", "row", "analogy acc", "wordsim353 rho", "simlex999 rho",
            "words/sec/thread", "words/CPU s", "train s", "train CPU s", "peak MiB"]
    body = []
    for key, r in results.items():
        model, row = key.split("/")
        cpu = r.get("train_cpu_s")
        per_cpu = (f"{round(r['words_per_sec_thread'] * opts.threads * r['train_s'] / cpu):,}"
                   if cpu and r["words_per_sec_thread"] else "-")
        body.append([model, row, f"{r['analogy']:.4f}", f"{r['wordsim353']:.4f}",
                     f"{r['simlex999']:.4f}", f"{r['words_per_sec_thread'] or 0:,}", per_cpu,
                     f"{r['train_s']:.0f}", f"{cpu:.0f}" if cpu else "-",
                     f"{r['maxrss_mib']:.0f}"])
    lines += harness.table(head, body)
    any_row = next(iter(results.values()), None)
    if any_row:
        lines += ["", f"analogy questions counted: {any_row['analogy_questions']} (all four "
                  f"words among the {ANALOGY_VOCAB:,} most frequent); pairs: wordsim353 "
                  f"{any_row['wordsim_pairs']}, simlex999 {any_row['simlex_pairs']}"]
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tokens", type=int, default=20_000_000)
    p.add_argument("--models", default="skipgram,cbow")
    p.add_argument("--rows", default="treexc,fasttext")
    p.add_argument("--threads", type=int, default=harness.THREADS)
    p.add_argument("--data", default="/tmp/data-vectors")
    p.add_argument("--out", default="bench-vectors")
    # the child's arguments
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    for name in ("--tool", "--model", "--input", "--flags", "--save"):
        p.add_argument(name, help=argparse.SUPPRESS)
    opts = p.parse_args()
    if opts.child:
        return child(opts)
    out = Path(opts.out)
    out.mkdir(parents=True, exist_ok=True)
    data = prefix_file(opts.tokens, opts.data)
    measured_at = version_line()  # before any row: the code the rows ran
    results_path = out / "results.json"
    results = json.loads(results_path.read_text()) if results_path.exists() else {}
    for model in opts.models.split(","):
        for row in opts.rows.split(","):
            if row not in ROWS:
                raise SystemExit(f"unknown row {row} (choose from {', '.join(ROWS)})")
            key = f"{model}/{row}"
            if key in results and results[key].get("tokens") == opts.tokens:
                continue
            results[key] = dict(run_row(row, model, data, out, opts.threads),
                                tokens=opts.tokens)
            results_path.write_text(json.dumps(results, indent=1))
    text = tables({k: v for k, v in results.items() if v.get("tokens") == opts.tokens}, opts,
                  measured_at)
    (out / "tables.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
