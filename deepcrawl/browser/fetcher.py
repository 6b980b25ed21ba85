"""The browser backend of the fetch contract: :class:`BrowserFetcher`, over a pool."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from deepcrawl.browser.base import Fetcher
from deepcrawl.browser.pool import BrowserPool
from deepcrawl.browser.probe import PROBE_TIMEOUT_S
from deepcrawl.browser.render import render_page
from deepcrawl.errors import BlockedError, FetchError, FetchTimeoutError

if TYPE_CHECKING:
    from collections.abc import Iterable

    from deepcrawl.browser.lease import PageLease
    from deepcrawl.browser.scope import Scope
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.settings import Settings

__all__ = ["BrowserFetcher"]

logger = logging.getLogger(__name__)


class BrowserFetcher(Fetcher):
    """Fetch pages by rendering them in Chromium.

    Args:
        settings: deepcrawl settings.
        scope: hosts pages may reach (see :class:`BrowserPool`); None: each URL's own host.
        forms: discover forms on every page.
        probe: run JavaScript link probing on every page.
        pool: an already-entered pool to share (it is then not closed with the fetcher).
        probe_once: probe each scripted element once per fetcher, not once per page (an
            element is the same when its DOM path, text and markup are): a site-wide menu is
            then probed on the first page only.
    """

    def __init__(
        self,
        settings: Settings,
        scope: Scope | Iterable[str] | None = None,
        *,
        forms: bool = True,
        probe: bool = False,
        pool: BrowserPool | None = None,
        probe_once: bool = False,
    ) -> None:
        self.settings = settings
        self.forms = forms
        self.probe = probe
        self.probed: set[str] | None = set() if probe_once else None
        self._own_pool = pool is None
        self.pool = pool if pool is not None else BrowserPool(settings, scope)

    async def open(self) -> None:
        """Start the browser (unless the pool was given already running)."""
        if self._own_pool:
            await self.pool.open()

    async def close(self) -> None:
        """Stop the browser if this fetcher started it."""
        if self._own_pool:
            await self.pool.close()

    async def fetch(
        self, url: str, *, probe: bool | None = None, document: FetchedPage | None = None
    ) -> FetchedPage:
        """Render ``url``; see :class:`~deepcrawl.browser.base.Fetcher` for the contract.

        A page that died with its browser (Chromium or its driver killed, out of memory) is
        rendered once more, in the browser the pool starts in its place.

        Args:
            url: the URL.
            probe: override the fetcher's ``probe`` for this call.
            document: the page as plain HTTP fetched it a moment ago: when it is the HTML
                answer of ``url`` itself (status 200, no redirect), the browser renders these
                bytes instead of asking the server again (its scripts, styles and data still
                load as usual).

        Raises:
            FetchError: the subclass saying why there is no page.
        """
        if not self.pool.scope.admit(url):
            raise BlockedError(url, "outside the crawl's scope")
        do_probe = self.probe if probe is None else probe
        budget = self.settings.browser.page_timeout_s * 2 + 5
        if do_probe:
            budget += PROBE_TIMEOUT_S * 2
        async with self.pool.page() as lease:
            try:
                return await self._render(lease, url, document, do_probe, budget)
            except FetchError:
                # a page that died with its browser says nothing of the URL
                if not self.pool.outlived(lease):
                    raise
        logger.info("%s: its page died with the browser; rendered again", url)
        async with self.pool.page() as lease:  # in the browser the pool starts in its place
            return await self._render(lease, url, document, do_probe, budget)

    async def _render(
        self, lease: PageLease, url: str, document: FetchedPage | None, probe: bool, budget: float
    ) -> FetchedPage:
        lease.hold(url, document)
        try:
            async with asyncio.timeout(budget):
                return await render_page(
                    lease, url, forms=self.forms, probe=probe, probe_skip=self.probed
                )
        except TimeoutError as exc:
            lease.poisoned = True
            raise FetchTimeoutError(url, f"page still busy after {budget:.0f} s") from exc
        finally:
            lease.documents.clear()
