"""Language model (`treexc lm`): exactness against numpy references, tree
invariants, and quality on text drawn from a known bigram model."""

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

import treexc
from treexc.cli.main import main
from treexc.errors import TreexcError
from treexc.lm.model import load_lm, perplexity
from treexc.lm.options import make_lm_args
from treexc.lm.training import train_lm
from treexc.text.vocab import build_vocab
from treexc.trees.builders import random_tree
from treexc.trees.cluster import cluster_tree, greedy_fill
from treexc.trees.learner import move_leaf_rows, remap_rows

WORDS = "the cat dog sat ran on a mat log and".split()


def make_text(n_lines=300, seed=0):
    rng = np.random.default_rng(seed)
    lines = []
    for _ in range(n_lines):
        n = rng.integers(3, 9)
        lines.append(" ".join(rng.choice(WORDS, size=n)))
    return "\n".join(lines) + "\n"


def bigram_chain(n_words, seed):
    """A random transition matrix over ``n_words`` tokens + ``</s>`` (last)."""
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.full(n_words + 1, 0.3), size=n_words + 1)
    return P


def sample_chain(P, n_tokens, rng):
    """Token indices of a run of the chain, starting after ``</s>``."""
    V = len(P)
    cdf = np.cumsum(P, axis=1)
    out = np.empty(n_tokens, dtype=np.int64)
    prev = V - 1
    u = rng.random(n_tokens)
    for t in range(n_tokens):
        prev = min(int(np.searchsorted(cdf[prev], u[t] * cdf[prev, -1], side="right")), V - 1)
        out[t] = prev
    return out


def chain_text(tokens, names):
    """Text whose token stream is ``tokens``: ``</s>`` becomes a newline."""
    parts, line = [], []
    for t in tokens:
        if t == len(names):
            parts.append(" ".join(line))
            line = []
        else:
            line.append(names[t])
    if line:
        parts.append(" ".join(line))
    return "\n".join(parts) + "\n"


def reference_flat_nll(model, ids):
    """Plain numpy negative log-likelihood of a flat model, one position at a
    time, written from the model's definition."""
    d = model.args.dim
    U = np.asarray(model.U, dtype=np.float64)
    emb, bias = U[:, :d], U[:, d]
    R = [np.asarray(model.C[k], dtype=np.float64).T for k in range(model.args.context)]
    eos = model.vocab.eos_id
    total = 0.0
    for t in range(len(ids)):
        r = np.zeros(d)
        for k in range(model.args.context):
            q = t - 1 - k
            w = ids[q] if q >= 0 else eos
            r += R[k] @ emb[w]
        logits = emb @ r + bias
        top = logits.max()
        total -= logits[ids[t]] - top - math.log(np.exp(logits - top).sum())
    return total


def small_model(tmp_path, text, **flags):
    path = tmp_path / "train.txt"
    path.write_text(text)
    flags = dict(dict(input=str(path), dim=16, epoch=2, thread=1, verbose=0, minCount=1,
                      batch=16, lr=0.1, seed=1), **flags)
    return train_lm(make_lm_args(**flags))


# -- vocabulary ----------------------------------------------------------------

def test_vocab_min_count_unk_and_eos():
    data = np.frombuffer(b"a b a c\na a b\nz", dtype=np.uint8)
    vocab = build_vocab(data, 2, "x")
    assert vocab.words() == ["a", "</s>", "b", "<unk>"]
    assert vocab.counts.tolist() == [4, 3, 2, 2]  # c and z are <unk>
    ids = vocab.encode(data)
    # </s> after every line, including the last one without newline
    assert [vocab.word(i) for i in ids] == ["a", "b", "a", "<unk>", "</s>", "a", "a", "b",
                                            "</s>", "<unk>", "</s>"]


def test_vocab_empty_file_is_an_error():
    with pytest.raises(TreexcError, match="empty"):
        build_vocab(np.frombuffer(b"  \t ", dtype=np.uint8), 1, "x")


# -- exactness -----------------------------------------------------------------

