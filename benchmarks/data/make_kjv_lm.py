"""A language-model corpus from another source than Project Gutenberg: the
King James Bible (1611, public domain outside the UK) as Debian ships it,
tokenised as ``../shared/data``'s language-model sets (lower case, each
punctuation mark its own token, one verse per line).

    apt-get download bible-kjv bible-kjv-text        # Debian 12 "main"
    for f in bible-kjv*.deb; do dpkg-deb -x "$f" /tmp/kjv; done
    /tmp/kjv/usr/bin/bible -p /tmp/kjv/usr/lib -l100000 gen1:1-rev22:21 > /tmp/kjv/kjv.txt
    python benchmarks/data/make_kjv_lm.py /tmp/kjv/kjv.txt /tmp/treexc-data/kjv_lm

``bible`` prints each chapter as a heading (``Genesis 1``) and its verses
(``  1 In the beginning ...``), one per line with ``-l100000``.  Split by
chapter, deterministically: of the 1,189 chapters in book order, number
``i`` goes to validation when ``i % 20 == 18``, to test when ``i % 20 ==
19``, to training otherwise (every book is in training; no chapter is
shared).  The folder gets ``kjv.train.txt``, ``kjv.valid.txt`` and
``kjv.test.txt``, which ``bench_lm.py --data`` reads.
"""

import argparse
import re
import sys
from pathlib import Path

VERSE = re.compile(r"^\s+\d+ (.*)$")
HEADING = re.compile(r"^\S.* \d+$")
TOKEN = re.compile(r"[a-z0-9]+|[^\sa-z0-9]")
SPLIT_EVERY = 20


def chapters(lines):
    """Lists of verse texts, one list per chapter, in order."""
    out = []
    for line in lines:
        line = line.rstrip("\n")
        if HEADING.match(line):
            out.append([])
        elif (m := VERSE.match(line)):
            if not out:
                raise ValueError(f"a verse before any chapter heading: {line[:60]!r}")
            out[-1].append(m.group(1))
        elif line.strip():
            raise ValueError(f"neither a heading nor a verse: {line[:60]!r}")
    return out


def split_of(i):
    r = i % SPLIT_EVERY
    return "valid" if r == SPLIT_EVERY - 2 else "test" if r == SPLIT_EVERY - 1 else "train"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("bible_text", help="the output of `bible -l100000 gen1:1-rev22:21`")
    p.add_argument("target", help="output folder (its name must end in _lm)")
    a = p.parse_args()
    dst = Path(a.target)
    if not dst.name.endswith("_lm"):
        sys.exit(f"{dst}: the target folder's name must end in _lm (bench_lm.py's convention)")
    with open(a.bible_text, encoding="utf-8") as f:
        try:
            chaps = chapters(f)
        except ValueError as e:
            sys.exit(f"{a.bible_text}: {e}")
    dst.mkdir(parents=True, exist_ok=True)
    name = dst.name[:-len("_lm")]
    files = {s: open(dst / f"{name}.{s}.txt", "w", encoding="utf-8")
             for s in ("train", "valid", "test")}
    tokens = dict.fromkeys(files, 0)
    for i, verses in enumerate(chaps):
        s = split_of(i)
        for verse in verses:
            words = TOKEN.findall(verse.lower())
            files[s].write(" ".join(words) + "\n")
            tokens[s] += len(words) + 1
    for f in files.values():
        f.close()
    print(f"{len(chaps)} chapters; tokens (with one </s> per verse): "
          + ", ".join(f"{s} {n:,}" for s, n in tokens.items()))


if __name__ == "__main__":
    main()
