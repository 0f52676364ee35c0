"""fastText's vocabulary and vector members of the Python model
(``get_words``, ``get_subwords``, ``get_nearest_neighbors``, ``get_analogies``,
``get_line``, the matrices ...), with fastText's return types.

A mixin of both models that hold word vectors (``classify.model.Model``,
``vectors.model.WordVectors``): it reads the model's ``dictionary``,
``w_in``, ``w_out``, ``is_quantized`` and ``get_word_vector``/``word_vectors``,
and keeps its caches (``_words``, ``_labels``, ``_unit_vectors``; ``set_matrices``
also drops ``_w_out_t``) in attributes the model's ``__init__`` creates.
"""

import numpy as np

from ..errors import TreexcError
from ..io.textio import to_bytes, to_str
from ..text import tokens
from .neighbours import analogy_query, check_neighbour_count, neighbours, normalise_rows


class FastTextMembers:
    # -- vocabulary ----------------------------------------------------------
    def get_words(self, include_freq=False, on_unicode_error=None):
        """The vocabulary's words (with ``include_freq``, also their counts
        as an int64 array).  ``on_unicode_error`` decodes invalid UTF-8 as
        ``bytes.decode`` does ('strict', 'replace', ...); by default a word
        keeps its bytes (``surrogateescape``) and nothing is raised."""
        d = self.dictionary
        words = self._entries(range(d.nwords), on_unicode_error)
        return (words, np.array(d.counts[:d.nwords])) if include_freq else words

    def get_labels(self, include_freq=False, on_unicode_error=None):
        """The labels, as :meth:`get_words` the words."""
        d = self.dictionary
        labels = self._entries(range(d.nwords, len(d.entry_off)), on_unicode_error)
        return (labels, np.array(d.label_counts)) if include_freq else labels

    def _entries(self, ids, on_unicode_error):
        decode = _decoder(on_unicode_error)
        return [decode(self.dictionary.entry_bytes(i)) for i in ids]

    @property
    def words(self):
        if self._words is None:
            self._words = self.get_words()
        return self._words

    @property
    def labels(self):
        if self._labels is None:
            self._labels = self.get_labels()
        return self._labels

    def __contains__(self, word):
        return word in self.words

    def __getitem__(self, word):
        return self.get_word_vector(word)

    # -- fastText's vector and vocabulary members ------------------------------
    def get_word_id(self, word):
        """fastText's ``get_word_id``: the entry id of ``word``, a word or a
        label (fastText looks both up), or -1."""
        return tokens.entry_id(self.dictionary, to_bytes(word))

    def get_label_id(self, label):
        """The label's id (0..labels-1), or -1; fastText's arithmetic, so a
        word gives its id minus the number of words."""
        e = self.get_word_id(label)
        return e - self.dictionary.nwords if e != -1 else -1

    def get_subword_id(self, subword):
        """The input-matrix row ``subword`` hashes to."""
        try:
            return tokens.subword_id(self.dictionary, to_bytes(subword))
        except ValueError as e:
            raise TreexcError(str(e)) from None

    def get_subwords(self, word, on_unicode_error=None):
        """``(subwords, ids)``: the word itself if known, then its character
        n-grams (with ``-maxn``), and their input rows (an int64 array)."""
        strings, ids = tokens.subwords(self.dictionary, to_bytes(word))
        decode = _decoder(on_unicode_error)
        return [decode(b) for b in strings], np.array(ids, dtype=np.int64)

    def _dense(self, what):
        """Refuse what needs the float matrices of a quantised model, as
        fastText refuses it ("Can't get quantized Matrix")."""
        if self.is_quantized():
            raise TreexcError(f"{what}: the model is quantised; its input matrix is "
                              "stored as codes (use the model it was quantised from)")

    def get_input_vector(self, ind):
        """Row ``ind`` of the input matrix (a copy)."""
        self._dense("get_input_vector")
        if not 0 <= ind < self.w_in.shape[0]:
            raise TreexcError(f"input row {ind} out of range [0, {self.w_in.shape[0]})")
        return np.array(self.w_in[ind])

    def get_input_matrix(self):
        """A copy of the input matrix: words, then hashed buckets."""
        self._dense("get_input_matrix")
        return np.array(self.w_in)

    def get_output_matrix(self):
        """A copy of the output matrix: a row per label (softmax, ova, ns);
        with a tree, ``arity`` rows per inner node, breadth-first (a binary
        node's sigmoid in its first row)."""
        return np.array(self.w_out)

    def set_matrices(self, input_matrix, output_matrix):
        """Replace both matrices by float32 copies of the same shapes."""
        self._dense("set_matrices")
        w_in = np.array(input_matrix, dtype=np.float32)
        w_out = np.array(output_matrix, dtype=np.float32)
        if w_in.shape != self.w_in.shape or w_out.shape != self.w_out.shape:
            raise TreexcError(f"set_matrices: shapes {w_in.shape} and {w_out.shape}, the "
                              f"model's are {self.w_in.shape} and {self.w_out.shape}")
        self.w_in, self.w_out, self._unit_vectors, self._w_out_t = w_in, w_out, None, None

    def normalised_word_vectors(self):
        """The vocabulary's word vectors, each of norm 1 (0 stays 0)."""
        if self._unit_vectors is None:
            vectors = self.word_vectors().copy()
            normalise_rows(vectors)
            self._unit_vectors = vectors
        return self._unit_vectors

    def get_nearest_neighbors(self, word, k=10, on_unicode_error=None):
        """fastText's ``[(cosine similarity, word), ...]``, best first, the
        word itself left out."""
        check_neighbour_count(k)
        return neighbours(self, self.get_word_vector(word), k, [word],
                          _decoder(on_unicode_error))

    def get_analogies(self, wordA, wordB, wordC, k=10, on_unicode_error=None):  # noqa: N803
        """The ``k`` words nearest to ``A - B + C`` (each normalised), the
        three left out: ``[(similarity, word), ...]``."""
        check_neighbour_count(k)
        query = analogy_query(*(self.get_word_vector(w) for w in (wordA, wordB, wordC)))
        return neighbours(self, query, k, [wordA, wordB, wordC], _decoder(on_unicode_error))

    def get_line(self, text, on_unicode_error=None):
        """``(words, labels)`` of a line (``</s>`` ends the words); for a
        list of lines, ``(list of words, list of labels)``."""
        decode = _decoder(on_unicode_error)

        def split(line):
            if "\n" in line:
                raise TreexcError("get_line processes one line at a time; remove the "
                                  "newline characters")
            words, labels = tokens.split_line(self.dictionary, to_bytes(line) + b"\n")
            return [decode(w) for w in words], [decode(b) for b in labels]

        if isinstance(text, list):
            pairs = [split(line) for line in text]
            return [p[0] for p in pairs], [p[1] for p in pairs]
        return split(text)


def _decoder(on_unicode_error):
    """Bytes to str: with fastText's ``on_unicode_error`` handler when one
    is given, else keeping invalid bytes (``textio.to_str``)."""
    if on_unicode_error is None:
        return to_str
    return lambda raw: raw.decode("utf-8", on_unicode_error)
