"""The ``treexc`` command line: fastText's flags and output formats.

Expected figures are computed here from the Python API's predictions and
the test files' gold labels, independently of treexc's meter and printers.
"""

import gzip
import math
import re

import numpy as np
import pytest
from cli_util import ok, run

import treexc

TRAIN_FLAGS = ["-dim", "8", "-epoch", "4", "-lr", "0.5", "-thread", "1", "-verbose", "0",
               "-seed", "1", "-loss", "softmax"]


@pytest.fixture(scope="module")
def work(tmp_path_factory, topic_lines):
    folder = tmp_path_factory.mktemp("cli")
    (folder / "train.txt").write_text("\n".join(topic_lines(300, 0)) + "\n")
    test_lines = topic_lines(60, 1) + ["unknown words only", "__label__sport",
                                      "__label__nolabel ball goal",
                                      "__label__food  bread\tcheese\r"]
    (folder / "test.txt").write_text("\n".join(test_lines) + "\n")
    ok(["supervised", "-input", folder / "train.txt", "-output", folder / "model"]
       + TRAIN_FLAGS)
    return folder


@pytest.fixture(scope="module")
def model(work):
    return treexc.load_model(str(work / "model.bin"))


def parse_vector_line(line, dim):
    parts = line.split(" ")
    assert parts[-1] == ""  # fastText ends vector lines with a space
    values = parts[-1 - dim:-1]
    return " ".join(parts[:-1 - dim]), values


# -- supervised ------------------------------------------------------------------------

def test_supervised_writes_bin_and_vec(work, model):
    vec = (work / "model.vec").read_text().splitlines()
    words = model.get_words()
    assert vec[0] == f"{len(words)} 8"
    assert len(vec) == len(words) + 1
    vectors = model.word_vectors()
    for line, word, vector in zip(vec[1:], words, vectors):
        name, values = parse_vector_line(line, 8)
        assert name == word
        assert values == [f"{x:.5g}" for x in vector.tolist()]


def test_double_dash_flags_and_mixed_flags(work, model):
    flags = [f"-{f}" if f.startswith("-") else f for f in TRAIN_FLAGS]  # --dim 8 ...
    ok(["supervised", "--input", work / "train.txt", "--output", work / "dd"] + flags)
    ok(["supervised", "-input", work / "train.txt", "--output", work / "mixed"] + flags)
    for name in ("dd", "mixed"):
        other = treexc.load_model(str(work / f"{name}.bin"))
        assert other.args.dim == 8 and other.args.lr == 0.5 and other.args.epoch == 4
        np.testing.assert_array_equal(np.asarray(other.w_in), np.asarray(model.w_in))
        np.testing.assert_array_equal(np.asarray(other.w_out), np.asarray(model.w_out))


def test_single_dash_camel_case_flags(work):
    ok(["supervised", "-input", work / "train.txt", "-output", work / "camel",
        "-wordNgrams", "2", "-bucket", "1000", "-minn", "2", "-maxn", "3",
        "-minCount", "2", "-minCountLabel", "1", "-lrUpdateRate", "50", "-label",
        "__label__", "-loss", "hs", "-dim", "5", "-epoch", "1", "-thread", "2",
        "-verbose", "0"])
    m = treexc.load_model(str(work / "camel.bin"))
    a = m.args
    assert (a.wordNgrams, a.bucket, a.minn, a.maxn, a.minCount, a.lrUpdateRate, a.loss,
            a.dim, a.thread) == (2, 1000, 2, 3, 2, 50, "hs", 5, 2)
    assert m.w_in.shape == (m.dictionary.nwords + 1000, 5)


def test_same_seed_same_bytes(work):
    cmd = ["supervised", "-input", work / "train.txt", "-output", work / "seeded",
           "-wordNgrams", "2", "-bucket", "1000", "-loss", "hs", "-dim", "8", "-epoch", "4",
           "-lr", "0.5", "-thread", "1", "-verbose", "0"]
    ok(cmd + ["-seed", "7"])
    first = (work / "seeded.bin").read_bytes()
    first_vec = (work / "seeded.vec").read_bytes()
    ok(cmd + ["-seed", "7"])
    assert (work / "seeded.bin").read_bytes() == first
    assert (work / "seeded.vec").read_bytes() == first_vec
    # the file paths are not part of the model: another name, the same bytes
    ok([work / "seeded2" if a == work / "seeded" else a for a in cmd] + ["-seed", "7"])
    assert (work / "seeded2.bin").read_bytes() == first
    ok(cmd + ["-seed", "8"])
    assert (work / "seeded.bin").read_bytes() != first


