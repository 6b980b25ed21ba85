"""Where log records go: nowhere from the library alone, where the CLI's options say otherwise."""

from __future__ import annotations

import io
import logging
import sys
from typing import TYPE_CHECKING

import pytest

import deepcrawl  # noqa: F401 - the package's import attaches its NullHandler
from deepcrawl.cli._app import err_console
from deepcrawl.cli._logging import PACKAGE, console_level, logging_to
from deepcrawl.errors import ConfigError

if TYPE_CHECKING:
    from pathlib import Path


def test_the_library_only_attaches_a_null_handler() -> None:
    handlers = logging.getLogger(PACKAGE).handlers
    assert handlers
    assert all(isinstance(h, logging.NullHandler) for h in handlers)


@pytest.mark.parametrize(
    ("verbosity", "quiet", "level"),
    [
        (0, False, logging.WARNING),
        (1, False, logging.INFO),
        (2, False, logging.DEBUG),
        (5, False, logging.DEBUG),
        (2, True, logging.ERROR),
    ],
)
def test_console_level(verbosity: int, quiet: bool, level: int) -> None:
    assert console_level(verbosity, quiet=quiet) == level


def test_the_log_file_gets_debug_whatever_the_console_shows(tmp_path: Path) -> None:
    log = tmp_path / "crawl.log"
    logger = logging.getLogger("deepcrawl.crawler.setup")
    before = list(logging.getLogger(PACKAGE).handlers)
    with logging_to(logging.WARNING, log):
        logger.debug("per query figures")
        logger.info("search form chosen")
    assert logging.getLogger(PACKAGE).handlers == before  # taken off after the command
    logger.info("after the command")
    written = log.read_text()
    assert "DEBUG   deepcrawl.crawler.setup: per query figures" in written
    assert "INFO    deepcrawl.crawler.setup: search form chosen" in written
    assert "after the command" not in written


def test_an_unwritable_log_file_names_the_option(tmp_path: Path) -> None:
    with (
        pytest.raises(ConfigError, match="--log-file"),
        logging_to(logging.WARNING, tmp_path / "missing" / "crawl.log"),
    ):
        pass


def test_the_log_file_and_the_console_show_no_password(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "crawl.log"
    logger = logging.getLogger("deepcrawl.crawler.setup")
    with logging_to(logging.INFO, log):
        logger.warning("cannot reach %s", "http://alice:S3cretPw@[::1]:8080/")
        try:
            raise ValueError("postgresql://me:S3cretPw@db.example/crawl refused")
        except ValueError:
            logger.exception("storage")
    err_console.print("see https://bob:S3cretPw@host/", markup=False, highlight=False)
    written, shown = log.read_text(), capsys.readouterr().err
    assert "S3cretPw" not in written
    assert "S3cretPw" not in shown
    assert "cannot reach http://alice:***@[::1]:8080/" in written
    assert "postgresql://me:***@db.example/crawl refused" in written  # the traceback's line too
    assert "cannot reach http://alice:***@[::1]:8080/" in shown
    assert "see https://bob:***@host/" in shown


def test_the_console_writes_past_a_live_displays_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    from rich.file_proxy import FileProxy

    terminal = io.StringIO()
    # what a progress bar does to sys.stderr while it shows: a proxy printing to the console
    monkeypatch.setattr(sys, "stderr", FileProxy(err_console, terminal))
    err_console.print("cannot reach http://alice:S3cretPw@host/", markup=False, highlight=False)
    print("a third party's http://bob:S3cretPw@host/", file=sys.stderr)
    assert "S3cretPw" not in terminal.getvalue()
    assert "cannot reach http://alice:***@host/" in terminal.getvalue()
    assert "a third party's http://bob:***@host/" in terminal.getvalue()
