"""Finding and launching Chromium.

Debian's Chromium launches only through Playwright's ``executable_path`` (``channel=`` names do
not find it), and ``playwright install`` cannot download on a machine without internet, so
deepcrawl looks for a binary itself, in a fixed order (see :func:`find_chromium`), and says how
to install one when there is none. A headless browser is Chromium's headless shell where one is
installed (Debian's ``chromium-headless-shell``, Playwright's ``chromium_headless_shell``): the
same Blink and network stack without the browser's window layer, which Playwright itself runs for
headless pages; a page costs about half the CPU it costs the full browser (BENCHMARKS.md).

:func:`launch_chromium` starts a Playwright driver whose temporary files (Chromium profiles,
artifacts) go to a private folder, so that a crashed or failed launch leaves nothing behind once
that folder is removed (docs/ARCHITECTURE.md: failed launches leave ``playwright_*`` folders in the
temp directory). :func:`probe_browser` is the launch check ``deepcrawl doctor`` runs.

The driver runs in a session of its own (:func:`_driver_in_own_session`): Ctrl-C on a terminal
goes to the whole foreground process group, and a driver in ours would die at once — before
deepcrawl could close the browser and the pages in flight, which then fail with ``Connection
closed while reading from the driver``. Out of the group, the driver is stopped by deepcrawl, in
order; it still ends with deepcrawl, since it exits when its pipe from deepcrawl closes.

A driver that dies on its own (killed, out of memory) takes its browser with it: every call in
flight fails with ``Target page, context or browser has been closed``, and the browser never says
it disconnected (only the driver could). :meth:`LaunchedBrowser.on_driver_exit` is how its owner
hears of it, before any of those calls fails (:func:`_driver_failure` says why).

Proxies come from the ``access.proxy`` setting only, per browser context
(:mod:`deepcrawl.browser.access` says why): the driver starts without the environment's proxy
variables (its own requests — ``route.fetch`` — would read them, and Chromium inherits them)
and Chromium with ``--no-proxy-server`` (no system proxy settings either); a context's proxy
overrides that flag.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import async_playwright

from deepcrawl.errors import BrowserError, BrowserNotFoundError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    from playwright.async_api import Browser, Playwright
    from playwright.async_api._context_manager import PlaywrightContextManager

    from deepcrawl.settings import BrowserSettings, Settings

__all__ = ["LaunchedBrowser", "find_chromium", "launch_chromium", "probe_browser"]

#: Fallback locations, in order, after the configured binary and Playwright's own browser.
SYSTEM_CHROMIUMS = (Path("/usr/bin/chromium"), Path("/usr/lib/chromium/chromium"))
#: Debian's headless shell (package ``chromium-headless-shell``), before those for a headless
#: browser. The binary itself first: ``/usr/bin``'s is a script that runs it without ``exec``,
#: and would stand between deepcrawl and the browser's process tree (its memory, its restarts).
SYSTEM_HEADLESS_SHELLS = (
    Path("/usr/lib/chromium/chromium-headless-shell"),
    Path("/usr/bin/chromium-headless-shell"),
)
PATH_NAMES = ("chromium", "chromium-browser")
INSTALL_HINT = "install one with `apt-get install -y chromium` or `playwright install chromium`"
#: Environment variables a proxy could come from; none reaches the driver or the browser.
PROXY_VARIABLES = tuple(
    name
    for base in ("http_proxy", "https_proxy", "all_proxy", "no_proxy")
    for name in (base, base.upper())
)


#: One driver start at a time in each event loop: the start swaps process-wide state (the
#: environment, ``asyncio.create_subprocess_exec``), and two interleaved swaps would each
#: restore what the other set — a driver started after them with another's TMPDIR, removed
#: when that browser closed.
_DRIVER_STARTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
    weakref.WeakKeyDictionary()
)
_PLAYWRIGHT_CHROME = "chromium-*/chrome-linux*/chrome"
_PLAYWRIGHT_SHELL = "chromium_headless_shell-*/chrome-*/*shell"


def _executable(path: Path | None) -> TypeGuard[Path]:
    return path is not None and path.is_file() and os.access(path, os.X_OK)


def _playwright_chromium(pattern: str) -> Path | None:
    """The newest browser matching ``pattern`` that ``playwright install`` put in Playwright's
    registry, if any.

    Playwright's registry lives in ``$PLAYWRIGHT_BROWSERS_PATH`` (Playwright's own variable, not a
    deepcrawl setting) or ``~/.cache/ms-playwright``.
    """
    root = Path(os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or Path.home() / ".cache/ms-playwright")
    if not root.is_dir():
        return None
    found = sorted(root.glob(pattern), reverse=True)  # newest revision first
    return next((candidate for candidate in found if _executable(candidate)), None)


def _section(settings: Settings | BrowserSettings) -> BrowserSettings:
    from deepcrawl.settings import BrowserSettings

    return settings if isinstance(settings, BrowserSettings) else settings.browser


def find_chromium(settings: Settings | BrowserSettings) -> Path | None:
    """Locate a Chromium binary.

    Order: ``settings.browser.chromium`` (``DEEPCRAWL_CHROMIUM``); for a headless browser
    (``browser.headless``) a headless shell, Playwright's then Debian's
    (``/usr/lib/chromium/chromium-headless-shell``); Playwright's own Chromium when installed,
    ``/usr/bin/chromium``, ``/usr/lib/chromium/chromium``, then ``chromium`` or
    ``chromium-browser`` on ``PATH``. A browser with a window (``deepcrawl login --headed``)
    is never a headless shell.

    Args:
        settings: all settings, or the browser section.

    Returns:
        The binary's path, or None when there is none. A configured path that does not exist is
        returned as is, so that the launch fails with a message naming it.
    """
    section = _section(settings)
    configured: Path | None = section.chromium
    if configured is not None:
        return configured
    shells = [_playwright_chromium(_PLAYWRIGHT_SHELL), *SYSTEM_HEADLESS_SHELLS]
    candidates = [*(shells if section.headless else ()), _playwright_chromium(_PLAYWRIGHT_CHROME)]
    for candidate in (*candidates, *SYSTEM_CHROMIUMS):
        if _executable(candidate):
            return candidate
    for name in PATH_NAMES:
        if located := shutil.which(name):
            return Path(located)
    return None


def require_chromium(settings: Settings | BrowserSettings) -> Path:
    """Like :func:`find_chromium`, but raise when there is no binary.

    Raises:
        BrowserNotFoundError: no Chromium anywhere; the message says how to install one.
    """
    found = find_chromium(settings)
    if found is None:
        raise BrowserNotFoundError(f"no Chromium found: {INSTALL_HINT}, or set DEEPCRAWL_CHROMIUM")
    if not found.is_file():
        raise BrowserNotFoundError(
            f"Chromium binary {found} (settings browser.chromium) does not exist: {INSTALL_HINT}"
        )
    return found


@dataclass(slots=True)
class LaunchedBrowser:
    """A running Playwright driver and Chromium, with the private folder holding their files.

    Attributes:
        driver_failure: the future Playwright fails when the driver goes away unasked (None:
            this Playwright keeps none where :func:`_driver_failure` looks).
    """

    playwright: Playwright
    browser: Browser
    tmpdir: Path
    driver_failure: asyncio.Future[Any] | None = None

    @property
    def driver_exited(self) -> bool:
        """The driver went away unasked (its browser with it)."""
        return self.driver_failure is not None and _failed(self.driver_failure)

    def on_driver_exit(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` (once, in the event loop) if the driver goes away unasked.

        It runs before any call in flight fails for the driver's loss, so an owner that marks
        the browser dead in it never mistakes that failure for a page's own.
        """
        if self.driver_failure is not None:
            self.driver_failure.add_done_callback(lambda f: callback() if _failed(f) else None)

    async def aclose(self) -> None:
        """Close the browser and the driver, then remove the private folder (never raises)."""
        with contextlib.suppress(PlaywrightError, OSError, RuntimeError):
            await self.browser.close()
        with contextlib.suppress(PlaywrightError, OSError, RuntimeError):
            await self.playwright.stop()
        shutil.rmtree(self.tmpdir, ignore_errors=True)


