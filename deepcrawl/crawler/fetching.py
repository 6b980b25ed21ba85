"""The normal phase's fetch workers: lease a wanted URL from the frontier, fetch it through the
crawl's polite path, store it and deliver it (a mixin of
:class:`~deepcrawl.crawler.normal.NormalPhase`, whose ``deepcrawl worker`` subclass runs these
alone).

A URL that fails for good is stored with its reason; a transient failure goes back to the
frontier with its back-off; a page stored by a process that died before delivering it is
delivered by the one that takes its expired lease. A worker waits while the frontier is empty
and the query loop may still add URLs, and ends once neither holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from typing import TYPE_CHECKING

from deepcrawl.errors import FetchError, HTTPStatusError, StorageError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from deepcrawl.classify.url import Decision
    from deepcrawl.crawler.context import CrawlContext
    from deepcrawl.crawler.deliver import DeliveryPoller, Sink
    from deepcrawl.fetch.polite import PoliteFetcher
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.querying import QueryLoop
    from deepcrawl.storage import PageRead
    from deepcrawl.storage.frontier import Lease, SqlFrontier

__all__ = ["LeaseFetching"]

logger = logging.getLogger(__name__)

#: Longest wait of an idle worker before it looks at the frontier again (back-offs expire).
_IDLE_S = 0.25


class LeaseFetching:
    """The fetch workers of the normal phase, over its state."""

    ctx: CrawlContext
    frontier: SqlFrontier
    polite: PoliteFetcher
    sink: Sink
    delivery: str
    loop: QueryLoop
    on_fetch: list[Callable[[FetchedPage], None]]
    _poller: DeliveryPoller | None
    _querying: bool
    _in_flight: int
    _stop: asyncio.Event
    _wake: asyncio.Event

    def _decide(self, urls: Iterable[str]) -> list[Decision]:
        raise NotImplementedError

    def enqueue(
        self,
        links: Iterable[tuple[str, str]],
        source: str,
        *,
        on_record: bool = False,
        scout: str | None = None,
    ) -> int:
        raise NotImplementedError

    def _full(self) -> bool:
        cap = self.ctx.settings.crawl.max_pages
        return cap is not None and self.ctx.stats.pages_delivered >= cap

    async def _drained(self) -> None:
        """Wait until no wanted page is pending or in flight (links first, queries after)."""
        while not self._stop.is_set() and not self._full():
            if self._in_flight == 0 and self.frontier.pending() == 0:
                return
            self._wake.clear()
            await _wait(self._wake, _IDLE_S / 5)

    async def _worker(self) -> None:
        lease_s = self.ctx.settings.crawl.worker_lease_s
        while not self._stop.is_set():
            if self._full():
                self._stop.set()
                return
            # leased in the event loop's thread: SQLite has no row locks, and one lease at a
            # time is what keeps two workers from taking the same URL
            leases = self.frontier.lease(1, lease_s=lease_s)
            if not leases:
                if not self._querying and self._in_flight == 0 and self.frontier.pending() == 0:
                    return
                # wait for the query loop to add URLs (or a back-off to expire)
                self._wake.clear()
                await _wait(self._wake, _IDLE_S)
                continue
            self._in_flight += 1
            try:
                await self.fetch_leased(leases[0])
            finally:
                self._in_flight -= 1

    async def fetch_leased(self, lease: Lease) -> None:
        """Fetch, store and deliver one leased URL the way the workers do (``--navigate``).

        A fetch cut short — the crawl stopped or failed meanwhile — gives its lease back: the
        URL is queued again, and the next run fetches it (or delivers the page stored already).
        """
        try:
            await self._fetch(lease)
        except BaseException:
            with contextlib.suppress(StorageError):
                self.frontier.retry(lease.id, after_s=0)
            raise

    async def _fetch(self, lease: Lease) -> None:
        if (key := self.ctx.sessions.drop(lease.url)) != lease.url:  # queued before it was learnt
            lease = dataclasses.replace(lease, url=key)  # fetched and stored under today's key
        ctx, url = self.ctx, lease.url
        if (stored := ctx.repo.page(ctx.site.id, url)) is not None:  # stored before a crash
            # a record (not a sitemap or results page stored under the same URL)
            direct = self.delivery == "direct" and stored.kind == "record"
            if direct and stored.error is None and not ctx.state.delivered(stored.id):
                await self._deliver_stored(stored)  # its process died before delivering it
            self.frontier.complete(lease.id)
            return
        tried = await self.polite.attempt(url, attempt=lease.attempts)
        if tried.retry_in is not None:  # a transient failure, retried through the frontier
            self.frontier.retry(lease.id, after_s=tried.retry_in)
            return
        if tried.kind is not None:
            self._fail(lease, tried.reason, status=tried.status, kind=tried.kind)
            return
        page = tried.page
        assert page is not None  # no failure: an answer came
        if page.status >= 400:
            self._fail(
                lease, f"HTTP status {page.status}", status=page.status, kind=HTTPStatusError
            )
            return
        await self._store(lease, page)

    def _fail(self, lease: Lease, reason: str, *, status: int = 0, kind: type[FetchError]) -> None:
        """Give the URL up, its reason, the error's class and the attempts stored."""
        ctx = self.ctx
        logger.info("%s: failed for good: %s", lease.url, reason)
        if ctx.repo.page(ctx.site.id, lease.url) is None:
            ctx.repo.save_failure(
                ctx.site.id,
                lease.url,
                reason,
                status=status,
                kind="record",
                error_class=kind.__name__,
                attempts=max(1, lease.attempts),
            )
        self.frontier.fail(lease.id, reason)
        ctx.stats.errors += 1
        ctx.changed()

    async def _store(self, lease: Lease, page: FetchedPage) -> None:
        ctx = self.ctx
        if ctx.repo.page(ctx.site.id, lease.url) is not None:  # another worker stored it
            self.frontier.complete(lease.id)
            return
        decision = self._decide([lease.url])[0]
        follow = ctx.settings.crawl.follow_record_links
        try:
            row = ctx.repo.save_page(
                ctx.site.id,
                page,
                url=lease.url,
                kind="record",
                prototype_id=decision.prototype,
                label=decision.label,
                with_links=follow,
            )
        except StorageError:
            # our lease expired while we fetched and another worker stored the page first
            if ctx.repo.page(ctx.site.id, lease.url) is None:
                raise
            self.frontier.complete(lease.id)
            return
        if page.body:
            self.loop.learn_text(lease.url, page.body)
        ctx.sessions.observe(link.url for link in page.links)
        if follow and self.loop.ran_away() is None:  # a crawl that ran away follows no link
            links = [(link.url, link.text) for link in page.links]
            self.enqueue(links, f"link on {lease.url}", on_record=True, scout=lease.url)
        ctx.stats.pages_fetched += 1
        for observer in self.on_fetch:
            observer(page)
        if self.delivery == "direct":
            await self._deliver_stored(row)
        elif self._poller is not None:
            self._poller.wake()
        # settled after the (direct) delivery: a process killed before it leaves the URL leased,
        # and the process that takes the expired lease delivers the stored page (see ``_fetch``);
        # with a delivery point, settled once stored (a lease still pending holds up the sweep)
        self.frontier.complete(lease.id)

    async def _deliver_stored(self, page: PageRead) -> None:
        if self._full():
            return
        await self.sink.deliver_page(self.ctx, page)
        self.ctx.stats.pages_delivered += 1
        self.ctx.changed()


async def _wait(event: asyncio.Event, timeout_s: float) -> None:
    """Wait for ``event`` at most ``timeout_s`` seconds.

    ``asyncio.timeout`` rather than ``wait_for``: Python 3.11's ``wait_for`` loses a
    cancellation that lands as the event is set, and a stop request (Ctrl-C) with it.
    """
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(timeout_s):
            await event.wait()
