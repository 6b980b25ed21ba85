"""The documentation's command reference is the CLI's: every command, argument and flag, made
from the typer application at each build of the site (``scripts/docs/reference.py``), and the
command tables people read first (the README's, the reference's overview) name every command."""

from __future__ import annotations

import re
import runpy
from pathlib import Path
from typing import Any

import typer.main

from deepcrawl.cli import app

ROOT = Path(__file__).parents[3]
GENERATOR = runpy.run_path(str(ROOT / "scripts" / "docs" / "reference.py"))


def _commands() -> dict[str, Any]:
    """Every command of the CLI by its name as typed (``urls normalise`` for a subcommand)."""
    root: Any = typer.main.get_command(app)
    found: dict[str, Any] = {}
    for name, command in root.commands.items():
        children = getattr(command, "commands", None) or {}
        found.update({f"{name} {child}": sub for child, sub in children.items()})
        if not children:
            found[name] = command
    return found


def test_the_reference_has_every_command_and_every_flag() -> None:
    reference = GENERATOR["commands_markdown"]()
    commands = _commands()
    assert set(commands) == set(GENERATOR["command_names"]())
    for name, command in commands.items():
        section = reference.split(f"## `deepcrawl {name}`\n", 1)
        assert len(section) == 2, f"no section for deepcrawl {name}"
        body = section[1].split("\n## ", 1)[0]
        for param in command.params:
            if param.name == "help" or getattr(param, "hidden", False):
                continue
            if param.param_type_name == "argument":
                assert f"`{(param.metavar or param.name).upper()}`" in body, (name, param.name)
            else:
                assert f"`{param.opts[0]}" in body, (name, param.opts)
    for flag in ("--cookies", "--field", "--form", "--warc-gzip", "--no-sitemaps", "--requery",
                 "--set", "--log-file", "--storage-state", "--text", "--version"):  # fmt: skip
        assert f"`{flag}" in reference


def test_the_reference_page_asks_for_the_generated_part() -> None:
    page = (ROOT / "docs" / "reference" / "commands.md").read_text(encoding="utf-8")
    assert "<!-- generated: commands -->" in page


def _table_commands(text: str) -> set[str]:
    return set(re.findall(r"^\| `deepcrawl ([a-z-]+(?: normalise)?)", text, re.MULTILINE)) | {
        name for row in re.findall(r"^\|.*$", text, re.MULTILINE)
        for name in re.findall(r"`deepcrawl ([a-z-]+(?: normalise)?)", row.split("|")[1])
    }  # fmt: skip


def test_the_command_tables_name_every_command() -> None:
    commands = set(_commands())
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    overview = (ROOT / "docs" / "reference" / "commands.md").read_text(encoding="utf-8")
    assert commands - _table_commands(readme) == set(), "README.md's command table"
    assert commands - _table_commands(overview) == set(), "docs/reference/commands.md overview"
