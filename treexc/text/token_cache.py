"""The token cache: a training file encoded once into arrays on disk, which
every epoch and thread reads through a memory mapping.

Training memory is then the model plus bounded buffers, whatever the size
of the corpus.  The cache is built in two passes over the text, each in
pieces of whole lines (``textio.read_line_chunks``, 4 MiB reads):

1. **Count.**  ``dictionary.TokenCounter`` counts the pieces (the same
   entries, in the same order, as counting the whole file), and the
   dictionary is made from the counts.  Input that cannot be read twice
   (standard input, pipes, ``<(...)``: anything but a regular file) is
   copied as it is read, gunzipped, to a spool file in the cache's folder.
2. **Encode.**  The file (or the spool) is read again and each piece is
   encoded by ``Dictionary.encode`` and its bare lines dropped
   (``Corpus.drop_bare_lines``), exactly as the whole file would be; the
   arrays are appended to part files (``io/bigarrays``), then copied into
   one data file.

A cache is two files (docs/format.md, "Token cache"): ``KEY.tokens``, the
data file, and ``KEY.index``, a model container (``io/modelfile``: magic,
version, checksums) holding the dictionary, what the text said (warnings,
bare lines, token count) and the data file's directory; the index is
renamed into place last, so a cache is whole or absent.  ``KEY`` is a hash
of the input's absolute path and the options that change the encoding;
the index also records the input's size, inode, modification and change
time (and those of ``-pretrainedVectors``): an edit that keeps the size
and the modification time (``touch -r``, ``cp -p``, ``rsync -t``) still
changes the change time or the inode.  A cache whose index or data file
does not match in every point (another input, a changed file, a truncated
or damaged file, another cache version) is rebuilt, never read.

A ``-cache`` folder may be shared (between jobs or users), so a cache that
matches is still not trusted: opening it checks every token id against the
dictionary's sizes and every offset against the arrays (vectorised, a few
milliseconds per million lines), and training checks the file again as it
reads it (``text/windows``).  Runs sharing a folder build under names of
their own (``KEY.treexc-cache-HOST-PID-LETTERS.*``), open what they built,
then rename it into place, the index last; so concurrent builds of one
cache all succeed, each publishing a complete cache (the same bytes), and a
reader never sees a half-written one.

Without ``-cache DIR`` the cache lives in a temporary folder, removed when
training ends (also on errors and signals).  With it the cache is kept in
``DIR`` and reused; input that is not a regular file cannot be recognised
again, so its cache goes to a temporary folder inside ``DIR``.  A process
killed outright (SIGKILL, the out-of-memory killer) cannot remove its
folder, so the folder's name holds the host and the process id, and the
next training run on that host removes the folders of processes that no
longer exist (``sweep_abandoned``) before it makes its own; the build
files of a killed run in a ``-cache`` folder are named the same way and
removed likewise.
"""

import ctypes
import hashlib
import json
import os
import stat
from contextlib import contextmanager

import numpy as np

from ..errors import TreexcError
from ..io import modelfile
from ..io.bigarrays import ArrayParts, MappedArrays, check_data_file
from ..io.textio import ByteCheck, read_line_chunks, warn
from . import cache_folder
from .dictionary import Corpus, Dictionary, TokenCounter, dictionary_from_counts

CACHE_KIND = "treexc token cache"
CACHE_VERSION = 4  # change it whenever what encoding writes changes (4: inode, ctime in the key)
# the options that change the dictionary or the encoded ids
ENCODING_OPTIONS = ("minCount", "minCountLabel", "wordNgrams", "bucket", "minn", "maxn",
                    "label")
CORPUS_ARRAYS = (("feat_off", np.int64), ("feats", np.int32), ("label_off", np.int64),
                 ("labels", np.int32), ("ntokens", np.int32))


# glibc's mallopt parameter: requests of at least this many bytes are mapped
# on their own and given back to the system when freed
_M_MMAP_THRESHOLD = -3


def give_back_large_buffers():
    """Have malloc map every buffer of 256 KiB or more on its own, so that
    freeing it returns the memory.  glibc's default moves the threshold up
    to the size of the largest buffer freed, after which the 4 MiB pieces
    of text and their arrays come from the heap, which keeps what was freed:
    counting gutenberg_books x4 held 226 MiB (84 MiB after malloc_trim),
    with this 88 MiB throughout.  Process-wide; a no-op without glibc."""
    try:
        ctypes.CDLL("libc.so.6").mallopt(_M_MMAP_THRESHOLD, 256 << 10)
    except (OSError, AttributeError):
        pass