def _driver_failure(manager: PlaywrightContextManager) -> asyncio.Future[Any] | None:
    """The future Playwright's pipe transport fails when its driver exits unasked, if any.

    Playwright sets it when the driver's pipe closes while nobody asked it to stop, and awaits
    it only while the driver starts: a driver that dies later leaves it failed and unread, which
    asyncio reports as "Future exception was never retrieved" once it is freed, and it is the
    first word of the driver's death (the calls in flight fail only after the driver process is
    reaped). Playwright has no public API for either; this is the one place deepcrawl reaches
    into its internals, and :class:`LaunchedBrowser` does without it when it is not there
    (tests/integration/browser/test_pool.py checks that it is there).
    """
    transport = getattr(getattr(manager, "_client", None), "_transport", None)
    failure = getattr(transport, "on_error_future", None)
    return failure if isinstance(failure, asyncio.Future) else None


def _failed(future: asyncio.Future[Any]) -> bool:
    """Whether ``future`` failed; reading its exception marks it retrieved."""
    return future.done() and not future.cancelled() and future.exception() is not None


@contextlib.contextmanager
def _driver_environment(tmpdir: Path) -> Iterator[None]:
    """``TMPDIR`` set to ``tmpdir`` and no proxy variable in the environment, only while the
    driver process starts (it copies the environment then); one start at a time
    (:data:`_DRIVER_STARTS`)."""
    saved = {name: os.environ.get(name) for name in ("TMPDIR", *PROXY_VARIABLES)}
    os.environ["TMPDIR"] = str(tmpdir)
    for name in PROXY_VARIABLES:
        os.environ.pop(name, None)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextlib.contextmanager
