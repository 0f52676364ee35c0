"""fastText's unsupervised commands: skipgram and cbow (word vectors).

The models they write answer the vector commands (print-word-vectors,
print-sentence-vectors, nn, analogies, print-ngrams, dump), and their
``.vec`` is what ``supervised -pretrainedVectors`` reads.
"""

import sys

import click

from ..vectors.options import VectorArgs
from .common import FastTextCommand, check_output_writable, option_flags


def _train(model_name, flags):
    # imported here, not above: only a running command loads numpy and Numba
    from ..io.publish import OutputSet, interrupt_on_signals
    from ..io.vectors import write_vec, write_vec_arrays
    from ..runtime import reporter_factory
    from ..vectors.options import make_vector_args
    from ..vectors.training import train_vectors

    flags["model"] = model_name
    args = make_vector_args(**flags)
    bin_path, vec_path, out_path = (args.output + ext for ext in (".bin", ".vec", ".output"))
    # published together, the .bin last (see publish.py)
    finals = ([out_path] if args.saveOutput else []) + [vec_path, bin_path]
    check_output_writable(args.output, finals, inputs=[args.input])
    outputs = OutputSet(finals)
    with interrupt_on_signals(), outputs:
        outputs.remove_stale()
        model = train_vectors(args, reporter_factory(args.verbose, sys.stderr)())
        outputs.write(bin_path, model.save_model)
        outputs.write(vec_path, lambda tmp: write_vec(tmp, model.dictionary.nwords, args.dim,
                                                      model.word_rows))
        if args.saveOutput:
            names = ([f"node{n}/{j}" for n in range(model.tree.n_internal)
                      for j in range(model.tree.arity)]
                     if model.tree is not None and args.tree_softmax else model.get_words())
            outputs.write(out_path, lambda tmp: write_vec_arrays(tmp, names, model.w_out))
        outputs.publish()


def _vector_command(name, doc):
    """The click command ``name``: VectorArgs' flags, less ``-model``."""

    def command(**flags):
        _train(name, flags)

    command.__doc__ = doc
    command.__name__ = name
    decorated = option_flags(VectorArgs)(command)
    cmd = click.command(name, cls=FastTextCommand,
                        context_settings={"show_default": False})(decorated)
    cmd.params = [p for p in cmd.params if p.name != "model"]
    return cmd


skipgram = _vector_command("skipgram", """Train word vectors: each word's vector and
    its character n-grams' predict the words around it (fastText's skipgram).

    \b
    treexc skipgram -input text.txt -output vectors
    treexc skipgram -input text.txt -output vectors -dim 300 -minn 2 -maxn 5
    treexc skipgram -input text.txt -output vectors -loss hs -tree learned
    """)

cbow = _vector_command("cbow", """Train word vectors: the mean of the vectors
    around a word predicts it (fastText's cbow).

    \b
    treexc cbow -input text.txt -output vectors
    """)

COMMANDS = (skipgram, cbow)