def test_input_from_stdin_and_gzip(work, model):
    text = (work / "train.txt").read_text()
    ok(["supervised", "-input", "-", "-output", work / "stdin"] + TRAIN_FLAGS, input=text)
    with gzip.open(work / "train.txt.gz", "wt") as f:
        f.write(text)
    ok(["supervised", "-input", work / "train.txt.gz", "-output", work / "gz"] + TRAIN_FLAGS)
    for name in ("stdin", "gz"):
        other = treexc.load_model(str(work / f"{name}.bin"))
        np.testing.assert_array_equal(np.asarray(other.w_in), np.asarray(model.w_in))


def test_save_output(work, model):
    ok(["supervised", "-input", work / "train.txt", "-output", work / "so", "-saveOutput"]
       + TRAIN_FLAGS)
    rows = (work / "so.output").read_text().splitlines()
    assert rows[0] == f"{model.w_out.shape[0]} 8"
    name, values = parse_vector_line(rows[1], 8)
    assert values == [f"{x:.5g}" for x in np.asarray(model.w_out[0]).tolist()]


@pytest.mark.parametrize("loss", ["softmax", "ova", "ns", "hs", "tree"])
def test_save_output_row_names(work, loss):
    """Rows that score one label are named by it, as fastText names them
    (a learned tree over these 4 labels is one node); the rows of tree
    nodes (hs) are node<n>/<slot>."""
    out = work / f"so-{loss}"
    flags = [f if f != "softmax" else loss for f in TRAIN_FLAGS]
    ok(["supervised", "-input", work / "train.txt", "-output", out, "-saveOutput"] + flags)
    trained = treexc.load_model(f"{out}.bin")
    rows = (work / f"so-{loss}.output").read_text().splitlines()[1:]
    names = [parse_vector_line(row, 8)[0] for row in rows]
    assert len(names) == trained.w_out.shape[0]
    labels = trained.get_labels()
    if loss in ("softmax", "ova", "ns") or trained.tree.n_internal == 1:  # a flat node
        assert sorted(names) == sorted(labels)
        for name, row in zip(names, rows):  # each row is its label's row
            i = labels.index(name)
            slot = i if trained.tree is None else list(trained.tree.children[0]).index(i)
            assert parse_vector_line(row, 8)[1] == [
                f"{x:.5g}" for x in np.asarray(trained.w_out[slot]).tolist()]
    else:
        arity = trained.tree.arity
        assert names == [f"node{i // arity}/{i % arity}" for i in range(len(names))]


def test_verbose_progress_goes_to_stderr(work):
    result = ok(["supervised", "-input", work / "train.txt", "-output", work / "verbose",
                 "-epoch", "1", "-thread", "1", "-dim", "4", "-loss", "softmax"])
    assert result.stdout == ""
    assert "Progress: 100.0%" in result.stderr


def line_kinds(stderr):
    """Each stderr line's kind: its text up to the first digit."""
    lines = [line for line in stderr.replace("\r", "\n").split("\n") if line.strip()]
    return [re.match(r"[^0-9]*", line).group().strip() for line in lines]


def test_verbose_1_summary_and_final_progress_line(work, capfd):
    """-verbose 1 prints what was read and, as fastText 0.9.2 does, the final
    progress line (and no other)."""
    result = ok(["supervised", "-input", work / "train.txt", "-output", work / "v1",
                 "-epoch", "1", "-thread", "1", "-dim", "4", "-loss", "softmax",
                 "-verbose", "1"])
    assert result.stdout == ""
    kinds = line_kinds(result.stderr)
    assert kinds == ["Read", "Number of words:", "Number of labels:", "Progress:"]
    last = result.stderr.splitlines()[-1]
    assert re.fullmatch(r"Progress: 100\.0% words/sec/thread: +\d+ lr: +0\.000000 "
                        r"avg\.loss: +\d+\.\d{6} ETA: +0h +0m +0s", last), last
    fasttext = pytest.importorskip("fasttext")
    capfd.readouterr()
    fasttext.train_supervised(str(work / "train.txt"), epoch=1, thread=1, dim=4, verbose=1)
    assert line_kinds(capfd.readouterr().err) == kinds


