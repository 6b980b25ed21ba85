"""Write the README's command reference: every command, every argument and flag, from the CLI.

``python scripts/cli_reference.py`` rewrites the part of README.md between the two reference
markers; ``--check`` only says whether it is current (exit 1 if not), as the unit test does.
The reference is made from the typer app itself, so a flag added to a command is in the README
as soon as this script is run, and a stale README fails the tests.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import typer.main

from deepcrawl.cli import app

README = Path(__file__).resolve().parents[1] / "README.md"
BEGIN = "<!-- command reference: begin (scripts/cli_reference.py writes this part) -->"
END = "<!-- command reference: end -->"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


# Typer ships its own copy of click, so parameters are read by their attributes (click's
# documented ones), not told apart by class.


def _flags(param: Any) -> str:
    if param.param_type_name == "argument":
        return f"`{(param.metavar or param.name).upper()}`"
    shown = " / ".join(f"`{name}`" for name in [*param.opts, *param.secondary_opts])
    if not param.is_flag and param.metavar:
        shown += f" {param.metavar}"
    return shown


def _help(param: Any) -> str:
    if param.param_type_name == "argument":
        return _cell(getattr(param, "help", None) or "(argument)")
    text = param.help or ""
    return _cell(text + (" (repeatable)" if param.multiple and "repeatable" not in text else ""))


def reference() -> str:
    """The reference as Markdown: one table per command, global options first."""
    root: Any = typer.main.get_command(app)
    parts = [BEGIN, ""]
    sections: list[tuple[str, Any]] = [("deepcrawl (global options)", root)]
    sections += [(f"deepcrawl {name}", root.commands[name]) for name in sorted(root.commands)]
    for title, command in sections:
        params = [p for p in command.params if p.name != "help" and not getattr(p, "hidden", False)]
        if not params:
            continue
        parts += [f"#### `{title}`", "", "| argument / flag | what it does |", "|---|---|"]
        parts += [f"| {_flags(p)} | {_help(p)} |" for p in params]
        parts.append("")
    parts.append(END)
    return "\n".join(parts)


def render(readme: str) -> str:
    """``readme`` with its reference part replaced by the current one."""
    start, stop = readme.index(BEGIN), readme.index(END) + len(END)
    return readme[:start] + reference() + readme[stop:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/cli_reference.py")
    parser.add_argument("--check", action="store_true", help="only check; exit 1 if stale")
    args = parser.parse_args(argv)
    current = README.read_text(encoding="utf-8")
    wanted = render(current)
    if args.check:
        if wanted != current:
            print("README.md's command reference is stale: run scripts/cli_reference.py")
            return 1
        return 0
    README.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
