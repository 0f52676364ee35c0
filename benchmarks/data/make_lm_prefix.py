"""A prefix of a language-model data set, for rows that cannot train on the
whole of it (the flat softmax over gutenberg_lm's 256K words): the first
whole lines of each split holding at least the asked number of tokens
(words plus one ``</s>`` per line, as ``treexc lm`` counts them).

    python benchmarks/data/make_lm_prefix.py /tmp/treexc-data/gutenberg_lm \\
        /tmp/treexc-data/gutenberg_2m_lm --tokens 2000000 --eval-tokens 500000

The source folder holds ``NAME.train.txt``, ``NAME.valid.txt`` and
``NAME.test.txt`` (``NAME_lm/``); the output folder gets the same three
files under its own name (``gutenberg_2m_lm/gutenberg_2m.train.txt`` ...),
so ``bench_lm.py --data`` reads it like the full set.
"""

import argparse
import sys
from pathlib import Path


def copy_prefix(source, target, tokens):
    """Copy the first lines of ``source`` up to ``tokens`` tokens; the count."""
    n = 0
    with open(source, "rb") as f, open(target, "wb") as out:
        for line in f:
            if n >= tokens:
                break
            out.write(line)
            n += len(line.split()) + 1
    return n


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("source")
    p.add_argument("target")
    p.add_argument("--tokens", type=int, required=True, help="training tokens")
    p.add_argument("--eval-tokens", type=int, required=True,
                   help="tokens of the validation and test files each")
    a = p.parse_args()
    src, dst = Path(a.source), Path(a.target)
    stems = [f.name[:-len(".train.txt")] for f in src.glob("*.train.txt")]
    if len(stems) != 1:
        sys.exit(f"{src}: expected one NAME.train.txt")
    if not dst.name.endswith("_lm"):
        sys.exit(f"{dst}: the target folder's name must end in _lm (bench_lm.py's convention)")
    dst.mkdir(parents=True, exist_ok=True)
    name = dst.name[:-len("_lm")]
    for split, tokens in (("train", a.tokens), ("valid", a.eval_tokens),
                          ("test", a.eval_tokens)):
        n = copy_prefix(src / f"{stems[0]}.{split}.txt", dst / f"{name}.{split}.txt", tokens)
        print(f"{dst / f'{name}.{split}.txt'}: {n:,} tokens")


if __name__ == "__main__":
    main()