def file_identity(path):
    """``{path, size, mtime_ns, inode, ctime_ns}`` of a regular file, else
    None.  The change time cannot be set back by a program (``touch``,
    ``cp -p`` set the modification time only), and a copy renamed into
    place has another inode."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return {"path": os.fsdecode(os.path.abspath(path)), "size": st.st_size,
            "mtime_ns": st.st_mtime_ns, "inode": st.st_ino, "ctime_ns": st.st_ctime_ns}


def cache_key(args):
    """What a reusable cache must match, or None when the input is not a
    regular file (it cannot be recognised again)."""
    source = None if args.input == "-" else file_identity(args.input)
    if source is None:
        return None
    key = {"cache_version": CACHE_VERSION, "input": source,
           "options": {name: getattr(args, name) for name in ENCODING_OPTIONS}}
    if args.pretrainedVectors:
        key["pretrained"] = file_identity(args.pretrainedVectors) or args.pretrainedVectors
    return key


def cache_name(key):
    """The file name stem of a cache: the input's path and the options
    (not size and time: a changed file replaces its own cache)."""
    named = {"path": key["input"]["path"], "options": key["options"],
             "pretrained": key.get("pretrained")}
    return hashlib.sha256(json.dumps(named, sort_keys=True).encode()).hexdigest()[:20]


@contextmanager
def training_corpus(args, name, read_pretrained, verbose_info, labels_needed=True):
    """``(dictionary, corpus, pretrained)`` of ``args.input``, the corpus
    read from the token cache's mapping while inside (its pages handed back
    every tenth of a second).  ``read_pretrained()`` gives the pretrained
    ``(words, vectors)`` or None (it is called once, after the dictionary is
    made, as without a cache); ``verbose_info(message)`` prints at
    ``-verbose`` 2; ``labels_needed``: as ``dictionary_from_counts``'."""
    folder = args.cache or None
    if folder is not None and not os.path.isdir(folder):
        why = "is not a folder" if os.path.exists(folder) else "does not exist"
        raise TreexcError(f"-cache {folder}: {why}")
    key = cache_key(args) if folder else None
    if folder is not None and key is None:
        verbose_info(f"token cache: {name} is not a regular file, so its cache cannot be "
                     f"reused: it is built in a temporary folder in {folder}")
    if key is not None:
        cache_folder.sweep_abandoned(folder)
        base = os.path.join(folder, cache_name(key))
        loaded = load_cache(base, key, args, verbose_info)
        if loaded is not None:
            verbose_info(f"token cache: reusing {base}.index")
            header = loaded[0]
            if header["byte_warning"]:  # what reading the text said, said again
                warn(f"{name}: {header['byte_warning']}")
            with _opened(loaded, read_pretrained()) as opened:
                yield opened
            return
        # built under this run's own names, opened, then published
        own = cache_folder.own_name(base)
        try:
            pretrained = build_cache(args, name, own, read_pretrained, key, labels_needed)
            loaded = _reload(own, key, args, verbose_info)
        except BaseException:
            cache_folder.remove_own(own)
            raise
        cache_folder.publish(own, base, loaded[2])
        verbose_info(f"token cache: written to {base}.index and .tokens")
        with _opened(loaded, pretrained) as opened:
            yield opened
        return
    with cache_folder.temporary_folder(folder) as work:
        base = os.path.join(work, "corpus")
        pretrained = build_cache(args, name, base, read_pretrained, None, labels_needed)
        with _opened(_reload(base, None, args, verbose_info), pretrained) as opened:
            yield opened


@contextmanager
def encoded_with(dictionary, source):
    """``source`` (a file, or "-") encoded with a ``dictionary`` made
    elsewhere (``quantize -retrain``'s pruned one) into a temporary token
    cache, in one pass (nothing to count): the corpus read from its mapping
    while inside, as :func:`training_corpus`'s, so memory does not grow
    with the text either."""
    with cache_folder.temporary_folder(None) as work:
        base = os.path.join(work, "corpus")
        try:
            text, directory, size = _encode_into(dictionary, source, base)
        except OSError as e:  # a full disk
            raise TreexcError(f"token cache in {work}: cannot write: {e.strerror or e}") \
                from None
        with _reading(text, _map_data(base + ".tokens", directory, size)) as corpus:
            yield corpus


def _reload(base, key, args, verbose_info):
    loaded = load_cache(base, key, args, verbose_info)
    if loaded is None:
        raise TreexcError(f"{base}.index: the token cache just written cannot be read back")
    return loaded


@contextmanager
def _opened(loaded, pretrained):
    header, dictionary, mapped = loaded
    with _reading(header, mapped) as corpus:
        if pretrained is not None:
            dictionary.add_words(pretrained[0])  # no-op: the cache was built with them
        yield dictionary, corpus, pretrained


