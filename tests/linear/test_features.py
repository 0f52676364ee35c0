"""tf-idf rows against a direct numpy computation of the same definition
(scikit-learn's sublinear, smooth-idf, l2-normalised features, min_df)."""

import math

import numpy as np

from treexc.linear.features import BIAS, TfidfFeatures
from treexc.text.dictionary import build_dictionary
from treexc.linear.options import make_linear_args

LINES = ["__label__a red fish blue fish", "__label__b red car", "__label__a blue fish swims",
         "__label__b car red red", "__label__a one"]


def _encoded(tmp_path, word_ngrams):
    text = ("\n".join(LINES) + "\n").encode()
    args = make_linear_args(input="x", output="y", wordNgrams=word_ngrams, bucket=1000)
    d = build_dictionary(np.frombuffer(text, np.uint8), args, "x")
    return d, d.encode(np.frombuffer(text, np.uint8))


def test_tfidf_matches_numpy(tmp_path):
    d, corpus = _encoded(tmp_path, 2)
    feats = TfidfFeatures.fit(corpus, d.nwords + d.bucket, d.eos_id(), min_df=2)
    rows = feats.rows(corpus)
    n = corpus.n_lines
    ids = [corpus.feats[corpus.feat_off[i]:corpus.feat_off[i + 1]].tolist() for i in range(n)]
    df = {}
    for line in ids:
        for f in set(line) - {d.eos_id()}:
            df[f] = df.get(f, 0) + 1
    kept = sorted(f for f, c in df.items() if c >= 2)
    assert feats.kept.tolist() == kept
    col = {f: j for j, f in enumerate(kept)}
    for i, line in enumerate(ids):
        want = {}
        for f in set(line):
            if f in col:
                tf = line.count(f)
                want[col[f]] = (1 + math.log(tf)) * (math.log((1 + n) / (1 + df[f])) + 1)
        norm = math.sqrt(sum(v * v for v in want.values())) or 1.0
        got_c = rows.indices[rows.indptr[i]:rows.indptr[i + 1]].tolist()
        got_v = rows.data[rows.indptr[i]:rows.indptr[i + 1]].tolist()
        assert got_c == sorted(want) + [len(kept)]  # sorted, then the bias column
        assert np.allclose(got_v[:-1], [want[c] / norm for c in sorted(want)], rtol=1e-6)
        assert got_v[-1] == BIAS


def test_bigrams_are_features(tmp_path):
    uni_d, uni = _encoded(tmp_path, 1)
    bi_d, bi = _encoded(tmp_path, 2)
    f1 = TfidfFeatures.fit(uni, uni_d.nwords + uni_d.bucket, uni_d.eos_id(), 2)
    f2 = TfidfFeatures.fit(bi, bi_d.nwords + bi_d.bucket, bi_d.eos_id(), 2)
    assert f2.n_cols > f1.n_cols  # "red fish"-style bigrams seen twice are kept
