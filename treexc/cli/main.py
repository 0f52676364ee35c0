"""The ``treexc`` command line, mirroring fastText's.

fastText's single-dash long flags work (``-input``, ``-lr``, ``-wordNgrams``),
and so do double-dash ones (``--input``).  User errors print one line,
``treexc: <what is wrong>``, and exit with status 1.
"""

import atexit
import functools
import gc
import os
import sys

# treexc's threads are its workers, each running BLAS in one thread
# (runtime.blas_threads): OpenBLAS's own pool, which numpy starts on import,
# would cost every command about 0.07 s of CPU (docs/results/startup.md).
# A value the user set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import click  # noqa: E402  (after the environment numpy reads on import)

from .. import __version__  # noqa: E402
from ..errors import TreexcError
from . import classify
from .common import (
    NumberArgsCommand,
    fail,
    flush_stdout,
    interrupted,
    silence_stdout,
    tolerant_stdout,
)

# the commands of the modules imported when one of them is asked for (each
# module's COMMANDS; a test checks them): a command's start-up pays for its
# own module only (the classifier's, imported above, are the common ones)
LAZY_COMMANDS = {
    "lm": ("lm", "test-lm", "predict-next", "plot"),
    "trees": ("dump-tree", "check"),
    "unsupervised": ("skipgram", "cbow"),
    "vectors": ("nn", "analogies", "print-ngrams", "convert"),
    "warmup": ("compile",),
}


def _kernels_ready(callback):
    """``callback`` after Numba's start-up is set (``jitstart``): here, once
    click has parsed the arguments, so that ``--help`` imports no Numba."""
    if getattr(callback, "kernels_ready", False):
        return callback

    @functools.wraps(callback)
    def run(*args, **kwargs):
        # imported here: Numba takes 0.3-0.5 s to import, which --help need not
        from .. import jitstart

        jitstart.prepare()
        return callback(*args, **kwargs)

    run.kernels_ready = True
    return run


class Main(click.Group):
    """Turns user errors into one line on stderr and an exit status."""

    command_class = NumberArgsCommand

    def add_command(self, cmd, name=None):
        if cmd.name != "plot":  # the one command that runs no kernel
            cmd.callback = _kernels_ready(cmd.callback)
        super().add_command(cmd, name)

    def get_command(self, ctx, name):
        for module, names in LAZY_COMMANDS.items():
            if name in names and name not in self.commands:
                _add_commands(self, module)
        return super().get_command(ctx, name)

    def list_commands(self, ctx):
        return sorted({*super().list_commands(ctx),
                       *(name for names in LAZY_COMMANDS.values() for name in names)})

    def main(self, *args, **kwargs):
        _no_final_collections()
        standalone = kwargs.pop("standalone_mode", True)
        try:
            # not standalone: click would print a usage error as several
            # lines (usage, hint, error); here it becomes one, with status 2
            return super().main(*args, standalone_mode=False, **kwargs)
        except click.UsageError as e:
            if not standalone:
                raise
            if isinstance(e, click.exceptions.NoArgsIsHelpError):
                e.show()  # `treexc` alone: the help text
                sys.exit(e.exit_code)
            names, ctx = [], e.ctx
            while ctx is not None and ctx.parent is not None:
                names.insert(0, ctx.info_name)
                ctx = ctx.parent
            command = " ".join(["treexc", *names])
            click.echo(f"treexc: {e.format_message()} (see: {command} -h)", err=True)
            sys.exit(e.exit_code)
        except click.ClickException as e:
            if not standalone:
                raise
            click.echo(f"treexc: {e.format_message()}", err=True)
            sys.exit(e.exit_code)
        except click.exceptions.Abort:
            if not standalone:
                raise
            click.echo("treexc: interrupted", err=True)
            sys.exit(130)
        except OSError as e:
            # `treexc --help` or `--version` written to a full disk: parsed
            # and printed before invoke (click handles only EPIPE here)
            silence_stdout()
            fail(f"standard output: cannot write: {e.strerror or e}")

    def invoke(self, ctx):
        from ..io.modelfile import mapping_wanted
        if mapping_wanted():  # a mapped model's truncation: one line, not a bus error
            from ..io import bus_error
            bus_error.install()
        try:
            tolerant_stdout()
            result = super().invoke(ctx)
            flush_stdout()  # here, not at exit, where Python's own flush would fail
            return result
        except TreexcError as e:
            fail(str(e))
        except BrokenPipeError:
            # the reader went away (e.g. `| head`): not an error
            silence_stdout()
            sys.exit(0)
        except OSError as e:
            # one not met where its file could be named, e.g. standard output
            # written as text by a command that does not use write_stdout
            silence_stdout()
            fail(f"{e.filename}: {e.strerror or e}" if e.filename
                 else f"standard output: cannot write: {e.strerror or e}")
        except MemoryError:
            fail("out of memory")
        except KeyboardInterrupt as e:
            # Ctrl-C, or SIGTERM/SIGHUP during training (publish.Interrupted)
            interrupted(e)
        except SystemError as e:
            # a signal handled inside a kernel called from this thread (an LM
            # tree rebuild): Python wraps the handler's exception like this
            cause = e.__cause__
            while isinstance(cause, SystemError):  # one per call level
                cause = cause.__cause__
            if isinstance(cause, KeyboardInterrupt):
                interrupted(cause)
            raise


def _no_final_collections():
    """At exit, Python's last garbage collections walk every object still
    alive (numpy's, click's, Numba's): 0.04 s of CPU after a one-line
    `predict`, 0.18 s after a `test` that loaded Numba.  A command has
    nothing left for them to free that matters (its outputs are closed and
    published, standard output and error are flushed by Python itself,
    `weakref.finalize` callbacks run from atexit), so the objects alive at
    exit are frozen out of them (``gc.freeze``), once per process."""
    if not getattr(_no_final_collections, "registered", False):
        _no_final_collections.registered = True
        atexit.register(gc.freeze)


@click.group(cls=Main, context_settings={"help_option_names": ["-h", "-help", "--help"]})
@click.version_option(__version__, "-version", "--version", prog_name="treexc",
                      message="%(prog)s %(version)s")
def main():
    """treexc: fastText-style text classification with learned tree softmax.

    \b
    treexc supervised -input train.txt -output model
    treexc test model.bin test.txt 5
    treexc predict model.bin - < lines.txt
    """


for command in classify.COMMANDS:
    main.add_command(command)


def _add_commands(group, module):
    # imported when asked for: the other commands' modules (the language
    # model's, the vector tools', compile's) cost the classifier's start-up
    import importlib

    for command in importlib.import_module(f"{__package__}.{module}").COMMANDS:
        group.add_command(command)