def test_flat_perplexity_equals_numpy_reference(tmp_path):
    text = make_text(80)
    model, _ = small_model(tmp_path, text, loss="softmax", epoch=1)
    ids = model.vocab.encode(np.frombuffer(make_text(20, seed=5).encode(), dtype=np.uint8))
    ppl, n = perplexity(model, ids, threads=2, batch=7)
    assert n == len(ids)
    expected = math.exp(reference_flat_nll(model, ids) / len(ids))
    assert ppl == pytest.approx(expected, rel=1e-4)
    # next_log_probs (used by predict-next) agrees with the reference too
    ctx = [model.context_ids(["the", "cat"])]
    lp = model.next_log_probs(ctx)[0]
    assert np.exp(lp).sum() == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("kind", ["random", "learned"])
def test_tree_probabilities_sum_to_one(tmp_path, kind):
    model, _ = small_model(tmp_path, make_text(150), loss="tree", tree=kind, arity=3,
                           depth=3, treeUpdates=5)
    rng = np.random.default_rng(0)
    V = model.vocab.size
    ctx = rng.integers(0, V, size=(20, model.args.context))
    lp = model.next_log_probs(ctx)
    assert np.allclose(np.exp(lp).sum(axis=1), 1.0, atol=1e-5)
    # the batch kernel's perplexity is the mean of those log-probabilities
    ids = model.vocab.encode(np.frombuffer(make_text(10, seed=3).encode(), dtype=np.uint8))
    ppl, _ = perplexity(model, ids, threads=1, batch=5)
    eos = model.vocab.eos_id
    rows = [[ids[t - 1 - k] if t - 1 - k >= 0 else eos for k in range(model.args.context)]
            for t in range(len(ids))]
    ref = model.next_log_probs(rows)[np.arange(len(ids)), ids]
    assert ppl == pytest.approx(math.exp(-ref.mean()), rel=1e-4)


def test_learned_tree_keeps_every_leaf_at_depth(tmp_path):
    text = make_text(400)
    model, records = small_model(tmp_path, text, loss="tree", tree="learned", arity=2,
                                 depth=4, treeUpdates=10, epoch=2, treeEpochs=2)
    tree = model.tree
    assert tree.max_depth() == 4
    assert (tree.depths() == 4).all()
    assert sorted(tree.children[tree.children >= 0][tree.children[tree.children >= 0]
                                                    < model.vocab.size]) \
        == list(range(model.vocab.size))
    assert records[-1]["rebuilds"] == 19  # 9 in the first epoch, 10 in the second
    model, records = small_model(tmp_path, text, loss="tree", tree="learned", arity=2,
                                 depth=4, treeUpdates=10, epoch=2, treeEpochs=0.5)
    assert records[-1]["rebuilds"] == 4  # at 0.1, 0.2, 0.3 and 0.4 epoch: then frozen
    assert (model.tree.depths() == 4).all()
    _, records = small_model(tmp_path, text, loss="tree", tree="learned", arity=2,
                             depth=4, treeUpdates=10, epoch=2)
    assert records[-1]["rebuilds"] == 9  # default: the first half of training
    model, _ = small_model(tmp_path, text, loss="tree", tree="learned", arity=4,
                           depth=4, treeUpdates=10, epoch=1, massSlack=1.0)
    assert (model.tree.depths() == 4).all()


def test_random_and_cluster_trees_have_leaves_at_depth():
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((200, 8)).astype(np.float32)
    for tree in (random_tree(200, 6, 3, rng), cluster_tree(vectors, 6, 3, rng)):
        assert (tree.depths() == 3).all()
        assert tree.n_labels == 200
    with pytest.raises(TreexcError, match="fewer than the 200 words"):
        random_tree(200, 5, 3, rng)


