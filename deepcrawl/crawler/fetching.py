"""The fetch workers: lease a wanted URL from the frontier, fetch it through the crawl's gate,
store it, deliver it; wait while the frontier is empty and more URLs may come.

:class:`FetchWorkers` is one object that three parts of a crawl own: the normal phase (beside
its query loop), a ``deepcrawl worker`` process (alone), and the ``--navigate`` phase (a record
its strategy meets is fetched the workers' way, :meth:`FetchWorkers.fetch_leased`).

A URL that fails for good is stored with its reason; a transient failure goes back to the
frontier with its back-off; a page stored by a process that died before delivering it is
delivered by the one that takes its expired lease. A worker waits while the frontier is empty
and the query loop may still add URLs (:attr:`FetchWorkers.querying`), and ends once neither
holds — or once the crawl's page budget is spent.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from typing import TYPE_CHECKING, Literal

from deepcrawl.crawler.identity import Identities
from deepcrawl.errors import FetchError, HTTPStatusError, StorageError
from deepcrawl.export import Held
from deepcrawl.querying import main_text
from deepcrawl.storage.frontier import SqlFrontier

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.crawler.admission import Admission
    from deepcrawl.crawler.context import CrawlContext
    from deepcrawl.crawler.deliver import DeliveryPoller, Sink
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.storage import PageRead
    from deepcrawl.storage.frontier import Lease

__all__ = ["Delivery", "FetchWorkers", "shared_frontier"]

logger = logging.getLogger(__name__)

#: How a stored page reaches the sink: ``direct`` (by the task that stored it), ``poll`` (the
#: delivery point of a shared crawl delivers what any process stored), ``none`` (a worker
#: process stores only).
Delivery = Literal["direct", "poll", "none"]

#: Longest wait of an idle worker before it looks at the frontier again (back-offs expire).
_IDLE_S = 0.25


def shared_frontier(ctx: CrawlContext) -> SqlFrontier:
    """The crawl's frontier, its per-host cap of live leases held across every worker process
    (PostgreSQL); a lease names this process, whose leases come back at once if it is judged
    dead."""
    cap = ctx.settings.politeness.concurrency_per_host
    return SqlFrontier(
        ctx.repo.engine,
        ctx.site.id,
        host_cap=max(1, cap),
        holder=ctx.state.worker_id,
        heartbeat_s=ctx.settings.crawl.heartbeat_s,
    )


def _judged(_url: str) -> bool:
    """The frontier's URLs were judged as they were queued (:mod:`deepcrawl.crawler.admission`)."""
    return True


