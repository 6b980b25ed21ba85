"""The options every command takes, given before the command's name.

``deepcrawl -v --log-file crawl.log --set crawl.max_pages=50 crawl URL``: logging
(:mod:`deepcrawl.cli._logging`) and the ``--set`` settings overrides
(:func:`deepcrawl.settings.overridden`) are in force for the whole command and undone after it.
"""

import contextvars
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from deepcrawl._version import __version__
from deepcrawl.cli._app import app
from deepcrawl.cli._logging import console_level, logging_to
from deepcrawl.settings import overridden

__all__ = ["GlobalOptions", "global_options"]


@dataclass(frozen=True, slots=True)
class GlobalOptions:
    """The global options of the running command (defaults when none runs: the Python API)."""

    verbosity: int = 0
    """How many times ``-v`` was given."""
    quiet: bool = False
    """``--quiet``: no progress display, only errors on the console."""
    log_file: Path | None = None
    """``--log-file``: every record at DEBUG goes there."""


#: The options of the command running now. Not read from click's context: typer runs on its own
#: copy of click, whose context stack ``click.get_current_context`` does not see.
_CURRENT: contextvars.ContextVar[GlobalOptions | None] = contextvars.ContextVar(
    "deepcrawl_global_options", default=None
)


def global_options() -> GlobalOptions:
    """The global options of the command running now (defaults when none runs)."""
    return _CURRENT.get() or GlobalOptions()


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"deepcrawl {__version__}")
        raise typer.Exit


@app.callback()
def _global(
    ctx: typer.Context,
    verbose: Annotated[
        int,
        typer.Option(
            "--verbose", "-v", count=True,
            help="Log the crawl's decisions on stderr: -v for INFO, -vv for DEBUG.",
        ),
    ] = 0,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="No progress display; only errors on stderr."),
    ] = False,
    log_file: Annotated[
        Path | None,
        typer.Option(
            dir_okay=False, help="Append every log record (DEBUG) to this file, whatever -v says."
        ),
    ] = None,
    assignments: Annotated[
        list[str] | None,
        typer.Option(
            "--set", metavar="SECTION.KEY=VALUE",
            help="Override one setting for this run (repeatable); a command's own flag beats "
            "it, and it beats the environment and deepcrawl.toml. See 'deepcrawl settings'.",
        ),
    ] = None,
    _version: Annotated[
        bool,
        typer.Option(
            "--version", is_eager=True, callback=_print_version,
            help="Print deepcrawl's version and exit.",
        ),
    ] = False,
) -> None:  # fmt: skip
    """Crawl a website behind its search form, downloading only the pages you want."""
    ctx.obj = GlobalOptions(verbosity=verbose, quiet=quiet, log_file=log_file)
    token = _CURRENT.set(ctx.obj)
    ctx.call_on_close(lambda: _CURRENT.reset(token))
    ctx.with_resource(overridden(assignments or []))
    ctx.with_resource(logging_to(console_level(verbose, quiet=quiet), log_file))
