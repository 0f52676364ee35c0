"""The counting pass's labels a line (text/label_lines.py) are the encoded
corpus's, exactly: bare lines dropped, a label twice on a line counted
once, labels below -minCountLabel ignored, a last line without a newline,
a file read in many pieces."""

import pytest

from treexc.classify.options import make_args
from treexc.io import textio
from treexc.text.label_lines import count_with_label_lines
from treexc.text.token_cache import training_corpus

LINES = ["__label__a __label__b w1 w2", "__label__a w3", "__label__c",
         "__label__b w4 __label__b w5", "w6 w7", "__label__rare __label__a w8",
         "__label__a\t__label__c  w9 ", "__label__d </s>"]


@pytest.mark.parametrize("flags", [{}, {"minCountLabel": 2}, {"label": "__label__a"}])
@pytest.mark.parametrize("final_newline", [True, False])
def test_labels_a_line_as_the_encoding_counts_them(tmp_path, flags, final_newline):
    path = tmp_path / "t.txt"
    path.write_text("\n".join(LINES * 3) + ("\n" if final_newline else ""))
    args = make_args(input=str(path), **flags)
    dictionary, per_line = count_with_label_lines(args, "t.txt")
    with training_corpus(args, "t.txt", lambda: None, lambda _: None) as (d, corpus, _):
        assert per_line == pytest.approx(corpus.labels_per_line)
        assert list(dictionary.label_counts) == list(d.label_counts)


def test_pieces_give_what_the_whole_file_gives(tmp_path, monkeypatch):
    path = tmp_path / "t.txt"
    path.write_text("\n".join(LINES * 50) + "\n")
    args = make_args(input=str(path))
    whole = count_with_label_lines(args, "t.txt")[1]
    monkeypatch.setattr(textio, "READ_SIZE", 64)  # pieces of a line or two
    pieces = list(textio.read_line_chunks(str(path)))
    assert len(pieces) > 100
    assert count_with_label_lines(args, "t.txt")[1] == whole
