"""The option machinery (``treexc.options``): flags, help, checks and saved
options derive from the fields; one tree vocabulary, old spellings kept."""

import dataclasses
import io

import pytest
from cli_util import ok, run, user_error

import treexc
from treexc import runtime
from treexc.classify.options import Args, make_args
from treexc.classify.plan import LabelStats, plan
from treexc.lm.options import LMArgs, make_lm_args
from treexc.lm.plan import plan as lm_plan
from treexc.options import IF_SET, option_values, shape_names

LINES = [f"__label__l{i % 7} w{i % 7} x{(i * 3) % 7} common" for i in range(140)]
FLAGS = ["-dim", "6", "-epoch", "2", "-lr", "0.3", "-thread", "1", "-seed", "5",
         "-verbose", "0"]

# The options a classifier's header held before the machinery (byte identity
# of model files: tests/test_reference_models.py), in their order.
SAVED_BEFORE = ["lr", "lrUpdateRate", "dim", "ws", "epoch", "minCount", "minCountLabel",
                "neg", "wordNgrams", "loss", "bucket", "minn", "maxn", "thread", "t", "label",
                "saveOutput", "seed", "arity", "treeUpdates", "maxDepth", "treeGradient"]


@pytest.fixture(scope="module")
def train_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("options") / "train.txt"
    path.write_text("\n".join(LINES) + "\n")
    return path


def model_bytes(train_file, tmp_path, name, *flags):
    ok(["supervised", "-input", train_file, "-output", tmp_path / name, *FLAGS, *flags])
    return (tmp_path / f"{name}.bin").read_bytes()


@pytest.mark.parametrize("cls", [Args, LMArgs])
def test_every_field_has_help_shown_by_its_command(cls):
    command = "supervised" if cls is Args else "lm"
    text = " ".join(ok([command, "-h"]).stdout.split())
    for field in dataclasses.fields(cls):
        assert field.metadata["help"].strip(), field.name
        assert f"-{field.name}" in text, field.name
        assert " ".join(field.metadata["help"].split()[:3]) in text, field.name


def test_tree_updates_help_says_what_it_counts():
    assert "(not per epoch)" in " ".join(ok(["supervised", "-h"]).stdout.split())
    lm_help = " ".join(ok(["lm", "-h"]).stdout.split())
    assert "rebuilds (AssignLabels) in all (not per epoch)" in lm_help


def test_depth_and_max_depth_give_the_same_model(train_file, tmp_path):
    tree = ["-loss", "tree", "-arity", "3", "-treeUpdates", "2"]
    depth = model_bytes(train_file, tmp_path, "depth", *tree, "-depth", "2")
    assert model_bytes(train_file, tmp_path, "maxdepth", *tree, "-maxDepth", "2") == depth
    assert model_bytes(train_file, tmp_path, "dashes", *tree, "--depth", "2") == depth
    assert model_bytes(train_file, tmp_path, "deeper", *tree, "-depth", "3") != depth
    assert treexc.load_model(str(tmp_path / "depth.bin")).args.maxDepth == 2


@pytest.mark.parametrize("old,new", [
    (["-loss", "hs"], ["-tree", "huffman"]),
    (["-loss", "tree"], ["-tree", "learned"]),
    (["-loss", "tree"], ["-loss", "tree", "-tree", "learned"]),
    (["-loss", "hs", "-arity", "3"], ["-tree", "huffman", "-arity", "3"]),
    (["-loss", "ova"], ["-loss", "one-vs-all"]),
])
def test_old_spellings_give_the_same_model(train_file, tmp_path, old, new):
    assert model_bytes(train_file, tmp_path, "old", *old) == \
        model_bytes(train_file, tmp_path, "new", *new)


