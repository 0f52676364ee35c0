"""The word vector commands' options (``skipgram``, ``cbow``), with
fastText's names and defaults for its unsupervised mode.

Each field says its help, flags, checks and whether it is saved with the
model (``treexc.options``); the commands' flags and the Python API's
``train_unsupervised(**flags)`` derive from them.  No numpy or Numba here:
``treexc skipgram -h`` reads it.
"""

from dataclasses import dataclass

from ..errors import TreexcError
from ..loss.registry import KERNEL_NS, loss as loss_entry
from ..options import bad_option, check_fields, option, options_from_flags

MODELS = ("skipgram", "cbow")
LOSSES = ("ns", "hs", "softmax")
# the output trees -loss hs can train on (trees/builders, trees/learner)
VECTOR_TREES = ("huffman", "learned", "random")
DEFAULT_TREE = "huffman"  # docs/results/vectors.md, "The output tree of -loss hs"
# a learned tree's rebuilds, all in the first half of training (trees/learner)
TREE_UPDATES = 4


@dataclass
class VectorArgs:
    input: str = option("", "training file path (text; .gz accepted; - = stdin)",
                        saved=False, required=True)
    output: str = option("", "output file path, without extension (.bin and .vec are "
                         "written)", saved=False, required=True)
    model: str = option("skipgram", "the model: skipgram (a word predicts its context) or "
                        "cbow (the context predicts the word)", shape=True, choices=MODELS)
    lr: float = option(0.05, "learning rate", above=0.0)
    lrUpdateRate: int = option(100, "change the rate of updates for the learning rate "
                               "(tokens a thread trains between looks at the counters)",
                               at_least=1)
    dim: int = option(100, "size of word vectors", shape=True, at_least=1, at_most=100000)
    ws: int = option(5, "size of the context window (each word's is uniform in 1..ws)",
                     at_least=1)
    epoch: int = option(5, "number of epochs", at_least=1)
    minCount: int = option(5, "minimal number of word occurrences", at_least=1)
    minCountLabel: int = option(0, "minimal number of label occurrences (labels are not "
                                "trained on)", at_least=0)
    neg: int = option(5, "number of negatives sampled (loss ns)", at_least=1)
    wordNgrams: int = option(1, "max length of word ngram (unused by word vectors, as in "
                             "fastText)", shape=True, at_least=1)
    loss: str = option("ns", "loss function: ns (negative sampling, unigram^0.5 table), hs "
                       "(hierarchical softmax over the output tree -tree names), softmax "
                       "(over every word)", shape=True, choices=LOSSES)
    tree: str = option(DEFAULT_TREE, "output tree of -loss hs: huffman (fastText's), learned "
                       "(rebuilt by AssignLabels during the first half of training, starting "
                       "from the Huffman tree), random", shape=True, choices=VECTOR_TREES)
    arity: int = option(2, "output tree arity (-loss hs)", shape=True, at_least=2,
                        at_most=65536)
    treeUpdates: int = option(TREE_UPDATES, "learned tree: rebuilds in the first half of "
                              "training", at_least=1)
    bucket: int = option(2000000, "number of buckets for hashed character n-grams",
                         shape=True, at_least=0)
    minn: int = option(3, "min length of char ngram", shape=True, at_least=0)
    maxn: int = option(6, "max length of char ngram (0: no subword vectors)", shape=True,
                       at_least=0)
    thread: int = option(0, "number of threads (0 = all cores)", at_least=1)
    t: float = option(1e-4, "sampling threshold (frequent words are skipped with fastText's "
                      "probability 1 - sqrt(t/f) - t/f)", above=0.0)
    label: str = option("__label__", "labels prefix (tokens with it are left out)",
                        shape=True)
    verbose: int = option(2, "verbosity level: 0 silent, 1 summary, 2 progress", saved=False)
    cache: str = option("", "folder of the token cache (the training file encoded once, read "
                        "by every epoch; reused while input and options match); default: "
                        "a temporary folder", saved=False)
    saveOutput: bool = option(False, "also write the output matrix to OUTPUT.output",
                              saved=False)
    seed: int = option(0, "random generator seed; with -thread 1 training is reproducible")

    # what each -loss trains, read from its row of loss/registry
    @property
    def negative_sampling(self):
        return loss_entry(self.loss).kernel == KERNEL_NS

    @property
    def flat_softmax(self):
        return loss_entry(self.loss).tree == "flat"

    @property
    def tree_softmax(self):
        """A softmax over a tree of words (-loss hs; -tree picks the tree)."""
        return not (self.negative_sampling or self.flat_softmax)

    @property
    def learned(self):
        return self.tree_softmax and self.tree == "learned"


def validate(args):
    check_fields(args)
    if args.maxn and args.minn > args.maxn:
        bad_option("minn", args.minn, f"must be at most -maxn ({args.maxn})")
    if args.maxn and args.bucket == 0:
        bad_option("bucket", 0, "character n-grams (-maxn) need buckets")
    if not args.tree_softmax and args.tree != DEFAULT_TREE:
        raise TreexcError(f"-tree {args.tree}: only -loss hs has an output tree")
    return args


def make_vector_args(**flags):
    """VectorArgs from keyword flags, validated; without character n-grams
    the buckets are unused (fastText sets -bucket 0 then too)."""
    args = options_from_flags(VectorArgs, flags)
    if args.maxn == 0:
        args.bucket = 0
    return validate(args)
