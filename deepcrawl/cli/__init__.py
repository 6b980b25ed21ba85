"""The ``deepcrawl`` command line.

The CLI parses arguments and calls library functions, nothing more. Each command lives in the
module named for it and registers itself on :data:`app`; :func:`main` turns every
:class:`~deepcrawl.errors.DeepcrawlError` into one clear line on stderr and exit code 1.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from types import FrameType
from typing import NoReturn


def _stop_while_loading(signum: int, _frame: FrameType | None) -> None:
    """SIGINT or SIGTERM while the command line loads (seconds, on a busy machine): nothing
    has started yet, so end at once, quietly, instead of with a traceback of the import."""
    sys.stderr.write("interrupted\n")
    sys.stderr.flush()
    os._exit(128 + signum)  # the interpreter's teardown would take longer than the loading


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
# signal handlers belong to the main thread (a program may import the CLI from another)
_BEFORE_LOADING = (
    {signum: signal.signal(signum, _stop_while_loading) for signum in _STOP_SIGNALS}
    if threading.current_thread() is threading.main_thread()
    else {}
)

import click  # noqa: E402 - after the handlers: importing the commands takes a while
import typer  # noqa: E402

# Importing a command module registers its commands on ``app`` (``_global``: the options every
# command takes).
from deepcrawl.cli import _global as _global_options  # noqa: E402, F401
from deepcrawl.cli import bench as _bench  # noqa: E402, F401
from deepcrawl.cli import crawl as _crawl  # noqa: E402, F401
from deepcrawl.cli import discover as _discover  # noqa: E402, F401
from deepcrawl.cli import doctor as _doctor  # noqa: E402, F401
from deepcrawl.cli import export as _export  # noqa: E402, F401
from deepcrawl.cli import failures as _failures  # noqa: E402, F401
from deepcrawl.cli import fixtures as _fixtures  # noqa: E402, F401
from deepcrawl.cli import forms as _forms  # noqa: E402, F401
from deepcrawl.cli import harvest as _harvest  # noqa: E402, F401
from deepcrawl.cli import login as _login  # noqa: E402, F401
from deepcrawl.cli import prototypes as _prototypes  # noqa: E402, F401
from deepcrawl.cli import query as _query  # noqa: E402, F401
from deepcrawl.cli import render as _render  # noqa: E402, F401
from deepcrawl.cli import settings as _settings  # noqa: E402, F401
from deepcrawl.cli import sites as _sites  # noqa: E402, F401
from deepcrawl.cli import status as _status  # noqa: E402, F401
from deepcrawl.cli import urls as _urls  # noqa: E402, F401
from deepcrawl.cli import worker as _worker  # noqa: E402, F401
from deepcrawl.cli._app import app, err_console  # noqa: E402
from deepcrawl.cli._signals import exit_at_once  # noqa: E402
from deepcrawl.errors import DeepcrawlError  # noqa: E402

for _signum, _handler in _BEFORE_LOADING.items():  # a program importing the CLI keeps its own
    signal.signal(_signum, _handler)

__all__ = ["app", "main"]

#: The exit code of a command ended by Ctrl-C (128 + SIGINT).
_INTERRUPTED = 128 + signal.SIGINT


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; the entry point of the ``deepcrawl`` script.

    Ctrl-C raises ``KeyboardInterrupt`` (one line, exit code 130) until a long-running command
    takes the signals over (:mod:`deepcrawl.cli._signals`): the first stops it cleanly, the
    second at once. A SIGINT ignored by the parent (a background job of a script) is honoured.
    """
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        code = app(args=argv, standalone_mode=False)
        if code == _INTERRUPTED:  # typer turns Ctrl-C in a command into ``Exit(130)``
            raise KeyboardInterrupt
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
        _interrupted()
    except typer.TyperException as exc:  # typer >= 0.2x raises its own vendored click errors
        show = getattr(exc, "show", None)
        if callable(show):
            show()
        else:
            _error(str(exc))
        sys.exit(int(getattr(exc, "exit_code", 2)))
    except typer.Exit as exc:  # pragma: no cover - typer re-raises click's Exit
        sys.exit(exc.exit_code)
    except Exception as exc:
        if not _by_interrupt(exc):
            raise
        # Ctrl-C while a command imports a compiled module: the module's init turns the
        # KeyboardInterrupt into another error (pybind11: ImportError "initialization failed")
        _interrupted()


def _interrupted() -> NoReturn:
    """End the command as interrupted: one line, exit code 130."""
    err_console.print("interrupted", style="yellow")
    exit_at_once(130)


def _by_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` was raised because of a KeyboardInterrupt (its cause or context)."""
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        if isinstance(link, KeyboardInterrupt):
            return True
        seen.add(id(link))
        link = link.__cause__ or link.__context__
    return False


def _error(message: str) -> None:
    # The message is data (URLs, CSS locators like [name="q"]): never read it as rich markup.
    err_console.print("[bold red]error:[/] ", end="", highlight=False)
    err_console.print(message, markup=False, highlight=False, soft_wrap=True)