def test_cluster_tree_groups_close_vectors():
    # 4 well separated blobs of 9 words: words of a blob mostly share their
    # root slot (capacities split blobs a little; chance would be ~1/4)
    rng = np.random.default_rng(1)
    centers = np.eye(4, 8) * 10
    vectors = np.concatenate([c + rng.standard_normal((9, 8)) * 0.1 for c in centers])
    tree = cluster_tree(vectors.astype(np.float32), 4, 3, rng)
    blob = np.arange(36) // 9
    top_slot = tree.path_slot[tree.path_off[:-1]]  # root slot of each word
    same_blob = blob[:, None] == blob[None, :]
    same_slot = top_slot[:, None] == top_slot[None, :]
    assert same_slot[same_blob].mean() > 0.6


def test_leaf_rows_follow_their_words():
    rng = np.random.default_rng(0)
    old, new = random_tree(30, 4, 3, rng), random_tree(30, 4, 3, rng)
    W = rng.standard_normal((old.n_internal * 4, 5)).astype(np.float32)
    old_id = np.arange(new.n_internal)
    old_id[old_id >= old.n_internal] = -1
    W2 = remap_rows(W, old_id, 4)
    move_leaf_rows(W2, W, old, new)
    for w in range(30):
        a, b = old.path_off[w + 1] - 1, new.path_off[w + 1] - 1
        assert (W2[new.path_node[b] * 4 + new.path_slot[b]]
                == W[old.path_node[a] * 4 + old.path_slot[a]]).all()


def test_greedy_fill_respects_capacity():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 4))
    C = X[:3] + 0.01
    assign = greedy_fill(X, C, 17)
    assert np.bincount(assign, minlength=3).max() <= 17
    assert assign[0] == 0 and assign[1] == 1 and assign[2] == 2


# -- quality -------------------------------------------------------------------

@pytest.mark.parametrize("loss,tree", [("softmax", "learned"), ("tree", "learned")])
def test_bigram_perplexity_approaches_true_entropy(tmp_path, loss, tree):
    names = [f"w{i}" for i in range(11)]
    P = bigram_chain(len(names), seed=7)
    rng = np.random.default_rng(3)
    train_tokens = sample_chain(P, 60000, rng)
    test_tokens = sample_chain(P, 10000, rng)
    (tmp_path / "train.txt").write_text(chain_text(train_tokens, names))
    (tmp_path / "test.txt").write_text(chain_text(test_tokens, names))
    prev = np.concatenate([[len(names)], test_tokens[:-1]])
    true_ppl = math.exp(-np.log(P[prev, test_tokens]).mean())
    args = make_lm_args(input=str(tmp_path / "train.txt"), dim=16, epoch=3, thread=2,
                        verbose=0, minCount=1, batch=32, lr=0.05, loss=loss, tree=tree,
                        arity=4, depth=2, treeUpdates=10, seed=2)
    model, _ = train_lm(args)
    ppl, _ = perplexity(model, str(tmp_path / "test.txt"), threads=2)
    assert ppl < true_ppl * 1.04, (ppl, true_ppl)


def test_learned_tree_separates_two_languages(tmp_path):
    """Paragraphs alternate between two disjoint vocabularies: the learned
    tree sends each vocabulary to its own root child (the random tree, of
    the same shape, mixes them)."""
    rng = np.random.default_rng(4)
    a = [f"a{i}" for i in range(8)]
    b = [f"b{i}" for i in range(8)]
    lines = [" ".join(rng.choice(a if i % 2 else b, size=8)) for i in range(1500)]
    (tmp_path / "t.txt").write_text("\n".join(lines) + "\n")
    slots = {}
    for kind in ("random", "learned"):
        args = make_lm_args(input=str(tmp_path / "t.txt"), dim=16, epoch=2, thread=1,
                            verbose=0, minCount=1, batch=32, lr=0.1, loss="tree",
                            tree=kind, arity=4, depth=3, treeUpdates=10, treeEpochs=1,
                            seed=0)
        model, _ = train_lm(args)
        t = model.tree
        top = dict(zip(model.words(), t.path_slot[t.path_off[:-1]].tolist()))
        slots[kind] = ({top[w] for w in a}, {top[w] for w in b})
    a_slots, b_slots = slots["learned"]
    assert len(a_slots) == 1 and len(b_slots) == 1 and a_slots != b_slots
    a_slots, b_slots = slots["random"]
    assert len(a_slots) > 1 or len(b_slots) > 1


