"""A small linear model's answers with Python alone: ``treexc test``,
``predict`` and ``predict-prob`` of a small input without importing numpy
(``cli/entry.py`` calls :func:`test_output` and :func:`predict_output`).

The answers are those of ``linear/firstlines.py`` (and so the kernels')
to the bit, by the same arithmetic in the same order:

* a line's features as ``firstlines.LinearFirstLines.encode_lines``
  (fastText's tokens, ``</s>`` at a newline, labels apart, word n-grams
  of the FNV-1a hashes, ``h * 116049371 + next``);
* its row as ``rows_of``: distinct kept columns ascending, ``(1 + ln tf)
  * idf`` in float64 (libm's log), the l2 norm summed in column order,
  values rounded to float32 (``array('f')``), the bias column last;
* the beam search as ``batch_beam.predict_tree``: a node's margins the
  float32 products (``array('f')`` rounds each) added in float64 in the
  row's column order, then the entry's; the scorer's log-score (libm's
  ``exp`` and ``log1p``); the beam and the answer the best by score, ties
  to the smaller id;
* ``test``'s figures as ``meter.Meter.from_predictions`` counts them.

``predict-prob`` prints ``exp`` of the log-scores with 6 digits: numpy's
``exp`` (the full command's) and libm's (here) may differ by one unit in
the last place, so a probability is printed here only where both of its
neighbours print the same; otherwise (about one in 10^6) the answer is
left to the full command, as is any NaN score (refused weights make none).
:class:`pure_file.Refused` from here means: run the full command.
"""

import math
import re
from array import array
from collections import Counter
from functools import reduce
from itertools import chain, compress, islice, repeat
from operator import add, eq, is_not, mul, sub

from .pure_file import Refused

_CONTROL = re.compile("[\x00-\x1f\x7f\x80-\x9f]")  # io/textio._CONTROL
MASK64 = (1 << 64) - 1
NGRAM_PRIME = 116049371


def fnv_hash(raw):
    """``text.line_features``: 32-bit FNV-1a over sign-extended bytes,
    widened as a signed int to 64 bits."""
    h = 2166136261
    if raw.isascii():
        for b in raw:
            h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    else:
        for b in raw:
            if b >= 128:
                b |= 0xFFFFFF00
            h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h | 0xFFFFFFFF00000000 if h >= 0x80000000 else h


EOS_HASH = fnv_hash(b"</s>")


def lines_of(model, data):
    """Each line of ``data`` (bytes, no NUL) as ``(n_features, gold_labels,
    features)`` (``features`` the input ids, in any order)."""
    ids, nwords, prefix, eos = model.ids, model.nwords, model.label_prefix, model.eos_id
    n_grams, bucket = model.word_ngrams, model.bucket
    if n_grams > 1 and bucket <= 0:
        raise Refused
    known = {b"\n": EOS_HASH}  # token -> hash
    hash_of = known.get
    lines = data.split(b"\n")
    ends = [True] * (len(lines) - 1)
    if lines[-1]:  # a last line without its newline: no </s>
        ends.append(False)
    else:
        lines.pop()
    out = []
    for line, has_eos in zip(lines, ends):
        # bytes.split(): fastText's separators but NUL (refused before)
        tokens = line.split()
        entries = list(map(ids.get, tokens, repeat(-1)))
        if entries and min(entries) >= 0 and max(entries) < nwords:  # words alone
            gold, words, feats = [], tokens, entries
        else:
            gold = [e - nwords for e in entries if e >= nwords]
            words = [t for t, e in zip(tokens, entries)
                     if e < nwords and (e >= 0 or not t.startswith(prefix))]
            feats = [e for e in entries if 0 <= e < nwords]
        if has_eos:
            if eos >= 0:
                feats.append(eos)
            words = words + [b"\n"]
        if n_grams > 1 and len(words) > 1:
            hashes = list(map(hash_of, words))
            if None in hashes:
                for i, h in enumerate(hashes):
                    if h is None:
                        hashes[i] = known[words[i]] = fnv_hash(words[i])
            hh = hashes
            for d in range(1, min(n_grams, len(hashes))):
                hh = [(a * NGRAM_PRIME + b) & MASK64 for a, b in zip(hh, hashes[d:])]
                feats.extend([nwords + h % bucket for h in hh])
        out.append((len(feats), gold, feats))
    return out


def row(model, feats):
    """``(columns, values)`` of a line's features (the bias column last)."""
    tf = Counter(map(model.column.get, feats))
    tf.pop(None, None)
    cols = sorted(tf)
    idf, log = model.idf, math.log
    values = list(map(mul, map(add, repeat(1.0), map(log, map(tf.__getitem__, cols))),
                      map(idf.__getitem__, cols)))
    norm = reduce(add, map(mul, values, values), 0.0)
    scale = 1.0 / math.sqrt(norm) if norm > 0.0 else 0.0
    vals = array("f", map(mul, values, repeat(scale))).tolist()
    cols.append(model.bias_column)
    vals.append(1.0)
    return cols, vals


