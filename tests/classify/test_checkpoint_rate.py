"""A resumed run whose checkpointed run had halved its diverging rate
(classify/training.train_on_corpus, classify/checkpoint.resumed_rate):
the attempts before the halving are skipped, not retrained, and an
attempt that diverges after a resume starts the next one afresh."""

import pytest

import treexc
from treexc.classify import training
from treexc.errors import TrainingDiverged


def attempts(monkeypatch, tmp_path, topic_file, saved_lr, diverge_below_lr):
    """The (lr, resume) of each training attempt of a -resume run whose
    checkpoint has rate ``saved_lr``; attempts at a rate above
    ``diverge_below_lr`` diverge."""
    calls = []

    def train_model(args, *rest):
        calls.append((args.lr, args.resume))
        if args.lr > diverge_below_lr:
            raise TrainingDiverged("diverged")
        return "model"

    monkeypatch.setattr(training, "train_model", train_model)
    monkeypatch.setattr(training, "resumed_rate", lambda args: saved_lr)
    path = topic_file(tmp_path / "t.txt")
    assert treexc.train_supervised(path, model="embedding", output=str(tmp_path / "m"),
                                   resume=True, thread=1) == "model"
    return calls


def test_the_attempts_before_the_halving_are_skipped(monkeypatch, tmp_path, topic_file):
    calls = attempts(monkeypatch, tmp_path, topic_file, saved_lr=None, diverge_below_lr=99)
    lr = calls[0][0]
    calls = attempts(monkeypatch, tmp_path, topic_file, saved_lr=lr / 4, diverge_below_lr=99)
    assert calls == [(lr / 4, True)]  # two halvings skipped, the third attempt resumed


def test_a_resumed_attempt_that_diverges_starts_the_next_afresh(monkeypatch, tmp_path,
                                                                 topic_file):
    lr = attempts(monkeypatch, tmp_path, topic_file, saved_lr=None, diverge_below_lr=99)[0][0]
    calls = attempts(monkeypatch, tmp_path, topic_file, saved_lr=lr / 2,
                     diverge_below_lr=lr / 3)
    assert calls == [(lr / 2, True), (lr / 4, False)]
    with pytest.raises(TrainingDiverged):
        attempts(monkeypatch, tmp_path, topic_file, saved_lr=lr / 2, diverge_below_lr=0)