def test_help_and_version():
    for flag in ("-h", "-help", "--help"):
        assert "supervised" in ok([flag]).stdout
    assert "-wordNgrams" in ok(["supervised", "--help"]).stdout
    for flag in ("--version", "-version"):
        assert ok([flag]).stdout == f"treexc {treexc.__version__}\n"


@pytest.mark.parametrize("command", ["test", "test-label", "predict", "predict-prob"])
def test_help_explains_k_threshold_and_stdin(command):
    text = ok([command, "--help"]).stdout
    assert "MODEL INPUT [K] [THRESHOLD]" in text
    for fragment in ["- = stdin", "-1 = every label", "THRESHOLD  leave out labels of "
                     "probability below it"]:
        assert fragment in text, (command, fragment)


# -- predict ------------------------------------------------------------------------------

def read_test_lines(work):
    return (work / "test.txt").read_text().split("\n")[:-1]


def strip_labels(line):
    return " ".join(t for t in re.split(r"[ \t\r\v\f]+", line)
                    if t and not t.startswith("__label__"))


@pytest.mark.parametrize("k", [1, 3])
def test_predict(work, model, k):
    lines = read_test_lines(work)
    args = ["predict", work / "model.bin", work / "test.txt"] + ([k] if k > 1 else [])
    out = ok(args).stdout
    assert out.endswith("\n")
    got = out[:-1].split("\n")
    assert len(got) == len(lines)
    for line, printed in zip(lines, got):
        labels, _ = model.predict(strip_labels(line), k=k)
        assert printed == " ".join(labels)


def test_predict_k_minus_1_gives_every_label(work, model):
    """fastText's k = -1: every label, most likely first."""
    n_labels = len(model.get_labels())
    out = ok(["predict-prob", work / "model.bin", "-", "-1"],
             input="ball goal\nbread cheese\n").stdout.splitlines()
    for line, text in zip(out, ["ball goal", "bread cheese"]):
        pairs = line.split(" ")
        assert len(pairs) == 2 * n_labels
        assert sorted(pairs[0::2]) == sorted(model.get_labels())
        probs = [float(p) for p in pairs[1::2]]
        assert probs == sorted(probs, reverse=True)
        assert sum(probs) == pytest.approx(1.0, abs=1e-4)  # softmax: all of it
        assert line == " ".join(f"{a} {p:.6g}" for a, p in zip(*model.predict(text, k=-1)))
    assert len(model.predict("ball goal", k=-1)[0]) == n_labels
    # with a threshold, and for test: precision over every label predicted
    out = ok(["predict", work / "model.bin", work / "test.txt", "-1", "0.2"]).stdout
    assert out.split("\n")[0] == " ".join(model.predict(
        strip_labels(read_test_lines(work)[0]), k=-1, threshold=0.2)[0])
    n, p, r, _ = expected_metrics(work, model, n_labels)
    assert ok(["test", work / "model.bin", work / "test.txt", "-1"]).stdout == \
        f"N\t{n}\nP@-1\t{p:.3g}\nR@-1\t{r:.3g}\n"
    for bad in ("-2", "0"):
        line = run(["predict", work / "model.bin", work / "test.txt", bad]).stderr
        assert line == f"treexc: k {bad}: must be >= 1, or -1 for all labels\n"
    assert "No such option" in run(["predict", work / "model.bin", "-x"]).stderr


def test_predict_from_stdin_and_last_line_without_newline(work, model):
    out = ok(["predict", work / "model.bin", "-", "2"],
             input="ball goal\n\nbread cheese\nsong band").stdout
    got = out.split("\n")
    assert got[-1] == "" and len(got) == 5
    assert got[0] == " ".join(model.predict("ball goal", k=2)[0])
    assert got[1] == " ".join(model.predict("", k=2)[0])
    assert got[0].startswith("__label__sport") and got[2].startswith("__label__food")
    assert got[3].startswith("__label__music")


