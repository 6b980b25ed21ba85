"""Thumbnails of example pages, taken with the crawl's own Chromium and cached in the store.

A thumbnail shows a person what a kind of page looks like when its URLs say nothing
(``/p/12345``). Taking it must change nothing on the site, so the page is loaded with the
probing rules of :class:`~deepcrawl.browser.lease.PageLease` on: no request but GET leaves the
browser (a script submitting a form is refused), no navigation but the page's own is followed
(answered empty), no URL reading as destructive is requested, and nothing outside the site's
host. Only an example a result page linked to in its results area is ever shown
(:attr:`deepcrawl.prototypes.Kind.preview`), never a link found by probing scripts.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError

from deepcrawl.browser.access import with_start_origin
from deepcrawl.errors import BrowserError

if TYPE_CHECKING:
    from deepcrawl.browser.pool import BrowserPool
    from deepcrawl.settings import Settings
    from deepcrawl.storage import Repository

__all__ = ["LOAD_S", "VIEWPORT", "Thumbnails"]

#: Width and height (CSS pixels) of the browser window a thumbnail is taken in: a laptop's.
VIEWPORT = (1024, 768)
#: Longest wait for a thumbnail page's ``load`` event (a refused navigation may stop it for
#: good); the screenshot then shows what has rendered.
LOAD_S = 5.0


class Thumbnails:
    """Screenshots of one site's example pages, each taken once (Chromium starts on first use).

    Args:
        repo: where the screenshots are cached.
        site_id: the site.
        start_url: the site's start URL (its host is the only one pages may load from).
        settings: browser settings (Chromium, timeouts).
    """

    def __init__(self, repo: Repository, site_id: int, start_url: str, settings: Settings) -> None:
        self.repo = repo
        self.site_id = site_id
        self.host = urlsplit(start_url).netloc
        self.settings = with_start_origin(settings, start_url)  # the access headers go there
        self._pool: BrowserPool | None = None
        self._lock = asyncio.Lock()

    async def png(self, url: str) -> bytes | None:
        """The page's screenshot (PNG): from the cache, else taken now; None if it failed."""
        async with self._lock:  # one screenshot at a time: the cache answers the repeats
            cached = self.repo.thumbnail(self.site_id, url)
            if cached is not None:
                return cached
            if urlsplit(url).netloc != self.host:
                return None
            try:
                png = await self._take(url)
            except (BrowserError, PlaywrightError):
                return None
            if png is not None:
                self.repo.save_thumbnail(self.site_id, url, png)
            return png

    async def _take(self, url: str) -> bytes | None:
        from deepcrawl.browser.pool import BrowserPool

        if self._pool is None:
            self._pool = BrowserPool(self.settings, scope={self.host})
            await self._pool.open()
        width, height = VIEWPORT
        async with self._pool.page() as lease:
            lease.begin()
            # the probing rules: GET only, no navigation away, nothing destructive
            lease.probing = True
            lease.own_navigation = url
            try:
                timeout = self.settings.browser.page_timeout_s * 1000
                await lease.page.set_viewport_size({"width": width, "height": height})
                response = await lease.page.goto(url, wait_until="commit", timeout=timeout)
                if response is None or response.status >= 400:
                    return None
                # a script that submits a form or navigates while the page loads starts a
                # navigation the rules refuse, and "load" may then never come: show what is there
                with contextlib.suppress(PlaywrightError):
                    await lease.page.wait_for_load_state("load", timeout=LOAD_S * 1000)
                return await lease.page.screenshot(type="png")
            finally:
                lease.begin()

    async def aclose(self) -> None:
        """Stop Chromium, if it was started."""
        if self._pool is not None:
            await self._pool.close()
            self._pool = None
