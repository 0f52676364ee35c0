"""fastText's vector commands and model conversion: nn, analogies,
print-ngrams, convert.

``nn`` and ``analogies`` read words from standard input as fastText's
``std::cin >> word`` does (any ASCII white space between them, a triplet
may span lines), print fastText's prompts to standard output and answer
each query with ``word similarity`` lines; at the end of the input they
stop (fastText's ``analogies`` loops for ever there), ``analogies`` with a
warning if the input ended inside a triplet.
"""

import click

from ..errors import TreexcError
from .common import (
    NumberArgsCommand,
    check_output_writable,
    load_any_model,
    stdin_lines,
    write_stdout,
)

NN_PROMPT = "Query word? "
ANALOGIES_PROMPT = "Query triplet (A - B + C)? "


def _answers(neighbours):
    # imported here, not above: only a running command loads numpy and Numba
    from ..io.textio import printable

    return "".join(f"{printable(word)} {similarity:.6g}\n" for similarity, word in neighbours)


def _stdin_words():
    """Words of standard input as they arrive (``str``; bytes kept)."""
    # imported here, not above: only a running command loads numpy and Numba
    from ..io.textio import to_str

    for piece in stdin_lines():
        for word in piece.split():  # ASCII white space, as `cin >> word`
            yield to_str(word)


@click.command(cls=NumberArgsCommand)
@click.argument("model_path", metavar="MODEL")
@click.argument("k", type=int, default=10)
def nn(model_path, k):
    """Print the K (default 10) nearest neighbours of each word read from
    stdin: ``word cosine-similarity`` lines, after the prompt ``Query word?``."""
    # imported here, not above: only a running command loads numpy and Numba
    from ..text.neighbours import check_neighbour_count

    check_neighbour_count(k)
    model = load_any_model(model_path)
    write_stdout(NN_PROMPT)
    for word in _stdin_words():
        write_stdout(_answers(model.get_nearest_neighbors(word, k)) + NN_PROMPT)


@click.command(cls=NumberArgsCommand)
@click.argument("model_path", metavar="MODEL")
@click.argument("k", type=int, default=10)
def analogies(model_path, k):
    """Print the K (default 10) words nearest to A - B + C for each triplet
    ``A B C`` read from stdin, after the prompt ``Query triplet (A - B + C)?``."""
    # imported here, not above: only a running command loads numpy and Numba
    from ..text.neighbours import check_neighbour_count

    check_neighbour_count(k)
    write_stdout(f"Loading model {model_path}\n")
    model = load_any_model(model_path)
    write_stdout(ANALOGIES_PROMPT)
    triplet = []
    for word in _stdin_words():
        triplet.append(word)
        if len(triplet) == 3:
            write_stdout(_answers(model.get_analogies(*triplet, k=k)) + ANALOGIES_PROMPT)
            triplet = []
    if triplet:  # fastText would wait for the rest; a pipeline's input has ended
        # imported here, not above: only a running command loads numpy and Numba
        from ..io.textio import printable, warn

        warn(f"the input ended inside a triplet ({' '.join(map(printable, triplet))}): "
             "no answer for it; analogies reads three words a query")


@click.command("print-ngrams", cls=NumberArgsCommand)
@click.argument("model_path", metavar="MODEL")
@click.argument("word")
def print_ngrams(model_path, word):
    """Print WORD's subwords (the word itself if known, then its character
    n-grams) and the input vector of each."""
    # imported here, not above: only a running command loads numpy and Numba
    from ..io.textio import printable
    from ..io.vectors import format_vector

    model = load_any_model(model_path)
    if model.get_word_id(word) >= model.dictionary.nwords:  # its id would index a bucket row
        raise TreexcError(f"{printable(word)}: a label of {model_path}, not a word "
                          "(labels have no input vector)")
    strings, ids = model.get_subwords(word)
    write_stdout("".join(f"{printable(s)} {format_vector(model.get_input_vector(int(i)))}\n"
                         for s, i in zip(strings, ids)))


@click.command(cls=NumberArgsCommand)
@click.argument("model_path", metavar="FASTTEXT_MODEL")
@click.argument("output", metavar="OUTPUT")
def convert(model_path, output):
    """Convert a fastText model (.bin: supervised, skipgram or cbow) into a
    treexc model whose answers are fastText's, to the bit (treexc also
    loads the .bin itself).

    \b
    treexc convert model.bin model.treexc.bin
    """
    # imported here, not above: only a running command loads numpy and Numba
    from ..io.fasttext_model import starts_like_fasttext

    if not starts_like_fasttext(model_path):
        load_any_model(model_path)  # names what it is (missing, treexc's own, ...)
        raise TreexcError(f"{model_path}: a treexc model already; convert reads fastText's")
    check_output_writable(output, [output], flag="OUTPUT", inputs=[model_path])
    load_any_model(model_path).save_model(output)


COMMANDS = (nn, analogies, print_ngrams, convert)
