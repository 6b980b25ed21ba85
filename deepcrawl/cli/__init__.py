"""The ``deepcrawl`` command line.

The CLI parses arguments and calls library functions, nothing more. Each command lives in the
module named for it and registers itself on :data:`app`; :func:`main` turns every
:class:`~deepcrawl.errors.DeepcrawlError` into one clear line on stderr and exit code 1.
"""

from __future__ import annotations

import sys

import click
import typer

# Importing a command module registers its commands on ``app``.
from deepcrawl.cli import bench as _bench  # noqa: F401
from deepcrawl.cli import crawl as _crawl  # noqa: F401
from deepcrawl.cli import discover as _discover  # noqa: F401
from deepcrawl.cli import doctor as _doctor  # noqa: F401
from deepcrawl.cli import export as _export  # noqa: F401
from deepcrawl.cli import fixtures as _fixtures  # noqa: F401
from deepcrawl.cli import forms as _forms  # noqa: F401
from deepcrawl.cli import prototypes as _prototypes  # noqa: F401
from deepcrawl.cli import query as _query  # noqa: F401
from deepcrawl.cli import render as _render  # noqa: F401
from deepcrawl.cli import sites as _sites  # noqa: F401
from deepcrawl.cli import status as _status  # noqa: F401
from deepcrawl.cli import urls as _urls  # noqa: F401
from deepcrawl.cli import worker as _worker  # noqa: F401
from deepcrawl.cli._app import app, err_console
from deepcrawl.errors import DeepcrawlError

__all__ = ["app", "main"]


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; the entry point of the ``deepcrawl`` script."""
    try:
        code = app(args=argv, standalone_mode=False)
        # without standalone mode click *returns* the code of ``typer.Exit`` instead of exiting
        if isinstance(code, int) and code:
            sys.exit(code)
    except DeepcrawlError as exc:
        _error(str(exc))
        sys.exit(1)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except (click.exceptions.Abort, typer.Abort, KeyboardInterrupt):
        err_console.print("interrupted", style="yellow")
        sys.exit(130)
    except typer.TyperException as exc:  # typer >= 0.2x raises its own vendored click errors
        show = getattr(exc, "show", None)
        if callable(show):
            show()
        else:
            _error(str(exc))
        sys.exit(int(getattr(exc, "exit_code", 2)))
    except typer.Exit as exc:  # pragma: no cover - typer re-raises click's Exit
        sys.exit(exc.exit_code)


def _error(message: str) -> None:
    # The message is data (URLs, CSS locators like [name="q"]): never read it as rich markup.
    err_console.print("[bold red]error:[/] ", end="", highlight=False)
    err_console.print(message, markup=False, highlight=False, soft_wrap=True)
