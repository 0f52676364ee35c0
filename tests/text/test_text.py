"""Tokeniser, hashing and encoding against fastText 0.9.2.

Two kinds of oracle:

* values derived once with fastText (the ``fasttext-wheel`` package) and
  pasted here as literals, so the core checks run without it;
* fastText itself, when importable: vocabularies, subword ids, labels per
  line, and -- end to end -- sentence and word vectors computed from the
  same input matrix, which only agree if tokenisation, char n-grams and
  word n-gram hashing agree.
"""

import collections
import gzip

import numpy as np
import pytest

from treexc.classify.model import Model
from treexc.classify.options import make_args
from treexc.text import count_kernels as ck
from treexc.text import kernels as tk
from treexc.text import table
from treexc.text.dictionary import build_dictionary
from treexc.trees.builders import flat_tree

try:
    import fasttext
except ImportError:  # pragma: no cover - depends on the environment
    fasttext = None

needs_fasttext = pytest.mark.skipif(fasttext is None,
                                    reason="fasttext (fasttext-wheel) is not installed")

# A file with every tokenisation trap: double spaces, tabs, \r\n, \v, \f,
# empty lines, labels first, in the middle and last, several labels on a
# line, an unknown-looking label, UTF-8 words of 2, 3 and 4 bytes, and a
# last line without newline.
TRICKY = (
    "__label__a  héllo wörld\tfoo\r\n"
    "bar \v baz\f__label__b qux __label__c héllo\n"
    "\n"
    "日本語 テキスト __label__a foo foo\n"
    "   multiple   spaces   __label__b  \n"
    "\r\n"
    "\t\tfoo 🙂 héllo wörld __label__c\n"
    "wörld\x0bwörld __label__a __label__b bar\n"
    "last line héllo 日本語 🙂"
).encode("utf-8")

# Lines to encode with a model trained on TRICKY: known and unknown words,
# separators everywhere, labels known and unknown, multibyte and empty.
PROBES = [
    "héllo wörld foo",
    "\tbar\r",
    "unknown héllo zzz __label__a foo",
    "",
    " ",
    "\r",
    "日本語テ __label__zz x",
    "a\vb\fc\r",
    "🙂 🙂🙂 ünïcödé  wörld\t\t日本語",
    "__label__b héllo __label__a",
    "foo foo foo bar baz qux",
]


def ft_hash(data):
    """fastText's ``Dictionary::hash``, transcribed: FNV-1a over *signed*
    chars (``int8_t``), so bytes >= 0x80 are sign-extended to 32 bits."""
    h = 2166136261
    for b in data:
        if b >= 0x80:
            b |= 0xFFFFFF00
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def textbook_fnv1a(data):
    h = 2166136261
    for b in data:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def ft_tokens(data):
    """fastText's ``Dictionary::readWord`` loop, transcribed: tokens are
    split on `` \\n\\r\\t\\v\\f\\0``; every newline is the token ``</s>``."""
    tokens, word = [], bytearray()
    for c in data:
        if c in b" \n\r\t\v\f\0":
            if word:
                tokens.append(bytes(word))
                word.clear()
            if c == 10:
                tokens.append(b"</s>")
        else:
            word.append(c)
    if word:
        tokens.append(bytes(word))
    return tokens


def as_u8(data):
    return np.frombuffer(data, dtype=np.uint8)


def fnv(data):
    raw = as_u8(data)
    return int(table.fnv_hash(raw, 0, len(raw)))


# -- hashing -------------------------------------------------------------------

# fastText's hashes, derived with fasttext 0.9.2: get_subword_id(s) - nwords
# is hash(s) % bucket; two models with buckets 65537 and 65539 give the
# full 32-bit value by the Chinese remainder theorem.
FASTTEXT_HASHES = {
    "a": 3826002220,
    "héllo": 3948832576,
    "日本語": 308035559,
    "wörld": 3643042771,
    "é": 1023043777,
    "\u00ff": 788157111,
    "🙂": 570329163,
    "</s>": 3617362777,
    "__label__x": 215146739,
}


@pytest.mark.parametrize("text,expected", sorted(FASTTEXT_HASHES.items()))
def test_fnv_hash_matches_fasttext(text, expected):
    assert fnv(text.encode("utf-8")) == expected
    assert ft_hash(text.encode("utf-8")) == expected  # the transcription too


