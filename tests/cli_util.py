"""Running the ``treexc`` command in-process for the CLI tests, and the
checks every test of a user-facing error shares."""

import pytest
from click.testing import CliRunner

import treexc
from treexc.cli.main import main
from treexc.errors import TreexcError


def run(args, input=None):
    """Invoke ``treexc ARGS``; an exception other than SystemExit (that is,
    a traceback the user would see) fails the test with that exception."""
    result = CliRunner().invoke(main, [str(a) for a in args], input=input)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def ok(args, input=None):
    result = run(args, input)
    assert result.exit_code == 0, result.stderr
    return result


def user_error(args, *fragments, input=None):
    """Run a command that must fail: status 1 and exactly one line
    ``treexc: ...`` on stderr containing every fragment.  Returns the line."""
    result = run(args, input)
    assert result.exit_code == 1, (result.exit_code, result.output)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("treexc: "), lines[0]
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


def load_error(path):
    """The TreexcError that loading ``path`` raises (anything else fails):
    one line, naming the file."""
    with pytest.raises(TreexcError) as info:
        treexc.load_model(str(path))
    message = str(info.value)
    assert str(path) in message and "\n" not in message
    return message
