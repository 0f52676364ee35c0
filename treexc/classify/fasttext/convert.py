"""A fastText supervised model as a treexc classifier file's parts.

``loaded_from_fasttext`` turns what ``io.fasttext_model`` read into the
``(header, arrays)`` that ``modelfile.load`` returns for a treexc model, so
that a fastText ``.bin`` goes through every check of ``stored.read_classifier``
and loads (or is converted: ``treexc convert``) like a treexc model.  No Numba
here: ``classify/firstlines.py`` loads through this too.

The mapping:

* options: fastText's saved ones (dim, ws, epoch, minCount, neg, wordNgrams,
  loss, bucket, minn, maxn, lrUpdateRate, t); the label prefix is
  ``__label__`` as fastText loads it.
* vocabulary: fastText's entries in its order (words, then labels), which
  is treexc's layout; the input matrix as it is.
* softmax: the one-node tree whose slot j is label j; the output matrix as
  it is.  ova, ns: the output matrix as it is.
* hs: fastText's binary Huffman tree, rebuilt from the label counts exactly
  as ``HierarchicalSoftmaxLoss::buildTree`` builds it (the two-queue merge,
  a leaf taken only when strictly lighter than the next inner node, the
  first taken becomes the left child), then numbered breadth-first as treexc
  trees are; inner node n's sigmoid row (fastText's row ``id - nlabels``)
  moves to treexc's row ``2n``, and its right child is the positive class,
  as in fastText.
* ``"scoring": "fasttext"`` in the header: predictions follow fastText's
  arithmetic to the bit (``classify/fasttext/kernels.py``).
"""

import numpy as np

from ...errors import TreexcError
from ...io.fasttext_model import LABEL_PREFIX, read_fasttext
from ...loss.registry import loss
from ...options import option_values
from ..options import Args, validate
from ..plan_rules import UNUSED_ARITY

SCORING_FASTTEXT = "fasttext"


def fasttext_huffman(counts):
    """fastText's hs tree over label ``counts`` (count-descending, as its
    dictionary keeps them): ``(left, right)`` of inner nodes ``K..2K-2`` in
    fastText's numbering (labels are ``0..K-1``; the root is ``2K-2``)."""
    k = len(counts)
    count = np.full(2 * k - 1, 10 ** 15, dtype=np.int64)  # fastText's 1e15
    count[:k] = counts
    left = np.empty(max(k - 1, 0), dtype=np.int64)
    right = np.empty(max(k - 1, 0), dtype=np.int64)
    leaf, node = k - 1, k
    for i in range(k, 2 * k - 1):
        picked = []
        for _ in range(2):
            if leaf >= 0 and count[leaf] < count[node]:
                picked.append(leaf)
                leaf -= 1
            else:
                picked.append(node)
                node += 1
        left[i - k], right[i - k] = picked
        count[i] = count[picked[0]] + count[picked[1]]
    return left, right


def hs_tree_and_rows(counts, w_out):
    """treexc's ``children`` (inner nodes breadth-first from the root) and
    output matrix (two rows per node, the sigmoid's in the first) of
    fastText's hs tree and its inner-node rows ``w_out``."""
    k = len(counts)
    dim = w_out.shape[1]
    if k == 1:  # fastText predicts the one label with probability 1
        return np.array([[0, -1]], dtype=np.int32), np.zeros((2, dim), dtype=np.float32)
    left, right = fasttext_huffman(counts)
    order = [2 * k - 2]  # fastText ids of inner nodes, breadth-first
    new_id = {2 * k - 2: 0}
    head = 0
    while head < len(order):
        i = order[head]
        head += 1
        for c in (left[i - k], right[i - k]):
            if c >= k:
                new_id[int(c)] = len(order)
                order.append(int(c))
    children = np.empty((k - 1, 2), dtype=np.int32)
    rows = np.zeros((2 * (k - 1), dim), dtype=np.float32)
    for n, i in enumerate(order):
        for slot, c in enumerate((left[i - k], right[i - k])):
            children[n, slot] = c if c < k else k + new_id[int(c)]
        rows[2 * n] = w_out[i - k]
    return children, rows


def fasttext_args(ft, path):
    """treexc's ``Args`` of a fastText model's saved options."""
    a = ft.args
    args = Args(dim=a["dim"], ws=a["ws"], epoch=a["epoch"], minCount=a["minCount"],
                neg=a["neg"], wordNgrams=a["wordNgrams"], loss=a["loss"], bucket=a["bucket"],
                minn=a["minn"], maxn=a["maxn"], lrUpdateRate=a["lrUpdateRate"], t=a["t"],
                label=LABEL_PREFIX, arity=loss(a["loss"]).arity or UNUSED_ARITY, thread=1)
    try:
        return validate(args)
    except TreexcError as e:
        raise TreexcError(f"{path}: a fastText model treexc cannot read ({e})") from None


def loaded_from_fasttext(path, kind):
    """``(header, arrays)`` of the treexc classifier (model kind ``kind``)
    equivalent to the fastText model in ``path``."""
    ft = read_fasttext(path)
    args = fasttext_args(ft, path)
    lengths = np.array([len(w) for w in ft.words], dtype=np.int32)
    offsets = np.zeros(len(lengths), dtype=np.int64)
    np.cumsum(lengths[:-1], out=offsets[1:])
    pool = np.frombuffer(b"".join(ft.words), dtype=np.uint8)
    label_counts = ft.counts[ft.nwords:]
    entry = loss(args.loss)
    if entry.fixed_huffman:
        children, w_out = hs_tree_and_rows(label_counts, ft.w_out)
    elif entry.tree == "flat":
        children, w_out = np.arange(ft.nlabels, dtype=np.int32)[None, :], ft.w_out
    else:
        children, w_out = None, ft.w_out
    arrays = {"pool": pool, "entry_off": offsets, "entry_len": lengths,
              "counts": ft.counts, "w_in": ft.w_in, "w_out": w_out}
    if children is not None:
        arrays["children"] = children
    header = {"kind": kind, "args": option_values(args, saved_only=True),
              "nwords": ft.nwords, "has_tree": children is not None,
              "scoring": SCORING_FASTTEXT}
    return header, arrays
