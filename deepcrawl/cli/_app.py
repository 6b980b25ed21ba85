"""The typer application and the consoles every command prints to."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import typer
from rich.console import Console

if TYPE_CHECKING:
    from deepcrawl.storage import Repository

__all__ = ["app", "console", "err_console", "warn_bad_sites"]

app = typer.Typer(
    name="deepcrawl",
    help="Crawl a website behind its search form, downloading only the pages you want.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _width() -> int | None:
    # Piped output is read by people too (CI logs, BENCHMARKS.md): don't squeeze tables to 80.
    return None if sys.stdout.isatty() or "COLUMNS" in os.environ else 160


#: Results (tables, JSON) go to stdout so they can be piped.
console = Console(soft_wrap=True, width=_width())
#: Progress, warnings and errors go to stderr.
err_console = Console(stderr=True, soft_wrap=True)


def warn_bad_sites(repo: Repository) -> None:
    """One warning line on stderr for each site row the repository could not read."""
    for site_id, problem in repo.bad_sites():
        err_console.print(
            f"warning: site {site_id} is unreadable and left out ({problem})",
            markup=False,
            highlight=False,
        )