class FetchWorkers:
    """Fetch, store and deliver the frontier's URLs (see the module docstring).

    Args:
        ctx: the crawl's context (its gate, store, page budget and figures).
        fetcher: an entered fetcher; it fetches behind the crawl's gate.
        frontier: the crawl's shared frontier.
        admission: judges the stored pages' URLs (their prototype and label) and their own
            links, which it queues (``crawl.follow_record_links``).
        sink: where pages go with ``direct`` delivery.
        delivery: how stored pages reach the sink (:data:`Delivery`).
        poller: the delivery point, woken as pages are stored (``poll`` delivery).
        on_fetch: called with every page fetched (the bench counts them).
        learn: told the URL and main text of every record page stored (the query loop's
            paging control learns its words); None: nobody asks.
        same: told a URL whose page showed a record stored before, that record's URL and
            the page's body (the query loop counts them as one record, and the page as a
            repeat); None: nobody asks.
        ran_away: whether the crawl ran away (:mod:`deepcrawl.querying.runaway`): one that
            did follows no record page's links; None: never.
    """

    def __init__(
        self,
        ctx: CrawlContext,
        fetcher: Fetcher,
        frontier: SqlFrontier,
        admission: Admission,
        *,
        sink: Sink,
        delivery: Delivery,
        poller: DeliveryPoller | None = None,
        on_fetch: Sequence[Callable[[FetchedPage], None]] = (),
        learn: Callable[[str, str], None] | None = None,
        same: Callable[[str, str, str], object] | None = None,
        ran_away: Callable[[], bool] | None = None,
    ) -> None:
        self.ctx = ctx
        #: ``fetcher`` behind the crawl's gate (its URLs judged as they were queued).
        self.polite = ctx.gate.wrap(fetcher, vouched=_judged)
        self.frontier = frontier
        self.admission = admission
        self.sink = sink
        self.delivery = delivery
        self.poller = poller
        self.on_fetch = list(on_fetch)
        self.learn = learn
        self.same = same
        self.ran_away = ran_away or (lambda: False)
        #: What a fetched page says of its record: stored before under another URL?
        self.identities = Identities(ctx, admission.key, main_text)
        #: Whether URLs may still come (the query loop runs, here or in another process).
        self.querying = True
        self.in_flight = 0
        self._stop = asyncio.Event()
        self._wake = asyncio.Event()

    # -- running ---------------------------------------------------------------------------

    def wake(self) -> None:
        """New URLs are in the frontier (or no more will come): idle workers look again."""
        self._wake.set()

    def stop(self) -> None:
        """End every worker at its next look at the frontier."""
        self._stop.set()

    def restart(self) -> None:
        """Let workers run again (a new round: the ``--navigate`` phase's, the last sweep)."""
        self._stop.clear()

    @property
    def stopping(self) -> bool:
        """Whether the workers were told to stop, or the page budget is spent."""
        return self._stop.is_set() or self.ctx.budget.spent

    async def work(self) -> None:
        """One worker: lease, fetch, store, deliver, until the frontier is drained and no URL
        may come, the workers are stopped, or the page budget is spent."""
        lease_s = self.ctx.settings.crawl.worker_lease_s
        while not self._stop.is_set():
            if self.ctx.budget.spent:
                self._stop.set()
                return
            # leased in the event loop's thread: SQLite has no row locks, and one lease at a
            # time is what keeps two workers from taking the same URL
            leases = self.frontier.lease(1, lease_s=lease_s)
            if not leases:
                if not self.querying and self.in_flight == 0 and self.frontier.pending() == 0:
                    return
                # wait for the query loop to add URLs (or a back-off to expire)
                self._wake.clear()
                await _wait(self._wake, _IDLE_S)
                continue
            self.in_flight += 1
            try:
                await self.fetch_leased(leases[0])
            finally:
                self.in_flight -= 1

    async def drained(self) -> None:
        """Wait until no wanted page is pending or in flight (links first, queries after)."""
        while not self.stopping:
            if self.in_flight == 0 and self.frontier.pending() == 0:
                return
            self._wake.clear()
            await _wait(self._wake, _IDLE_S / 5)

    # -- one URL ---------------------------------------------------------------------------

    async def fetch_leased(self, lease: Lease) -> None:
        """Fetch, store and deliver one leased URL.

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
        # a probe first: nearly every URL leased is not stored yet, under its own key or as
        # the canonical URL of a record stored under another
        found = ctx.state.stored_key(url)
        stored = ctx.repo.page(ctx.site.id, found) if found is not None else None
        if stored is not None and stored.kind == "duplicate" and stored.canonical_url:
            stored = ctx.repo.page(ctx.site.id, stored.canonical_url) or stored  # the record
        if stored is not None:  # stored before a crash, or under another URL
            # a record (not a sitemap or results page stored under the same URL)
            direct = self.delivery == "direct" and stored.kind == "record"
            if direct and stored.error is None and not ctx.state.delivered(stored.id):
                await self.deliver(stored)  # its process died before delivering it
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
        decision = self.admission.decide(lease.url)
        follow = ctx.settings.crawl.follow_record_links
        identity, record = self.identities.judge(lease.url, page)
        try:
            row = ctx.repo.save_page(
                ctx.site.id,
                page,
                url=lease.url,
                kind="record" if record is None else "duplicate",
                prototype_id=decision.prototype,
                label=decision.label,
                with_links=follow and record is None,
                canonical_url=record or identity.canonical,
                fingerprint=identity.fingerprint,
            )
        except StorageError:
            # our lease expired while we fetched and another worker stored the page first (a
            # rare race: no probe before each store, the unique key tells)
            if ctx.repo.page(ctx.site.id, lease.url) is None:
                raise
            self.frontier.complete(lease.id)
            return
        if record is not None:  # one record under two URLs: neither delivered nor counted again
            logger.info("%s: the record stored as %s", lease.url, record)
            ctx.stats.duplicates += 1
            if self.same is not None:
                self.same(lease.url, record, page.body)
            self.frontier.complete(lease.id)
            return
        if page.body and self.learn is not None:  # the text the fingerprint was taken from
            self.learn(lease.url, identity.text or main_text(page.body))
        ctx.sessions.observe(link.url for link in page.links)
        if follow and not self.ran_away():  # a crawl that ran away follows no link
            links = [(link.url, link.text) for link in page.links]
            self.admission.enqueue(links, f"link on {lease.url}", on_record=True, scout=lease.url)
        ctx.stats.pages_fetched += 1
        for observer in self.on_fetch:
            observer(page)
        if self.delivery == "direct":
            await self.deliver(row, Held(page, lease.source))
        elif self.poller is not None:
            self.poller.wake()
        # settled after the (direct) delivery: a process killed before it leaves the URL leased,
        # and the process that takes the expired lease delivers the stored page (see ``_fetch``);
        # with a delivery point, settled once stored (a lease still pending holds up the sweep)
        self.frontier.complete(lease.id)

    async def deliver(self, page: PageRead, held: Held | None = None) -> None:
        """Hand a stored page to the sink (direct delivery), unless the page budget is spent;
        ``held``: what the crawl has in hand of a page just fetched (:meth:`Sink.deliver_page`)."""
        if self.ctx.budget.spent:
            return
        await self.sink.deliver_page(self.ctx, page, held)
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