# -- files and CLI -------------------------------------------------------------

def test_save_load_roundtrip(tmp_path):
    model, _ = small_model(tmp_path, make_text(60), loss="tree", tree="random", arity=4,
                           depth=2, epoch=1)
    model.save_model(str(tmp_path / "m.bin"))
    again = load_lm(str(tmp_path / "m.bin"))
    ids = model.vocab.encode(np.frombuffer(make_text(5).encode(), dtype=np.uint8))
    assert perplexity(again, ids)[0] == pytest.approx(perplexity(model, ids)[0], rel=1e-6)
    assert again.words() == model.words()
    assert again.word_counts.tolist() == model.word_counts.tolist()
    assert (again.tree.children == model.tree.children).all()


def test_cli_lm_test_predict_and_log(tmp_path):
    (tmp_path / "train.txt").write_text(make_text(200))
    (tmp_path / "valid.txt").write_text(make_text(30, seed=9))
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


def test_cli_errors(tmp_path):
    runner = CliRunner()
    r = runner.invoke(main, ["lm", "-input", str(tmp_path / "nope.txt"), "-output",
                             str(tmp_path / "m")])
    assert r.exit_code == 1 and "nope.txt: no such file" in r.output
    (tmp_path / "t.txt").write_text(make_text(20))
    r = runner.invoke(main, ["lm", "-input", str(tmp_path / "t.txt"), "-output",
                             str(tmp_path / "m"), "-minCount", "1", "-arity", "2",
                             "-depth", "2"])
    assert r.exit_code == 1 and "fewer than the" in r.output
    r = runner.invoke(main, ["lm", "-input", str(tmp_path / "t.txt"), "-output",
                             str(tmp_path / "m"), "-tree", "oak"])
    assert r.exit_code == 1 and "-tree oak: unknown tree" in r.output
    r = runner.invoke(main, ["lm", "-input", str(tmp_path / "t.txt"), "-output",
                             str(tmp_path / "m"), "-massSlack", "-1"])
    assert r.exit_code == 1 and "-massSlack -1.0: must be >= 0" in r.output
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


def test_dump_tree_on_language_model(tmp_path):
    (tmp_path / "train.txt").write_text(make_text(200))
    model, _ = small_model(tmp_path, make_text(200), loss="tree", tree="learned", arity=4,
                           depth=2, epoch=1, treeUpdates=5, treeEpochs=1)
    model.save_model(str(tmp_path / "m.bin"))
    runner = CliRunner()
    r = runner.invoke(main, ["dump-tree", str(tmp_path / "m.bin"), "-input",
                             str(tmp_path / "train.txt"), "-top", "3"])
    assert r.exit_code == 0, r.output
    assert "the" in r.output and "J=" in r.output
    stats_p, stats_n = model.tree_statistics(str(tmp_path / "train.txt"))
    n_tokens = len(model.vocab.encode(np.frombuffer(make_text(200).encode(), np.uint8)))
    assert stats_n.sum() == 2 * n_tokens  # every position passes 2 nodes
    assert np.allclose(stats_p.sum(axis=1), stats_n)


def test_python_api_mirrors_the_classifier(tmp_path):
    (tmp_path / "train.txt").write_text(make_text(200))
    (tmp_path / "valid.txt").write_text(make_text(40, seed=1))
    lm = treexc.train_lm(str(tmp_path / "train.txt"), dim=8, epoch=1, minCount=1, thread=1,
                         batch=16, seed=2)
    (word, p), *_ = lm.predict_next(["the"], k=3)
    assert isinstance(word, str) and 0.0 < p <= 1.0
    ppl, n = lm.perplexity(str(tmp_path / "valid.txt"))
    assert n > 0 and 1.0 < ppl < float("inf")
    lm.save_model(str(tmp_path / "lm.bin"))
    again = treexc.load_lm(str(tmp_path / "lm.bin"))
    assert again.perplexity(str(tmp_path / "valid.txt")) == (ppl, n)
    assert again.predict_next(["the"], k=3) == lm.predict_next(["the"], k=3)
