"""What every command shares: fastText-style argument parsing, the training
commands' flags, one-line errors, writing answers to standard output,
output checks."""

import dataclasses
import difflib
import errno
import io
import os
import sys

import click

from ..errors import TreexcError
from ..io.publish import refuse_special
from ..options import flag_names, help_text
from .stdout import silence_stdout


class NumberArgsCommand(click.Command):
    """Negative numbers are positional arguments, not options: fastText's
    ``predict model.bin file -1`` asks for every label, also with options
    after it (``test model.bin file -1 -metrics ndcg``)."""

    def parse_args(self, ctx, args):
        takes_value = {name: not (p.is_flag or p.count) for p in self.get_params(ctx)
                       if isinstance(p, click.Option) for name in p.opts}
        options, positional, i = [], [], 0
        while i < len(args):
            arg = args[i]
            if arg == "--":
                positional += args[i + 1:]
                break
            name = arg.split("=", 1)[0]
            if name in takes_value:  # an option, with its value when it takes one
                width = 2 if takes_value[name] and "=" not in arg else 1
                options += args[i:i + width]
                i += width
                continue
            positional.append(arg)
            i += 1
        if any(a.startswith("-") and is_number(a) for a in positional):
            args = [*options, "--", *positional]
        return super().parse_args(ctx, args)



def interrupted(e):
    try:
        click.echo("treexc: interrupted", err=True)
    except (OSError, ValueError):
        pass  # SIGHUP: the terminal may be gone
    sys.exit(128 + getattr(e, "signum", 2))



class FastTextCommand(click.Command):
    """A command with fastText's single-dash long flags: an unknown one is
    named whole (click alone would complain about its first letter)."""

    def parse_args(self, ctx, args):
        known = {name for param in self.get_params(ctx) for name in getattr(param, "opts", [])}
        for arg in args:
            if arg == "--":
                break
            name = arg.split("=", 1)[0]
            if (name.startswith("-") and len(name) > 2 and name not in known
                    and not is_number(name)):
                close = difflib.get_close_matches(name, sorted(known), n=1)
                hint = f" (did you mean {close[0]}?)" if close else ""
                raise click.UsageError(f"unknown option {name}{hint}", ctx)
        return super().parse_args(ctx, args)



def option_flags(cls):
    """click options for every field of the options dataclass ``cls``
    (``treexc.options``), each of its names as ``-name`` and ``--name``, its
    help and default from the field.  An absent flag is None: the field's
    default applies (``options_from_flags``)."""

    def decorate(f):
        for field in reversed(dataclasses.fields(cls)):
            kind = {"is_flag": True} if field.type is bool else {"type": field.type}
            # a required one gets no default at all: recent click versions take
            # an explicit default=None as a value and then do not require it
            given = {"required": True} if field.metadata["required"] else {"default": None}
            spellings = [f"{dashes}{name}" for name in flag_names(field)
                         for dashes in ("-", "--")]
            f = click.option(*spellings, field.name, help=help_text(field),
                             **kind, **given)(f)
        return f

    return decorate


def is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False



def fail(message):
    try:
        if sys.stdout is not None:
            sys.stdout.flush()  # the answers before the error line
    except (OSError, ValueError):
        silence_stdout()
    click.echo(f"treexc: {message}", err=True)
    sys.exit(1)




def tolerant_stdout():
    """Tokens with invalid UTF-8 are ``str`` with lone surrogates
    (``textio.to_str``): standard output writes them back as their bytes.
    Started with standard output closed (``>&-``), Python has none at all:
    a stand-in makes any write fail with one line, not an AttributeError."""
    if sys.stdout is None:
        sys.stdout = ClosedStdout()
    try:
        sys.stdout.reconfigure(errors="surrogateescape")
    except (AttributeError, ValueError):
        pass



class ClosedStdout(io.TextIOBase):
    """Standard output when there is none: writes fail, flushes do nothing."""

    def writable(self):
        return True

    def write(self, data):
        raise OSError(errno.EBADF, "standard output is closed")

    def fileno(self):
        raise OSError(errno.EBADF, "standard output is closed")

    @property
    def buffer(self):
        return self



