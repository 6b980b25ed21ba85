"""The whole deepcrawl crawl as a :class:`~deepcrawl.links.strategy.Strategy` named "deepcrawl".

So that ``deepcrawl bench --strategy deepcrawl --strategy bfs`` measures the product beside the
breadth-first baseline in one run. The bench hands every strategy one fetcher and counts the
requests at the server; the crawl fetches its wanted pages (and robots.txt) through that
fetcher, and drives the search form in a browser pool of its own — those requests reach the
same server and are counted there too.

Nobody can answer the labelling prompt in a bench: the strategy labels from
``settings.crawl.like`` when given, else it marks the prototype holding most result links as
relevant (``crawl.auto_label``). Its state goes to a throw-away SQLite database.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deepcrawl._tasks import stream
from deepcrawl.crawler.deliver import Sink
from deepcrawl.crawler.engine import Crawl
from deepcrawl.links.strategy import Strategy, register

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.page.fetched import FetchedPage

__all__ = ["DeepcrawlStrategy"]


class _Discard(Sink):
    async def write(self, record: dict[str, Any]) -> None:
        return None


@register
class DeepcrawlStrategy(Strategy):
    """Setup phase, labels, normal phase: the crawl of :class:`~deepcrawl.crawler.engine.Crawl`.

    ``max_requests`` caps the wanted pages fetched (the form's result pages are not fetched
    through the bench's fetcher; the keyword manager's own budget bounds them).
    """

    name = "deepcrawl"

    def _collect_failures(self, crawl: Crawl) -> None:
        if crawl.ctx is None:
            return
        for page in crawl.ctx.repo.pages(crawl.ctx.site.id):
            if page.error is not None:
                self.failures[page.url] = page.error

    async def crawl(
        self, start_url: str, *, fetcher: Fetcher, max_requests: int
    ) -> AsyncIterator[FetchedPage]:
        pages: asyncio.Queue[FetchedPage | None] = asyncio.Queue()
        with tempfile.TemporaryDirectory(prefix="deepcrawl-bench-") as tmp:
            settings = self.settings.with_overrides(
                storage={
                    "url": f"sqlite:///{Path(tmp) / 'crawl.db'}",
                    "bodies_dir": str(Path(tmp) / "bodies"),
                },
                crawl={"auto_label": not self.settings.crawl.like, "max_pages": max_requests},
            )

            async def drive() -> None:
                async with Crawl(
                    start_url, settings=settings, fetcher=fetcher, on_fetch=[pages.put_nowait]
                ) as crawl:
                    try:
                        await crawl.run(_Discard())
                    finally:
                        self._collect_failures(crawl)

            async with stream(pages, drive) as fetched:
                async for page in fetched:
                    yield page