def test_multibyte_hash_is_sign_extended():
    # a textbook FNV-1a would be wrong exactly for bytes >= 0x80
    for text in FASTTEXT_HASHES:
        raw = text.encode("utf-8")
        if max(raw) >= 0x80:
            assert fnv(raw) != textbook_fnv1a(raw)
        else:
            assert fnv(raw) == textbook_fnv1a(raw)


def test_fnv_hash_of_every_byte_value():
    rng = np.random.default_rng(0)
    for _ in range(200):
        raw = rng.integers(0, 256, size=rng.integers(0, 12), dtype=np.uint8).tobytes()
        assert fnv(raw) == ft_hash(raw)
    assert fnv(b"") == 2166136261


def test_fnv_hash_of_a_slice():
    buf = as_u8(b"xx h\xc3\xa9llo yy")
    assert int(table.fnv_hash(buf, 3, 9)) == FASTTEXT_HASHES["héllo"]


def test_signed_widen():
    assert int(table.signed_widen(np.uint64(5))) == 5
    assert int(table.signed_widen(np.uint64(0x7FFFFFFF))) == 0x7FFFFFFF
    assert int(table.signed_widen(np.uint64(0x80000000))) == 0xFFFFFFFF80000000
    assert int(table.signed_widen(np.uint64(FASTTEXT_HASHES["héllo"]))) == \
        FASTTEXT_HASHES["héllo"] | 0xFFFFFFFF00000000


# -- counting tokens --------------------------------------------------------------

@pytest.mark.parametrize("data", [
    TRICKY,
    b"",
    b"\n",
    b"\n\n\n",
    b"no newline at all",
    b"  a  b  \n",
    b"a\0b\0\0c\n",        # NUL is a separator for fastText
    b"x\r\n\ry\r\n",
    b"\t\v\f\r \n",
    "é é\té\n日本語日本語 日本語".encode(),
])
def test_count_tokens_matches_readword(data):
    off, length, counts, pool, n_lines, max_len = ck.count_tokens(as_u8(data), table.PROBE_SEED)
    entries = [bytes(pool[o:o + n]) for o, n in zip(off, length)]
    tokens = ft_tokens(data)
    expected = collections.Counter(tokens)
    assert entries[0] == b"</s>"
    assert counts[0] == data.count(b"\n")
    # every other entry in order of first occurrence, with its count
    firsts = list(dict.fromkeys(t for t in tokens if t != b"</s>"))
    assert entries[1:] == firsts
    assert {e: int(c) for e, c in zip(entries, counts) if c} == dict(expected)
    assert n_lines == data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    assert max_len == max([4] + [len(t) for t in tokens])


def test_count_tokens_grows_its_arrays():
    # more distinct tokens than the initial capacity (1024 entries)
    words = [f"w{i}é" for i in range(3000)]
    data = (" ".join(words) + "\n" + " ".join(words[::7]) + "\n").encode()
    off, length, counts, pool, n_lines, _ = ck.count_tokens(as_u8(data), table.PROBE_SEED)
    entries = [bytes(pool[o:o + n]).decode() for o, n in zip(off, length)]
    assert entries[1:] == words
    got = dict(zip(entries, counts.tolist()))
    assert got["w0é"] == 2 and got["w1é"] == 1 and got["w7é"] == 2
    assert n_lines == 2


# -- dictionary -----------------------------------------------------------------------

def make_dictionary(data, **flags):
    args = make_args(input="x.txt", thread=1, **flags)
    return build_dictionary(as_u8(data), args, "x.txt"), args


def test_dictionary_order_and_counts():
    d, _ = make_dictionary(TRICKY)
    tokens = ft_tokens(TRICKY)
    counts = collections.Counter(tokens)
    words = [t for t in dict.fromkeys(tokens) if not t.startswith(b"__label__")]
    labels = [t for t in dict.fromkeys(tokens) if t.startswith(b"__label__")]
    # most frequent first, ties in order of first occurrence
    words.sort(key=lambda t: -counts[t])
    labels.sort(key=lambda t: -counts[t])
    assert d.words() == [w.decode() for w in words]
    assert d.labels() == [w.decode() for w in labels]
    assert d.counts.tolist() == [counts[t] for t in words + labels]
    assert d.nwords == len(words)
    assert d.word_id("héllo") == words.index("héllo".encode())
    assert d.word_id("nope") == -1
    assert d.word_id("__label__a") == -1  # labels are not words
    assert d.eos_id() == words.index(b"</s>")


