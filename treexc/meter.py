"""Precision and recall as fastText's ``test`` and ``test-label`` count them.

Only lines with at least one label and one feature are examples.  Precision
is correct predictions over predictions made, recall correct predictions
over gold labels (a label repeated on a line counts twice, as in fastText).

Autotune's metrics (fastText's ``Meter``): F1 over all predictions, and the
precision-recall curve swept by a threshold on the predictions'
probabilities, for all labels or one: the best precision at a least recall,
the best recall at a least precision.
"""

import math
from dataclasses import dataclass

import numpy as np

from .metrics import ranking_metrics


@dataclass
class Meter:
    n_examples: int
    n_predicted: int
    n_gold: int
    n_correct: int
    label_predicted: np.ndarray
    label_gold: np.ndarray
    label_correct: np.ndarray
    # per prediction (flattened), for the curves: label, probability, correct
    pred_label: np.ndarray = None
    pred_prob: np.ndarray = None
    pred_correct: np.ndarray = None

    @classmethod
    def from_predictions(cls, corpus, labels, counts, n_labels, log_probs=None):
        """``log_probs`` (the predictions' log-probabilities, as
        ``Model.predict_corpus`` returns them) are needed by the curves only."""
        n_gold_per_line = np.diff(corpus.label_off)
        has_feats = np.diff(corpus.feat_off) > 0
        example = (n_gold_per_line > 0) & has_feats
        lines = np.flatnonzero(example)
        k = labels.shape[1]
        # predictions of example lines, flattened
        valid = np.arange(k)[None, :] < counts[lines, None]
        pred_line = np.repeat(lines, k).reshape(-1, k)[valid]
        pred_label = labels[lines][valid]
        # gold labels of example lines
        gold_line = np.repeat(np.arange(corpus.n_lines), n_gold_per_line)
        gold_label = corpus.labels.astype(np.int64)
        keep = example[gold_line]
        gold_line, gold_label = gold_line[keep], gold_label[keep]
        correct = np.isin(pred_line * n_labels + pred_label, gold_line * n_labels + gold_label)
        return cls(
            n_examples=len(lines), n_predicted=len(pred_label), n_gold=len(gold_label),
            n_correct=int(correct.sum()),
            label_predicted=np.bincount(pred_label, minlength=n_labels),
            label_gold=np.bincount(gold_label, minlength=n_labels),
            label_correct=np.bincount(pred_label[correct], minlength=n_labels),
            pred_label=pred_label, pred_correct=correct,
            pred_prob=None if log_probs is None
            else np.minimum(np.exp(log_probs[lines][valid]), 1.0))

    def precision(self):
        return self.n_correct / self.n_predicted if self.n_predicted else math.nan

    def recall(self):
        return self.n_correct / self.n_gold if self.n_gold else math.nan

    def label_precision(self, i):
        p = self.label_predicted[i]
        return self.label_correct[i] / p if p else math.nan

    def label_recall(self, i):
        g = self.label_gold[i]
        return self.label_correct[i] / g if g else math.nan

    def label_f1(self, i):
        p, r = self.label_precision(i), self.label_recall(i)
        if math.isnan(p) or math.isnan(r) or p + r == 0:
            return math.nan
        return 2 * p * r / (p + r)

    def f1(self):
        """F1 of precision and recall over all labels (NaN when both are 0)."""
        p, r = self.precision(), self.recall()
        if math.isnan(p) or math.isnan(r) or p + r == 0:
            return math.nan
        return 2 * p * r / (p + r)

    def precision_recall_curve(self, label=None):
        """``(precision, recall)`` arrays of the thresholds between the
        predictions' probabilities, from the highest down (tied
        probabilities are one point), up to the first reaching full recall,
        then the point (1, 0), as fastText's.  Over all labels, or the
        predictions of ``label`` (an id) and its gold count."""
        if self.pred_prob is None:
            raise ValueError("the curve needs the predictions' probabilities")
        mine = slice(None) if label is None else self.pred_label == label
        prob, correct = self.pred_prob[mine], self.pred_correct[mine]
        golds = self.n_gold if label is None else int(self.label_gold[label])
        if len(prob) == 0:  # no predictions: no curve at all (fastText's too)
            return np.zeros(0), np.zeros(0)
        order = np.argsort(-prob, kind="stable")
        prob, correct = prob[order], correct[order]
        tp = np.cumsum(correct)
        fp = np.cumsum(~correct)
        # the last prediction of each group of equal probabilities
        ends = np.flatnonzero(np.append(prob[1:] != prob[:-1], True))
        tp, fp = tp[ends], fp[ends]
        full = np.flatnonzero(tp >= golds)
        if len(full):
            tp, fp = tp[:full[0] + 1], fp[:full[0] + 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            precision = np.where(tp + fp > 0, tp / np.maximum(tp + fp, 1), 0.0)
            recall = tp / golds if golds else np.full(len(tp), math.nan)
        return np.append(precision, 1.0), np.append(recall, 0.0)

    def precision_at_recall(self, recall, label=None):
        """Best precision among the curve's points of recall >= ``recall`` (0 if none)."""
        precision, recalls = self.precision_recall_curve(label)
        reached = precision[recalls >= recall]
        return float(reached.max()) if len(reached) else 0.0

    def recall_at_precision(self, precision, label=None):
        """Best recall among the curve's points of precision >= ``precision``."""
        precisions, recalls = self.precision_recall_curve(label)
        reached = recalls[precisions >= precision]
        reached = reached[~np.isnan(reached)]
        return float(reached.max()) if len(reached) else 0.0


def ranking(corpus, labels, counts, label_counts, n_train, k, metrics, A, B):
    """The ranking metrics ``metrics`` (treexc.metrics) of predictions
    ``labels``/``counts`` of ``corpus``, on the lines fastText's meter counts
    (a label and a feature), keyed as ``test`` prints them (``k`` as given:
    -1 is every label)."""
    width = labels.shape[1]
    found = ranking_metrics(metrics, labels, counts, corpus.label_off, corpus.labels, width,
                            label_counts, n_train, A, B,
                            examples=np.diff(corpus.feat_off) > 0)
    return {name.replace(f"@{width}", f"@{k}"): value for name, value in found.items()}
