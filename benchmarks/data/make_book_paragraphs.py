"""A single-label classification set with many, equally frequent labels:
the book a paragraph comes from, from ``../shared/data/gutenberg_lm``'s
training split (its ``gutenberg.books.tsv`` gives each book's paragraph
count, in the order of ``gutenberg.train.txt``).

    python benchmarks/data/make_book_paragraphs.py --out /tmp/treexc-data/bookpar

Label = ``__label__`` + the book's key (``pg26041``), input = the paragraph
as tokenised there.  Only paragraphs of ``--min-words`` words or more count;
a book with fewer than 40 of them is left out.  Each book's paragraphs are
shuffled (seeded); its first 10 go to test, the next 10 to valid and the
next ``--per-book`` (at most) to training; each split is then shuffled.
With the defaults: 778 books, 109,730 training lines (the check of
the wide root, docs/trees.md, "A wide root for even, many-lined labels").
"""

import argparse
import random
from pathlib import Path

HELD_OUT, MIN_PARAGRAPHS = 10, 40


def read_books(data):
    """``(key, paragraph count)`` of the training split's books, in order."""
    with open(data / "gutenberg.books.tsv", encoding="utf-8", newline="\n") as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    return [(row[1], int(row[5])) for row in rows if row[0] == "train"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("/tmp/treexc-data/gutenberg_lm"),
                        help="unpacked gutenberg_lm (gutenberg.train.txt, gutenberg.books.tsv)")
    parser.add_argument("--out", type=Path, required=True, help="output folder (created)")
    parser.add_argument("--name", default="bookpar", help="files are OUT/NAME.SPLIT.txt")
    parser.add_argument("--per-book", type=int, default=150, help="training lines a book")
    parser.add_argument("--min-words", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    splits = {"train": [], "valid": [], "test": []}
    # newline="\n": a paragraph may hold a carriage return, which is no line end here
    with open(args.data / "gutenberg.train.txt", encoding="utf-8", newline="\n") as text:
        for key, count in read_books(args.data):
            paragraphs = [p for p in (next(text).strip() for _ in range(count))
                          if len(p.split()) >= args.min_words]
            if len(paragraphs) < MIN_PARAGRAPHS:
                continue
            rng.shuffle(paragraphs)
            lines = [f"__label__{key} {p}" for p in paragraphs]
            splits["test"] += lines[:HELD_OUT]
            splits["valid"] += lines[HELD_OUT:2 * HELD_OUT]
            splits["train"] += lines[2 * HELD_OUT:2 * HELD_OUT + args.per_book]
    args.out.mkdir(parents=True, exist_ok=True)
    for split, lines in splits.items():
        rng.shuffle(lines)
        (args.out / f"{args.name}.{split}.txt").write_text("\n".join(lines) + "\n",
                                                           encoding="utf-8")
    print(" ".join(f"{split} {len(lines)}" for split, lines in splits.items()))


if __name__ == "__main__":
    main()