def write_stdout(data, flush=True):
    """Write answer bytes (or text) to standard output.  A write that fails
    (a full disk, /dev/full, a descriptor not open for writing) becomes one
    ``TreexcError``; a reader that went away stays ``BrokenPipeError``, a
    quiet exit."""
    out = sys.stdout
    if out is None or isinstance(out, ClosedStdout):  # started with `>&-`
        raise TreexcError("standard output is closed: nowhere to write the answers")
    if isinstance(data, str):
        # imported here, not above: only a running command loads numpy and Numba
        from ..io.textio import to_bytes
        data = to_bytes(data)
    try:
        out.flush()
        buffer = getattr(out, "buffer", None)
        if buffer is None:  # a text-only stream put in place by an embedding program
            # imported here, not above: only a running command loads numpy and Numba
            from ..io.textio import to_str
            out.write(to_str(data))
            buffer = out
        else:
            # a write cut short (a file size limit) returns what it wrote
            # instead of failing: the next write of the rest reports why;
            # an empty write is a write(2) of 0 bytes, which /dev/full refuses
            rest = memoryview(data)
            while rest:
                rest = rest[buffer.write(rest):]
        if flush:
            buffer.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as e:
        silence_stdout()
        raise TreexcError(f"standard output: cannot write: "
                          f"{getattr(e, 'strerror', None) or e}") from None



def flush_stdout():
    if sys.stdout is not None and not isinstance(sys.stdout, ClosedStdout):
        write_stdout(b"")



def check_output_writable(output, finals=(), flag="-output", inputs=()):
    """Refuse before training an output that could not be published: a
    missing or read-only folder, a folder where a file of ``finals`` goes, a
    device or FIFO there; or one that would replace a file of ``inputs`` (the
    training file as ``-log``) or another of ``finals``."""
    if not output:
        raise TreexcError(f"{flag}: the file name must not be empty")
    refuse_folder_name(output, flag)
    folder = os.path.dirname(os.path.abspath(output)) or "."
    if not os.path.isdir(folder):
        why = "is not a folder" if os.path.exists(folder) else "does not exist"
        raise TreexcError(f"{flag} {output}: folder {folder} {why}")
    if not os.access(folder, os.W_OK):
        raise TreexcError(f"{flag} {output}: folder {folder} is not writable")
    for i, final in enumerate(finals):
        if os.path.isdir(final):
            raise TreexcError(f"{flag} {output}: {final} is a folder "
                              "(remove it or choose another name)")
        named = f"{flag} {output}" + ("" if final == output else f": {final}")
        refuse_special(final, named)
        for other, does in [*((f, "writes") for f in finals[i + 1:]),
                            *((f, "reads") for f in inputs)]:
            if other and other != "-" and _same_file(final, other):
                raise TreexcError(f"{named}: the same file as {other}, which this run "
                                  f"{does} (choose another name)")


def refuse_folder_name(output, flag, example="model"):
    """Refuse a name that ends in a folder: ``-output models/`` wrote the
    hidden files models/.bin and models/.vec, ``plot -o figs/`` figs/.png."""
    if not os.path.basename(output):
        raise TreexcError(f"{flag} {output}: names a folder; give a file name in it "
                          f"(e.g. {output}{example})")


def _same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):  # one is not there yet: compare the names
        return os.path.realpath(a) == os.path.realpath(b)


def load_classifier(path):
    """A classifier of either family (``treexc/supervised.load_model``)."""
    # imported here, not above: only a running command loads numpy and Numba
    from ..supervised import load_model
    return load_model(path)


