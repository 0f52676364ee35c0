#!/usr/bin/env python3
"""Write docs/options.md: every command of ``treexc``, its arguments and
its flags with their defaults, read from the click commands (and through
them from the option declarations: ``classify/options.Args``,
``lm/options.LMArgs``, ``classify/quantize_options.QuantizeArgs``, ...),
so the page cannot drift from the code; tests/test_docs.py fails when it
is stale.

    .venv/bin/python tools/options_page.py          # rewrites docs/options.md
"""

import re
import sys
from pathlib import Path

import click

from treexc.cli.main import main

PAGE = Path(__file__).resolve().parent.parent / "docs" / "options.md"
HEADER = """# Options

Every command of `treexc`, its arguments and its flags with their defaults.
Flags are spelled with one dash or two (`-lr 0.5`, `--lr 0.5`); a flag that
is not given takes the default shown.  This page is generated from the
option declarations by `tools/options_page.py`; `treexc COMMAND -h` prints
the same.  What the defaults are chosen for is in docs/trees.md and
docs/lm.md; fastText's flags beside treexc's in docs/fasttext.md.
"""
# "[default]" at the end of an option declaration's help (treexc.options.help_text)
DEFAULT = re.compile(r"^(.*) \[([^\[\]]*)\]$", re.S)


def cell(text):
    return " ".join(str(text).split()).replace("|", "\\|")


def flag_row(param):
    spellings = [o for o in param.opts if not o.startswith("--")] or param.opts
    help_line, default = param.help or "", ""
    found = DEFAULT.match(help_line)
    if found:
        help_line, default = found.groups()
    elif param.is_flag:
        default = "off"
    elif param.default is not None:
        default = param.default
    if param.required:
        default = "(required)"
    elif param.is_flag and default in ("False", "off"):
        default = "off"
    value = "" if param.is_flag else " " + (param.metavar or param.type.name.upper())
    names = ", ".join(f"`{s}{value}`" for s in spellings)
    return f"| {names} | {cell(default) and f'`{cell(default)}`'} | {cell(help_line)} |"


def section(name, command, ctx):
    sub = click.Context(command, info_name=name, parent=ctx)
    lines = [f"## `treexc {name}`", "", cell(command.help.split("\n\n")[0]), "",
             f"    {command.get_usage(sub).replace('Usage: ', '')}", ""]
    arguments = [p for p in command.params if isinstance(p, click.Argument)]
    options = [p for p in command.params if isinstance(p, click.Option)
               and p.name != "help"]
    if arguments:
        described = ", ".join(f"`{p.human_readable_name}`" +
                              ("" if p.required else f" (default `{p.default}`)")
                              for p in arguments)
        lines += [f"Arguments: {described}.", ""]
    if options:
        lines += ["| flag | default | what it does |", "| --- | --- | --- |"]
        lines += [flag_row(p) for p in options]
        lines.append("")
    return lines


def render():
    ctx = click.Context(main, info_name="treexc", **main.context_settings)
    lines = [HEADER]
    for name in main.list_commands(ctx):
        lines += section(name, main.get_command(ctx, name), ctx)
    return "\n".join(lines).rstrip("\n") + "\n"


if __name__ == "__main__":
    PAGE.write_text(render())
    print(f"wrote {PAGE}", file=sys.stderr)