def test_tree_vocabulary_errors(train_file, tmp_path):
    base = ["supervised", "-input", train_file, "-output", tmp_path / "m", *FLAGS]
    user_error(base + ["-tree", "oak"],
               "-tree oak: unknown tree (choose from learned, huffman, random, cluster)")
    user_error(base + ["-loss", "softmax", "-tree", "random"],
               "-tree random: -loss softmax has no tree")
    user_error(base + ["-loss", "hs", "-tree", "learned"],
               "-tree learned: -loss hs keeps its tree fixed (use -loss tree)")
    user_error(base + ["-depth", "-2"], "-depth -2: must be >= 0")
    user_error(base + ["-maxDepth", "-2"], "-maxDepth -2: must be -1 (auto)")
    result = run(base + ["-dpeth", "2"])
    assert result.exit_code == 2 and "unknown option -dpeth (did you mean -depth?)" \
        in result.stderr
    result = run(["lm", "-input", train_file, "-output", tmp_path / "m", "-aritty", "2"])
    assert result.exit_code == 2 and "unknown option -aritty (did you mean -arity?)" \
        in result.stderr


def test_python_api_takes_the_same_names(train_file):
    flags = dict(dim=6, epoch=2, thread=1, seed=5, loss="tree", arity=3, treeUpdates=2)
    by_depth = treexc.train_supervised(input=str(train_file), depth=2, **flags)
    by_max_depth = treexc.train_supervised(input=str(train_file), maxDepth=2, **flags)
    assert by_depth.args == by_max_depth.args
    assert (by_depth.tree.children == by_max_depth.tree.children).all()
    # -tree with -loss auto: the loss waits for the labels (one a line, or more)
    for tree, per_line, loss, stored in [("huffman", 1.0, "hs", ""), ("learned", 1.0, "tree", ""),
                                         ("random", 1.0, "tree", "random"),
                                         ("huffman", 2.0, "plt", ""),
                                         ("learned", 2.0, "plt", "learned")]:
        args = make_args(input="x", tree=tree)
        assert args.loss == "auto"
        planned = plan(args, LabelStats.of([5] * 50, per_line))
        assert (planned.loss.value, planned.tree.value) == (loss, stored), (tree, per_line)
    # a -tree spells its loss: nothing chosen, nothing said
    assert plan(make_args(input="x", tree="random"), LabelStats.of([5] * 50)).report() == []
    assert make_args(input="x", loss="one-vs-all").loss == "ova"
    with pytest.raises(treexc.TreexcError, match="-depth and -maxDepth are the same option"):
        make_args(input="x", depth=2, maxDepth=3)
    with pytest.raises(treexc.TreexcError, match="unknown option"):
        make_lm_args(input="x", maxDepth=3)


def test_saved_options_are_the_old_ones_unless_a_new_one_is_set():
    args = make_args(input="x", output="y", loss="tree")
    assert list(option_values(args, saved_only=True)) == SAVED_BEFORE
    assert "tree" in option_values(make_args(input="x", loss="tree", tree="random"),
                                   saved_only=True)
    assert "input" in option_values(args) and "tree" not in option_values(args)
    new = [f.name for f in dataclasses.fields(Args) if f.metadata["saved"] == IF_SET]
    assert new == ["order", "tree", "massSlack", "labelWeights", "weightBalanced"]


def test_shape_options():
    assert set(shape_names(Args)) == {"dim", "loss", "arity", "wordNgrams", "bucket", "minn",
                                      "maxn", "label", "maxDepth"}
    assert set(shape_names(LMArgs)) == {"dim", "context", "loss", "tree", "arity", "depth",
                                        "minCount"}


def test_checks_derive_from_the_fields():
    for flags, message in [(dict(dim=0), "-dim 0: must be >= 1"),
                           (dict(lr=-0.5), "-lr -0.5: must be >= 0"),
                           (dict(dim=100001), "-dim 100001: must be <= 100000"),
                           (dict(treeGradient="x"), "unknown treeGradient (choose from ll, "
                                                    "plain)")]:
        with pytest.raises(treexc.TreexcError, match=message.replace("(", r"\(")
                           .replace(")", r"\)")):
            make_args(input="x", **flags)
    for flags, message in [(dict(leafRows=2), "-leafRows 2: must be 0 or 1"),
                           (dict(clusterEpoch=0.0), "-clusterEpoch 0.0: must be > 0"),
                           (dict(massSlack=float("nan")), "-massSlack nan"),
                           (dict(lr=-0.1), "-lr -0.1: must be >= 0"),
                           (dict(lr=float("nan")), "-lr nan")]:
        with pytest.raises(treexc.TreexcError, match=message):
            make_lm_args(input="x", **flags)


