"""Derive the next-word extreme-classification task (``gutenberg_next``) from
``../shared/data/gutenberg_lm`` in fastText format.

Each example is one *position* of the tokenized text (one paragraph per
line): its label is the word at that position, ``__label__WORD``, and its
input the up to 8 (``--context``) words before it in the same paragraph, in
text order::

    __label__sea the old man looked out at the open

Positions
    A position is (line number, index of the word in the line), both counted
    from 0 in the split's file.  A paragraph's first word (index 0) has no
    previous word and is **skipped** (fastText and treexc would skip an
    example with a label and no words anyway), so "all" is every other
    position: 55,776,775 examples in the training file (56,718,683 tokens
    minus 941,908 paragraphs).  Positions 1 to 7 of a paragraph get fewer
    than 8 input words.

Deterministic choice and order of positions
    Every position gets a 64-bit key ``(line << 32) | index``, mixed with
    the seed and scrambled by splitmix64's finaliser (a bijection, so no two
    positions tie)::

        h = fmix64(key ^ fmix64(seed + 0x9E3779B97F4A7C15))

    The positions are ordered by ``h``; ``--size N`` keeps the first N
    eligible positions in that order, and the output file lists them in that
    order.  So the same N gives the same examples in the same order on every
    machine (pure 64-bit integer arithmetic), a smaller set is a subset of a
    larger one -- indeed the N-example file is exactly the first N lines of
    any larger one with the same seed, --labels and --context -- and the
    output is shuffled relative to text order (fastText reads in file order,
    and examples grouped by paragraph train badly).  No in-memory shuffle:
    the order *is* the hash order.  Valid and test files are chosen the same
    way from their own splits (``--valid-size``, ``--test-size``, default
    100,000 each; "all" keeps every position).

Labels
    Without ``--labels`` every word is a label (also valid/test words that
    never occur in training).  ``--labels K`` keeps only the examples (in
    every split) whose label is among the K most frequent words of the
    training file (occurrences over all its positions, first words
    included; ties broken by the word's bytes), so --size N then counts
    eligible positions: the N first in hash order whose label is in the set.
    Input words are never filtered.

Words and the format
    Lines are read as bytes and split exactly as fastText and treexc read
    text: on space, \\t, \\n, \\r, \\v, \\f and NUL.  A word therefore never
    contains a separator, and invalid UTF-8 passes through unchanged.  The
    one word that would change meaning is one starting with the label prefix
    (``__label__``, ``--label-prefix``): as an *input* word it would be read
    as a second label, so it is written with a backslash in front
    (``\\__label__x``); as a *label* it is written as is after the prefix
    (``__label____label__x``), which fastText reads as one label.  The
    gutenberg_lm files contain no such word (nor NUL, \\r, \\v, \\f).

Method (streaming; no list of all lines or examples is ever held)
    [train with --labels: one counting pass] -> a histogram pass (hashes of
    the eligible positions, counted in 65,536 bins by their top 16 bits,
    gives the bin where the N-th position falls) -> a writing pass (the
    examples of the bins up to that one go to temporary group files of at
    most --group-size examples each, with the hash as a 16-digit hex prefix)
    -> each group, in bin order, is read back, sorted by hash and appended
    to the output, which is cut at N.  Temporaries live in OUT and are
    removed; each output is written as NAME.SPLIT.txt.tmp and renamed into
    place.  A progress line goes to stderr, and a summary per split
    (examples, distinct labels, seconds) at the end.

Commands used (from the repository root; output in OUT/gutenberg_next.*.txt)::

    .venv/bin/python benchmarks/make_next_word.py --size 1M  --out /tmp/treexc-data/gutenberg_next_1M
    .venv/bin/python benchmarks/make_next_word.py --size 10M --out /tmp/treexc-data/gutenberg_next_10M
    .venv/bin/python benchmarks/make_next_word.py --size all --out /tmp/treexc-data/gutenberg_next_all
    # label-count scaling: the same, adding e.g. --labels 10000 (10K .. 256K)
    .venv/bin/python benchmarks/make_next_word.py --selftest   # no data needed

Measured on the project's 2-core machine while another benchmark ran (load
average 4-5, so expect less on an idle one), seed 0, wall seconds for the
whole command (train + valid + test)::

    --size 1M                 1,000,000 examples,  41,584 labels,  49.7 MB   42 s (58 s before a speed-up)
    --size 10M               10,000,000 examples, 118,362 labels,   497 MB   98 s (before the speed-up)
    --size all               55,776,775 examples, 255,458 labels,  2.77 GB  333 s (359 s before)
    --size 1M --labels 10000  1,000,000 examples,   9,983 labels,  49.4 MB  111 s (31 s of it counting)

Labels are the distinct labels of the training file; valid and test (100,000
examples each, 5.0 MB) have 12,363 and 12,324 (6,864 and 6,835 with
--labels 10000).  Peak memory 0.35 GB (1M) to 0.49 GB (all).  "all" also
writes about 3.7 GB of temporary files in OUT (removed as they are merged)
beside the 2.77 GB output.
"""

