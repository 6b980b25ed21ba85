"""A logged-in session for the crawl, recorded in the user's own browser session.

deepcrawl never submits a login form by itself (:mod:`deepcrawl.safety`). A site that shows its
search form only to members is crawled with a session the *user* opens: :func:`record_login`
opens Chromium on the site's login page — with a window when the machine has a display — the
user logs in as in any browser, and the context's storage state (cookies and local storage) is
saved as Playwright's storage-state JSON, which ``--storage-state`` gives to both fetchers.

The browser carries the crawl's site access (user agent, headers, proxy, and the cookies of a
``--cookies`` file or an earlier state to start from), so the session is opened by the same
client the crawl will present (the headers to the login page's origin and the named credential
origins only, :mod:`deepcrawl.browser.credentials`), and no route rule of the crawl is
installed: this is the user's session, not the crawler's.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

from deepcrawl.browser.access import SiteAccess, check_user_url
from deepcrawl.browser.chromium import launch_chromium
from deepcrawl.browser.credentials import route_context
from deepcrawl.errors import BrowserError, ConfigError, NetworkError

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable
    from pathlib import Path

    from playwright.async_api import Page

    from deepcrawl.settings import Settings

__all__ = ["LoginSession", "has_display", "record_login"]


def has_display() -> bool:
    """Whether a browser window can be shown here (an X11 or Wayland display is set)."""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


@dataclass(frozen=True, slots=True)
class LoginSession:
    """What :func:`record_login` saved.

    Attributes:
        path: the storage-state file.
        cookies: cookies in it.
        origins: origins whose local storage it holds.
        final_url: the page the browser showed when the session was saved.
    """

    path: Path
    cookies: int
    origins: int
    final_url: str


async def record_login(
    url: str,
    out: Path,
    settings: Settings,
    *,
    headed: bool,
    done: Callable[[Page], Awaitable[None]],
) -> LoginSession:
    """Open ``url`` in Chromium, wait for ``done``, save the storage state to ``out``.

    Args:
        url: the site's login page (or any page from where the user logs in).
        out: the storage-state file to write (created with mode 0600: it holds a session).
        settings: deepcrawl settings (``browser``, ``access``, ``http.user_agent``).
        headed: show a window (needs a display); False: headless.
        done: returns when the session is ready to save — the user says so, or a test has
            logged in; it gets the page.

    Raises:
        InvalidURLError: ``url`` fails :func:`~deepcrawl.browser.scope.check_url`.
        AccessError: an access setting cannot be used.
        BrowserError: Chromium cannot be started (or shown: no display for a window).
        NetworkError: the page cannot be loaded.
        ConfigError: ``out`` cannot be written.
    """
    url, settings = check_user_url(settings, url)  # as every command does
    access = SiteAccess.from_settings(settings)
    launched = await launch_chromium(settings.browser.model_copy(update={"headless": not headed}))
    try:
        context = await launched.browser.new_context(**access.context_options())
        await route_context(context, access, timeout_s=settings.browser.page_timeout_s)
        page = await context.new_page()
        try:
            await page.goto(url, timeout=settings.browser.page_timeout_s * 1000)
        except PlaywrightError as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else "failed"
            raise NetworkError(url, f"cannot open it in the browser: {first}") from exc
        await done(page)
        try:
            final_url = page.url if not page.is_closed() else url
            state = await context.storage_state()
        except PlaywrightError as exc:
            raise BrowserError(f"cannot read the browser's session: {exc}") from exc
    finally:
        await launched.aclose()
    _write_private(out, json.dumps(state, indent=2) + "\n")
    return LoginSession(
        path=out,
        cookies=len(state.get("cookies", [])),
        origins=len(state.get("origins", [])),
        final_url=final_url,
    )


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path``, readable by its owner only (a session is a credential)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        with contextlib.suppress(OSError):
            os.chmod(path, 0o600)  # an existing file keeps its mode through O_CREAT
    except OSError as exc:
        raise ConfigError(f"--out {path}: {exc.strerror or exc}") from exc