def evaluated_model(model_path, input_path):
    """``(model, text)`` for test and test-label: the model file read and
    checked, then the input read; the model is numpy's
    (``linear/firstlines.py``) for a linear model and an input small
    enough that it answers it sooner than Numba starts
    (``LinearFirstLines.answers_at_once``), else the kernels' (Numba prepared
    only then).  The figures are the same either way."""
    # imported here, not above: only a running command loads numpy, and
    # Numba (jitstart) only when the kernels answer
    from ..io.textio import read_text
    from ..model_family import LINEAR, model_family

    if model_family(model_path) != LINEAR:
        from .. import jitstart
        from ..classify.model import load_model

        jitstart.prepare()
        model = load_model(model_path)
        return model, read_text(input_path)
    from ..linear import firstlines

    size, lines = _plain_shape(input_path)
    if size > firstlines.FIRST_BYTES or lines > firstlines.FIRST_LINES:  # the kernels', known
        return _kernels_linear(model_path), read_text(input_path)       # before numpy loads
    first = firstlines.load(model_path)
    data = read_text(input_path)
    if first.answers_at_once(data):
        return first, data
    loaded = first.loaded
    del first  # its arrays, before the kernels' model holds its own
    return _kernels_linear(model_path, loaded), data


def _kernels_linear(model_path, loaded=None):
    """The kernels' linear model of ``model_path``, Numba prepared."""
    # imported here: Numba only when the kernels answer
    from .. import jitstart
    from ..linear.model import load_linear

    jitstart.prepare()
    return load_linear(model_path, loaded=loaded)


def _plain_shape(path):
    """``(bytes, lines)`` of ``path`` where its size says them (a regular
    file, not gzipped, of at most ``firstlines.FIRST_BYTES``: its lines
    counted; above, -1 lines), else ``(-1, -1)`` (standard input, a pipe,
    a gzipped file)."""
    from ..io.textio import GZIP_MAGIC
    from ..linear.firstlines import FIRST_BYTES

    try:
        if path == "-" or not os.path.isfile(path):
            return -1, -1
        with open(path, "rb") as f:
            if f.read(len(GZIP_MAGIC)) == GZIP_MAGIC:
                return -1, -1
            size = os.path.getsize(path)
            if size > FIRST_BYTES:
                return size, -1
            f.seek(0)
            return size, f.read(FIRST_BYTES + 1).count(b"\n")
    except OSError:
        return -1, -1  # read_text says what is wrong


def load_any_model(path):
    """The model in ``path`` for the vector commands: a classifier, or a word
    vector model (treexc's, or fastText's skipgram or cbow)."""
    # imported here, not above: only a running command loads numpy and Numba
    from ..vectors.model import is_word_vector_file, load_vectors
    return load_vectors(path) if is_word_vector_file(path) else load_classifier(path)



def model_input_k_threshold(input_default):
    """fastText's positional arguments: MODEL INPUT [K] [THRESHOLD]."""

    def decorate(f):
        f = click.argument("threshold", type=float, default=0.0)(f)
        f = click.argument("k", type=int, default=1)(f)
        optional = {} if input_default is None else {"default": input_default}
        f = click.argument("input_path", metavar="INPUT", **optional)(f)
        return click.argument("model_path", metavar="MODEL")(f)

    return decorate



def stdin_lines():
    """Standard input in pieces of whole lines (bytes; the last piece may
    lack its newline), as they arrive: a typed line is answered at once.
    Gzip is recognised by its magic bytes; any byte is read as it is."""
    # imported here, not above: only a running command loads numpy and Numba
    from ..io.textio import read_line_chunks

    for _, piece in read_line_chunks("-"):
        yield piece


def usage_if_typing(input_path):
    """No INPUT given, and standard input a terminal: the user did not mean
    to type lines (fastText prints its usage there too), so print the
    command's help and exit with status 2 instead of waiting in silence.
    An explicit ``-`` still reads the terminal."""
    ctx = click.get_current_context()
    given = ctx.get_parameter_source("input_path") != click.core.ParameterSource.DEFAULT
    if input_path == "-" and not given and sys.stdin is not None and sys.stdin.isatty():
        click.echo(ctx.get_help(), err=True)
        sys.exit(2)
