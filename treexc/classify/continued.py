"""Continued training (``-inputModel``): an embedding model, treexc's or a
converted fastText ``.bin``, trained further on new data.

* **Options.**  The options that shape the model (``shape_names(Args)``:
  ``-dim``, ``-wordNgrams``, ``-bucket``, ``-minn``, ``-maxn``, ``-loss``,
  ``-arity``, ``-maxDepth``, ``-label``, and ``-tree``) are the input
  model's; one given with another value is refused.  The others are what
  the user gives now, defaults as for a new run: the rate restarts from
  ``-lr`` (or the default rule on the new data) and decays over this run.
* **Dictionary.**  The input model's entries keep their ids; the new
  data's words (by ``-minCount`` in the new data) and labels (by
  ``-minCountLabel``) not in it follow its words and its labels, most
  frequent first; counts add up.  The text is encoded with this
  dictionary (``text/token_cache.encoded_with``).
* **Input rows.**  Old word and n-gram bucket rows are kept (the buckets
  are shared already); a new word's row starts as fastText starts input
  rows, uniform in [-1/dim, 1/dim].
* **Output layer.**  A flat softmax, ``ova`` and ``ns`` gain zero rows;
  a tree gains leaves (``trees/growth``): AssignLabels places the new
  labels of a learned tree, a fixed tree (``hs``, a PLT's Huffman tree)
  grafts them where its rarest label was.
"""

from dataclasses import dataclass, replace

import numpy as np

from ..errors import TreexcError
from ..io.textio import display_name
from ..loss.registry import AUTO, learns_tree, loss
from ..options import shape_names
from ..text.dictionary import Dictionary
from ..text.label_lines import count_with_label_lines
from ..text.token_cache import encoded_with
from ..trees import growth
from ..trees.capacity import CLASSIFIER_FLAGS
from ..trees.learner import remap_rows
from .model import load_model
from .options import Args, validate
from .plan_rules import MASS_SLACK, usual_tree
from .training import init_input_matrix, train_on_corpus

# what a model's shape is made of: the options model files must hold, and the tree
SHAPE = (*shape_names(Args), "tree")
OWN_TREE = "(the loss's own)"  # -tree "" in a refusal


def capacity_of(arity, depth):
    """The labels a tree of ``arity`` holds under a depth limit (0: any)."""
    return arity ** depth if depth > 0 else np.iinfo(np.int64).max


def continue_training(path, args, given, reporter, family):
    """The model of ``path`` trained further on ``args.input``; ``args``:
    the options as typed (``make_args``), ``given``: the fields the user
    gave (their values checked against the model's shape); ``family``: the
    family's Choice, the plan's first row."""
    old = load_model(path)
    if old.is_quantized():
        raise TreexcError(f"-inputModel {path}: a quantised model cannot be trained further "
                          "(its rows are codes): continue from the model before quantize")
    args = continued_args(old.args, args, given, path)
    name = display_name(args.input)
    new = count_with_label_lines(args, name)[0]
    dictionary, n_words, n_labels = merged_dictionary(old.dictionary, new)
    reporter.info(f"Continuing {path}: {n_words} new words, {n_labels} new labels")
    start = Continuation(path, old, dictionary, new_label_counts(dictionary, new), reporter)
    with encoded_with(dictionary, args.input) as corpus:
        reporter.info(f"Read {corpus.token_count() // 1000000}M words")
        reporter.info(f"Number of words:  {dictionary.nwords}")
        reporter.info(f"Number of labels: {dictionary.nlabels}")
        corpus.report_bare_lines(name)
        return train_on_corpus(args, reporter, None, dictionary, corpus, None, start=start,
                               family=family)


def _same(name, typed, old):
    """Whether shape option ``name`` as typed means the model's value."""
    if name == "loss":
        return typed.loss in (AUTO, old.loss) or loss(typed.loss).name == old.loss
    if name == "arity":
        return typed.arity in (0, old.arity)
    if name == "maxDepth":
        return typed.maxDepth in (-1, old.maxDepth)
    if name == "tree":
        return (typed.tree if typed.tree != usual_tree(old.loss) else "") == old.tree
    return getattr(typed, name) == getattr(old, name)


def continued_args(old, typed, given, path):
    """``typed`` with the shape options of ``old`` (the input model's),
    refusing one given with another value."""
    if typed.input == "-":
        raise TreexcError("-inputModel reads -input twice (count, then encode): give a "
                          "file, not standard input")
    for flag, why in (("pretrainedVectors", "its words have vectors already"),
                      ("cache", "the text is encoded with the input model's dictionary")):
        if getattr(typed, flag):
            raise TreexcError(f"-{flag}: not with -inputModel ({why})")
    given = {"maxDepth" if name == "depth" else name for name in given}
    for name in SHAPE:
        value, trained = getattr(typed, name), getattr(old, name)
        if name in given and not _same(name, typed, old):
            raise TreexcError(
                f"-{name} {value}: {path} was trained with -{name} "
                f"{trained if trained != '' else OWN_TREE}; "
                f"the options that shape a model ({', '.join('-' + n for n in SHAPE)}) are "
                "the input model's: leave them out")
    args = replace(typed, **{name: getattr(old, name) for name in SHAPE}, depth=0)
    if args.maxDepth == -1 and args.massSlack < 0 and learns_tree(args.loss, args.tree):
        # the usual cap, given: the plan keeps the model's depth (no -arity rule)
        args = replace(args, massSlack=MASS_SLACK)
    return validate(args)


