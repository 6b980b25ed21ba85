"""The typer application and the consoles every command prints to."""

from __future__ import annotations

import io
import os
import sys
from typing import IO, TYPE_CHECKING, Literal, cast

import typer
from rich.console import Console

from deepcrawl.userinfo import redact

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


class RedactedStream(io.TextIOBase):
    """``sys.stdout`` or ``sys.stderr`` — looked up at each write, as rich's ``stderr=True``
    does, so that a redirection made later still counts — with the password of every URL
    written masked (:func:`deepcrawl.userinfo.redact`): what a command shows a person holds
    no password, whichever message (one of deepcrawl's, a third party's) carried it."""

    def __init__(self, name: Literal["stdout", "stderr"]) -> None:
        super().__init__()
        self._name = name

    @property
    def _stream(self) -> io.TextIOBase:
        stream = getattr(sys, self._name)
        # a live display puts a proxy writing back to this console there: the stream it
        # proxies is the one to write to (rich's own ``Console.file`` unwraps it so)
        proxied: io.TextIOBase = getattr(stream, "rich_proxied_file", stream)
        return proxied

    @property
    def encoding(self) -> str:  # type: ignore[override]  # TextIOBase's is a plain attribute
        return getattr(self._stream, "encoding", None) or "utf-8"

    def write(self, text: str) -> int:
        """Write ``text``, masked; returns the length given, as a stream does."""
        self._stream.write(redact(text))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()


#: Progress, warnings and errors go to stderr, every URL's password masked (the stream has the
#: methods rich calls, not every one of ``IO``'s).
err_console = Console(file=cast("IO[str]", RedactedStream("stderr")), soft_wrap=True)


def warn_bad_sites(repo: Repository) -> None:
    """One warning line on stderr for each site row the repository could not read."""
    for site_id, problem in repo.bad_sites():
        err_console.print(
            f"warning: site {site_id} is unreadable and left out ({problem})",
            markup=False,
            highlight=False,
        )
