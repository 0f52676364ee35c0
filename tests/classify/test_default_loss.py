"""``-loss auto``, the default: a probabilistic label tree for multi-label
data, else the flat softmax for many-lined labels up to
``AUTO_SOFTMAX_MAX_LABELS`` trained ``AUTO_SOFTMAX_MIN_BUDGET`` rate-epochs
or more (uneven ones: tests/classify/test_plan.py), else a learned tree
(also when ``-arity`` is given); the choice is said on stderr and saved as
the model's loss."""

import pytest
from cli_util import ok

import treexc
from treexc.classify import plan as plan_module

LINES = [f"__label__l{i % 6} w{i % 6} x{i % 6} common" for i in range(120)]
FLAGS = ["-dim", "8", "-epoch", "2", "-thread", "1", "-seed", "3"]


@pytest.fixture(scope="module")
def train_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("auto") / "train.txt"
    path.write_text("\n".join(LINES) + "\n")
    return path


def multi_label_file(folder, labels_of_line):
    """Lines of the LINES kind with ``labels_of_line(i)`` labels each."""
    lines = [" ".join(f"__label__l{(i + j) % 6}" for j in range(labels_of_line(i)))
             + f" w{i % 6} x{i % 6} common" for i in range(120)]
    path = folder / "multi.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def train(train_file, tmp_path, *flags):
    result = ok(["supervised", "-input", train_file, "-output", tmp_path / "m",
                 "-verbose", "2", *FLAGS, *flags])
    return treexc.load_model(str(tmp_path / "m.bin")), result.stderr


def test_few_labels_trained_long_get_the_flat_softmax(train_file, tmp_path):
    model, stderr = train(train_file, tmp_path, "-lr", "1", "-epoch", "20")
    assert model.args.loss == "softmax"
    assert model.tree.n_internal == 1 and model.tree.arity == 6  # one flat node
    assert "output layer: softmax (-loss auto: 6 labels <= 548, 20 rate-epochs (-lr 1 x " \
        "-epoch 20) >= 20)" in stderr


def test_a_short_training_gets_a_learned_tree(train_file, tmp_path):
    model, stderr = train(train_file, tmp_path)
    # the default learned tree over 6 labels: one node (a tree of arity
    # ceil(sqrt(6)) = 3 would cross as many slots, 2 x 3), nothing to rebuild
    assert model.args.loss == "tree" and model.args.arity == 6
    assert model.tree.n_internal == 1 and model.args.treeUpdates == 0
    assert model.args.maxDepth == -1
    assert "output layer: tree of arity 6 (-loss auto: 6 labels <= 548, 1 rate-epochs " \
        "(-lr 0.5 x -epoch 2) < 20)" in stderr


def test_many_labels_trained_long_get_a_learned_tree(train_file, tmp_path, monkeypatch):
    monkeypatch.setattr(plan_module, "AUTO_SOFTMAX_MAX_LABELS", 4)
    model, stderr = train(train_file, tmp_path, "-lr", "1", "-epoch", "20")
    assert model.args.loss == "tree" and model.args.arity == 6
    assert "output layer: tree of arity 6 (-loss auto: 6 labels > 4, 20 rate-epochs" in stderr


def test_multi_label_data_gets_a_probabilistic_label_tree(tmp_path):
    # 2 labels on every line but every fourth, which has 1: 1.75 a line
    path = multi_label_file(tmp_path, lambda i: 1 if i % 4 == 0 else 2)
    model, stderr = train(path, tmp_path)
    assert model.args.loss == "plt" and model.args.arity == 6  # one node, as above
    assert "output layer: plt of arity 6 (-loss auto: 1.75 labels a line >= 1.5: " \
        "multi-label)" in stderr
    # -arity shapes it, and -loss keeps the user's choice
    model, _ = train(path, tmp_path, "-arity", "2")
    assert model.args.loss == "plt" and model.tree.arity == 2
    model, _ = train(path, tmp_path, "-loss", "softmax")
    assert model.args.loss == "softmax"


def test_a_few_lines_with_two_labels_keep_a_single_label_loss(tmp_path):
    # one line in four with 2 labels: 1.25 a line
    path = multi_label_file(tmp_path, lambda i: 2 if i % 4 == 0 else 1)
    model, stderr = train(path, tmp_path)
    assert model.args.loss == "tree"


def test_a_label_repeated_on_its_line_counts_once(train_file, tmp_path):
    path = tmp_path / "repeated.txt"
    path.write_text("".join(line.split()[0] + " " + line + "\n" for line in LINES))
    model, stderr = train(path, tmp_path)
    assert model.args.loss == "tree"
    assert "(-loss auto: 6 labels <= 548, " in stderr


def test_arity_asks_for_a_learned_tree(train_file, tmp_path):
    model, stderr = train(train_file, tmp_path, "-arity", "3")
    assert model.args.loss == "tree" and model.tree.arity == 3
    assert "(-loss auto: -arity 3 given)" in stderr


@pytest.mark.parametrize("loss", ["softmax", "hs", "tree"])
def test_an_explicit_loss_is_kept_and_not_announced(train_file, tmp_path, loss):
    model, stderr = train(train_file, tmp_path, "-loss", loss)
    assert model.args.loss == loss
    assert "-loss auto" not in stderr


def test_python_api_default_is_auto(train_file):
    model = treexc.train_supervised(input=str(train_file), dim=8, epoch=2, thread=1,
                                    verbose=0)
    assert model.args.loss == "tree"
