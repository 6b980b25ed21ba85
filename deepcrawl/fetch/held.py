"""Pages fetched once, given again to the part of the crawl that asks for them next.

The input check (:func:`~deepcrawl.crawler.inputs.check_start_page`) reads robots.txt and the
start page before the crawl starts; :class:`HeldPages` lets the crawl's robots.txt reading take
that answer rather than ask the server a second time: a page the crawl already has is one
request, whichever parts need it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl.browser.base import Fetcher

if TYPE_CHECKING:
    from collections.abc import Iterable

    from deepcrawl.page.fetched import FetchedPage

__all__ = ["HeldPages"]


class HeldPages(Fetcher):
    """A fetcher that answers each URL it holds once with the page fetched earlier, and asks
    ``inner`` for every other URL (and for a held one asked again: it may have changed).

    It does not own ``inner``: entering and leaving it leaves ``inner`` as it was.

    Args:
        inner: the fetcher that sends the requests (entered by its owner).
        pages: the pages held, keyed by the URL they were asked for (``FetchedPage.url``).
    """

    def __init__(self, inner: Fetcher, pages: Iterable[FetchedPage]) -> None:
        self.inner = inner
        self._held = {page.url: page for page in pages}

    @property
    def held(self) -> int:
        """How many pages are held still (not given yet)."""
        return len(self._held)

    async def fetch(self, url: str) -> FetchedPage:
        """The held page of ``url`` (once), else ``inner``'s answer (see the :class:`Fetcher`
        contract)."""
        page = self._held.pop(url, None)
        return page if page is not None else await self.inner.fetch(url)