@contextmanager
def _reading(text, mapped):
    """The :class:`Corpus` of a mapped data file while inside, its pages
    handed back as it is read; the mapping closed on leaving.  ``text``:
    what encoding said about the text (``encode_pieces``, kept in the
    index's header)."""
    try:
        with mapped.releasing():
            yield Corpus(*(mapped.arrays[a] for a, _ in CORPUS_ARRAYS),
                         bare_first=text["bare_first"], bare_count=text["bare_count"],
                         usable=text["usable"], labelled=text["labelled"],
                         label_pairs=text["label_pairs"], known_tokens=text["ntokens"],
                         source=mapped)
    finally:
        mapped.close()


def _map_data(tokens, directory, size):
    """The data file ``tokens``, checked against ``directory`` and
    ``size``, then mapped (through one descriptor: the same file)."""
    try:
        f = open(tokens, "rb")
    except OSError as e:
        raise TreexcError(f"{tokens}: cannot read: {e.strerror}") from None
    with f:
        check_data_file(f, tokens, directory, size)
        return MappedArrays(f, tokens, directory)


def _pieces_with_last(pieces):
    """``(piece, is_last)`` of an iterator, one piece ahead."""
    previous = None
    for piece in pieces:
        if previous is not None:
            yield previous, False
        previous = piece
    if previous is not None:
        yield previous, True


def build_cache(args, name, base, read_pretrained, key, labels_needed=True):
    """Write the cache ``base.index`` / ``base.tokens`` of ``args.input``;
    returns what ``read_pretrained()`` gave."""
    folder = os.path.dirname(base)
    source = args.input
    give_back_large_buffers()
    before = None if source == "-" else file_identity(source)
    spool_path = None
    spool = None
    if before is None:  # read once only: keep what is read for the second pass
        spool_path = base + ".spool"
        spool = _create(spool_path)
    check = ByteCheck()
    counter = TokenCounter()
    try:
        try:
            for _, piece in read_line_chunks(source, check):
                counter.add(np.frombuffer(piece, dtype=np.uint8))
                if spool is not None:
                    spool.write(piece)
        finally:
            if spool is not None:
                spool.close()
        byte_warning = check.message(name)
        if byte_warning:
            warn(byte_warning)
        dictionary = dictionary_from_counts(counter.counted(), args, name, labels_needed)
        del counter
        pretrained = read_pretrained()
        if pretrained is not None:
            dictionary.add_words(pretrained[0])

        def unchanged():
            if before is not None and file_identity(source) != before:
                raise TreexcError(f"{name}: changed while it was read; train again")

        text, directory, size = _encode_into(dictionary, spool_path or source, base,
                                             unchanged)
    except OSError as e:  # a spool or part file: a full disk
        raise TreexcError(f"token cache in {folder}: cannot write: {e.strerror or e}") \
            from None
    finally:
        if spool_path is not None:
            try:
                os.unlink(spool_path)
            except OSError:
                pass
    # the byte warning without the name, which a reuse may spell otherwise
    header = {"kind": CACHE_KIND, "key": key, "nwords": dictionary.nwords,
              "byte_warning": byte_warning and byte_warning[len(name) + 2:],
              "data_size": size, "directory": directory, **text}
    d = dictionary
    modelfile.save(base + ".index", header, {
        "pool": d.pool, "entry_off": d.entry_off, "entry_len": d.entry_len,
        "counts": d.counts})
    return pretrained


def _create(path):
    try:
        return open(path, "wb")
    except OSError as e:
        raise TreexcError(f"{path}: cannot write: {e.strerror or e}") from None


def _encode_into(dictionary, source, base, check=None):
    """Encode ``source`` into the data file ``base.tokens``, then call
    ``check()`` (it may raise); returns ``(text, directory, size)``: what
    :func:`encode_pieces` said, and the file's directory and size."""
    parts = ArrayParts(base, CORPUS_ARRAYS)
    try:
        text = encode_pieces(dictionary, source, parts)
        if check is not None:
            check()
    except BaseException:  # an error, Ctrl-C: no part file left in -cache DIR
        parts.discard()
        raise
    return (text, *parts.write(base + ".tokens"))