def test_dictionary_min_counts():
    d, _ = make_dictionary(TRICKY, minCount=2, minCountLabel=3)
    counts = collections.Counter(ft_tokens(TRICKY))
    assert sorted(d.words()) == sorted(t.decode() for t, c in counts.items()
                                       if c >= 2 and not t.startswith(b"__label__"))
    assert sorted(d.labels()) == sorted(t.decode() for t, c in counts.items()
                                        if c >= 3 and t.startswith(b"__label__"))


def test_dictionary_custom_label_prefix():
    d, _ = make_dictionary(b"#sport ball #x goal\nball __label__a #food\n", label="#")
    assert d.labels() == ["#sport", "#x", "#food"]
    assert "__label__a" in d.words()


def fasttext_model(tmp_path, data, **flags):
    path = tmp_path / "ft.txt"
    path.write_bytes(data)
    return fasttext.train_supervised(str(path), dim=3, epoch=1, thread=1, verbose=0,
                                     seed=1, **flags)


def assert_same_vocabulary(ft_words, ft_counts, words, counts):
    """Same entries and counts; the order agrees up to ties (fastText sorts
    with the unstable std::sort), and treexc's counts never increase."""
    assert len(words) == len(ft_words)
    assert sorted(zip(words, counts)) == sorted(zip(ft_words, ft_counts))
    assert list(counts) == sorted(counts, reverse=True)
    assert list(ft_counts) == list(counts)  # so only equal counts may swap


@needs_fasttext
@pytest.mark.parametrize("flags", [
    {},
    {"minCount": 2},
    {"minCountLabel": 3},
    {"label": "#"},
    {"wordNgrams": 2, "bucket": 1000, "minn": 2, "maxn": 4},
])
@pytest.mark.slow
def test_dictionary_matches_fasttext(tmp_path, flags):
    data = TRICKY + b"\n#x #y " + TRICKY.replace(b"__label__", b"#")
    ft = fasttext_model(tmp_path, data, **flags)
    d, _ = make_dictionary(data, **flags)
    ft_words, ft_wcounts = ft.get_words(include_freq=True)
    ft_labels, ft_lcounts = ft.get_labels(include_freq=True)
    assert_same_vocabulary(ft_words, ft_wcounts, d.words(), d.counts[:d.nwords])
    assert_same_vocabulary(ft_labels, ft_lcounts, d.labels(), d.label_counts)


@pytest.mark.slow
@needs_fasttext
def test_dictionary_matches_fasttext_on_real_data(shared_data, tmp_path):
    with gzip.open(shared_data / "cooking" / "cooking.train.txt.gz", "rb") as f:
        data = b"".join(f.readline() for _ in range(3000))
    ft = fasttext_model(tmp_path, data, minCount=2)
    d, _ = make_dictionary(data, minCount=2)
    ft_words, ft_wcounts = ft.get_words(include_freq=True)
    assert_same_vocabulary(ft_words, ft_wcounts, d.words(), d.counts[:d.nwords])
    ft_labels, ft_lcounts = ft.get_labels(include_freq=True)
    assert_same_vocabulary(ft_labels, ft_lcounts, d.labels(), d.label_counts)


# -- encoding lines -------------------------------------------------------------------------

def reference_lines(data, d):
    """Per line: (word ids incl. </s>, label ids, token count), from the
    transcribed tokeniser and fastText's getLine rules (unknown words and
    unknown labels are dropped; tokens count words, labels and </s>)."""
    words = {w.encode(): i for i, w in enumerate(d.words())}
    labels = {w.encode(): i for i, w in enumerate(d.labels())}
    lines, cur = [], ([], [], 0)
    for t in ft_tokens(data):
        ids, labs, n = cur
        n += 1
        if t in labels:
            labs.append(labels[t])
        elif t in words:
            ids.append(words[t])
        cur = (ids, labs, n)
        if t == b"</s>":
            lines.append(cur)
            cur = ([], [], 0)
    if not data.endswith(b"\n") and data:
        lines.append(cur)
    return lines


@pytest.mark.parametrize("data", [TRICKY, TRICKY + b"\n", b"\n", b"x", b"x\n\n y"])
def test_encode_lines_matches_getline(data):
    d, _ = make_dictionary(TRICKY)
    c = d.encode(as_u8(data))
    expected = reference_lines(data, d)
    assert c.n_lines == len(expected)
    for i, (ids, labs, n) in enumerate(expected):
        assert c.feats[c.feat_off[i]:c.feat_off[i + 1]].tolist() == ids, i
        assert c.labels[c.label_off[i]:c.label_off[i + 1]].tolist() == labs, i
        assert c.ntokens[i] == n, i


