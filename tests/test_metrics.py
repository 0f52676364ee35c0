"""nDCG@k and propensity-scored P@k (treexc/metrics.py), and `treexc test
-metrics`: against hand-computed values and a brute-force reference."""

import math

import numpy as np
import pytest

import treexc
from tests.cli_util import ok, user_error
from treexc.errors import TreexcError
from treexc.metrics import check_metrics, ndcg_at_k, propensities, psp_at_k, ranking_metrics


def csr(gold):
    """CSR arrays of a list of gold label lists."""
    off = np.concatenate([[0], np.cumsum([len(g) for g in gold])]).astype(np.int64)
    return off, np.array([x for g in gold for x in g], dtype=np.int64)


def brute_ndcg(top, made, gold, k, examples=None):
    scores = []
    for i, (row, g) in enumerate(zip(top, gold)):
        g = set(g)
        if not g or (examples is not None and not examples[i]):
            continue
        dcg = sum(1 / math.log2(r + 2) for r, x in enumerate(row[:min(k, made[i])]) if x in g)
        ideal = sum(1 / math.log2(r + 2) for r in range(min(k, len(g))))
        scores.append(dcg / ideal)
    return sum(scores) / len(scores) if scores else math.nan


def brute_psp(top, made, gold, k, p, examples=None):
    gained = best = 0.0
    for i, (row, g) in enumerate(zip(top, gold)):
        g = set(g)
        if not g or (examples is not None and not examples[i]):
            continue
        gained += sum(1 / p[x] for x in row[:min(k, made[i])] if x in g)
        best += sum(sorted((1 / p[x] for x in g), reverse=True)[:k])
    return gained / best if best else math.nan


# two lines, four labels: line 0 has gold {1, 3}, line 1 gold {2}
TOP = np.array([[1, 0, 3], [0, 2, 1]])
MADE = np.array([3, 3])
GOLD = [[1, 3], [2]]
P = np.array([0.5, 0.25, 0.8, 0.1])  # 1/p: 2, 4, 1.25, 10


def test_ndcg_by_hand():
    off, labels = csr(GOLD)
    # line 0: DCG@3 = 1 + 1/log2(4) = 1.5 over 1 + 1/log2(3); line 1: 1/log2(3) over 1
    expected = ((1.5 / (1 + 1 / math.log2(3))) + 1 / math.log2(3)) / 2
    assert ndcg_at_k(TOP, MADE, off, labels, 3) == pytest.approx(expected, abs=1e-12)
    assert expected == pytest.approx(0.775325, abs=1e-6)
    # @1: line 0 right (1), line 1 wrong (0)
    assert ndcg_at_k(TOP, MADE, off, labels, 1) == pytest.approx(0.5)


def test_psp_by_hand():
    off, labels = csr(GOLD)
    # @1: line 0 finds label 1 (1/p = 4); the best would be label 3 (10) and label 2 (1.25)
    assert psp_at_k(TOP, MADE, off, labels, 1, P) == pytest.approx(4 / 11.25)
    # @3: every gold label is found: the best possible
    assert psp_at_k(TOP, MADE, off, labels, 3, P) == pytest.approx(1.0)
    # @2: line 0 finds label 1 (4) of its best 10 + 4; line 1 finds label 2 (1.25)
    assert psp_at_k(TOP, MADE, off, labels, 2, P) == pytest.approx(5.25 / 15.25)


def test_propensities_by_hand():
    # N = 100 lines, a label seen 10 times: C = (ln 100 - 1) 2.5^0.55 = 5.9676
    assert propensities([10], 100)[0] == pytest.approx(0.39102, abs=1e-4)
    p = propensities([1, 10, 100, 10 ** 6], 10 ** 6, A=0.55, B=1.5)
    assert np.all(np.diff(p) > 0) and 0.98 < p[-1] < 1
    c = (math.log(1000) - 1) * (2.0 + 1) ** 0.6
    assert propensities([7], 1000, A=0.6, B=2.0)[0] == pytest.approx(1 / (1 + c * 9 ** -0.6))


def random_problem(rng, n_lines, n_labels, width):
    top = np.array([rng.permutation(n_labels)[:width] for _ in range(n_lines)])
    made = rng.integers(0, width + 1, size=n_lines)
    top[np.arange(width)[None, :] >= made[:, None]] = -1  # padding, never read
    gold = [rng.integers(0, n_labels, size=rng.integers(0, 5)).tolist()
            for _ in range(n_lines)]  # repeats and empty lines included
    return top, made, gold


@pytest.mark.parametrize("seed", range(8))
def test_against_brute_force(seed):
    rng = np.random.default_rng(seed)
    n_labels = int(rng.integers(2, 12))
    width = int(rng.integers(1, n_labels + 1))
    top, made, gold = random_problem(rng, 40, n_labels, width)
    p = propensities(rng.integers(1, 50, size=n_labels), 500)
    examples = rng.random(40) < 0.8
    off, labels = csr(gold)
    for k in range(1, width + 3):  # k above the predictions' width too
        assert ndcg_at_k(top, made, off, labels, k) == pytest.approx(
            brute_ndcg(top, made, gold, k), nan_ok=True)
        assert psp_at_k(top, made, off, labels, k, p) == pytest.approx(
            brute_psp(top, made, gold, k, p), nan_ok=True)
        assert ndcg_at_k(top, made, off, labels, k, examples) == pytest.approx(
            brute_ndcg(top, made, gold, k, examples), nan_ok=True)
        assert psp_at_k(top, made, off, labels, k, p, examples) == pytest.approx(
            brute_psp(top, made, gold, k, p, examples), nan_ok=True)