def test_lm_learning_rate_follows_the_dimension_unless_given():
    """-lr 0 (the default) keeps lr * dim at 0.1 * 100 above -dim 100: the
    plan's rate (the options keep the 0 typed)."""
    def rate(**flags):
        return lm_plan(make_lm_args(input="x", **flags), 1000).lr.value

    assert make_lm_args(input="x").lr == 0
    assert rate() == pytest.approx(0.05)  # the default -dim 200
    assert rate(dim=400) == pytest.approx(0.025)
    assert rate(dim=100) == pytest.approx(0.1)
    assert rate(dim=16) == pytest.approx(0.1)
    assert rate(dim=400, lr=0.2) == 0.2


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_one_reporter_factory_for_both_commands():
    pipe, tty = io.StringIO(), Terminal()
    assert runtime.reporter_factory(0, pipe) is runtime.SilentReporter
    assert type(runtime.reporter_factory(1, pipe)()) is runtime.SummaryReporter
    assert runtime.reporter_factory(1, pipe, summary=False) is runtime.SilentReporter
    assert type(runtime.reporter_factory(2, pipe)()) is runtime.LineReporter
    assert runtime.reporter_factory(2, tty) is runtime.RichReporter
    assert type(runtime.reporter_factory(2, tty, live=False)()) is runtime.LineReporter


@pytest.mark.slow
@pytest.mark.parametrize("tree", ["huffman", "random", "cluster", "learned"])
def test_both_commands_take_the_same_tree_names(train_file, tmp_path, tree):
    """-tree huffman|random|cluster|learned, -arity and -depth in both commands."""
    text = tmp_path / "lm.txt"
    text.write_text("".join(f"a{i % 5} b{i % 3} c{i % 4} the end\n" for i in range(60)))
    ok(["lm", "-input", text, "-output", tmp_path / "lm", "-tree", tree, "-arity", "5",
        "-depth", "2", "-dim", "4", "-epoch", "1", "-batch", "8", "-minCount", "1",
        "-thread", "1", "-verbose", "0", "-treeUpdates", "2"])
    lm = treexc.load_lm(str(tmp_path / "lm.bin"))
    assert lm.args.tree == tree and lm.tree.arity == 5
    depth_limited = tree != "huffman"  # a Huffman tree's depths follow the counts
    assert lm.tree.max_depth() <= 2 or not depth_limited
    ok(["supervised", "-input", train_file, "-output", tmp_path / "c", *FLAGS,
        "-tree", tree, "-arity", "5", "-depth", "2"])
    classifier = treexc.load_model(str(tmp_path / "c.bin"))
    assert classifier.tree.arity == 5
    assert classifier.tree.max_depth() <= 2 or not depth_limited
    assert classifier.args.tree == (tree if tree in ("random", "cluster") else "")
    assert classifier.args.loss == ("hs" if tree == "huffman" else "tree")


def test_python_api_refuses_values_of_the_wrong_type(train_file, tmp_path):
    """The Python API takes any value: one of the wrong type is refused by
    name, before training (an ``epoch=1.5`` run wrote a model that its own
    loader refused as corrupt); integral and path-like values are taken."""
    for flags, message in [(dict(epoch=1.5), "-epoch 1.5: must be an integer, not float"),
                           (dict(epoch=True), "-epoch True: must be an integer"),
                           (dict(dim="6"), "-dim '6': must be an integer, not str"),
                           (dict(lr="0.1"), "-lr '0.1': must be a number, not str"),
                           (dict(input=123), "-input 123: must be a text"),
                           (dict(input=[str(train_file)]), "-input .*: must be a text")]:
        with pytest.raises(treexc.TreexcError, match=message):
            treexc.train_supervised(**{"input": str(train_file), **flags})
    with pytest.raises(treexc.TreexcError, match="-epoch 1.5: must be an integer"):
        make_lm_args(input="x", epoch=1.5)
    np = pytest.importorskip("numpy")
    model = treexc.train_supervised(input=train_file, epoch=np.int64(2), lr=np.float32(0.3),
                                    dim=6, thread=1, verbose=0)
    assert type(model.args.epoch) is int and type(model.args.lr) is float
    model.save_model(str(tmp_path / "typed.bin"))
    assert treexc.load_model(str(tmp_path / "typed.bin")).args.epoch == 2
