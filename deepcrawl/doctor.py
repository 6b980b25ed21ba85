"""Health checks of the machine deepcrawl runs on, and the one step that installs a browser.

Each check gives ``ok`` with what it found, or a failure with the fix to apply: the command to
run, never a vague hint (``pip install 'deepcrawl[postgres]'``, ``deepcrawl install-browser``).
``deepcrawl doctor`` prints them. Checks never raise: a failing check is a result.

The optional features are the package's extras, read from its own metadata (the requirements
``pyproject.toml`` gives each extra), so a new extra is checked the day it is added and every
hint names the extra as pip knows it.

:func:`install_browser` is what ``deepcrawl install-browser`` (and ``make``) runs: it makes a
Chromium available, in deepcrawl's order of preference — ``DEEPCRAWL_CHROMIUM``, a Chromium
already installed (Playwright's or the distribution's), Playwright's own download where the
machine can download it, else the distribution's ``chromium`` package (Debian and Ubuntu: with
its ``chromium-headless-shell``, which headless crawls run at about half the CPU a page).
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from deepcrawl.errors import DeepcrawlError, NoDatabaseError

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import TypeAlias

    from deepcrawl.settings import Settings

    #: Runs one step of :func:`install_browser` (``subprocess.run``'s signature).
    Runner: TypeAlias = Callable[..., subprocess.CompletedProcess[str]]

__all__ = ["BROWSER_FIX", "Check", "extras", "install_browser", "run_checks"]

#: (distribution, import name) of every required package.
REQUIRED = (
    ("charset-normalizer", "charset_normalizer"),
    ("formasaurus", "formasaurus"),
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
#: What each extra a user installs enables (the extras of ``pyproject.toml``; an extra not
#: named here is for developers: the tests, the documentation site).
FEATURES = {
    "postgres": "PostgreSQL storage and workers",
    "plot": "the bench's plots",
    "web": "the labelling page (deepcrawl label --web)",
    "text": "the main text of pages (--text)",
    "scrapy": "the Scrapy spider (deepcrawl.scrapy)",
}
#: How to get a browser when there is none (``deepcrawl install-browser`` does it).
BROWSER_FIX = (
    "run `deepcrawl install-browser` (on Debian or Ubuntu it runs "
    "`apt-get install -y chromium chromium-headless-shell`; where downloads work, "
    "`playwright install chromium`), or set DEEPCRAWL_CHROMIUM to a Chromium binary"
)
#: Where the distribution's Chromium lives: a headless shell is added beside it (Debian, Ubuntu).
SYSTEM_FOLDERS = (Path("/usr/bin"), Path("/usr/lib/chromium"))
#: How long Playwright's own download may take before the distribution's package is tried.
PLAYWRIGHT_INSTALL_TIMEOUT_S = 600

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_EXTRA = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")


@dataclass(frozen=True)
class Check:
    """One check's outcome: ``detail`` is what was found, or the fix when ``ok`` is False."""

    name: str
    ok: bool
    detail: str
    required: bool = True


def extras(distribution: str = "deepcrawl") -> dict[str, list[str]]:
    """The extras of an installed distribution and the distributions each one requires.

    Read from the package's metadata (``Requires-Dist: psycopg[binary]>=3.1; extra ==
    "postgres"``); empty when the package is not installed as a distribution.
    """
    try:
        requirements = importlib.metadata.requires(distribution) or []
    except importlib.metadata.PackageNotFoundError:
        return {}
    found: dict[str, list[str]] = {}
    for requirement in requirements:
        spec, _, marker = requirement.partition(";")
        extra = _EXTRA.search(marker)
        name = _NAME.match(spec.strip())
        if extra is not None and name is not None:
            found.setdefault(extra[1], []).append(name[0])
    return found