def test_k_above_the_labels():
    """Three labels, every one predicted, k = 5: a perfect ranking scores 1."""
    top, made = np.array([[2, 0, 1], [1, 2, 0]]), np.array([3, 3])
    off, labels = csr([[2, 0], [1]])
    p = propensities([3, 5, 9], 20)
    assert ndcg_at_k(top, made, off, labels, 5) == pytest.approx(1.0)
    assert psp_at_k(top, made, off, labels, 5, p) == pytest.approx(1.0)
    # a gold label ranked third: k = 5 reads it as k = 3 does
    off, labels = csr([[1], [0]])
    assert ndcg_at_k(top, made, off, labels, 5) == ndcg_at_k(top, made, off, labels, 3)
    assert ndcg_at_k(top, made, off, labels, 5) == pytest.approx(
        (1 / math.log2(4) + 1 / math.log2(4)) / 2)


def test_lines_without_gold_labels_are_left_out():
    off, labels = csr(GOLD)
    with_empty = np.vstack([TOP, [[3, 2, 1]]])
    off2, labels2 = csr(GOLD + [[]])
    made2 = np.array([3, 3, 3])
    assert ndcg_at_k(with_empty, made2, off2, labels2, 3) == ndcg_at_k(TOP, MADE, off, labels, 3)
    assert psp_at_k(with_empty, made2, off2, labels2, 2, P) == psp_at_k(TOP, MADE, off, labels,
                                                                        2, P)
    off3, labels3 = csr([[], []])
    assert math.isnan(ndcg_at_k(TOP, MADE, off3, labels3, 3))
    assert math.isnan(psp_at_k(TOP, MADE, off3, labels3, 3, P))


def test_names_and_parameters():
    off, labels = csr(GOLD)
    out = ranking_metrics("psp,ndcg", TOP, MADE, off, labels, 2, [4, 2, 9, 1], 50)
    assert list(out) == ["PSP@2", "nDCG@2"]
    assert out["PSP@2"] == psp_at_k(TOP, MADE, off, labels, 2, propensities([4, 2, 9, 1], 50))
    assert check_metrics(["ndcg", "ndcg"]) == ("ndcg",)
    with pytest.raises(TreexcError, match="unknown metric 'p@k'"):
        check_metrics("ndcg,p@k")
    with pytest.raises(TreexcError, match="-B"):
        check_metrics("psp", B=-1)
    with pytest.raises(TreexcError, match="-A"):
        check_metrics("psp", A=float("nan"))


@pytest.fixture(scope="module")
def model_and_test(tmp_path_factory, topic_file):
    folder = tmp_path_factory.mktemp("metrics")
    train = topic_file(folder / "train.txt", n=240, seed=0)
    test = topic_file(folder / "test.txt", n=60, seed=1)
    with open(test, "a") as f:  # a line without labels and one without known words
        f.write("bread butter\n__label__baking zzzunknown\n")
    ok(["supervised", "-input", train, "-output", folder / "m", "-epoch", "5", "-dim", "8",
        "-thread", "1", "-seed", "1", "-loss", "plt", "-verbose", "0"])
    return treexc.load_model(str(folder / "m.bin")), str(folder / "m.bin"), test


def test_model_matches_brute_force(model_and_test):
    model, _, test = model_and_test
    lines = open(test).read().splitlines()
    texts = [" ".join(w for w in x.split() if not w.startswith("__label__")) for x in lines]
    names = model.get_labels()
    known = set(model.get_words())
    gold = [[names.index(w) for w in x.split() if w in names] for x in lines]
    examples = [any(w in known for w in t.split()) for t in texts]
    p = propensities(model.get_labels(include_freq=True)[1], model.train_lines())
    assert model.train_lines() == 240  # one </s> a training line
    for k in (1, 2):
        top = [[names.index(x) for x in model.predict(t, k=k)[0]] for t in texts]
        got = model.test_metrics(test, k)
        assert got["N"] == model.test(test, k)[0] == sum(examples[i] and bool(gold[i])
                                                         for i in range(len(lines)))
        assert got[f"P@{k}"] == model.test(test, k)[1]
        made = [len(t) for t in top]
        assert got[f"nDCG@{k}"] == pytest.approx(brute_ndcg(top, made, gold, k, examples))
        assert got[f"PSP@{k}"] == pytest.approx(brute_psp(top, made, gold, k, p, examples))
        assert 0 < got[f"PSP@{k}"] <= 1 and 0 < got[f"nDCG@{k}"] <= 1


def test_command_line(model_and_test):
    model, path, test = model_and_test
    plain = ok(["test", path, test, "3"]).stdout
    both = ok(["test", path, test, "3", "-metrics", "ndcg,psp", "-A", "0.6", "-B", "2"]).stdout
    assert both.startswith(plain)  # fastText's lines unchanged, the metrics after them
    got = model.test_metrics(test, 3, A=0.6, B=2.0)
    assert both[len(plain):] == f"nDCG@3\t{got['nDCG@3']:.3g}\nPSP@3\t{got['PSP@3']:.3g}\n"
    every = ok(["test", path, test, "-1", "-metrics", "psp"]).stdout
    assert every.splitlines()[1].startswith("P@-1\t") and every.endswith("PSP@-1\t1\n")
    user_error(["test", path, test, "3", "-metrics", "map"], "unknown metric 'map'")