def test_predict_gzip_input_and_big_file(work):
    plain = ok(["predict-prob", work / "model.bin", work / "test.txt", "2"]).stdout
    with gzip.open(work / "test.txt.gz", "wb") as f:
        f.write((work / "test.txt").read_bytes())
    assert ok(["predict-prob", work / "model.bin", work / "test.txt.gz", "2"]).stdout == plain
    # more than one read of the input (1 MiB pieces): every line answered once
    (work / "big.txt").write_bytes((work / "test.txt").read_bytes() * 400)
    big = ok(["predict-prob", work / "model.bin", work / "big.txt", "2"]).stdout
    assert big == plain * 400


def test_predict_prob(work, model):
    lines = read_test_lines(work)
    out = ok(["predict-prob", work / "model.bin", work / "test.txt", "3"]).stdout
    got = out[:-1].split("\n")
    assert len(got) == len(lines)
    for line, printed in zip(lines, got):
        labels, probs = model.predict(strip_labels(line), k=3)
        assert printed == " ".join(f"{a} {p:.6g}" for a, p in zip(labels, probs))
        assert re.fullmatch(r"(__label__\w+ [0-9.e-]+)( __label__\w+ [0-9.e-]+){2}", printed)


def test_predict_threshold(work, model):
    out = ok(["predict-prob", work / "model.bin", work / "test.txt", "4", "0.3"]).stdout
    got = out[:-1].split("\n")
    assert len(got) == len(read_test_lines(work))
    n_cut = 0
    for printed in got:
        pairs = printed.split(" ")
        probs = [float(p) for p in pairs[1::2]]
        assert all(p >= 0.3 for p in probs)
        n_cut += len(probs) < 4
    assert n_cut == len(got)  # 4 labels cannot all have probability >= 0.3
    # threshold 1: nothing passes, and every line still gets its (empty) line
    out = ok(["predict", work / "model.bin", work / "test.txt", "1", "1.0"]).stdout
    assert out == "\n" * len(got)


# -- test and test-label -----------------------------------------------------------------

def expected_metrics(work, model, k, threshold=0.0):
    """N, precision and recall as fastText counts them: lines with at least
    one known label; a prediction is correct if it is one of the line's
    labels; recall over the line's known labels."""
    known = set(model.get_labels())
    n = predicted = correct = gold_total = 0
    per_label = {name: [0, 0, 0] for name in known}  # predicted, gold, correct
    for line in read_test_lines(work):
        gold = [t for t in re.split(r"[ \t\r\v\f]+", line) if t in known]
        if not gold:
            continue
        labels, _ = model.predict(strip_labels(line), k=k, threshold=threshold)
        n += 1
        predicted += len(labels)
        gold_total += len(gold)
        for g in gold:
            per_label[g][1] += 1
        for label in labels:
            per_label[label][0] += 1
            if label in gold:
                correct += 1
                per_label[label][2] += 1
    return n, correct / predicted, correct / gold_total, per_label


@pytest.mark.parametrize("k", [1, 2, 5])
def test_test_output(work, model, k):
    n, p, r, _ = expected_metrics(work, model, k)
    args = ["test", work / "model.bin", work / "test.txt"] + ([k] if k != 1 else [])
    out = ok(args).stdout
    assert out == f"N\t{n}\nP@{k}\t{p:.3g}\nR@{k}\t{r:.3g}\n"
    assert n == 62  # 60 generated lines, "__label__food  bread...", "__label__sport"
    assert model.test(str(work / "test.txt"), k) == (n, pytest.approx(p), pytest.approx(r))


