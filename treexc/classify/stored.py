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
from ..io import contents, modelfile
from ..io.fasttext_model import starts_like_fasttext
from ..loss.registry import LOSSES, loss
from ..options import shape_names
from ..planning import stored_plan
from .fasttext.convert import SCORING_FASTTEXT, loaded_from_fasttext
from .options import Args, validate
from .plan import ADDED, Plan
from .plan_rules import SCORING_MEAN

MODEL_KIND = "supervised"
QUANTIZED_VERSION = modelfile.QUANTIZED_VERSION
KSUB = 256  # centroids per sub-quantiser (classify.quantize.kernels.KSUB)
PQ_CODES = ("in_codes", "out_codes")  # a quantised file's large arrays, mapped
MAPPED = ("w_in", "w_out") + PQ_CODES  # weights: views of a large file, not copies


@dataclass
class StoredQuantization:
    """The arrays of a quantised model (``treexc quantize``), checked."""
    w_in: tuple          # QuantizedMatrix's fields: codes, centroids, dsub, norms
    w_out: tuple         # the same for -qout, else None
    kept_buckets: object  # int64 sorted bucket numbers with -cutoff, else None
    description: dict    # the header's "quantization"


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
    w_in: np.ndarray    # None in a quantised model
    w_out: np.ndarray   # None in a quantised model with -qout
    loaded: tuple       # ``modelfile.load``'s (header, arrays)
    quantized: StoredQuantization = None
    scoring: str = ""   # "fasttext": a converted fastText model, scored as fastText does
    plan: dict = None   # the header's "plan" (classify/plan.py), None in older files


def read_classifier(path, check_vocabulary, check_tree, loaded=None, weights_checked=False):
    """The parts of the classifier in ``path``, every one checked.
    ``check_vocabulary(pool, entry_off, entry_len)`` and
    ``check_tree(children, n_labels)`` raise ``ValueError`` or
    ``TreexcError`` on a bad file; ``loaded`` is ``modelfile.load``'s answer
    when the file has been read already.  ``weights_checked``: ``loaded``
    went through this function once, so its weight matrices are known
    finite and in range (scanning a mapped 800 MB matrix twice costs half a
    second).  A fastText ``.bin`` (recognised by
    its magic number) is read as the treexc model it converts to
    (``fasttext_convert``)."""
    if loaded is None and starts_like_fasttext(path):
        loaded = loaded_from_fasttext(path, MODEL_KIND)
    header, a = loaded if loaded is not None else modelfile.load(path, mapped=MAPPED)
    kind = header.get("kind")
    if kind != MODEL_KIND:
        kind = contents.describe(kind).strip("'")
        raise TreexcError(f"{path}: this is a '{kind}' model, not a classifier")
    try:
        saved = header["args"]
        args = validate(contents.options(Args, saved))
        if args.loss not in LOSSES:  # "auto" is resolved before a model is saved
            raise ValueError(f"loss {args.loss!r}")
        missing = [name for name in shape_names(Args) if name not in saved]
        if missing:
            raise KeyError(missing[0])
        nwords, has_tree = header["nwords"], header["has_tree"]
        if type(nwords) is not int or type(has_tree) is not bool:
            raise TypeError("nwords or has_tree")
        scoring = header.get("scoring", "")
        if scoring not in ("", SCORING_FASTTEXT, SCORING_MEAN) or (
                scoring == SCORING_MEAN and not (has_tree and loss(args.loss).tree_softmax)):
            raise ValueError(f"scoring {contents.describe(scoring)}")
        plan = stored_plan(header.get("plan"), Plan, ADDED)
        # index arrays are in memory (never mapped); weights may be mapped
        pool = contents.array(a, "pool", "u1", 1)
        entry_off = contents.array(a, "entry_off", "<i8", 1)
        entry_len = contents.array(a, "entry_len", "<i4", 1)
        counts = contents.array(a, "counts", "<i8", 1)
        # entries inside the pool, once each (duplicates would make the hash
        # table quadratic to build), and labels to predict
        contents.check_entries(pool, entry_off, entry_len, counts)
        if not 0 <= nwords < len(entry_off):
            raise ValueError(f"nwords {nwords} with {len(entry_off)} entries and no label")
        vocabulary = check_vocabulary(pool, entry_off, entry_len)
        n_labels = len(entry_off) - nwords
        tree, out_rows = None, n_labels
        if has_tree:
            children = contents.array(a, "children", "<i4", 2)
            contents.check_tree(children, n_labels)
            tree = check_tree(children, n_labels)
            out_rows = children.size
        if has_tree != loss(args.loss).has_tree:
            raise TreexcError("matrix shapes do not match")
        quantized = w_in = w_out = None
        if "quantization" in header:
            quantized = _read_quantized(header["quantization"], a, args, nwords, out_rows)
        else:
            w_in = contents.array(a, "w_in", "<f4", 2)
            if (w_in.shape != (nwords + args.bucket, args.dim)
                    or w_in.shape[0] >= 2 ** 31):  # feature ids are int32
                raise TreexcError("matrix shapes do not match")
            if not weights_checked:
                contents.check_weights("w_in", w_in)
        if quantized is None or quantized.w_out is None:
            w_out = contents.array(a, "w_out", "<f4", 2)
            if w_out.shape != (out_rows, args.dim):
                raise TreexcError("matrix shapes do not match")
            if not weights_checked:
                contents.check_weights("w_out", w_out)
    except KeyError as e:
        raise TreexcError(f"{path}: corrupt model (missing {e})") from None
    except (TypeError, AttributeError):
        raise TreexcError(f"{path}: corrupt model header") from None
    except (ValueError, TreexcError) as e:  # a bad option, array or tree: name the file
        raise TreexcError(f"{path}: corrupt model ({e})") from None
    return StoredClassifier(args, nwords, pool, entry_off, entry_len, counts, vocabulary, tree,
                            w_in, w_out, (header, a), quantized, scoring, plan)