def test_encode_finds_lines_with_labels_and_no_words():
    d, _ = make_dictionary(b"__label__a x\n__label__b y\n")
    c = d.encode(as_u8(b"__label__a x\n\n__label__b\n__label__a  __label__b\t\n"
                       b"__label__zz\ny __label__a"))
    assert (c.bare_first, c.bare_count) == (2, 3)  # 0-based: lines 3, 4, 5
    c = d.encode(as_u8(b"__label__a x\n\nunknown __label__b\n"))
    assert (c.bare_first, c.bare_count) == (-1, 0)  # an unknown word is a word


def test_encode_long_lines_grow_buffers():
    # lines longer than every initial buffer (hashes: 256, scratch: 256 bytes)
    d, _ = make_dictionary(b"__label__a x y\n", wordNgrams=3, bucket=1000, minn=1, maxn=3)
    long_word = "ü" * 300
    line = " ".join(["x", "y", long_word] * 200)
    c = d.encode(as_u8(((line + "\n") * 3).encode()))
    n_ids = 400 + 1  # the known words x and y, and </s>
    n_char = sum(len(tk_ngram_strings(w, 1, 3)) for w in line.split())
    n_hashes = 600 + 1  # every word, known or not, and </s>
    n_word_ngrams = (n_hashes - 1) + (n_hashes - 2)  # bigrams + trigrams
    assert c.n_lines == 3
    assert np.diff(c.feat_off).tolist() == [n_ids + n_char + n_word_ngrams] * 3


# -- character n-grams ------------------------------------------------------------

def tk_ngram_strings(word, minn, maxn):
    """fastText's computeSubwords, transcribed, returning the n-grams."""
    w = ("<" + word + ">").encode()
    out = []
    for i in range(len(w)):
        if (w[i] & 0xC0) == 0x80:
            continue
        j, n = i, 1
        while j < len(w) and n <= maxn:
            j += 1
            while j < len(w) and (w[j] & 0xC0) == 0x80:
                j += 1
            if n >= minn and not (n == 1 and (i == 0 or j == len(w))):
                out.append(w[i:j].decode())
            n += 1
    return out


# n-grams as fastText 0.9.2's get_subwords lists them (derived once).
FASTTEXT_SUBWORDS = [
    ("日本語", 1, 2, ["<日", "日", "日本", "本", "本語", "語", "語>"]),
    ("h🙂é", 1, 2, ["<h", "h", "h🙂", "🙂", "🙂é", "é", "é>"]),
    ("h🙂é", 2, 3, ["<h", "<h🙂", "h🙂", "h🙂é", "🙂é", "🙂é>", "é>"]),
]


@pytest.mark.parametrize("word,minn,maxn,expected", FASTTEXT_SUBWORDS)
def test_char_ngrams_match_fasttext_literals(word, minn, maxn, expected):
    assert tk_ngram_strings(word, minn, maxn) == expected
    raw = as_u8(word.encode())
    nwords, bucket = 7, 1000
    out = np.full(64, -1, dtype=np.int32)
    scratch = np.empty(64, dtype=np.uint8)
    n = tk.char_ngrams(raw, 0, len(raw), scratch, minn, maxn, bucket, nwords, out, 3)
    assert n == 3 + len(expected)
    assert out[3:n].tolist() == [nwords + ft_hash(s.encode()) % bucket for s in expected]
    assert out[:3].tolist() == [-1, -1, -1]


def test_char_ngrams_report_a_full_output():
    raw = as_u8("wörld".encode())
    out = np.empty(3, dtype=np.int32)
    scratch = np.empty(64, dtype=np.uint8)
    assert tk.char_ngrams(raw, 0, len(raw), scratch, 1, 3, 100, 0, out, 0) == -1


@pytest.mark.parametrize("minn,maxn", [(1, 1), (1, 3), (2, 5), (3, 6), (5, 5)])
def test_char_ngrams_over_multibyte_words(minn, maxn):
    d, _ = make_dictionary(b"__label__a x\n", minn=minn, maxn=maxn, bucket=997)
    for word in ["x", "ab", "héllo", "日本語", "🙂🙂", "aé日🙂b", "é"]:
        c = d.encode(as_u8((word + "\n").encode()))
        feats = c.feats[c.feat_off[0]:c.feat_off[1]].tolist()
        known = [d.word_id(word)] if d.word_id(word) >= 0 else []
        expected = known + [d.nwords + ft_hash(s.encode()) % 997
                            for s in tk_ngram_strings(word, minn, maxn)] + [d.eos_id()]
        assert feats == expected, word


