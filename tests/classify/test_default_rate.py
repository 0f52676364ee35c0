"""``-lr 0``, the default: ``DEFAULT_LR``, halved and training started
again while it diverges; a rate the user gives is kept, and divergence at
it is an error.  The rate trained at is the model's."""

import pytest
from cli_util import ok, user_error

import treexc
from treexc.classify import training
from treexc.classify.options import DEFAULT_LR, DEFAULT_LR_HALVINGS, make_args
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
