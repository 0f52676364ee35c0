"""The language model's commands: lm, test-lm, predict-next, plot, and
dump-tree on a language model."""

import json

import numpy as np
import pytest
from click.testing import CliRunner
from lm_util import (
    small_model,
)

from treexc.cli.main import main


def test_an_arity_wider_than_the_vocabulary_can_fill_is_refused(tmp_path):
    """A tree over V words fills at most 2V slots a node (the mass cap's
    room): -arity 100000 over 1,881 words trained a one-node tree of
    100,000 root slots for minutes, and its rebuild asked for 80 GB."""
    (tmp_path / "train.txt").write_text("a b c d\nb c d e\n" * 20)
    r = CliRunner().invoke(main, ["lm", "-input", str(tmp_path / "train.txt"), "-output",
                                  str(tmp_path / "m"), "-minCount", "1", "-epoch", "1",
                                  "-dim", "4", "-arity", "15"])
    # 7 words: a, ..., e, <unk> and </s>
    assert r.exit_code == 1 and r.output.strip().endswith(
        "treexc: -arity 15: wider than a tree over 7 words can fill (at most 14 slots a "
        "node); lower it, or 0 fits the vocabulary"), r.output
    assert not (tmp_path / "m.bin").exists()
    r = CliRunner().invoke(main, ["lm", "-input", str(tmp_path / "train.txt"), "-output",
                                  str(tmp_path / "m"), "-minCount", "1", "-epoch", "1",
                                  "-dim", "4", "-arity", "14"])
    assert r.exit_code == 0, r.output


@pytest.mark.slow
def test_a_run_stopped_by_patience_ends_with_nothing_left_to_train(tmp_path, sentence_text):
    """The last progress line of a run that -patience stopped showed the
    share trained and an ETA for epochs that would never run."""
    (tmp_path / "train.txt").write_text(sentence_text(60))
    (tmp_path / "valid.txt").write_text(sentence_text(60, seed=9))
    r = CliRunner().invoke(main, ["lm", "-input", str(tmp_path / "train.txt"), "-valid",
                                  str(tmp_path / "valid.txt"), "-output", str(tmp_path / "m"),
                                  "-minCount", "1", "-dim", "32", "-epoch", "40", "-batch",
                                  "16", "-lr", "0.1", "-thread", "1", "-seed", "1",
                                  "-verbose", "2"])
    assert r.exit_code == 0, r.output
    assert "stopped after epoch" in r.output  # it overfits: -patience stops it
    last = [line for line in r.output.splitlines() if line.startswith("Progress:")][-1]
    assert "100.0%" not in last and last.endswith("ETA: 0h 0m 0s"), last


@pytest.mark.slow
def test_cli_lm_test_predict_and_log(tmp_path, sentence_text):
    (tmp_path / "train.txt").write_text(sentence_text(200))
    (tmp_path / "valid.txt").write_text(sentence_text(30, seed=9))
    out = str(tmp_path / "m")
    runner = CliRunner()
    r = runner.invoke(main, ["lm", "-input", str(tmp_path / "train.txt"), "-output", out,
                             "-valid", str(tmp_path / "valid.txt"), "-dim", "8",
                             "-epoch", "2", "-minCount", "1", "-thread", "1",
                             "-verbose", "1", "-log", str(tmp_path / "c.jsonl"),
                             "-arity", "4", "-depth", "2", "-batch", "16",
                             "-treeEpochs", "0.5"])  # a float option given a fraction
    assert r.exit_code == 0, r.output
    assert "valid perplexity" in r.output and "ms/batch" in r.output
    records = [json.loads(x) for x in (tmp_path / "c.jsonl").read_text().splitlines()]
    assert [x["epoch"] for x in records] == [1.0, 2.0]
    assert records[0]["run"] == "m" and records[0]["valid_ppl"] > 1.0
    r = runner.invoke(main, ["test-lm", out + ".bin", str(tmp_path / "valid.txt")])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].startswith("perplexity\t") and lines[1].startswith("tokens\t")
    assert float(lines[0].split("\t")[1]) == pytest.approx(records[-1]["valid_ppl"],
                                                           rel=1e-4)
    r = runner.invoke(main, ["predict-next", out + ".bin", "-", "3"],
                      input="the cat\n\nzzz unknown words\n")
    assert r.exit_code == 0, r.output
    rows = r.output.splitlines()
    assert len(rows) == 3
    probs = [float(x) for x in rows[0].split()[1::2]]
    assert len(probs) == 3 and probs == sorted(probs, reverse=True)
    # a negative k is a number (it was taken for an unknown flag: "No such option '-1'")
    r = runner.invoke(main, ["predict-next", out + ".bin", "-", "-1"], input="the cat\n")
    assert r.exit_code == 1 and r.stderr == "treexc: k -1: must be >= 1\n"


