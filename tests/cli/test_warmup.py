"""``treexc compile`` (cli/warmup.py) and ``predict``'s usage on a terminal."""

import os
import pty
import subprocess
import sys

import click
import pytest

from treexc.cli import warmup
from treexc.cli.main import main

REQUIRED = {"supervised", "test", "predict", "quantize", "lm", "test-lm", "predict-next"}


def test_every_run_parses_and_the_required_commands_are_covered(tmp_path):
    """Each warm-up run names a real command with flags it takes (parsed by
    click, not run), and the commands a newcomer meets first are there,
    with `test` on a quantised model."""
    paths = warmup.write_inputs(str(tmp_path))
    ctx = click.Context(main, **main.context_settings)  # -h among the help options, as in a run
    seen = set()
    for _, argv, stdin in warmup.command_lines(paths):
        command = main.get_command(ctx, argv[0])
        assert command is not None, argv
        command.make_context(argv[0], list(argv[1:]), parent=ctx)  # raises if a flag is wrong
        seen.add(argv[0])
        assert stdin is None or os.path.exists(stdin)
    assert REQUIRED <= seen
    assert any(argv[:1] == ["test"] and argv[1].endswith(".ftz")
               for _, argv, _ in warmup.command_lines(paths))


def test_predict_without_input_on_a_terminal_prints_its_usage(tmp_path):
    """No INPUT and a terminal on standard input: the usage, status 2, at
    once (not a silent wait for typed lines)."""
    leader, follower = pty.openpty()
    try:
        code = "import sys; from treexc.cli import main; sys.argv[0] = 'treexc'; main()"
        done = subprocess.run([sys.executable, "-c", code, "predict", "model.bin"],
                              stdin=follower, capture_output=True, text=True, timeout=60)
    finally:
        os.close(follower)
        os.close(leader)
    assert done.returncode == 2
    assert done.stderr.startswith("Usage: treexc predict [OPTIONS] MODEL INPUT")
    assert done.stdout == ""


@pytest.mark.parametrize("command", ["predict", "predict-prob"])
def test_predict_without_input_reads_a_pipe(command, tmp_path, topic_file):
    """Standard input that is not a terminal is read as before."""
    import treexc

    model = tmp_path / "m.bin"
    treexc.train_supervised(input=topic_file(tmp_path / "t.txt"), epoch=2,
                            thread=1).save_model(str(model))
    code = "import sys; from treexc.cli import main; sys.argv[0] = 'treexc'; main()"
    done = subprocess.run([sys.executable, "-c", code, command, str(model)],
                          input="bread cheese\n", capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("__label__")


def test_compile_clock_times_the_outermost_compilation_once(monkeypatch):
    """Numba nests a callee's compile event in its caller's: the clock
    counts the nest's wall time once, and a compilation under way too (the
    ETA is computed while a worker thread compiles)."""
    from treexc import jitstart

    now = [100.0]
    monkeypatch.setattr(jitstart.time, "perf_counter", lambda: now[0])
    clock = jitstart._CompileClock()
    clock.on_start(None)
    now[0] += 2.0
    clock.on_start(None)  # a callee
    now[0] += 3.0
    clock.on_end(None)
    assert clock.total() == 5.0  # under way
    now[0] += 1.0
    clock.on_end(None)
    now[0] += 10.0  # training, not compiling
    assert clock.total() == 6.0
    clock.on_start(None)
    now[0] += 4.0
    clock.on_end(None)
    assert clock.total() == 10.0


def test_the_lazy_command_table_is_each_module_s_commands():
    """cli/main.py imports a command's module when it is asked for, by the
    names in LAZY_COMMANDS: they must be that module's commands."""
    import importlib

    from treexc.cli.main import LAZY_COMMANDS

    for module, names in LAZY_COMMANDS.items():
        commands = importlib.import_module(f"treexc.cli.{module}").COMMANDS
        assert tuple(c.name for c in commands) == names
