"""The fetch workers: fetch a wanted URL through the crawl's gate, store it, deliver it.

:class:`FetchWorkers` is one object that three parts of a crawl own: the normal phase (beside
its query loop), a fetch job of a job queue (:meth:`FetchWorkers.fetch_batch`, in any worker
process: :mod:`deepcrawl.crawler.dispatch`), and the ``--navigate`` phase (a record its
strategy meets is fetched the workers' way, :meth:`FetchWorkers.fetch_leased`).

A URL that fails for good is stored with its reason; a transient failure goes back to the
frontier with its back-off; a page stored by a process that died before delivering it is
delivered by the next run (or, in a shared crawl, by the delivery point). Pages are stored,
settled and delivered a batch at a time (:mod:`deepcrawl.crawler.batch`).

In a crawl that fetches alone, :meth:`FetchWorkers.work` leases a batch's worth of URLs at a
time, waits while the frontier is empty and the query loop may still add URLs
(:attr:`FetchWorkers.querying`), and ends once neither holds — or once the crawl's page budget
is spent.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import logging
from typing import TYPE_CHECKING, Literal

from deepcrawl._tasks import supervised
from deepcrawl.crawler.batch import STORE_BATCH, STORE_BATCH_S, StoreBatch, Unsaved
from deepcrawl.errors import FetchError, HTTPStatusError, StorageError
from deepcrawl.export import Held
from deepcrawl.querying import main_text
from deepcrawl.records.identity import Identities, Identity
from deepcrawl.storage import PageWrite, is_shared
from deepcrawl.storage.frontier import SqlFrontier

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.classify.url import Decision
    from deepcrawl.crawler.admission import Admission
    from deepcrawl.crawler.context import CrawlContext
    from deepcrawl.crawler.deliver import DeliveryPoller, Sink
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.storage import PageRead
    from deepcrawl.storage.frontier import Lease

__all__ = ["Delivery", "FetchWorkers", "site_frontier"]

logger = logging.getLogger(__name__)

#: How a stored page reaches the sink: ``direct`` (by the task that stored it), ``poll`` (the
#: delivery point of a shared crawl delivers what any process stored), ``none`` (a worker
#: process stores only).
Delivery = Literal["direct", "poll", "none"]

#: Longest wait of an idle worker before it looks at the frontier again (back-offs expire).
_IDLE_S = 0.25


def site_frontier(ctx: CrawlContext) -> SqlFrontier:
    """The crawl's frontier. The host's concurrency over every process is the limiter's
    (:mod:`deepcrawl.fetch.politeness`: its seats in the database), not the frontier's."""
    return SqlFrontier(ctx.repo.engine, ctx.site.id)


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
        alone: whether these workers store every page of the site (none is stored by a job
            or another process): their probes then read the store once. Default: on SQLite.
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
        alone: bool | None = None,
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
        #: The pages fetched and not stored yet (:mod:`deepcrawl.crawler.batch`).
        self.batch = StoreBatch(STORE_BATCH, STORE_BATCH_S)
        #: URLs leased for the workers and not taken yet: a batch's worth leased at once (at
        #: least one for each worker).
        self._leased: collections.deque[Lease] = collections.deque()
        self.concurrency = max(1, ctx.settings.politeness.concurrency_per_host)
        self._lease_n = max(self.concurrency, self.batch.size)
        if alone is None:
            alone = not is_shared(ctx.repo.engine)
        if alone:  # every stored page is these workers': the probes of a new URL need no read
            ctx.state.own_pages()
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
        may come, the workers are stopped, or the page budget is spent.

        The pages it fetched are stored a batch at a time (:mod:`deepcrawl.crawler.batch`); the
        batch is stored when a worker finds nothing to lease and when it ends. A worker
        cancelled (the crawl failed or was stopped) stores the batch without delivering it (the
        next run delivers it) and gives back the URLs leased and not fetched.
        """
        lease_s = self.ctx.settings.crawl.worker_lease_s
        try:
            while not self._stop.is_set():
                if self.ctx.budget.spent:
                    self._stop.set()
                    break
                lease = self._next_lease(lease_s)
                if lease is None:
                    if self.batch:  # idle: what was fetched is stored and delivered now
                        await self.flush()
                        continue
                    if not self.querying and self.in_flight == 0 and self.frontier.pending() == 0:
                        break
                    # wait for the query loop to add URLs (or a back-off to expire)
                    self._wake.clear()
                    await _wait(self._wake, _IDLE_S)
                    continue
                self.in_flight += 1
                try:
                    await self.fetch_leased(lease, batched=True)
                finally:
                    self.in_flight -= 1
            await self.flush()
        finally:
            self._give_back()
            with contextlib.suppress(StorageError):
                self._store_batch()  # stored undelivered: the next run delivers it

    def _next_lease(self, lease_s: float) -> Lease | None:
        """The next URL leased for this process's workers, None when the frontier has none
        ready: leased a batch's worth at a time (one lease transaction), held here until a
        worker takes it.

        Leased in the event loop's thread: SQLite has no row locks, and one lease at a time is
        what keeps two workers from taking the same URL.
        """
        if not self._leased:
            self._leased.extend(self.frontier.lease(self._lease_n, lease_s=lease_s))
        return self._leased.popleft() if self._leased else None

    def _give_back(self) -> None:
        """Queue again, ready at once, the URLs leased that no worker took (the workers end)."""
        while self._leased:
            lease = self._leased.popleft()
            with contextlib.suppress(StorageError):
                self.frontier.retry(lease.id, after_s=0)

    async def fetch_batch(self, leases: Sequence[Lease]) -> None:
        """Fetch, store and settle the URLs of one fetch job, a host's concurrency of them at
        a time; the job's pages are stored as the batch fills and when it ends.

        Supervised: a fetch that fails (the database) stops the others, each URL not fetched
        going back to the frontier, and its error is raised here (the job queue retries the
        job).
        """
        todo = collections.deque(leases)

        async def one() -> None:
            while todo and not self.stopping:
                lease = todo.popleft()
                self.in_flight += 1
                try:
                    await self.fetch_leased(lease, batched=True)
                finally:
                    self.in_flight -= 1

        try:
            async with supervised() as tasks:
                for n in range(min(self.concurrency, len(todo))):
                    tasks.start(one(), name=f"fetch job task {n}")
            await self.flush()
        finally:
            with contextlib.suppress(StorageError):
                self._store_batch()  # stored undelivered: the delivery point delivers it

    async def drained(self) -> None:
        """Wait until no wanted page is pending or in flight (links first, queries after)."""
        while not self.stopping:
            if self.in_flight == 0 and self.frontier.pending() == 0:
                return
            self._wake.clear()
            await _wait(self._wake, _IDLE_S / 5)

    # -- one URL ---------------------------------------------------------------------------

    async def fetch_leased(self, lease: Lease, *, batched: bool = False) -> None:
        """Fetch, store and deliver one leased URL.

        ``batched``: the page waits in the workers' batch until the batch is stored (by
        default it is stored, and delivered, before this returns — with the batch).

        A fetch cut short — the crawl stopped or failed meanwhile — gives its lease back: the
        URL is queued again, and the next run fetches it (or delivers the page stored already).
        """
        try:
            await self._fetch(lease, batched=batched)
        except BaseException:
            with contextlib.suppress(StorageError):
                self.frontier.retry(lease.id, after_s=0)
            raise

    async def _fetch(self, lease: Lease, *, batched: bool) -> None:
        if (key := self.ctx.sessions.drop(lease.url)) != lease.url:  # queued before it was learnt
            lease = dataclasses.replace(lease, url=key)  # fetched and stored under today's key
        ctx, url = self.ctx, lease.url
        if self.batch.holds(url):  # the store says what it holds once the batch is in it
            await self.flush()
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
        await self._store(lease, page, batched=batched)

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

    async def _store(self, lease: Lease, page: FetchedPage, *, batched: bool) -> None:
        """Judge a page fetched for ``lease``, learn from it, and put it in the batch (stored
        with the batch, or at once unless ``batched``)."""
        ctx = self.ctx
        decision = self.admission.decide(lease.url)
        follow = ctx.settings.crawl.follow_record_links
        identity = self.identities.of(lease.url, page)
        if self.batch.shows(identity.canonical, identity.fingerprint):
            await self.flush()  # it shows a record of the batch: stored first, to be found
        identity, record = self.identities.judge(lease.url, page, identity)
        write = self.write_of(lease.url, page, decision, identity, record)
        if record is not None:  # one record under two URLs: neither delivered nor counted again
            logger.info("%s: the record stored as %s", lease.url, record)
            ctx.stats.duplicates += 1
            if self.same is not None:
                self.same(lease.url, record, page.body)
            self.batch.add(Unsaved(lease, write, None))
        else:
            if page.body and self.learn is not None:  # the text the fingerprint was taken from
                self.learn(lease.url, identity.text or main_text(page.body))
            ctx.sessions.observe(link.url for link in page.links)
            if follow and not self.ran_away():  # a crawl that ran away follows no link
                links = [(link.url, link.text) for link in page.links]
                scout = lease.url
                self.admission.enqueue(links, f"link on {lease.url}", on_record=True, scout=scout)
            ctx.stats.pages_fetched += 1
            for observer in self.on_fetch:
                observer(page)
            self.batch.add(Unsaved(lease, write, Held(page, lease.source)))
        if not batched or self.batch.ready or self._budget_in_batch():
            await self.flush()

    def write_of(
        self,
        key: str,
        page: FetchedPage,
        decision: Decision,
        identity: Identity,
        record: str | None,
    ) -> PageWrite:
        """How a wanted page fetched for the key ``key`` is stored: a record of its own, or
        (``record``: the key of the record stored before that it shows) a duplicate of it; its
        links with a record's, when record pages' links are followed."""
        return PageWrite(
            page,
            url=key,
            kind="record" if record is None else "duplicate",
            prototype_id=decision.prototype,
            label=decision.label,
            with_links=self.ctx.settings.crawl.follow_record_links and record is None,
            canonical_url=record or identity.canonical,
            fingerprint=identity.fingerprint,
        )

    def _budget_in_batch(self) -> bool:
        """Whether the batch holds what is left of the page budget (stored and delivered now,
        so that the workers stop at the budget, not a batch after it)."""
        budget = self.ctx.budget
        return budget.cap is not None and self.ctx.stats.pages_delivered + len(self.batch) >= (
            budget.cap
        )

    async def flush(self) -> None:
        """Store the batch's pages in one transaction and settle their URLs, then deliver them
        (``direct``) or wake the delivery point (``poll``).

        Settled before they are delivered: a process killed between the two leaves them stored
        and undelivered, and the next run delivers them before it fetches
        (:meth:`NormalPhase.run <deepcrawl.crawler.normal.NormalPhase.run>`).
        """
        stored = self._store_batch()
        if not stored:
            return
        if self.delivery == "direct":
            await self.deliver_many(stored)
        elif self.poller is not None:
            self.poller.wake()

    def _store_batch(self) -> list[tuple[PageRead, Held]]:
        """Store the batch and settle its URLs; the stored pages to deliver, with their held
        page."""
        items = self.batch.take()
        if not items:
            return []
        ctx = self.ctx
        try:
            rows: list[PageRead | None] = list(
                ctx.repo.save_pages(ctx.site.id, [item.write for item in items])
            )
        except StorageError:
            # a page of the batch was stored meanwhile by another process, whose lease of the
            # URL expired while we fetched (a rare race: the unique key tells): each on its own
            rows = [self._store_one(item) for item in items]
        self.frontier.complete_many(item.lease.id for item in items)
        return [
            (row, item.held)
            for row, item in zip(rows, items, strict=True)
            if row is not None and item.held is not None
        ]

    def _store_one(self, item: Unsaved) -> PageRead | None:
        """Store one page of a batch that could not be stored whole; None where the page was
        stored first by another process."""
        ctx = self.ctx
        try:
            return ctx.repo.save_pages(ctx.site.id, [item.write])[0]
        except StorageError:
            if ctx.repo.page(ctx.site.id, item.lease.url) is None:
                raise
            return None

    async def deliver_many(self, pages: Sequence[tuple[PageRead, Held | None]]) -> None:
        """Hand stored pages to the sink (direct delivery), as many as the page budget has
        left."""
        budget = self.ctx.budget
        if budget.cap is not None:
            pages = pages[: max(0, budget.cap - self.ctx.stats.pages_delivered)]
        if not pages:
            return
        await self.sink.deliver_pages(self.ctx, pages)
        self.ctx.stats.pages_delivered += len(pages)
        self.ctx.changed()

    async def deliver(self, page: PageRead, held: Held | None = None) -> None:
        """Hand a stored page to the sink (direct delivery), unless the page budget is spent;
        ``held``: what the crawl has in hand of a page just fetched (:meth:`Sink.deliver_page`)."""
        await self.deliver_many([(page, held)])


async def _wait(event: asyncio.Event, timeout_s: float) -> None:
    """Wait for ``event`` at most ``timeout_s`` seconds.

    ``asyncio.timeout`` rather than ``wait_for``: Python 3.11's ``wait_for`` loses a
    cancellation that lands as the event is set, and a stop request (Ctrl-C) with it.
    """
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(timeout_s):
            await event.wait()