def _driver_in_own_session() -> Iterator[None]:
    """Start the subprocesses spawned in the block (Playwright's driver) in a new session.

    Playwright has no option for it: its driver is spawned with ``asyncio.create_subprocess_exec``,
    which is wrapped for the block to add ``start_new_session``. The browser needs nothing:
    Playwright starts it in a process group of its own already.
    """
    spawn = asyncio.create_subprocess_exec

    async def in_own_session(*args: Any, **kwargs: Any) -> asyncio.subprocess.Process:
        kwargs.setdefault("start_new_session", True)
        return await spawn(*args, **kwargs)

    asyncio.create_subprocess_exec = in_own_session
    try:
        yield
    finally:
        asyncio.create_subprocess_exec = spawn


async def launch_chromium(settings: Settings | BrowserSettings) -> LaunchedBrowser:
    """Start a Playwright driver and a headless Chromium with deepcrawl's flags.

    The driver runs with ``TMPDIR`` pointing to a fresh private folder, so the browser profile
    and every other temporary file live there and vanish with :meth:`LaunchedBrowser.aclose`.
    ``TMPDIR`` is swapped in the environment, and the proxy variables are taken out of it,
    only while the driver process starts.

    Raises:
        BrowserNotFoundError: no Chromium binary.
        BrowserError: the driver or the browser failed to start.
    """
    section = _section(settings)
    binary = require_chromium(section)
    tmpdir = Path(tempfile.mkdtemp(prefix="deepcrawl-browser-"))
    playwright: Playwright | None = None
    manager = async_playwright()
    try:
        loop = asyncio.get_running_loop()
        async with _DRIVER_STARTS.setdefault(loop, asyncio.Lock()):
            with _driver_environment(tmpdir), _driver_in_own_session():
                playwright = await manager.start()
        failure = _driver_failure(manager)
        if failure is not None:  # read however the driver ends: at launch, mid-crawl, at exit
            failure.add_done_callback(_failed)
        browser = await playwright.chromium.launch(
            executable_path=str(binary),
            headless=section.headless,
            args=[*section.launch_args, "--no-proxy-server"],
            timeout=max(section.page_timeout_s, 30.0) * 1000,
        )
    except (PlaywrightError, OSError) as exc:
        if playwright is not None:
            with contextlib.suppress(PlaywrightError, OSError, RuntimeError):
                await playwright.stop()
        shutil.rmtree(tmpdir, ignore_errors=True)
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise BrowserError(f"cannot launch Chromium {binary}: {first}") from exc
    except BaseException:
        if playwright is not None:
            with contextlib.suppress(PlaywrightError, OSError, RuntimeError):
                await playwright.stop()
        shutil.rmtree(tmpdir, ignore_errors=True)
        raise
    return LaunchedBrowser(
        playwright=playwright,
        browser=browser,
        tmpdir=tmpdir,
        driver_failure=failure,
    )


async def probe_browser(settings: Settings | BrowserSettings) -> str:
    """Launch Chromium, open ``about:blank``, and return the browser's version.

    Raises:
        BrowserNotFoundError: no Chromium binary.
        BrowserError: it would not launch or could not open a page.
    """
    launched = await launch_chromium(settings)
    try:
        page = await launched.browser.new_page()
        await page.goto("about:blank")
        version = launched.browser.version
        await page.close()
    except PlaywrightError as exc:
        raise BrowserError(f"Chromium launched but cannot open a page: {exc}") from exc
    finally:
        await launched.aclose()
    return version
