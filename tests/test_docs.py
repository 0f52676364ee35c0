"""The documents speak of the product as it is, and their commands run.

* No history in tracked docs and code: no "session N", no "issue N", no
  dated heading or line, no commit hash in prose (a results table names
  the version it was measured at as ``treexc 0.1.0+HASH``, the one place a
  hash belongs).
* Every ``treexc ...`` line of a fenced shell block in README.md and docs/
  parses: its command exists and takes those flags and arguments (checked
  against the click commands, not run).
* docs/options.md is what tools/options_page.py generates now.
"""

import importlib.util
import re
import shlex
import subprocess
from pathlib import Path

import click
import pytest

from treexc.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
CHECKED = ("treexc", "benchmarks", "experiments", "tests", "docs", "tools", ".ci",
           "README.md", "Makefile", "CHANGELOG.md", "pyproject.toml")
TEXT = (".py", ".md", ".toml", ".txt", "", ".cfg", ".sh")

# Rewritten on another engineer's branch (the bad-input audit and its
# generated page): checked once that branch is merged.  The lead empties
# this at the merge; nothing else may be added to it.
REWRITTEN_ELSEWHERE = set()

HISTORY = [
    (re.compile(r"\bsessions? \d+", re.I), "a session number"),
    (re.compile(r"\bissues? #?\d+", re.I), "an issue number"),
    (re.compile(r"\b(19|20)\d\d-[01]\d-[0-3]\d\b"), "a date"),
]
# 7 to 40 hex digits with a digit and a letter among them: a commit hash,
# unless it is the version a result was measured at (treexc 0.1.0+HASH)
HASH = re.compile(r"(?<![\w.+/-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w/-])")
VERSION = re.compile(r"\d+\.\d+\.\d+\+g?[0-9a-f]{7,40}(\.dirty)?")
SHELL_BLOCK = re.compile(r"^```(?:sh|bash|shell|console)\s*\n(.*?)^```", re.M | re.S)


def tracked():
    """Tracked text files under the checked paths (all files without git)."""
    try:
        names = subprocess.run(["git", "ls-files", "--", *CHECKED], cwd=ROOT, check=True,
                               capture_output=True, text=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / n for n in names
            if Path(n).suffix in TEXT and (ROOT / n).is_file() and n != "tests/test_docs.py"
            and n not in REWRITTEN_ELSEWHERE]


def history_findings():
    found = []
    for path in tracked():
        text = path.read_text(errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            where = f"{path.relative_to(ROOT)}:{number}"
            for pattern, what in HISTORY:
                if pattern.search(line):
                    found.append(f"{where}: {what}: {line.strip()[:100]}")
            words = VERSION.sub("", line)
            if HASH.search(words):
                found.append(f"{where}: a commit hash: {line.strip()[:100]}")
    return found


def test_no_history_in_docs_and_code():
    found = history_findings()
    assert not found, f"{len(found)} lines speak of history:\n" + "\n".join(found[:60])


def test_the_history_patterns_find_what_they_must():
    """The patterns are not blind: each finds its own example and passes
    the look-alikes."""
    assert HISTORY[0][0].search("measured in Session " + "12")
    assert HISTORY[1][0].search("(issue " + "8.4: skipped)")
    assert HISTORY[2][0].search("## Run of 2026-11-27")
    assert HASH.search("at commit " + "fcded44, median of 3")
    assert not HASH.search("0xcbf29ce484222325 deadbeef 1234567 sha256")
    assert not HASH.search(VERSION.sub("", "measured at treexc 0.1.0+a51b491"))


# -- commands in the docs -------------------------------------------------------

def shell_commands(text):
    """``treexc`` command lines of the fenced shell blocks: continuations
    joined, comments dropped, each stage of a pipeline apart."""
    for block in SHELL_BLOCK.findall(text):
        joined = re.sub(r"\\\n", " ", block)
        for line in joined.splitlines():
            lexer = shlex.shlex(line, posix=True, punctuation_chars="|&;")
            lexer.whitespace_split = True
            try:
                words = list(lexer)
            except ValueError:
                continue  # a quote left open: not a command line
            stage = []
            for word in words + ["|"]:
                if word and set(word) <= set("|&;"):
                    if stage and Path(stage[0]).name == "treexc":
                        yield line.strip(), stage[1:]
                    stage = []
                else:
                    stage.append(word)


def without_redirections(args):
    """The arguments treexc sees: redirections dropped, and a shell variable
    (a loop's ``$S``) standing for a number, which every flag that takes
    one accepts."""
    out, skip = [], False
    for word in args:
        if re.fullmatch(r"\$\{?\w+\}?", word):
            out.append("1")
        elif skip:
            skip = False
        elif re.fullmatch(r"\d?[<>]{1,2}&?", word):
            skip = True  # the file follows
        elif re.match(r"\d?[<>]", word):
            continue  # `>file`, `2>/dev/null`
        else:
            out.append(word)
    return out


def doc_pages():
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def parse_problem(args):
    """None if ``treexc ARGS`` parses, else why not."""
    # the group's settings (-h among the help options), as a real run has
    # them: a subcommand caches its help option from the first context made
    ctx = click.Context(main, info_name="treexc", **main.context_settings)
    if not args:
        return "no command"
    if args[0].startswith("-"):
        return None if args[0] in ("-h", "--help", "-help", "-version", "--version") \
            else f"unknown option {args[0]}"
    command = main.get_command(ctx, args[0])
    if command is None:
        return f"no command {args[0]!r}"
    try:
        command.make_context(args[0], list(args[1:]), parent=ctx)
    except click.exceptions.Exit:
        return None  # -h
    except click.ClickException as e:
        return e.format_message()
    return None


def test_every_treexc_command_in_the_docs_parses():
    problems, count = [], 0
    for page in doc_pages():
        for line, args in shell_commands(page.read_text()):
            count += 1
            problem = parse_problem(without_redirections(args))
            if problem:
                problems.append(f"{page.relative_to(ROOT)}: {line}: {problem}")
    assert count > 20  # the README alone has more: the extraction works
    assert not problems, "\n".join(problems)


def test_the_command_check_refuses_what_treexc_refuses():
    assert parse_problem(["supervised", "-input", "a", "-output", "b", "-lr", "0.5"]) is None
    assert parse_problem(["predict", "m.bin", "-", "3"]) is None
    assert "lrr" in parse_problem(["supervised", "-input", "a", "-output", "b", "-lrr", "1"])
    assert parse_problem(["supervise", "-input", "a"]) is not None
    assert parse_problem(["test", "m.bin", "t.txt", "five"]) is not None
    lines = list(shell_commands("```sh\necho x | treexc predict m.bin - 3 \\\n  0.1 > out\n"
                                "treexc test m.bin t.txt  # a comment\n```\n"))
    assert [without_redirections(a) for _, a in lines] == [
        ["predict", "m.bin", "-", "3", "0.1"], ["test", "m.bin", "t.txt"]]
    assert without_redirections(["test", "m.bin", "t.txt", "$K"]) == ["test", "m.bin", "t.txt", "1"]


def test_options_page_is_up_to_date():
    spec = importlib.util.spec_from_file_location("options_page",
                                                  ROOT / "tools" / "options_page.py")
    page = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(page)
    assert page.PAGE.read_text() == page.render(), (
        "docs/options.md is stale: run .venv/bin/python tools/options_page.py")