def encode_pieces(dictionary, source, parts):
    """Encode ``source`` piece by piece into ``parts``; returns what the
    index says about the text."""
    eos_id = dictionary.eos_id()
    feat_base = label_base = line_base = 0
    total = {"n_lines": 0, "ntokens": 0, "bare_count": 0, "bare_first": -1,
             "usable": False, "labelled": 0, "label_pairs": 0}
    parts.append("feat_off", np.zeros(1, np.int64))
    parts.append("label_off", np.zeros(1, np.int64))
    for (_, piece), last in _pieces_with_last(read_line_chunks(source)):
        c = dictionary.encode(np.frombuffer(piece, dtype=np.uint8))
        total["usable"] |= c.drop_bare_lines(eos_id, last)
        total["labelled"] += c.labelled
        total["label_pairs"] += c.label_pairs
        if c.bare_count:
            total["bare_count"] += c.bare_count
            if total["bare_first"] < 0:
                total["bare_first"] = line_base + c.bare_first
        parts.append("feat_off", c.feat_off[1:] + feat_base)
        parts.append("feats", c.feats)
        parts.append("label_off", c.label_off[1:] + label_base)
        parts.append("labels", c.labels)
        parts.append("ntokens", c.ntokens)
        feat_base += len(c.feats)
        label_base += len(c.labels)
        line_base += c.n_lines
        total["ntokens"] += int(c.ntokens.sum())
    total["n_lines"] = line_base
    return total


def load_cache(base, key, args, verbose_info):
    """``(header, dictionary, MappedArrays)`` of the cache ``base``, or None
    (with the reason at -verbose 2) when it is missing or does not match
    ``key`` in every point."""
    index = base + ".index"
    if not os.path.exists(index):
        return None
    mapped = None
    try:
        header, arrays = modelfile.load(index)
        if header.get("kind") != CACHE_KIND:
            raise TreexcError(f"{index}: not a token cache")
        if key is not None and header.get("key") != key:
            raise TreexcError(f"{index}: made from another input, options or version")
        directory = header["directory"]
        if [(e["name"], e["dtype"], len(e["shape"])) for e in directory] != \
                [(a, np.dtype(t).str, 1) for a, t in CORPUS_ARRAYS]:
            raise TreexcError(f"{index}: not a token cache of this version")
        mapped = _map_data(base + ".tokens", directory, header["data_size"])
        # copies: the loaded arrays are read-only, which Numba compiles apart
        d = {name: np.array(arrays[name]) for name in ("pool", "entry_off", "entry_len",
                                                       "counts")}
        dictionary = Dictionary(d["pool"], d["entry_off"], d["entry_len"],
                                d["counts"], header["nwords"], args.label,
                                args.wordNgrams, args.bucket, args.minn, args.maxn)
        _check_shape(index, header, mapped)
        _check_ids(index, mapped, header["nwords"] + args.bucket, dictionary.nlabels)
    except (TreexcError, KeyError, TypeError, ValueError) as e:
        if mapped is not None:
            mapped.close()
        why = str(e) if isinstance(e, TreexcError) else f"{index}: corrupt header"
        verbose_info(f"token cache: {why}; rebuilding it")
        return None
    return header, dictionary, mapped


def _check_shape(index, header, mapped):
    """The offsets agree with the arrays they index (the kernels trust them;
    the checksums already vouch for the rest).  Read with ``pread``, as
    everything the checks read: a mapping of a file truncated meanwhile
    would raise SIGBUS."""
    n = header["n_lines"]
    arrays = mapped.arrays
    if not (len(arrays["ntokens"]) == n and len(arrays["feat_off"]) == n + 1
            and len(arrays["label_off"]) == n + 1):
        raise TreexcError(f"{index}: the offsets do not match the arrays")
    for name, target in (("feat_off", "feats"), ("label_off", "labels")):
        ends = np.empty(1, np.int64)
        for at, want in ((0, 0), (n, len(arrays[target]))):
            mapped.read_into(name, at, ends)
            if ends[0] != want:
                raise TreexcError(f"{index}: the offsets do not match the arrays")


_CHECK_BLOCK = 1 << 22  # items a step (16-32 MB of buffer)


def _check_ids(index, mapped, n_rows, n_labels):
    """Every feature id below ``n_rows`` (the input matrix), every label id
    below ``n_labels``, offsets never falling and token counts >= 0: the
    checksums say the file is the one written, not that whoever wrote it
    (anyone who can write to the ``-cache`` folder) wrote ids the model has."""
    limits = {"feats": n_rows, "labels": n_labels, "ntokens": None,
              "feat_off": None, "label_off": None}
    for name, limit in limits.items():
        arr = mapped.arrays[name]
        buffer = np.empty(min(len(arr), _CHECK_BLOCK + 1), dtype=arr.dtype)
        for start in range(0, len(arr), _CHECK_BLOCK):
            block = buffer[:min(_CHECK_BLOCK + 1, len(arr) - start)]  # one more: the step across
            mapped.read_into(name, start, block)  # pread: nothing mapped in
            bad = (block.min() < 0 or (limit is not None and block.max() >= limit)
                   or (name.endswith("_off") and (np.diff(block) < 0).any()))
            if bad:
                raise TreexcError(f"{index}: {name} out of range for its dictionary "
                                  "(a forged or foreign cache)")
