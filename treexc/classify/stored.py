"""A classifier's model file, read and checked without Numba.

Both loaders start here: ``classify.model.load_model`` (the kernels' model)
and ``classify.firstlines`` (the numpy answers of a short prediction), so a
file is refused by the same checks, in the same order, with the same
message.  The two checks whose natural form differs between them are passed
in: no vocabulary entry twice (the kernels' hash table, or a dict) and the
tree's paths (the kernels' ``Tree``, or numpy).  Every index array is
checked before anything trusts it: the kernels read without bounds checks.
"""

from dataclasses import dataclass

import numpy as np

from ..errors import TreexcError
from ..io import modelfile
from ..io.fasttext_model import starts_like_fasttext
from ..loss.registry import LOSSES, loss
from ..options import shape_names
from .fasttext_convert import SCORING_FASTTEXT, loaded_from_fasttext
from .options import Args, validate

MODEL_KIND = "supervised"


@dataclass
class StoredClassifier:
    args: Args
    nwords: int
    pool: np.ndarray
    entry_off: np.ndarray
    entry_len: np.ndarray
    counts: np.ndarray
    vocabulary: object  # what ``check_vocabulary`` returned
    tree: object        # what ``check_tree`` returned; None without a tree
    w_in: np.ndarray
    w_out: np.ndarray
    loaded: tuple       # ``modelfile.load``'s (header, arrays)
    scoring: str = ""   # "fasttext": a converted fastText model, scored as fastText does


def read_classifier(path, check_vocabulary, check_tree, loaded=None):
    """The parts of the classifier in ``path``, every one checked.
    ``check_vocabulary(pool, entry_off, entry_len)`` and
    ``check_tree(children, n_labels)`` raise ``ValueError`` or
    ``TreexcError`` on a bad file; ``loaded`` is ``modelfile.load``'s answer
    when the file has been read already.  A fastText ``.bin`` (recognised by
    its magic number) is read as the treexc model it converts to
    (``fasttext_convert``)."""
    if loaded is None and starts_like_fasttext(path):
        loaded = loaded_from_fasttext(path, MODEL_KIND)
    header, a = loaded if loaded is not None else modelfile.load(
        path, mapped=("w_in", "w_out"))
    kind = header.get("kind")
    if kind != MODEL_KIND:
        kind = modelfile.describe(kind).strip("'")
        raise TreexcError(f"{path}: this is a '{kind}' model, not a classifier")
    try:
        saved = header["args"]
        args = validate(modelfile.options(Args, saved))
        if args.loss not in LOSSES:  # "auto" is resolved before a model is saved
            raise ValueError(f"loss {args.loss!r}")
        missing = [name for name in shape_names(Args) if name not in saved]
        if missing:
            raise KeyError(missing[0])
        nwords, has_tree = header["nwords"], header["has_tree"]
        if type(nwords) is not int or type(has_tree) is not bool:
            raise TypeError("nwords or has_tree")
        scoring = header.get("scoring", "")
        if scoring not in ("", SCORING_FASTTEXT):
            raise ValueError(f"scoring {modelfile.describe(scoring)}")
        # index arrays are in memory (never mapped); weights may be mapped
        pool = modelfile.array(a, "pool", "u1", 1)
        entry_off = modelfile.array(a, "entry_off", "<i8", 1)
        entry_len = modelfile.array(a, "entry_len", "<i4", 1)
        counts = modelfile.array(a, "counts", "<i8", 1)
        # entries inside the pool, once each (duplicates would make the hash
        # table quadratic to build), and labels to predict
        modelfile.check_entries(pool, entry_off, entry_len, counts)
        if not 0 <= nwords < len(entry_off):
            raise ValueError(f"nwords {nwords} with {len(entry_off)} entries and no label")
        vocabulary = check_vocabulary(pool, entry_off, entry_len)
        n_labels = len(entry_off) - nwords
        tree, out_rows = None, n_labels
        if has_tree:
            children = modelfile.array(a, "children", "<i4", 2)
            modelfile.check_tree(children, n_labels)
            tree = check_tree(children, n_labels)
            out_rows = children.size
        w_in = modelfile.array(a, "w_in", "<f4", 2)
        w_out = modelfile.array(a, "w_out", "<f4", 2)
        if (w_in.shape[1] != args.dim or w_out.shape != (out_rows, args.dim)
                or w_in.shape[0] != nwords + args.bucket
                or w_in.shape[0] >= 2 ** 31  # feature ids are int32
                or has_tree != loss(args.loss).has_tree):
            raise TreexcError("matrix shapes do not match")
        modelfile.check_weights("w_in", w_in)
        modelfile.check_weights("w_out", w_out)
    except KeyError as e:
        raise TreexcError(f"{path}: corrupt model (missing {e})") from None
    except (TypeError, AttributeError):
        raise TreexcError(f"{path}: corrupt model header") from None
    except (ValueError, TreexcError) as e:  # a bad option, array or tree: name the file
        raise TreexcError(f"{path}: corrupt model ({e})") from None
    return StoredClassifier(args, nwords, pool, entry_off, entry_len, counts, vocabulary, tree,
                            w_in, w_out, (header, a), scoring)