def test_spelled_out_eos_has_no_char_ngrams():
    # fastText's subwords of the word </s> are its id alone (initNgrams)
    d, _ = make_dictionary(b"__label__a x\n", minn=1, maxn=3, bucket=997)
    c = d.encode(as_u8(b"</s> x\n"))
    x = [d.word_id("x")] + [d.nwords + ft_hash(s.encode()) % 997
                            for s in tk_ngram_strings("x", 1, 3)]
    assert c.feats.tolist() == [d.eos_id()] + x + [d.eos_id()]
    model = Model(make_args(input="x", minn=1, maxn=3, bucket=997, dim=2), d, None,
                  np.arange(2 * (d.nwords + 997), dtype=np.float32).reshape(-1, 2), None)
    np.testing.assert_array_equal(model.get_word_vector("</s>"), model.w_in[d.eos_id()])


@pytest.mark.slow
@needs_fasttext
@pytest.mark.parametrize("minn,maxn", [(1, 2), (2, 4), (3, 6)])
def test_subword_ids_match_fasttext(tmp_path, minn, maxn):
    ft = fasttext_model(tmp_path, TRICKY, minn=minn, maxn=maxn, bucket=2003)
    d, _ = make_dictionary(TRICKY, minn=minn, maxn=maxn, bucket=2003)
    ft_words = ft.get_words()
    for word in d.words() + ["unknöwn", "🙂🙂", "x", "テキストテ"]:
        if word == "</s>":
            continue
        names, ids = ft.get_subwords(word)
        c = d.encode(as_u8((word + "\n").encode()))
        feats = c.feats[c.feat_off[0]:c.feat_off[1]][:-1]  # drop </s>
        if word in ft_words:  # the word's own row: compare by name (ties)
            assert names[0] == word and d.word(feats[0]) == word
            ids, feats = ids[1:], feats[1:]
        assert feats.tolist() == ids.tolist(), word


# -- whole lines: features as fastText computes them ---------------------------------

# Training text with distinct counts, so the word order is unambiguous:
# héllo 4, wörld 3, 日本語 2, </s> 1.
ORDERED = "__label__x héllo héllo héllo héllo wörld wörld wörld 日本語 日本語\n".encode()

# Sorted input-matrix rows of each line, derived with fasttext 0.9.2: an
# identity input matrix (set_matrices) makes get_sentence_vector return the
# row counts divided by their total.
FASTTEXT_ROWS = [
    ({"wordNgrams": 3, "bucket": 97}, "héllo wörld 日本語",
     [0, 1, 2, 3, 56, 63, 70, 73, 78]),
    ({"wordNgrams": 3, "bucket": 97}, "unknöwn héllo  \t wörld __label__x zzz",
     [0, 1, 3, 16, 33, 33, 38, 48, 52, 70]),
    ({"wordNgrams": 3, "bucket": 97}, "", [3]),
    ({"wordNgrams": 3, "bucket": 97}, "日本語x\vwörld\r", [1, 3, 36, 86, 92]),
    ({"wordNgrams": 2, "bucket": 97, "minn": 1, "maxn": 3}, "héllo wörld 日本語",
     [0, 1, 2, 3, 5, 7, 7, 8, 10, 16, 18, 18, 19, 22, 30, 35, 37, 37, 39, 40, 43, 44,
      45, 51, 52, 56, 57, 58, 60, 60, 60, 62, 64, 66, 68, 70, 73, 74, 74, 76, 76, 78,
      79, 84, 89, 95, 96, 97, 98]),
    ({"wordNgrams": 2, "bucket": 97, "minn": 1, "maxn": 3},
     "unknöwn héllo  \t wörld __label__x zzz",
     [0, 1, 3, 5, 6, 7, 8, 8, 10, 10, 11, 13, 16, 16, 17, 18, 18, 19, 20, 22, 30, 30,
      33, 33, 37, 37, 38, 39, 40, 40, 43, 44, 45, 48, 51, 52, 52, 53, 54, 54, 58, 60,
      60, 60, 61, 62, 64, 67, 68, 70, 72, 74, 74, 76, 76, 77, 77, 77, 79, 81, 84, 88,
      88, 88, 89, 89, 91, 95, 96, 97, 98]),
    ({"wordNgrams": 2, "bucket": 97, "minn": 1, "maxn": 3}, "日本語x\vwörld\r",
     [1, 3, 5, 7, 7, 8, 16, 18, 23, 32, 35, 36, 39, 45, 49, 52, 56, 57, 58, 60, 62,
      64, 74, 76, 76, 76, 79, 83, 84, 86, 89, 95, 97]),
]


