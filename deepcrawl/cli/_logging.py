"""Where the command line sends deepcrawl's log records (the library only emits them).

The console (stderr) shows WARNING and above by default, INFO with ``-v``, DEBUG with ``-vv``,
ERROR only with ``--quiet``; through the same rich console as the progress display, so a log
line prints above the live bar instead of breaking it. ``--log-file`` receives DEBUG whatever
the console shows: the full record of a run's decisions, for after the fact. Both show every
URL's password masked (:func:`deepcrawl.userinfo.redact`), whichever record carried it: the
console through its stream (:class:`~deepcrawl.cli._app.RedactedStream`), the file through its
formatter.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING

from rich.logging import RichHandler

from deepcrawl.cli._app import err_console
from deepcrawl.errors import ConfigError
from deepcrawl.userinfo import redact

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

__all__ = ["console_level", "logging_to"]

#: The package logger every module's ``logging.getLogger(__name__)`` sits under.
PACKAGE = "deepcrawl"

_FILE_FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"


class _Redacting(logging.Formatter):
    """A formatter whose lines (the message, a traceback's too) show no password."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def console_level(verbosity: int, *, quiet: bool) -> int:
    """The console's level for ``-v`` given ``verbosity`` times (``--quiet`` wins)."""
    if quiet:
        return logging.ERROR
    return {0: logging.WARNING, 1: logging.INFO}.get(verbosity, logging.DEBUG)


@contextlib.contextmanager
def logging_to(level: int, log_file: Path | None) -> Iterator[None]:
    """Attach the console handler (at ``level``) and the ``log_file`` handler (DEBUG) to the
    package logger for the block, and take them off after it (a test runs many commands).

    Raises:
        ConfigError: the log file cannot be opened.
    """
    logger = logging.getLogger(PACKAGE)
    console = RichHandler(
        console=err_console, level=level, show_path=False, markup=False, rich_tracebacks=False
    )
    handlers: list[logging.Handler] = [console]
    if log_file is not None:
        try:
            file_handler = logging.FileHandler(log_file, encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"--log-file {log_file}: {exc}") from exc
        file_handler.setLevel(logging.DEBUG)
        file_handler.setFormatter(_Redacting(_FILE_FORMAT))
        handlers.append(file_handler)
    before = logger.level
    logger.setLevel(min(h.level for h in handlers))
    for handler in handlers:
        logger.addHandler(handler)
    try:
        yield
    finally:
        for handler in handlers:
            logger.removeHandler(handler)
            handler.close()
        logger.setLevel(before)
