"""Precision and recall as fastText's ``test`` and ``test-label`` count them.

Only lines with at least one label and one feature are examples.  Precision
is correct predictions over predictions made, recall correct predictions
over gold labels (a label repeated on a line counts twice, as in fastText).
"""

import math
from dataclasses import dataclass

import numpy as np


@dataclass
class Meter:
    n_examples: int
    n_predicted: int
    n_gold: int
    n_correct: int
    label_predicted: np.ndarray
    label_gold: np.ndarray
    label_correct: np.ndarray

    @classmethod
    def from_predictions(cls, corpus, labels, counts, n_labels):
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
            label_correct=np.bincount(pred_label[correct], minlength=n_labels))

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