class Scorer:
    """The beam search of one tree (``batch_beam.predict_tree``)."""

    def __init__(self, model):
        self.model = model
        self.arity = len(model.children[0])
        self.weights_of = {}  # node -> its _NodeWeights

    def margins(self, node, cols, vals):
        """The node's margins (``batch_beam._margins``): per slot the float32
        products, in the row's column order, then the column entry's, added
        in float64.  Each column's weights are its slots' (0.0 where it has
        none: +0.0 leaves a sum that starts at +0.0 as it is)."""
        weights = self.weights_of.get(node)
        if weights is None:
            weights = self.weights_of[node] = _NodeWeights(self.model.weights, node,
                                                           self.arity)
        arity = self.arity
        products = array("f", map(mul, chain.from_iterable(map(weights.__getitem__, cols)),
                                  chain.from_iterable(map(repeat, vals, repeat(arity)))))
        return [reduce(add, products[j::arity], 0.0) for j in range(arity)]

    def top(self, cols, vals, k, log_threshold):
        """``(labels, log_scores)`` of a row: the ``k`` best, cut at the
        first below ``log_threshold``."""
        m = self.model
        children, n_labels, sigmoid = m.children, m.n_labels, m.sigmoid
        pairs, found = [(0.0, 0)], []
        while pairs:
            inner = []
            for base, node in pairs:
                for child, zj in zip(children[node], self.margins(node, cols, vals)):
                    if child < 0:
                        continue
                    if sigmoid:
                        s = -math.log1p(math.exp(-zj)) if zj > -30.0 else zj
                    else:
                        h = 1.0 - zj
                        s = -h * h * h if h > 0.0 else 0.0
                    s = base + s
                    if s != s:
                        raise Refused  # NaN: the full command orders those
                    if child < n_labels:
                        found.append((-s, child))
                    else:
                        inner.append((-s, child - n_labels))
            inner.sort()
            pairs = [(-s, node) for s, node in inner[:m.beam]]
        found.sort()
        labels, scores = [], []
        for s, label in found[:k]:
            if -s < log_threshold:
                break
            labels.append(label)
            scores.append(-s)
        return labels, scores


class _NodeWeights(dict):
    """A node's weights by column, each column's made at its first use: the
    tuple of its slots' weights (0.0 where it has none); a column's entry
    that holds a slot twice leaves the node to the full command."""

    def __init__(self, weights, node, arity):
        super().__init__()
        node_off, cols, self.entry_off, self.slots, self.vals = weights
        lo, hi = node_off[node], node_off[node + 1]
        self.entry_of = dict(zip(cols[lo:hi], range(lo, hi)))
        self.arity = arity

    def __missing__(self, column):
        e = self.entry_of.get(column)
        out = [0.0] * self.arity
        if e is not None:
            a, b = self.entry_off[e], self.entry_off[e + 1]
            slots = self.slots[a:b]
            if len(set(slots)) != len(slots):
                raise Refused
            for j, w in zip(slots, self.vals[a:b]):
                out[j] = w
        self[column] = out = tuple(out)
        return out


def _k_and_log_threshold(model, k, threshold):
    k = model.n_labels if k == -1 else min(k, model.n_labels)
    return k, (math.log(threshold) if threshold > 0.0 else -math.inf)


def test_output(model, data, k, threshold):
    """``treexc test``'s output (bytes) for ``data``, K as given."""
    width, log_threshold = _k_and_log_threshold(model, k, threshold)
    scorer = Scorer(model)
    examples = predicted = gold_total = correct = 0
    for n_feats, gold, feats in lines_of(model, data):
        if not gold or not n_feats:  # fastText's meter counts neither
            continue
        labels, _ = scorer.top(*row(model, feats), width, log_threshold)
        examples += 1
        gold_total += len(gold)
        predicted += len(labels)
        golden = set(gold)
        correct += sum(label in golden for label in labels)
    precision = correct / predicted if predicted else math.nan
    recall = correct / gold_total if gold_total else math.nan
    return f"N\t{examples}\nP@{k}\t{precision:.3g}\nR@{k}\t{recall:.3g}\n".encode()


def predict_output(model, data, k, threshold, with_prob):
    """``treexc predict`` (``predict-prob``: ``with_prob``) output (bytes)
    for ``data`` (``io/answers.format_predictions``)."""
    names = []
    for key in model.labels:
        name = key.decode("utf-8", "surrogateescape")
        if _CONTROL.search(name):  # printed escaped: the full command's
            raise Refused
        names.append(key)
    width, log_threshold = _k_and_log_threshold(model, k, threshold)
    scorer = Scorer(model)
    out = []
    for _, _, feats in lines_of(model, data):
        labels, scores = scorer.top(*row(model, feats), width, log_threshold)
        if with_prob:
            out.append(b" ".join(names[j] + b" " + _probability(s)
                                 for j, s in zip(labels, scores)) + b"\n")
        elif width == 1:
            out.append((names[labels[0]] if labels else b"") + b"\n")
        else:
            out.append(b" ".join(names[j] for j in labels) + b"\n")
    return b"".join(out)


def _probability(log_score):
    """``f"{exp(s):.6g}"`` as the full command prints it (numpy's ``exp``),
    or :class:`Refused` where libm's and numpy's could print differently."""
    p = math.exp(log_score)
    shown = f"{p:.6g}"
    if f"{math.nextafter(p, math.inf):.6g}" != shown \
            or f"{math.nextafter(p, -math.inf):.6g}" != shown:
        raise Refused
    return shown.encode()
