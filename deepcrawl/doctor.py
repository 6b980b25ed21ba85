"""Health checks of the machine deepcrawl runs on: Python, packages, browser, database.

Each check gives ``ok`` with what it found, or a failure with the fix to apply; ``deepcrawl
doctor`` prints them. Checks never raise: a failing check is a result.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from deepcrawl.errors import DeepcrawlError, NoDatabaseError

if TYPE_CHECKING:
    from pathlib import Path

    from deepcrawl.settings import Settings

__all__ = ["Check", "run_checks"]

#: (distribution, import name) of every required package.
REQUIRED = (
    ("charset-normalizer", "charset_normalizer"),
    ("httpx", "httpx"),
    ("idna", "idna"),
    ("lxml", "lxml"),
    ("nltk", "nltk"),
    ("playwright", "playwright"),
    ("protego", "protego"),
    ("pydantic-settings", "pydantic_settings"),
    ("rich", "rich"),
    ("scikit-learn", "sklearn"),
    ("sqlmodel", "sqlmodel"),
    ("typer", "typer"),
    ("w3lib", "w3lib"),
    ("warcio", "warcio"),
)
#: Optional packages and the feature each one enables.
OPTIONAL = (
    ("psycopg", "psycopg", "PostgreSQL storage: pip install 'deepcrawl[postgres]'"),
    ("matplotlib", "matplotlib", "bench plots: pip install 'deepcrawl[plot]'"),
    ("formasaurus", "formasaurus", "form critic training data: pip install 'deepcrawl[forms]'"),
)


@dataclass(frozen=True)
class Check:
    """One check's outcome: ``detail`` is what was found, or the fix when ``ok`` is False."""

    name: str
    ok: bool
    detail: str
    required: bool = True


def _package(dist: str, module: str, fix: str, *, required: bool) -> Check:
    try:
        __import__(module)
        return Check(dist, True, importlib.metadata.version(dist), required)
    except Exception as exc:  # any import failure is a finding, not a crash
        return Check(dist, False, f"{fix} ({type(exc).__name__}: {exc})", required)


def _python() -> Check:
    # pip refuses to install deepcrawl on a Python older than 3.11, so this only reports.
    return Check("python", True, f"{sys.version.split()[0]} ({sys.executable})")


def _browser(settings: Settings) -> list[Check]:
    from deepcrawl.browser import find_chromium, probe_browser

    path = find_chromium(settings.browser)
    if path is None:
        fix = "apt-get install -y chromium (or: playwright install chromium; DEEPCRAWL_CHROMIUM=…)"
        return [Check("browser found", False, fix)]
    checks = [Check("browser found", True, str(path))]
    try:
        version = asyncio.run(asyncio.wait_for(probe_browser(settings), timeout=60))
        checks.append(Check("browser launches", True, version))
    except (DeepcrawlError, TimeoutError) as exc:
        checks.append(
            Check("browser launches", False, f"{exc}: see docs/ARCHITECTURE.md, Measured facts")
        )
    return checks


def _database(settings: Settings) -> Check:
    from deepcrawl.storage import Repository, safe_url

    shown = safe_url(settings.storage.url)
    try:
        with Repository.open(settings.storage.url, settings.storage, create=False) as repo:
            return Check("database", True, f"{shown} ({repo.engine.name})")
    except NoDatabaseError:  # checking must not create it: the first crawl does
        folder = _writable_folder(settings.storage.url)
        if folder is None:
            return Check(
                "database",
                False,
                f"{shown} cannot be created (its folder does not exist or is not writable): "
                "check --db / DEEPCRAWL_DB",
            )
        return Check("database", True, f"{shown} (not created yet: the first crawl makes it)")
    except DeepcrawlError as exc:
        return Check("database", False, f"{exc}: check --db / DEEPCRAWL_DB")


def _writable_folder(url: str) -> Path | None:
    """The folder a SQLite file at ``url`` would be created in, if it exists and is writable
    (deepcrawl creates no folder for a database: a mistyped path is an error)."""
    from deepcrawl.storage.engine import database_file

    folder = database_file(url).expanduser().absolute().parent
    return folder if folder.is_dir() and os.access(folder, os.W_OK) else None


def run_checks(settings: Settings, *, browser: bool = True, database: bool = True) -> list[Check]:
    """Run every check and return their outcomes, required ones first."""
    checks = [_python()]
    checks += [_package(d, m, f"pip install {d}", required=True) for d, m in REQUIRED]
    if browser:
        checks += _browser(settings)
    if database:
        checks.append(_database(settings))
    checks += [_package(d, m, fix, required=False) for d, m, fix in OPTIONAL]
    return checks