def _installed(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _package(dist: str, module: str) -> Check:
    try:
        __import__(module)
        return Check(dist, True, importlib.metadata.version(dist))
    except Exception as exc:  # any import failure is a finding, not a crash
        fix = f"pip install '{dist}' (a dependency of deepcrawl; reinstalling deepcrawl brings it)"
        return Check(dist, False, f"{fix} ({type(exc).__name__}: {exc})")


def _extra(extra: str, distributions: Sequence[str]) -> Check:
    what = FEATURES[extra]
    missing = [name for name in distributions if _installed(name) is None]
    if missing:
        fix = f"{what}: pip install 'deepcrawl[{extra}]' (missing {', '.join(missing)})"
        return Check(f"extra {extra}", False, fix, required=False)
    versions = ", ".join(f"{name} {_installed(name)}" for name in distributions)
    return Check(f"extra {extra}", True, f"{what} ({versions})", required=False)


def _python() -> Check:
    # pip refuses to install deepcrawl on a Python older than 3.11, so this only reports.
    return Check("python", True, f"{sys.version.split()[0]} ({sys.executable})")


def _browser(settings: Settings) -> list[Check]:
    from deepcrawl.browser import find_chromium, probe_browser

    path = find_chromium(settings.browser)
    if path is None:
        return [Check("browser found", False, f"no Chromium: {BROWSER_FIX}")]
    if not path.is_file():  # a configured path that is not there
        fix = f"browser.chromium (DEEPCRAWL_CHROMIUM) names {path}, which does not exist"
        return [Check("browser found", False, f"{fix}: {BROWSER_FIX}")]
    checks = [Check("browser found", True, str(path))]
    try:
        version = asyncio.run(asyncio.wait_for(probe_browser(settings), timeout=60))
        checks.append(Check("browser launches", True, version))
    except (DeepcrawlError, TimeoutError) as exc:
        checks.append(
            Check(
                "browser launches",
                False,
                f"{exc or 'no answer in 60 s'}: set DEEPCRAWL_CHROMIUM to another Chromium, "
                "or run `deepcrawl install-browser`",
            )
        )
    return checks


def _critic(settings: Settings) -> Check:
    """Whether the form critic is trained for this install, or can be (it needs the corpus)."""
    try:
        from deepcrawl.forms.store import cache_path

        path = cache_path(settings.forms)
    except DeepcrawlError as exc:  # the corpus is missing: nothing to train on
        return Check("form critic", False, str(exc))
    if path.is_file():
        return Check("form critic", True, f"trained ({path})")
    return Check(
        "form critic",
        True,
        "not trained yet: the first crawl trains it (seconds to a minute), or "
        f"`deepcrawl forms --train URL`; cached at {path}",
    )


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
        fix = "check --db / DEEPCRAWL_DB"
        if settings.storage.url.startswith("postgres") and _installed("psycopg") is None:
            fix = "pip install 'deepcrawl[postgres]'"
        return Check("database", False, f"{exc}: {fix}")


def _writable_folder(url: str) -> Path | None:
    """The folder a SQLite file at ``url`` would be created in, if it exists and is writable
    (deepcrawl creates no folder for a database: a mistyped path is an error)."""
    from deepcrawl.storage.engine import database_file

    folder = database_file(url).expanduser().absolute().parent
    return folder if folder.is_dir() and os.access(folder, os.W_OK) else None


def run_checks(settings: Settings, *, browser: bool = True, database: bool = True) -> list[Check]:
    """Run every check and return their outcomes, required ones first."""
    checks = [_python()]
    checks += [_package(d, m) for d, m in REQUIRED]
    checks.append(_critic(settings))
    if browser:
        checks += _browser(settings)
    if database:
        checks.append(_database(settings))
    found = extras()
    checks += [_extra(extra, found[extra]) for extra in FEATURES if extra in found]
    return checks


def install_browser(
    settings: Settings,
    *,
    say: Callable[[str], None],
    run: Runner = subprocess.run,
) -> Path:
    """Make a Chromium available to deepcrawl and return the one it will launch.

    Nothing is installed when one is found already (``DEEPCRAWL_CHROMIUM``, Playwright's own,
    or the distribution's); on Debian and Ubuntu the headless shell is added beside a full
    Chromium when missing (best effort). Otherwise Playwright's download is tried first, then
    the distribution's package (``apt-get``, as root or through ``sudo``).

    Args:
        settings: the browser settings say where a configured Chromium is.
        say: called with one line for each step taken.
        run: runs each command (``subprocess.run``).

    Raises:
        BrowserNotFoundError: no step gave a Chromium; the message says what to do.
    """
    from deepcrawl.browser import find_chromium
    from deepcrawl.errors import BrowserNotFoundError

    found = find_chromium(settings.browser)
    if found is not None and found.is_file():
        say(f"browser: {found} is installed")
        distribution = found.parent in SYSTEM_FOLDERS and settings.browser.chromium is None
        if distribution and "headless-shell" not in found.name and settings.browser.headless:
            _apt(["chromium-headless-shell"], say=say, run=run, optional=True)
        return find_chromium(settings.browser) or found
    if found is not None:  # a configured path that is not there
        raise BrowserNotFoundError(
            f"browser.chromium (DEEPCRAWL_CHROMIUM) names {found}, which does not exist"
        )
    say("browser: none found; trying Playwright's download (playwright install chromium)")
    try:
        done = run(
            [sys.executable, "-m", "playwright", "install", "chromium"],
            capture_output=True,
            text=True,
            timeout=PLAYWRIGHT_INSTALL_TIMEOUT_S,
            check=False,
        )
        downloaded = done.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        downloaded = False
    if not downloaded:
        say("browser: Playwright cannot download its Chromium here; trying the distribution's")
        _apt(["chromium"], say=say, run=run, optional=False)
        _apt(["chromium-headless-shell"], say=say, run=run, optional=True)
    located = find_chromium(settings.browser)
    if located is None:
        raise BrowserNotFoundError(
            "no Chromium could be installed: install one with your system's package manager "
            "and set DEEPCRAWL_CHROMIUM to its path"
        )
    say(f"browser: installed {located}")
    return located


def _apt(packages: list[str], *, say: Callable[[str], None], run: Runner, optional: bool) -> bool:
    """Install Debian packages quietly, reading the package lists first if need be."""
    if shutil.which("apt-get") is None:
        if not optional:
            say("browser: no apt-get on this machine")
        return False
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = [*sudo, "apt-get", "install", "-y", "-qq", *packages]
    for step in (install, [*sudo, "apt-get", "update", "-qq"], install):
        try:
            done = run(step, capture_output=True, text=True, env=env, check=False)
        except OSError:
            return False
        if done.returncode == 0 and step is install:
            say(f"browser: installed {' '.join(packages)} (apt-get)")
            return True
    say(f"browser: apt-get could not install {' '.join(packages)}")
    return False