@pytest.mark.parametrize("flags,line,rows", FASTTEXT_ROWS)
def test_line_features_match_fasttext_literals(flags, line, rows):
    d, _ = make_dictionary(ORDERED, **flags)
    assert d.words() == ["héllo", "wörld", "日本語", "</s>"]
    c = d.encode(as_u8((line + "\n").encode()))
    assert sorted(c.feats[c.feat_off[0]:c.feat_off[1]].tolist()) == rows


def copy_input_matrix(ft, d, args, rng):
    """Give fastText a random input matrix and a treexc model the same rows
    (words matched by name, since tied words may be ordered differently)."""
    w_ft = ft.get_input_matrix()
    nw = len(ft.get_words())
    assert nw == d.nwords and w_ft.shape[0] == nw + args.bucket
    w_ft = rng.standard_normal(w_ft.shape).astype(np.float32)
    ft.set_matrices(w_ft, ft.get_output_matrix())
    w_in = w_ft.copy()
    for i, word in enumerate(d.words()):
        w_in[i] = w_ft[ft.get_word_id(word)]
    w_out = np.zeros((d.nlabels, args.dim), dtype=np.float32)
    return Model(args, d, flat_tree(d.nlabels), w_in, w_out)


@pytest.mark.slow
@needs_fasttext
@pytest.mark.parametrize("flags", [
    {},
    {"wordNgrams": 2, "bucket": 1000},
    {"wordNgrams": 3, "bucket": 1000},
    {"minn": 1, "maxn": 3, "bucket": 1000},
    {"wordNgrams": 3, "bucket": 1009, "minn": 2, "maxn": 4},
])
def test_sentence_vectors_match_fasttext(tmp_path, flags):
    """The end-to-end check: same rows in, same averaged vector out."""
    ft = fasttext_model(tmp_path, TRICKY, **flags)
    d, args = make_dictionary(TRICKY, dim=3, **flags)
    model = copy_input_matrix(ft, d, args, np.random.default_rng(7))
    for line in PROBES + [ln.decode() for ln in TRICKY.split(b"\n")]:
        expected = ft.get_sentence_vector(line)
        np.testing.assert_allclose(model.get_sentence_vector(line), expected,
                                   rtol=1e-5, atol=1e-5, err_msg=repr(line))
        # the labels fastText reads on the line, in order
        _, ft_labels = ft.get_line(line)
        c = d.encode(as_u8((line + "\n").encode()))
        got = [d.label(i) for i in c.labels[c.label_off[0]:c.label_off[1]]]
        assert got == list(ft_labels), repr(line)


@pytest.mark.slow
@needs_fasttext
@pytest.mark.parametrize("flags", [{}, {"minn": 1, "maxn": 3, "bucket": 1000},
                                   {"minn": 3, "maxn": 6, "bucket": 1000}])
def test_word_vectors_match_fasttext(tmp_path, flags):
    ft = fasttext_model(tmp_path, TRICKY, **flags)
    d, args = make_dictionary(TRICKY, dim=3, **flags)
    model = copy_input_matrix(ft, d, args, np.random.default_rng(3))
    for word in d.words() + ["unknöwn", "🙂🙂", "zz", "日本"]:
        np.testing.assert_allclose(model.get_word_vector(word), ft.get_word_vector(word),
                                   rtol=1e-5, atol=1e-5, err_msg=word)


# -- text is bytes ------------------------------------------------------------------------

# Invalid UTF-8 of every kind (Latin-1 é, a lone continuation byte, a cut
# 3-byte character, 0xff), NUL inside words (a separator for fastText) and
# control bytes (ESC, 0x01) that stay inside tokens.
BYTES = (b"__label__a caf\xe9 na\xefve caf\xe9 x\x80y\n"
         b"__label__b \xe6\x97\xa5\xe6 a\x00b \x00\x00c\n"
         b"__label__c\x1b[31m \xff\xfe ok \x01ctl\n"
         b"caf\xe9 __label__a ok na\xefve\n"
         b"\xff\xfe __label__b\n")


