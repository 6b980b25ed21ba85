"""Where log records go: nowhere from the library alone, where the CLI's options say otherwise."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import pytest

import deepcrawl  # noqa: F401 - the package's import attaches its NullHandler
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
