"""The breadth-first baseline: follow every in-scope link of the static HTML, no forms.

This is what a generic crawler (Scrapy's default spider, ``wget -r``) does on a deep-web site,
and the reference every deepcrawl strategy is measured against in ``deepcrawl bench``: it reaches
only records that some browse page links to, and pays for every page on the way.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING
from urllib.parse import urldefrag

from deepcrawl.errors import FetchError
from deepcrawl.links.strategy import LEASE_S, Strategy, register
from deepcrawl.storage.frontier import NewURL

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.storage.frontier import Lease

__all__ = ["BreadthFirst"]


@register
class BreadthFirst(Strategy):
    """Breadth-first link following within the start URL's host.

    Polite like every strategy: it fetches through a gate (:meth:`Strategy.door
    <deepcrawl.links.strategy.Strategy.door>`): robots.txt rules and Crawl-delay, the per-host
    rate and concurrency of ``settings.politeness``. Every link gets the same priority: the frontier
    hands them out first found first, and a slot that frees takes the next one at once.
    """

    name = "bfs"
    render = "never"

    async def crawl(
        self, start_url: str, *, fetcher: Fetcher, max_requests: int
    ) -> AsyncIterator[FetchedPage]:
        gate, polite, spent = await self.door(start_url, fetcher)
        concurrency = max(1, self.settings.politeness.concurrency_per_host)
        budget = max_requests - spent
        frontier = self.new_frontier()
        frontier.add([NewURL(start_url)])
        hold_s = LEASE_S
        # links robots.txt disallows: judged once like those the frontier holds
        disallowed: set[str] = set()
        # a page, None for a URL that failed, or the error that must stop the crawl (the
        # fetcher's sink or storage failing under ``--navigate``): raised by the generator
        results: asyncio.Queue[FetchedPage | Exception | None] = asyncio.Queue()
        in_flight = 0

        async def fetch_one(lease: Lease) -> None:
            url = lease.url
            try:
                page = await polite.fetch(url)
            except FetchError as exc:
                self.failures[url] = str(exc)
                frontier.fail(lease.id, str(exc))
                await results.put(None)
                return
            except Exception as exc:  # handed to the generator, which raises it
                await results.put(exc)
                return
            frontier.complete(lease.id)
            found: dict[str, None] = {}
            for link in page.links:
                target = urldefrag(link.url).url
                if (
                    gate.in_scope(target)
                    and target not in found
                    and target not in disallowed
                    and not frontier.seen(target)
                    and self.safe(target, link.text)
                ):
                    if gate.allowed(target):
                        found[target] = None
                    else:
                        disallowed.add(target)
            frontier.add(NewURL(target, source=url) for target in found)
            await results.put(page)

        tasks: set[asyncio.Task[None]] = set()
        try:
            while True:
                free = min(concurrency - in_flight, budget)
                for lease in frontier.lease(free, lease_s=hold_s) if free > 0 else ():
                    budget -= 1
                    in_flight += 1
                    task = asyncio.create_task(fetch_one(lease))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
                if not in_flight:
                    break
                page = await results.get()
                in_flight -= 1
                if isinstance(page, Exception):
                    raise page
                if page is not None:
                    yield page
        finally:
            for task in tasks:
                task.cancel()