def _read_quantized(description, a, args, nwords, out_rows):
    """The checked arrays of a quantised model (``ValueError`` if bad)."""
    if not isinstance(description, dict):
        raise TypeError("quantization")
    dsub, pruned, qnorm = (description.get(k) for k in ("dsub", "pruned", "qnorm"))
    if not (type(dsub) is int and 1 <= dsub <= args.dim and type(pruned) is bool
            and type(qnorm) is bool and type(description.get("qout")) is bool):
        raise ValueError("quantization settings")
    rows = nwords + args.bucket
    kept = None
    if pruned:
        kept = contents.array(a, "kept_buckets", "<i8", 1)
        # sorted and distinct, inside -bucket: the renumbering's binary search
        if len(kept) and (kept[0] < 0 or kept[-1] >= args.bucket
                          or (np.diff(kept) <= 0).any()):
            raise ValueError("kept buckets not sorted within -bucket")
        rows = nwords + len(kept)
    if rows >= 2 ** 31:  # feature ids are int32
        raise ValueError(f"{rows} input rows")
    w_in = _quantized_matrix(a, "in", rows, args.dim, dsub, qnorm)
    w_out = None
    if description["qout"]:
        w_out = _quantized_matrix(a, "out", out_rows, args.dim, min(2, args.dim), qnorm)
    return StoredQuantization(w_in, w_out, kept, description)


def _quantized_matrix(a, prefix, rows, dim, dsub, qnorm):
    """A product-quantised matrix's arrays, checked: codes are bytes and
    there are 256 centroids, so no code reads outside them."""
    codes = contents.array(a, f"{prefix}_codes", "u1", 2)
    centroids = contents.array(a, f"{prefix}_centroids", "<f4", 2)
    if codes.shape != (rows, -(-dim // dsub)) or centroids.shape != (KSUB, dim):
        raise ValueError(f"quantised matrix '{prefix}' of shape {codes.shape}")
    contents.check_weights(f"{prefix}_centroids", centroids)
    norm_codes = norm_centroids = None
    bound = float(np.abs(centroids).max())
    if qnorm:
        norm_codes = contents.array(a, f"{prefix}_norm_codes", "u1", 1)
        norm_centroids = contents.array(a, f"{prefix}_norm_centroids", "<f4", 1)
        if len(norm_codes) != rows or len(norm_centroids) != KSUB:
            raise ValueError(f"quantised norms of '{prefix}'")
        contents.check_weights(f"{prefix}_norm_centroids", norm_centroids)
        bound *= float(np.abs(norm_centroids).max())
    if bound > contents.MAX_WEIGHT:  # a decoded weight, as check_weights
        raise ValueError(f"weights '{prefix}' above {contents.MAX_WEIGHT:g}")
    return codes, centroids, dsub, norm_codes, norm_centroids