def test_text_with_bad_bytes_is_kept_as_bytes():
    from treexc.io.textio import to_bytes

    d, _ = make_dictionary(BYTES)
    tokens = ft_tokens(BYTES)
    assert sorted(to_bytes(w) for w in d.words()) == sorted(
        {t for t in tokens if not t.startswith(b"__label__")})
    assert to_bytes(d.labels()[0]) in (b"__label__a", b"__label__b")
    assert b"__label__c\x1b[31m" in [to_bytes(x) for x in d.labels()]
    # a str of textio.to_str finds its word again, and so do its bytes
    cafe = d.word_id("caf\udce9")
    assert cafe >= 0 and d.words()[cafe] == "caf\udce9"
    assert d.word_id(b"caf\xe9") == cafe and d.entry_bytes(cafe) == b"caf\xe9"
    assert d.word_id("café") == -1  # the valid spelling is another word


def test_byte_check_counts_lines_and_names_the_first():
    from treexc.io.textio import ByteCheck

    check = ByteCheck()
    check.add(BYTES)
    assert (check.bad_lines, check.bad_first) == (5, 1)
    assert (check.nul_lines, check.nul_first) == (1, 2)
    assert check.message("f") == (
        "f: 5 line(s) with invalid UTF-8 (first: line 1), read as the bytes they are; "
        "1 line(s) with NUL bytes (first: line 2), NUL read as a token separator as "
        "fastText does")
    clean = ByteCheck()
    clean.add("héllo\n日本語\n".encode())
    assert clean.message("f") is None
    # piece by piece, with line numbers of the whole file; blocks of lines
    import treexc.io.textio as textio
    pieces = ByteCheck()
    pieces.add(b"ok\nok\n", 1)
    pieces.add(b"ok\n\xff\nok\n\xfe", 3)
    assert (pieces.bad_lines, pieces.bad_first) == (2, 4)
    small = ByteCheck()
    old = textio._BLOCK
    textio._BLOCK = 4
    try:
        small.add(b"abc\ndef\n\n\xffg\nok\x00\n\xfe")
    finally:
        textio._BLOCK = old
    assert (small.bad_lines, small.bad_first, small.nul_lines, small.nul_first) == \
        (2, 4, 1, 5)


@pytest.mark.slow
@needs_fasttext
@pytest.mark.parametrize("flags", [{}, {"wordNgrams": 2, "bucket": 1000, "minn": 1,
                                        "maxn": 3}])
def test_bad_bytes_match_fasttext(tmp_path, flags):
    """Vocabulary, labels per line and sentence vectors on invalid UTF-8 and
    NUL bytes: fastText reads them as bytes, and so does treexc."""
    import fasttext_pybind

    from treexc.io.textio import to_bytes

    ft = fasttext_model(tmp_path, BYTES, **flags)
    d, args = make_dictionary(BYTES, dim=3, **flags)
    ft_words, ft_counts = ft.get_words(include_freq=True, on_unicode_error="surrogateescape")
    assert_same_vocabulary(ft_words, ft_counts, d.words(), d.counts[:d.nwords])
    ft_labels, ft_lcounts = ft.get_labels(include_freq=True,
                                          on_unicode_error="surrogateescape")
    assert_same_vocabulary(ft_labels, ft_lcounts, d.labels(), d.label_counts)
    # the same input matrix in both (words matched by their bytes)
    rng = np.random.default_rng(5)
    w_ft = rng.standard_normal(ft.get_input_matrix().shape).astype(np.float32)
    ft.set_matrices(w_ft, ft.get_output_matrix())
    w_in = w_ft.copy()
    for i, word in enumerate(d.words()):
        w_in[i] = w_ft[ft.f.getWordId(to_bytes(word))]
    model = Model(args, d, flat_tree(d.nlabels), w_in,
                  np.zeros((d.nlabels, args.dim), dtype=np.float32))
    for line in BYTES.split(b"\n") + [b"caf\xe9\x00x\xff", b"\x00", b"na\xefve\x1b"]:
        expected = fasttext_pybind.Vector(args.dim)
        # bytes for fastText's std::string, and the newline get_sentence_vector adds
        ft.f.getSentenceVector(expected, line + b"\n")
        np.testing.assert_allclose(model.sentence_vector(as_u8(line + b"\n")),
                                   np.array(expected), rtol=1e-5, atol=1e-5,
                                   err_msg=repr(line))