import argparse
import collections
import gzip
import itertools
import os
import random
import shutil
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "data", "gutenberg_lm"))
SPLITS = ("train", "valid", "test")
BINS_BITS = 16
M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


# ---------------------------------------------------------------- hashing

def fmix64_int(z):
    """splitmix64's finaliser on a Python int (reference implementation)."""
    z &= M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def seed_mix(seed):
    return fmix64_int(seed + GOLDEN)


def position_hash_int(seed, line, index):
    return fmix64_int(((line << 32) | index) ^ seed_mix(seed))


def position_hash(seed, line, index):
    """Vectorised position_hash_int: line, index are int64/uint64 arrays."""
    with np.errstate(over="ignore"):
        z = (line.astype(np.uint64) << np.uint64(32)) | index.astype(np.uint64)
        z ^= np.uint64(seed_mix(seed))
        z ^= z >> np.uint64(30)
        z *= np.uint64(0xBF58476D1CE4E5B9)
        z ^= z >> np.uint64(27)
        z *= np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
    return z


# ---------------------------------------------------------------- reading

def open_text(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rb")
    return open(path, "rb")


def split_words(line):
    """fastText's tokenisation: space, \\t, \\n, \\r, \\v, \\f and NUL."""
    if b"\0" in line:
        line = line.replace(b"\0", b" ")
    return line.split()


class Progress:
    def __init__(self, quiet):
        self.quiet = quiet
        self.last = 0.0
        self.shown = False

    def show(self, text, force=False):
        if self.quiet:
            return
        now = time.time()
        if force or now - self.last >= 1.0:
            self.last = now
            sys.stderr.write("\r" + text + "\x1b[K")
            sys.stderr.flush()
            self.shown = True

    def done(self):
        if self.shown and not self.quiet:
            sys.stderr.write("\n")
            sys.stderr.flush()
        self.shown = False


def chunks(path, what, progress, total_lines, chunk_lines=20000):
    """Yields (first line number, [word lists]) for consecutive line chunks."""
    first = 0
    buf = []
    with open_text(path) as f:
        for line in f:
            buf.append(split_words(line))
            if len(buf) == chunk_lines:
                yield first, buf
                first += len(buf)
                buf = []
                if total_lines:
                    progress.show(f"{what}: {first:,} / {total_lines:,} lines "
                                  f"({100.0 * first / total_lines:.0f}%)")
                else:
                    progress.show(f"{what}: {first:,} lines")
        if buf:
            yield first, buf
            first += len(buf)
    progress.show(f"{what}: {first:,} lines", force=True)
    progress.done()


def chunk_positions(first, words, seed, labelset):
    """Flat arrays over the chunk's positions: line (global), index, hash,
    and the eligibility mask (index >= 1, label in labelset if given)."""
    lens = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
    total = int(lens.sum())
    starts = np.cumsum(lens) - lens
    local = np.repeat(np.arange(len(words), dtype=np.int64), lens)
    index = np.arange(total, dtype=np.int64) - np.repeat(starts, lens)
    h = position_hash(seed, local + first, index)
    mask = index >= 1
    if labelset is not None:
        mask &= np.fromiter(map(labelset.__contains__, itertools.chain.from_iterable(words)),
                            dtype=bool, count=total)
    return local, index, h, mask


def targets(words, p, n, labelset):
    """The labels of position ``p``: its word, then the other distinct words
    of positions p+1 .. p+n-1 of the same paragraph (``--targets``), in
    order, those outside ``labelset`` left out."""
    out = [words[p]]
    for w in words[p + 1:p + n]:
        if w not in out and (labelset is None or w in labelset):
            out.append(w)
    return out


# ---------------------------------------------------------------- passes

def top_words(path, k, progress):
    """The k most frequent words of path (ties by bytes) and its line count."""
    counts = collections.Counter()
    lines = 0
    for first, words in chunks(path, "counting words", progress, 0):
        counts.update(itertools.chain.from_iterable(words))
        lines = first + len(words)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return frozenset(w for w, _ in ranked[:k]), lines, len(counts)


def histogram(path, seed, labelset, progress, total_lines, what):
    hist = np.zeros(1 << BINS_BITS, dtype=np.int64)
    lines = 0
    for first, words in chunks(path, what, progress, total_lines):
        _, _, h, mask = chunk_positions(first, words, seed, labelset)
        hist += np.bincount((h[mask] >> np.uint64(64 - BINS_BITS)).astype(np.intp),
                            minlength=1 << BINS_BITS)
        lines = first + len(words)
    return hist, lines


def make_split(path, out_path, size, a, labelset, progress, total_lines=0):
    """Writes the first `size` eligible positions of path (hash order) to
    out_path; size None means all.  Returns (examples, distinct labels,
    eligible positions, lines)."""
    name = os.path.basename(out_path)
    hist, lines = histogram(path, a.seed, labelset, progress, total_lines,
                            f"{name}: histogram")
    eligible = int(hist.sum())
    n = eligible if size is None else min(size, eligible)
    cum = np.cumsum(hist)
    cut = int(np.searchsorted(cum, n)) if n > 0 else -1   # last bin needed
    # group consecutive bins 0..cut into temp files of <= group_size examples
    group_of = np.full(1 << BINS_BITS, -1, dtype=np.int64)
    groups = 0
    filled = 0
    for b in range(cut + 1):
        if filled and filled + hist[b] > a.group_size:
            groups += 1
            filled = 0
        group_of[b] = groups
        filled += int(hist[b])
    ngroups = groups + 1 if cut >= 0 else 0

    tmpdir = tempfile.mkdtemp(prefix=f".{name}.", dir=os.path.dirname(out_path) or ".")
    try:
        files = [open(os.path.join(tmpdir, f"g{g:05d}"), "wb", buffering=1 << 18)
                 for g in range(ngroups)]
        prefix = a.label_prefix.encode()
        esc_lead = prefix[:1] if prefix else b""
        ctx = a.context
        if ngroups:
            for first, words in chunks(path, f"{name}: writing", progress, lines):
                local, index, h, mask = chunk_positions(first, words, a.seed, labelset)
                g = group_of[(h >> np.uint64(64 - BINS_BITS)).astype(np.intp)]
                sel = np.nonzero(mask & (g >= 0))[0]
                if not len(sel):
                    continue
                iwords = words
                if esc_lead:
                    flagged = [i for i, w in enumerate(words) if prefix in b" ".join(w)]
                    if flagged:
                        iwords = list(words)
                        for i in flagged:
                            iwords[i] = [b"\\" + x if x.startswith(prefix) else x
                                         for x in words[i]]
                writes = [f.write for f in files]
                for li, p, hh, gg in zip(local[sel].tolist(), index[sel].tolist(),
                                         h[sel].tolist(), g[sel].tolist()):
                    writes[gg](b"%016x %s %s\n" % (
                        hh, b" ".join(prefix + w for w in targets(words[li], p, a.targets,
                                                                  labelset)),
                        b" ".join(iwords[li][p - ctx if p > ctx else 0:p])))
        for f in files:
            f.close()
        # merge: groups in bin order, each sorted by its hash prefix
        tmp_out = out_path + ".tmp"
        written = 0
        labels = set()
        with open(tmp_out, "wb", buffering=1 << 20) as out:
            for gi in range(ngroups):
                gpath = os.path.join(tmpdir, f"g{gi:05d}")
                with open(gpath, "rb") as f:
                    rows = f.readlines()
                os.unlink(gpath)
                rows.sort()
                if written + len(rows) > n:
                    del rows[n - written:]
                out.writelines([r[17:] for r in rows])
                for r in rows:  # the labels lead the line; input words never
                    for token in r[17:].split(b" "):  # start with the prefix (escaped)
                        if not token.startswith(prefix):
                            break
                        labels.add(token)
                written += len(rows)
                progress.show(f"{name}: sorting {gi + 1}/{ngroups} groups, "
                              f"{written:,} examples")
            progress.done()
        os.replace(tmp_out, out_path)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    assert written == n, (written, n)
    return written, len(labels), eligible, lines


# ---------------------------------------------------------------- CLI

def parse_size(text):
    t = text.strip().lower().replace(",", "").replace("_", "")
    if t == "all":
        return None
    mult = 1
    if t and t[-1] in "km":
        mult = 1000 if t[-1] == "k" else 1000000
        t = t[:-1]
    try:
        v = float(t) * mult
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (a number, 1M, 10M or all)")
    if v < 0 or v != int(v):
        raise argparse.ArgumentTypeError(f"not a size: {text!r}")
    return int(v)


class _Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    pass


def parser():
    p = argparse.ArgumentParser(
        description="Write the next-word extreme-classification task "
        "(label = the next word, input = the up to --context previous words of "
        "the same paragraph) in fastText format: OUT/NAME.{train,valid,test}.txt. "
        "Positions are chosen and ordered by a seeded hash of (line, word index); "
        "a smaller --size is a prefix of a larger one. Details (below): the module docstring.",
        epilog=__doc__, formatter_class=_Formatter)
    p.add_argument("--data", default=DEFAULT_DATA,
                   help="folder with gutenberg.{train,valid,test}.txt[.gz] "
                   "(tokenized text, one paragraph per line)")
    p.add_argument("--prefix", default="gutenberg",
                   help="input files are DATA/PREFIX.SPLIT.txt.gz (or .txt)")
    p.add_argument("--out", help="output folder (created); required unless --selftest")
    p.add_argument("--name", default="gutenberg_next", help="output files are OUT/NAME.SPLIT.txt")
    p.add_argument("--size", type=parse_size, default=parse_size("1M"),
                   help="training examples: the first N eligible positions of the "
                   "training file in hash order; accepts 1000000, 1M, 10M, 500k or "
                   "'all' (every position but paragraphs' first words)")
    p.add_argument("--valid-size", type=parse_size, default=100000,
                   help="examples from the valid split (same rule; 'all' for every position)")
    p.add_argument("--test-size", type=parse_size, default=100000,
                   help="examples from the test split (same rule; 'all' for every position)")
    p.add_argument("--labels", type=int, default=None, metavar="K",
                   help="keep only examples whose label is among the K most frequent "
                   "words of the training file (ties by bytes), in every split; "
                   "default: every word is a label")
    p.add_argument("--targets", type=int, default=1, metavar="N",
                   help="multi-label: the labels of a position are the distinct words of "
                   "it and the N-1 positions after it in the same paragraph (those in "
                   "the --labels set); eligibility and order stay the position's")
    p.add_argument("--context", type=int, default=8,
                   help="input = up to this many previous words of the same paragraph")
    p.add_argument("--seed", type=int, default=0, help="seed of the position hash (order and choice)")
    p.add_argument("--label-prefix", default="__label__",
                   help="label prefix (fastText's -label); input words starting with it "
                   "are written with a leading backslash")
    p.add_argument("--splits", default="train,valid,test",
                   help="comma-separated splits to write")
    p.add_argument("--group-size", type=int, default=500000,
                   help="at most this many examples per temporary group file "
                   "(sorted in memory one at a time)")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.add_argument("--selftest", action="store_true",
                   help="check the script on a tiny generated text (no data needed) and exit")
    return p


def input_path(a, split):
    for ext in (".txt.gz", ".txt"):
        path = os.path.join(a.data, f"{a.prefix}.{split}{ext}")
        if os.path.exists(path):
            return path
    raise SystemExit(f"make_next_word: no {a.prefix}.{split}.txt[.gz] in {a.data}")


def run(a, report=True):
    t_start = time.time()
    if not a.out:
        raise SystemExit("make_next_word: --out is required")
    if a.context < 1:
        raise SystemExit("make_next_word: --context must be >= 1")
    if a.targets < 1:
        raise SystemExit("make_next_word: --targets must be >= 1")
    if a.labels is not None and a.labels < 1:
        raise SystemExit("make_next_word: --labels must be >= 1")
    os.makedirs(a.out, exist_ok=True)
    progress = Progress(a.quiet)
    splits = [s for s in a.splits.split(",") if s]
    for s in splits:
        if s not in SPLITS:
            raise SystemExit(f"make_next_word: unknown split {s!r}")
    labelset = None
    train_lines = 0
    summary = []
    if a.labels is not None:
        t0 = time.time()
        labelset, train_lines, vocab = top_words(input_path(a, "train"), a.labels, progress)
        summary.append(f"label set: the {len(labelset):,} most frequent of {vocab:,} "
                       f"training words ({time.time() - t0:.1f} s)")
    sizes = {"train": a.size, "valid": a.valid_size, "test": a.test_size}
    for s in splits:
        t0 = time.time()
        out_path = os.path.join(a.out, f"{a.name}.{s}.txt")
        n, nlab, elig, _ = make_split(input_path(a, s), out_path, sizes[s], a, labelset,
                                      progress, train_lines if s == "train" else 0)
        summary.append(f"{out_path}: {n:,} examples (of {elig:,} eligible positions), "
                       f"{nlab:,} distinct labels, {os.path.getsize(out_path) / 1e6:,.1f} MB, "
                       f"{time.time() - t0:.1f} s")
    summary.append(f"total {time.time() - t_start:.1f} s")
    if report:
        for line in summary:
            print(line, file=sys.stderr)
    return summary


# ---------------------------------------------------------------- self-test

def _expected(path, seed, n, context, labelset, prefix=b"__label__"):
    """Brute force, independent of the streaming code: every position with
    its pure-Python hash, sorted, first n."""
    rows = []
    with open_text(path) as f:
        for ln, line in enumerate(f):
            w = split_words(line)
            for p in range(1, len(w)):
                if labelset is not None and w[p] not in labelset:
                    continue
                inp = [b"\\" + x if x.startswith(prefix) else x for x in w[max(0, p - context):p]]
                rows.append((position_hash_int(seed, ln, p), prefix + w[p] + b" " + b" ".join(inp) + b"\n"))
    rows.sort()
    return [r for _, r in rows[:len(rows) if n is None else n]]


def selftest():
    t0 = time.time()
    rng = random.Random(12345)
    vocab = [b"w%d" % i for i in range(40)] + [b"__label__x", b"caf\xc3\xa9", b"\xff\xfe"]
    weights = [1.0 / (i + 1) for i in range(len(vocab))]
    tmp = tempfile.mkdtemp(prefix="make_next_word_selftest.")
    try:
        data = os.path.join(tmp, "data")
        os.makedirs(data)
        paragraphs = {}
        for split, nlines in (("train", 300), ("valid", 40), ("test", 30)):
            lines = []
            for i in range(nlines):
                k = rng.choice([0, 1, 2, 5, 9, 20, 40])
                lines.append(b" ".join(rng.choices(vocab, weights, k=k)))
            lines[3] = b"w1 w2\x00w3  w4\tw5 w6 w7 w8 w9 w10 w11"   # NUL and tab separate
            paragraphs[split] = [split_words(x) for x in lines]
            opener = gzip.open if split != "test" else open          # plain text too
            with opener(os.path.join(data, f"gutenberg.{split}.txt" + (".gz" if split != "test" else "")), "wb") as f:
                f.write(b"\n".join(lines) + b"\n")
        # vectorised hash == reference hash
        li = np.array([0, 1, 5, 941907, 2**31], dtype=np.int64)
        ix = np.array([1, 7, 0, 3, 2**31 + 5], dtype=np.int64)
        for seed in (0, 7):
            assert position_hash(seed, li, ix).tolist() == [
                position_hash_int(seed, x, y) for x, y in zip(li.tolist(), ix.tolist())]
        total = sum(max(0, len(w) - 1) for w in paragraphs["train"])
        base = ["--data", data, "--quiet", "--valid-size", "all", "--test-size", "25"]
        outputs = {}
        for size, labels, gs in (("50", None, 7), ("200", None, 13), ("all", None, 500000),
                                 ("all", None, 1), ("30", 5, 4), ("all", 5, 1000)):
            out = os.path.join(tmp, f"out_{size}_{labels}_{gs}")
            argv = base + ["--out", out, "--size", size, "--group-size", str(gs)]
            if labels:
                argv += ["--labels", str(labels)]
            run(parser().parse_args(argv), report=False)
            outputs[(size, labels, gs)] = out
            got = {s: open(os.path.join(out, f"gutenberg_next.{s}.txt"), "rb").readlines() for s in SPLITS}
            labelset = None
            if labels:
                c = collections.Counter(x for w in paragraphs["train"] for x in w)
                labelset = {w for w, _ in sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[:labels]}
            for s, n in (("train", parse_size(size)), ("valid", None), ("test", 25)):
                exp = _expected(input_path(argparse.Namespace(data=data, prefix="gutenberg"), s),
                                0, n, 8, labelset)
                assert got[s] == exp, (size, labels, s, len(got[s]), len(exp))
            # semantic check, independent of the hash: each line is some position's
            # next word with its up to 8 previous words of the same paragraph
            contexts = collections.Counter()
            for w in paragraphs["train"]:
                for p in range(1, len(w)):
                    inp = [b"\\" + x if x.startswith(b"__label__") else x for x in w[max(0, p - 8):p]]
                    contexts[(w[p], tuple(inp))] += 1
            seen = collections.Counter()
            for r in got["train"]:
                toks = r.split()
                assert toks[0].startswith(b"__label__") and 1 <= len(toks) - 1 <= 8
                assert all(not t.startswith(b"__label__") for t in toks[1:])
                key = (toks[0][len(b"__label__"):], tuple(toks[1:]))
                seen[key] += 1
                assert seen[key] <= contexts[key], key
                if labelset is not None:
                    assert key[0] in labelset
        full = open(os.path.join(outputs[("all", None, 500000)], "gutenberg_next.train.txt"), "rb").readlines()
        assert len(full) == total, (len(full), total)
        assert full != sorted(full)                                   # shuffled
        for size, gs in (("50", 7), ("200", 13)):                     # smaller = prefix of larger
            small = open(os.path.join(outputs[(size, None, gs)], "gutenberg_next.train.txt"), "rb").readlines()
            assert small == full[:len(small)] and len(small) == int(size)
        assert full == open(os.path.join(outputs[("all", None, 1)], "gutenberg_next.train.txt"), "rb").readlines()
        lab_all = open(os.path.join(outputs[("all", 5, 1000)], "gutenberg_next.train.txt"), "rb").readlines()
        lab_30 = open(os.path.join(outputs[("30", 5, 4)], "gutenberg_next.train.txt"), "rb").readlines()
        assert lab_30 == lab_all[:30] and set(lab_all) <= set(full)
        assert any(b"\\__label__x" in r for r in full) and any(r.startswith(b"__label____label__x ") for r in full)
        assert not any(b"\0" in r for r in full)
        # a different seed: same set, different order
        out = os.path.join(tmp, "seed1")
        run(parser().parse_args(base + ["--out", out, "--size", "all", "--seed", "1", "--splits", "train"]), report=False)
        other = open(os.path.join(out, "gutenberg_next.train.txt"), "rb").readlines()
        assert sorted(other) == sorted(full) and other != full
        leftovers = [f for d in outputs.values() for f in os.listdir(d) if not f.endswith(".txt")]
        assert not leftovers, leftovers
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"selftest passed ({time.time() - t0:.1f} s)")


def main(argv=None):
    a = parser().parse_args(argv)
    if a.selftest:
        selftest()
        return 0
    run(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