def merged_dictionary(old, new):
    """``(dictionary, new words, new labels)``: ``old``'s entries, then
    ``new``'s words it lacks after its words and ``new``'s labels it lacks
    after its labels; every entry's count the sum of both."""
    index = {old.entry_bytes(i): i for i in range(len(old.entry_off))}
    counts = old.counts.copy()
    added_words, added_labels = [], []
    for i in range(len(new.entry_off)):
        entry = new.entry_bytes(i)
        j = index.get(entry)
        if j is not None:
            counts[j] += new.counts[i]
        else:
            (added_words if i < new.nwords else added_labels).append((entry, new.counts[i]))
    nw = old.nwords
    blobs = [entry for entry, _ in added_words + added_labels]
    lens = np.array([len(b) for b in blobs], dtype=np.int32)
    offs = len(old.pool) + np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.int64)
    w, n_w = len(added_words), len(added_words) + len(added_labels)
    added_counts = np.array([c for _, c in added_words + added_labels], dtype=np.int64)
    dictionary = Dictionary(
        np.concatenate([old.pool, np.frombuffer(b"".join(blobs), dtype=np.uint8)]),
        np.concatenate([old.entry_off[:nw], offs[:w], old.entry_off[nw:], offs[w:n_w]]),
        np.concatenate([old.entry_len[:nw], lens[:w], old.entry_len[nw:], lens[w:n_w]]),
        np.concatenate([counts[:nw], added_counts[:w], counts[nw:], added_counts[w:n_w]]),
        nw + w, old.label_prefix, old.word_ngrams, old.bucket, old.minn, old.maxn)
    return dictionary, w, n_w - w


def new_label_counts(dictionary, new):
    """The new data's count of each label of ``dictionary`` (0 for a label
    only the input model knew): what the plan reads of the labels."""
    index = {new.entry_bytes(i): i for i in range(new.nwords, len(new.entry_off))}
    return np.array([new.counts[index[dictionary.entry_bytes(i)]]
                     if dictionary.entry_bytes(i) in index else 0
                     for i in range(dictionary.nwords, len(dictionary.entry_off))],
                    dtype=np.int64)


@dataclass
class Continuation:
    """The input model grown to the merged dictionary, the start of each
    training run of ``train_on_corpus`` (a run that diverges starts again
    from it).  ``label_counts``: the new data's, for the plan."""
    path: str
    old: object
    dictionary: Dictionary
    label_counts: np.ndarray
    reporter: object
    _grown: tuple = None

    def weights(self, args, run_plan):
        """``(w_in, tree, w_out)`` to train, fresh copies, for the planned
        ``args`` (the input model's shape: checked)."""
        for name in SHAPE:
            if getattr(args, name) != getattr(self.old.args, name):
                raise TreexcError(f"-inputModel: the plan changed -{name} "
                                  f"({getattr(self.old.args, name)} -> {getattr(args, name)})")
        if self._grown is None:
            self._grown = (self._input_rows(args), *self._output(args, run_plan))
        w_in, tree, w_out = self._grown
        return w_in.copy(), tree, w_out.copy()

    def _input_rows(self, args):
        old, d = self.old, self.dictionary
        old_nw, nw = old.dictionary.nwords, d.nwords
        w_in = np.empty((nw + args.bucket, args.dim), dtype=np.float32)
        w_in[:old_nw] = old.w_in[:old_nw]
        w_in[old_nw:nw] = init_input_matrix(nw - old_nw, args.dim, args.seed)
        w_in[nw:] = old.w_in[old_nw:]
        return w_in

    def _output(self, args, run_plan):
        """``(tree, w_out)`` with the new labels' leaves or rows."""
        old = self.old
        n_labels = self.dictionary.nlabels
        n_new = n_labels - old.nlabels
        w_out = np.asarray(old.w_out)
        tree = old.tree
        if n_new == 0:
            return tree, w_out
        if tree is None:  # ova, ns: a row per label
            return None, np.vstack([w_out, np.zeros((n_new, args.dim), np.float32)])
        entry = loss(args.loss)
        counts = self.dictionary.label_counts
        if entry.tree == "flat":
            grown, old_id = growth.flat_grown(tree, n_labels)
            return grown, np.vstack([w_out, np.zeros((n_new, args.dim), np.float32)])
        if learns_tree(args.loss, args.tree):
            holds = capacity_of(tree.arity, max(args.maxDepth, 0))
            if holds < n_labels:
                raise TreexcError(
                    f"-inputModel {self.path}: its tree (arity {tree.arity}, depth at most "
                    f"{args.maxDepth}) holds {holds} labels, fewer than the {n_labels} with "
                    "the new data's; its shape cannot change: train a new model")
            # no mass cap here: the counts have changed since the tree was
            # learned, and under the cap AssignLabels without statistics moved
            # 573 of cooking's 701 old labels out of their trained slots (2
            # without); the run's rebuilds apply it, with statistics
            grown, old_id = growth.assigned(tree, counts, max(args.maxDepth, 0), 0.0,
                                            CLASSIFIER_FLAGS)
            how = "placed by AssignLabels (no statistics yet)"
        else:
            grown, old_id = growth.grafted(tree, counts)
            how = "grafted at the rarest label's leaf (a fixed tree)"
        self.reporter.info(f"tree: {n_new} new labels {how}; "
                           f"{growth.moved_labels(tree, grown)} old labels moved")
        return grown, remap_rows(w_out, old_id, tree.arity, tree.n_internal)
