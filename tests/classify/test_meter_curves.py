"""Autotune's metrics (classify/meter.py) against hand-computed values.

Four lines, three labels, two predictions a line (label, probability,
correct?):

    line 0  gold {0}     (0, .9, yes) (1, .05, no)
    line 1  gold {1, 2}  (1, .6, yes) (0, .3, no)
    line 2  gold {2}     (0, .5, no)  (2, .4, yes)
    line 3  gold {0}     (2, .7, no)  (0, .2, yes)

8 predictions, 4 correct, 5 gold labels: precision 1/2, recall 4/5.
All labels by probability: .9 y, .7 n, .6 y, .5 n, .4 y, .3 n, .2 y, .05 n;
the curve's points (precision, recall): (1, .2) (.5, .2) (2/3, .4) (.5, .4)
(.6, .6) (.5, .6) (4/7, .8) (.5, .8), and (1, 0).
Label 0 (gold twice): .9 y, .5 n, .3 n, .2 y: (1, .5) (.5, .5) (1/3, .5) (.5, 1).
"""

import math
from types import SimpleNamespace

import numpy as np
import pytest

from treexc.meter import Meter
from treexc.classify.options import parse_metric
from treexc.errors import TreexcError


def meter_of(gold, predictions, n_labels):
    """A Meter from gold label lists and (label, probability) lists per line."""
    k = max(len(p) for p in predictions)
    n = len(gold)
    labels = np.zeros((n, k), dtype=np.int64)
    log_probs = np.zeros((n, k))
    counts = np.array([len(p) for p in predictions])
    for i, line in enumerate(predictions):
        for j, (label, prob) in enumerate(line):
            labels[i, j], log_probs[i, j] = label, math.log(prob)
    corpus = SimpleNamespace(
        n_lines=n, feat_off=np.arange(n + 1), labels=np.array(sum(gold, []), dtype=np.int32),
        label_off=np.cumsum([0] + [len(g) for g in gold]))
    return Meter.from_predictions(corpus, labels, counts, n_labels, log_probs)


@pytest.fixture
def meter():
    return meter_of([[0], [1, 2], [2], [0]],
                    [[(0, .9), (1, .05)], [(1, .6), (0, .3)], [(0, .5), (2, .4)],
                     [(2, .7), (0, .2)]], 3)


def test_f1(meter):
    assert meter.precision() == 0.5 and meter.recall() == 0.8
    assert meter.f1() == pytest.approx(2 * 0.5 * 0.8 / 1.3)
    # label 0: 4 predicted, 2 correct, 2 gold: precision 1/2, recall 1
    assert meter.label_f1(0) == pytest.approx(2 / 3)


def test_curve(meter):
    precision, recall = meter.precision_recall_curve()
    assert precision == pytest.approx([1, .5, 2 / 3, .5, .6, .5, 4 / 7, .5, 1])
    assert recall == pytest.approx([.2, .2, .4, .4, .6, .6, .8, .8, 0])
    precision, recall = meter.precision_recall_curve(label=0)
    assert precision == pytest.approx([1, .5, 1 / 3, .5, 1])
    assert recall == pytest.approx([.5, .5, .5, 1, 0])


def test_precision_at_recall(meter):
    assert meter.precision_at_recall(0.6) == pytest.approx(0.6)
    assert meter.precision_at_recall(0.3) == pytest.approx(2 / 3)
    assert meter.precision_at_recall(0.9) == 0.0   # never reached
    assert meter.precision_at_recall(1.0, label=0) == pytest.approx(0.5)
    assert meter.precision_at_recall(0.5, label=0) == 1.0
    assert meter.precision_at_recall(0.5, label=2) == pytest.approx(0.5)  # .7 n, .4 y


def test_recall_at_precision(meter):
    assert meter.recall_at_precision(0.6) == pytest.approx(0.6)
    assert meter.recall_at_precision(0.7) == pytest.approx(0.2)
    assert meter.recall_at_precision(0.5, label=0) == 1.0
    assert meter.recall_at_precision(0.6, label=0) == 0.5
    assert meter.recall_at_precision(0.6, label=2) == 0.0  # only the (1, 0) point


def test_tied_probabilities_are_one_threshold():
    # the two predictions of equal probability are kept or dropped together:
    # no threshold keeps the correct one alone (precision 1 at recall 1)
    m = meter_of([[0]], [[(1, .5), (0, .5)]], 2)
    precision, recall = m.precision_recall_curve()
    assert precision.tolist() == [0.5, 1.0] and recall.tolist() == [1.0, 0.0]
    assert m.precision_at_recall(1.0) == 0.5


def test_no_predictions_no_curve():
    m = meter_of([[0]], [[(1, .5)]], 2)
    assert m.precision_at_recall(0.1, label=0) == 0.0
    assert m.recall_at_precision(0.1, label=0) == 0.0


def test_parse_metric():
    assert parse_metric("f1") == ("f1", 0.0, "")
    assert parse_metric("f1:__label__x") == ("f1", 0.0, "__label__x")
    assert parse_metric("precisionAtRecall:30") == ("precisionAtRecall", 0.3, "")
    assert parse_metric("recallAtPrecision:50:__label__a:b") == \
        ("recallAtPrecision", 0.5, "__label__a:b")


@pytest.mark.parametrize("text, why", [
    ("f2", "unknown metric"), ("f1:", "label after f1: is empty"),
    ("precisionAtRecall", "not a percentage"), ("precisionAtRecall:", "not a percentage"),
    ("precisionAtRecall:abc", "not a percentage"), ("recallAtPrecision:120", "between 0 and 100"),
    ("recallAtPrecision:nan", "between 0 and 100"),
    ("precisionAtRecall:30:", "label after the percentage is empty")])
def test_bad_metrics_refused(text, why):
    with pytest.raises(TreexcError, match=why) as e:
        parse_metric(text)
    assert "\n" not in str(e.value) and str(e.value).startswith(f"-autotune-metric {text}:")