def test_cli_errors(tmp_path, sentence_text):
    runner = CliRunner()
    r = runner.invoke(main, ["lm", "-input", str(tmp_path / "nope.txt"), "-output",
                             str(tmp_path / "m")])
    assert r.exit_code == 1 and "nope.txt: no such file" in r.output
    (tmp_path / "t.txt").write_text(sentence_text(20))
    r = runner.invoke(main, ["lm", "-input", str(tmp_path / "t.txt"), "-output",
                             str(tmp_path / "m"), "-minCount", "1", "-arity", "2",
                             "-depth", "2"])
    assert r.exit_code == 1 and "fewer than the" in r.output
    r = runner.invoke(main, ["lm", "-input", str(tmp_path / "t.txt"), "-output",
                             str(tmp_path / "m"), "-tree", "oak"])
    assert r.exit_code == 1 and "-tree oak: unknown tree" in r.output
    r = runner.invoke(main, ["lm", "-input", str(tmp_path / "t.txt"), "-output",
                             str(tmp_path / "m"), "-massSlack", "-2"])
    assert r.exit_code == 1 and "-massSlack -2.0: must be >= -1" in r.output
    r = runner.invoke(main, ["test-lm", str(tmp_path / "t.txt"), str(tmp_path / "t.txt")])
    assert r.exit_code == 1 and "not a treexc model file" in r.output


def plot_logs(tmp_path):
    for name, ppl in (("flat", [200.0, 150.0]), ("learned", [210.0, 149.0])):
        with open(tmp_path / f"{name}.jsonl", "w") as f:
            for e, p in enumerate(ppl, 1):
                f.write(json.dumps({"run": name, "epoch": e, "valid_ppl": p}) + "\n")
    return ["plot", str(tmp_path / "flat.jsonl"), str(tmp_path / "learned.jsonl"),
            "-o", str(tmp_path / "c.png")]


def test_plot_draws_a_png(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib (treexc[plot]) is not installed")
    r = CliRunner().invoke(main, plot_logs(tmp_path))
    assert r.exit_code == 0, r.output
    assert (tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"


def test_plot_into_a_folder_name_is_refused(tmp_path):
    """``plot ... -o figs/`` wrote the hidden file figs/.png, exit 0."""
    (tmp_path / "figs").mkdir()
    args = plot_logs(tmp_path)[:-1] + [f"{tmp_path / 'figs'}/"]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 1 and "names a folder; give a file name in it" in r.stderr
    assert list((tmp_path / "figs").iterdir()) == []


def test_plot_without_matplotlib_and_on_a_bad_log(tmp_path, monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_matplotlib(name, *a, **k):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    runner = CliRunner()
    r = runner.invoke(main, plot_logs(tmp_path))
    assert r.exit_code == 1 and "pip install 'treexc[plot]'" in r.output
    (tmp_path / "bad.jsonl").write_text("{}\n")
    r = runner.invoke(main, ["plot", str(tmp_path / "bad.jsonl"), "-o", "x.png"])
    assert r.exit_code == 1 and "bad.jsonl: line 1" in r.output


@pytest.mark.slow
def test_dump_tree_on_language_model(tmp_path, sentence_text):
    (tmp_path / "train.txt").write_text(sentence_text(200))
    model, _ = small_model(tmp_path, sentence_text(200), loss="tree", tree="learned", arity=4,
                           depth=2, epoch=1, treeUpdates=5, treeEpochs=1)
    model.save_model(str(tmp_path / "m.bin"))
    runner = CliRunner()
    r = runner.invoke(main, ["dump-tree", str(tmp_path / "m.bin"), "-input",
                             str(tmp_path / "train.txt"), "-top", "3"])
    assert r.exit_code == 0, r.output
    assert "the" in r.output and "J=" in r.output
    stats_p, stats_n = model.tree_statistics(str(tmp_path / "train.txt"))
    n_tokens = len(model.vocab.encode(np.frombuffer(sentence_text(200).encode(), np.uint8)))
    assert stats_n.sum() == 2 * n_tokens  # every position passes 2 nodes
    assert np.allclose(stats_p.sum(axis=1), stats_n)


@pytest.mark.parametrize("old,new", [
    (["-treeUpdatesPerEpoch", "5"], ["-treeUpdates", "4"]),    # 5 an epoch of a 1-epoch span
    (["-treeUpdatesPerEpoch", "50"], ["-treeUpdates", "49"]),  # the default's count
])
def test_the_older_rebuild_spelling_writes_the_same_bytes(tmp_path, sentence_text, old, new):
    """-treeUpdates counts rebuilds in all, as supervised's; the older
    per-epoch count is the same plan, so the same model file."""
    (tmp_path / "train.txt").write_text(sentence_text(60))
    files = []
    for folder, flags in (("old", old), ("new", new)):
        (tmp_path / folder).mkdir()
        r = CliRunner().invoke(main, ["lm", "-input", str(tmp_path / "train.txt"), "-output",
                                      str(tmp_path / folder / "m"), "-minCount", "1",
                                      "-epoch", "2",
                                      "-dim", "8", "-batch", "16", "-thread", "1", "-seed",
                                      "3", "-verbose", "0", *flags])
        assert r.exit_code == 0, r.output
        files.append((tmp_path / folder / "m.bin").read_bytes())
    assert files[0] == files[1]