def test_test_label_output(work, model):
    n, p, r, per_label = expected_metrics(work, model, 2)
    out = ok(["test-label", work / "model.bin", work / "test.txt", "2"]).stdout
    lines = out.split("\n")
    assert lines[-1] == ""
    labels = model.get_labels()
    assert len(lines) == len(labels) + 4
    pattern = (r"F1-Score : (\S+)  Precision : (\S+)  Recall : (\S+)   (\S+)")
    for line, label in zip(lines, labels):
        m = re.fullmatch(pattern, line)
        assert m, line
        f1, prec, rec, name = m.groups()
        assert name == label
        npred, ngold, ncorrect = per_label[label]
        pv = ncorrect / npred if npred else math.nan
        rv = ncorrect / ngold if ngold else math.nan
        fv = 2 * pv * rv / (pv + rv) if npred and ngold and pv + rv else math.nan

        def shown(x):
            return "--------" if math.isnan(x) else f"{x:.6f}"
        assert (f1, prec, rec) == (shown(fv), shown(pv), shown(rv))
    # then test's lines, in fixed notation (std::fixed is still set)
    assert lines[-4:-1] == [f"N\t{n}", f"P@2\t{p:.3f}", f"R@2\t{r:.3f}"]
    assert treexc.load_model(str(work / "model.bin")).test_label(
        str(work / "test.txt"), 2)[labels[0]]["precision"] == pytest.approx(
        per_label[labels[0]][2] / per_label[labels[0]][0])


# -- vectors and dump ---------------------------------------------------------------------

def test_print_word_vectors(work, model):
    text = "ball unknownword\tgoal\n\nbread\u00a0cheese  song\r\nlast"
    out = ok(["print-word-vectors", work / "model.bin"], input=text).stdout
    got = out.split("\n")
    assert got[-1] == ""
    # split at ASCII white space only (C++'s `cin >> word`): the no-break
    # space stays inside a word
    words = ["ball", "unknownword", "goal", "bread\u00a0cheese", "song", "last"]
    assert len(got) - 1 == len(words)
    for line, word in zip(got, words):
        name, values = parse_vector_line(line, 8)
        assert name == word
        assert values == [f"{x:.5g}" for x in model.get_word_vector(word).tolist()]
    assert set(parse_vector_line(got[1], 8)[1]) == {"0"}  # unknown, no subwords


def test_print_sentence_vectors(work, model):
    text = "ball goal\rteam\n\n__label__sport bread\nball"
    out = ok(["print-sentence-vectors", work / "model.bin"], input=text).stdout
    got = out.split("\n")
    assert len(got) == 5 and got[-1] == ""  # \r does not end a line
    for line, sentence in zip(got, ["ball goal\rteam", "", "__label__sport bread"]):
        _, values = parse_vector_line(line, 8)
        assert values == [f"{x:.5g}" for x in model.get_sentence_vector(sentence).tolist()]
    # the last line has no newline, hence no </s> (fastText reads to EOF)
    _, values = parse_vector_line(got[3], 8)
    ball = np.asarray(model.w_in[model.dictionary.word_id("ball")])
    assert values == [f"{x:.5g}" for x in ball.tolist()]


def test_dump(work, model):
    args_out = ok(["dump", work / "model.bin", "args"]).stdout.splitlines()
    assert "dim 8" in args_out and "loss softmax" in args_out and "epoch 4" in args_out
    # the plan's rows after the options, the family first
    first = next(i for i, line in enumerate(args_out) if line.startswith("plan model "))
    assert args_out[first].startswith("plan model embedding auto-embedding-flag: -model auto")
    assert args_out[first + 1].startswith("plan loss softmax given: ")
    d = model.dictionary
    dict_out = ok(["dump", work / "model.bin", "dict"]).stdout.splitlines()
    assert dict_out[0] == str(d.nwords + d.nlabels)
    expected = ([f"{w} {c} word" for w, c in zip(model.get_words(), d.counts[:d.nwords])]
                + [f"{w} {c} label" for w, c in zip(model.get_labels(), d.label_counts)])
    assert dict_out[1:] == expected
    for what, matrix in (("input", model.w_in), ("output", model.w_out)):
        lines = ok(["dump", work / "model.bin", what]).stdout.splitlines()
        assert lines[0] == f"{matrix.shape[0]} {matrix.shape[1]}"
        assert len(lines) == matrix.shape[0] + 1
        for line, row in zip(lines[1:], np.asarray(matrix)[:20]):
            # DenseMatrix::dump: values separated by one space, C++'s
            # default precision (6 significant digits), no trailing space
            assert line == " ".join(f"{x:.6g}" for x in row.tolist())
    assert run(["dump", work / "model.bin", "nonsense"]).exit_code == 2
