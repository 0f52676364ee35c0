"""``-lr 0``, the default: ``DEFAULT_LR`` (``ZIPF_LR`` for Zipf-distributed
labels), halved and training started again while it diverges; a rate the
user gives is kept, and divergence at it is an error.  The rate trained at
is the model's."""

import pytest
from cli_util import ok, user_error

import treexc
from treexc.classify import training
from treexc.classify.options import make_args
from treexc.classify.plan import default_rate
from treexc.classify.plan_rules import DEFAULT_LR, DEFAULT_LR_HALVINGS, ZIPF_LR, ZIPF_MAX_EVENNESS
from treexc.runtime import diverged

FLAGS = ["-dim", "8", "-epoch", "2", "-thread", "1", "-seed", "3"]
QUIET = [*FLAGS, "-verbose", "0"]


@pytest.fixture
def train_file(tmp_path, topic_file):
    return topic_file(tmp_path / "train.txt", n=120)


def diverging_above(monkeypatch, rate):
    """Make every training run above ``rate`` diverge; returns the rates tried."""
    tried = []
    real = training.train_model

    def train_model(args, *rest):
        tried.append(args.lr)
        if args.lr > rate:
            raise diverged(0.1, 2, args.lr)
        return real(args, *rest)

    monkeypatch.setattr(training, "train_model", train_model)
    return tried


def test_the_default_rate_is_saved_with_the_model(train_file, tmp_path):
    assert make_args(input="x", output="y").lr == 0  # resolved when training
    ok(["supervised", "-input", train_file, "-output", tmp_path / "m", *QUIET])
    assert treexc.load_model(str(tmp_path / "m.bin")).args.lr == DEFAULT_LR


def test_the_default_rate_is_halved_while_training_diverges(train_file, tmp_path,
                                                             monkeypatch):
    tried = diverging_above(monkeypatch, DEFAULT_LR / 3)
    result = ok(["supervised", "-input", train_file, "-output", tmp_path / "m", *FLAGS,
                 "-verbose", "1"])  # the line saying so
    assert tried == [DEFAULT_LR, DEFAULT_LR / 2, DEFAULT_LR / 4]
    assert (f"training diverged at -lr {DEFAULT_LR / 2:g}: training again at "
            f"-lr {DEFAULT_LR / 4:g} (the default rate, halved; -lr sets one)") in result.stderr
    assert treexc.load_model(str(tmp_path / "m.bin")).args.lr == DEFAULT_LR / 4


def test_a_rate_that_never_converges_is_an_error(train_file, tmp_path, monkeypatch):
    tried = diverging_above(monkeypatch, 0.0)
    user_error(["supervised", "-input", train_file, "-output", tmp_path / "m", *QUIET],
               f"lower -lr (now {DEFAULT_LR / 2 ** DEFAULT_LR_HALVINGS:g})")
    assert len(tried) == DEFAULT_LR_HALVINGS + 1
    assert not (tmp_path / "m.bin").exists()


def test_a_given_rate_is_kept(train_file, tmp_path, monkeypatch):
    tried = diverging_above(monkeypatch, 0.2)
    user_error(["supervised", "-input", train_file, "-output", tmp_path / "m", *QUIET,
                "-lr", "0.3"], "lower -lr (now 0.3)")
    assert tried == [0.3]
    model = treexc.train_supervised(str(train_file), lr=0.2, dim=8, epoch=1, thread=1,
                                    verbose=0)
    assert model.args.lr == 0.2 and tried == [0.3, 0.2]


def test_zipf_distributed_labels_train_at_the_lower_rate(tmp_path):
    """One label on most lines and 199 on one line each: evenness 0.019."""
    lines = [f"__label__head w{i % 7} common" for i in range(1000)]
    lines += [f"__label__rare{i} w{i % 7} r{i}" for i in range(199)]
    path = tmp_path / "zipf.txt"
    path.write_text("\n".join(lines) + "\n")
    result = ok(["supervised", "-input", path, "-output", tmp_path / "m", *FLAGS,
                 "-verbose", "2"])
    assert treexc.load_model(str(tmp_path / "m.bin")).args.lr == ZIPF_LR
    assert f"learning rate: {ZIPF_LR:g} (-lr 0: Zipf-distributed labels, evenness 0.019 " \
        f"< {ZIPF_MAX_EVENNESS}; {DEFAULT_LR:g} otherwise)" in result.stderr
    # a given rate is kept
    ok(["supervised", "-input", path, "-output", tmp_path / "g", *QUIET, "-lr", "0.3"])
    assert treexc.load_model(str(tmp_path / "g.bin")).args.lr == 0.3


@pytest.mark.parametrize("counts,rate", [
    ([100] * 50, DEFAULT_LR),                       # even: evenness 1
    ([1000] + [1] * 199, ZIPF_LR),                  # 0.019
    ([10 ** 7 // r for r in range(1, 10001)], ZIPF_LR),  # 1/rank over 10,000 labels: 0.074
    ([10 ** 7 // r for r in range(1, 1001)], DEFAULT_LR),  # over 1,000: 0.18
])
def test_the_rate_follows_the_evenness_of_the_label_counts(counts, rate):
    assert default_rate(counts).value == rate