def test_skip_bare_lines_drops_only_their_labels(capsys):
    from treexc.errors import TreexcError

    d, _ = make_dictionary(b"__label__a x\n__label__b y\n")
    data = (b"__label__a x\n\n__label__b\n__label__a  __label__b\t\n"
            b"__label__zz\nunknown __label__b\ny __label__a\n__label__b")
    c = d.encode(as_u8(data))
    before = [c.labels[c.label_off[i]:c.label_off[i + 1]].tolist() for i in range(c.n_lines)]
    feats = c.feats.copy()
    c.skip_bare_lines(d.eos_id(), "f")
    after = [c.labels[c.label_off[i]:c.label_off[i + 1]].tolist() for i in range(c.n_lines)]
    # lines 3, 4 and 8 (the last, without newline) lose their labels; line 5's
    # label is unknown; an unknown word (line 6) is a word
    assert after == [before[0], [], [], [], [], before[5], before[6], []]
    assert before[2] and before[3] and before[7]
    assert (c.feats == feats).all()
    assert (c.bare_first, c.bare_count) == (2, 3)
    assert capsys.readouterr().err == \
        "treexc: warning: f: 3 line(s) with labels but no words (first: line 3) skipped\n"
    c = d.encode(as_u8(b"\n__label__a\n__label__b __label__a\nx\n"))
    with pytest.raises(TreexcError, match="^f: no line has both labels and words; 2 "
                       r"line\(s\) with labels but no words \(first: line 2\)$"):
        c.skip_bare_lines(d.eos_id(), "f")
    c = d.encode(as_u8(b"__label__a x y\n"))
    c.skip_bare_lines(d.eos_id(), "f")
    assert c.labels.tolist() == [0] and capsys.readouterr().err == ""


@pytest.mark.slow
@pytest.mark.parametrize("out_size", [1, 7, 1 << 20])
@pytest.mark.parametrize("in_size", [1, 64, 1 << 20])
def test_streaming_gunzip_any_piece_sizes(out_size, in_size):
    """Members after zero padding (as gzip reads `cat a.gz pad b.gz`), output
    that zlib holds back under a small limit, and a cut stream reported."""
    from treexc.errors import TreexcError
    from treexc.io.textio import _gunzip

    rng = np.random.default_rng(1)
    data = bytes(rng.choice(list(b"ab \n"), 20000).astype(np.uint8)) * 5 + b"\0" * 50000
    packed = gzip.compress(data[:7000]) + b"\0\0" + gzip.compress(data[7000:])
    chunks = [packed[i:i + in_size] for i in range(0, len(packed), in_size)]
    assert b"".join(_gunzip(chunks[0], iter(chunks[1:]), out_size, "x")) == data
    cut = packed[:-5]
    chunks = [cut[i:i + in_size] for i in range(0, len(cut), in_size)]
    with pytest.raises(TreexcError, match="^x: truncated gzip data"):
        b"".join(_gunzip(chunks[0], iter(chunks[1:]), out_size, "x"))


def test_sentence_vector_of_a_long_line_is_summed_in_chunks(monkeypatch):
    """print-sentence-vectors gathered a line's rows at once: 14 GB for a
    150 MB line at -dim 100.  Past a chunk of rows the sum goes a chunk at
    a time; the vector is the mean of the rows all the same."""
    from treexc.classify import model as model_module
    monkeypatch.setattr(model_module, "SENTENCE_CHUNK", 7)
    text = b"__label__a w1 w2 w3\n__label__b w4 w5 w6\n"
    d, args = make_dictionary(text, dim=4)
    rng = np.random.default_rng(0)
    w_in = rng.standard_normal((d.nwords + args.bucket, 4)).astype(np.float32)
    model = Model(args, d, flat_tree(2), w_in, np.zeros((2, 4), np.float32))
    line = b" ".join([b"w1", b"w2", b"w5", b"zz"] * 13) + b"\n"
    corpus = d.encode(as_u8(line))
    rows = corpus.feats[corpus.feat_off[0]:corpus.feat_off[1]]
    assert len(rows) > 7
    np.testing.assert_allclose(model.sentence_vector(as_u8(line)),
                               w_in[rows].mean(axis=0), rtol=1e-6)
