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
from deepcrawl.cli import doctor as _doctor  # noqa: F401
from deepcrawl.cli import fixtures as _fixtures  # noqa: F401
from deepcrawl.cli._app import app, err_console
from deepcrawl.errors import DeepcrawlError

__all__ = ["app", "main"]


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; the entry point of the ``deepcrawl`` script."""
    try:
        app(args=argv, standalone_mode=False)
    except DeepcrawlError as exc:
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
        sys.exit(1)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except (click.exceptions.Abort, KeyboardInterrupt):
        err_console.print("interrupted", style="yellow")
        sys.exit(130)
    except typer.Exit as exc:  # pragma: no cover - typer re-raises click's Exit
        sys.exit(exc.exit_code)
