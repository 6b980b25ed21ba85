"""The normal phase (Hernández et al., "normal phase"): query on, fetch only what is wanted.

Two activities share one event loop until both are done:

* the **query loop** keeps submitting the keywords the manager chooses until saturation (or the
  query budget); every result link is classified from its URL alone by the
  :class:`~deepcrawl.classify.url.URLClassifier`, and wanted ones enter the persistent frontier
  under their canonical URL (near-duplicates — tracking, session and sort parameters — collapse
  into one entry, so each page is fetched once);
* before the first query, the URLs of the site's **sitemaps** (:mod:`~deepcrawl.crawler
  .sitemaps`) are classified the same way, as a record page's links are, and the wanted ones
  enter the frontier (the keyword manager counts them as known records); a crawl whose querying
  ended for good, run again, sends no query (:class:`~deepcrawl.storage.tables.QueryEnd`);
* **fetch workers** (:class:`~deepcrawl.crawler.fetching.FetchWorkers`, which the phase owns)
  lease URLs from the frontier and fetch them through the crawl's gate (:mod:`deepcrawl.fetch`:
  scope, robots.txt, the per-host rate and concurrency, the count; back-off with
  ``Retry-After`` on 429/503 and transient failures, retried through the frontier), store each
  page, and hand it to the extractor (:class:`~deepcrawl.crawler.deliver.Sink`); a URL that
  fails for good is stored with its reason. A crawl that shares its fetching (``dispatch``: a
  job queue's fetch jobs, run by any worker) runs a :class:`~deepcrawl.crawler.dispatch
  .Dispatcher` instead, which hands the frontier's URLs to fetch jobs.

Which links are wanted is the phase's :class:`~deepcrawl.crawler.admission.Admission`: the URL
classifier, the safety rule, the hub scout, the frontier.

**Delivery** is direct when one process crawls (SQLite): a page goes to the sink right after it
is stored. In a crawl shared on PostgreSQL the phase's :class:`~deepcrawl.crawler.deliver
.DeliveryPoller` is the one delivery point of every process: the fetch jobs, wherever they run
(:mod:`deepcrawl.crawler.worker`), only store, and :meth:`NormalPhase.finish` waits for every
URL to be settled before the poller's final sweep. A harvest's site delivers nothing here
(``delivery="none"``): the harvest's coordinator is its delivery point.

Everything is in the database as it happens, so a crawl killed at any point resumes here: the
stored queries are replayed into the manager, their result links enqueued again (the frontier
ignores known ones), stale leases released, and stored pages not yet delivered delivered first.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from typing import TYPE_CHECKING

from deepcrawl._tasks import supervised
from deepcrawl.browser.wrapped import teach_fetcher
from deepcrawl.crawler.admission import Admission
from deepcrawl.crawler.deliver import DeliveryPoller
from deepcrawl.crawler.dispatch import Dispatcher
from deepcrawl.crawler.fetching import FetchWorkers, site_frontier
from deepcrawl.crawler.queries import NORMAL, query_loop
from deepcrawl.links.hubs import QUERY_WINDOW, query_yield
from deepcrawl.querying import main_text
from deepcrawl.records.kinds import page_kind
from deepcrawl.storage import is_shared
from deepcrawl.storage.frontier import SETUP_SOURCE, NewURL, query_source

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterable, Sequence

    from deepcrawl._tasks import Supervisor
    from deepcrawl.browser.base import Fetcher
    from deepcrawl.classify.url import Decision
    from deepcrawl.crawler.context import CrawlContext
    from deepcrawl.crawler.deliver import Sink
    from deepcrawl.crawler.dispatch import FetchQueue
    from deepcrawl.crawler.fetching import Delivery
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.search.backend import QueryBackend

__all__ = ["NormalPhase"]

logger = logging.getLogger(__name__)


class NormalPhase:
    """Query to saturation while fetching the wanted result links; see the module docstring.

    Args:
        ctx: the crawl's context.
        search: the entered form search (None: no query may be sent — robots.txt forbids
            the search —, the phase fetches what the lists and sitemaps queued:
            :mod:`deepcrawl.crawler.browse`).
        form_id: the stored form (None with no search).
        fetcher: an entered fetcher for the wanted pages.
        sink: where delivered pages go.
        on_fetch: called with every page fetched (the bench counts them).
        examples: texts of the ``--like`` pages (their words are queried early).
        delivery: ``direct`` (each page delivered by the task that stored it) or ``poll`` (the
            :class:`~deepcrawl.crawler.deliver.DeliveryPoller` delivers what any process
            stored). Default: ``poll`` on PostgreSQL (other processes may share the crawl),
            ``direct`` elsewhere or for a sink that records nothing
            (:class:`~deepcrawl.crawler.deliver.NullSink`).
        tasks: the crawl's supervised scope, where the delivery poller runs (``poll`` only):
            a failure of the poller stops the crawl at once.
        dispatch: fetch through this job queue's fetch jobs (:mod:`deepcrawl.crawler
            .dispatch`) rather than in this process's own tasks.
    """

    def __init__(
        self,
        ctx: CrawlContext,
        search: QueryBackend | None,
        form_id: int | None,
        fetcher: Fetcher,
        sink: Sink,
        *,
        on_fetch: Sequence[Callable[[FetchedPage], None]] = (),
        delivery: Delivery | None = None,
        tasks: Supervisor | None = None,
        examples: Sequence[str] = (),
        dispatch: FetchQueue | None = None,
    ) -> None:
        self.ctx = ctx
        self.search = search
        self.fetcher = fetcher
        #: ``fetcher`` behind the crawl's gate, for the hub pages (their URLs judged there).
        self.polite = ctx.gate.wrap(fetcher)
        if delivery is None:
            delivery = "poll" if is_shared(ctx.repo.engine) and sink.remembers else "direct"
        if delivery == "poll" and tasks is None:
            raise ValueError("a delivery poller needs the crawl's supervised scope (tasks=)")
        self._tasks = tasks
        self._poller = (
            DeliveryPoller(
                ctx, sink, full=lambda: ctx.budget.spent, poll_s=ctx.settings.crawl.deliver_poll_s
            )
            if delivery == "poll"
            else None
        )
        self.frontier = site_frontier(ctx)
        #: The last stored record page the query loop learnt from.
        self._learnt_upto = 0
        #: Hands the frontier's URLs to fetch jobs (None: this process's tasks fetch them).
        self.dispatcher = None if dispatch is None else Dispatcher(self.frontier, dispatch)
        self.admission = Admission(
            ctx,
            self.frontier,
            known=lambda ids, texts: self.loop.facts.observe(ids, texts),
            queued=self._queued,
        )
        self.loop = query_loop(
            ctx, form_id, phase=NORMAL, record_id=self.admission.record_id, examples=examples
        )
        self.workers = FetchWorkers(
            ctx,
            fetcher,
            self.frontier,
            self.admission,
            sink=sink,
            delivery=delivery,
            poller=self._poller,
            on_fetch=on_fetch,
            learn=self.loop.facts.learn_text,
            same=self.loop.facts.repeated,
            ran_away=lambda: self.loop.ran_away() is not None,
            alone=False if dispatch is not None else None,
        )
        teach_fetcher(fetcher, self.admission.prototype_key)
        ctx.sessions.listeners.append(self._judge_again)

    def _queued(self) -> None:
        """Wanted URLs entered the frontier: the fetch workers (or the dispatcher) look."""
        self.workers.wake()
        if self.dispatcher is not None:
            self.dispatcher.wake()

    def _judge_again(self, _learnt: set[str]) -> None:
        """A parameter was learnt to carry a session: the stored queries' result links are
        judged again without it (one of a kind not wanted under its old spelling may be)."""
        self.admission.forget_ids()
        self.admission.lend_labels()
        for query in self.ctx.state.queries():
            self.admission.enqueue(query.result_links(), query_source(query.row.keyword))
        self.loop.facts.merge()  # the records known under their old ids count once

    async def _read_hub(self, *, querying: bool) -> bool:
        """Fetch the hub page the scout finds worth a request now, if any, and queue the wanted
        records it links to (judged as a record page's links); whether one was fetched.

        The scout weighs a hub against the queries' new records a request (their latest
        :data:`~deepcrawl.links.hubs.QUERY_WINDOW`), or against the scout's least yield alone
        once they ended.
        """
        hubs = self.admission.hubs
        rate = query_yield(self.loop.ledger.history, QUERY_WINDOW) if querying else None
        url = hubs.next_hub(rate)
        if url is None:
            return False
        new = 0
        tried = await self.polite.fetch_retrying(url)
        if (page := tried.page) is not None and page.status < 400:
            links = [(link.url, link.text) for link in page.links]
            new = self.admission.enqueue(links, f"hub {url}", on_record=True, scout=url)
        hubs.record(url, new)
        self.ctx.stats.hub_pages += 1
        self.ctx.stats.hub_records += new
        self.ctx.changed()
        return True

    def adopt(self, pages: Iterable[FetchedPage]) -> int:
        """Store the wanted pages the setup phase fetched already — the ``--like`` examples and
        the layout check's samples — as this phase stores its own; returns how many it queued.

        When their URLs come up, the phase (or the delivery point) delivers them from the store
        (see :meth:`FetchWorkers.fetch_leased`): no URL is fetched twice, by this process or a
        worker.
        """
        ctx, adopted = self.ctx, 0
        for page in pages:
            decision = self.admission.decide(page.url)
            if page.status < 400 and not decision.relevant and self.admission.hubs.enabled:
                self._read_already(page, decision)
            if page.status >= 400 or not (decision.relevant and decision.source == "prototype"):
                continue
            key = self.admission.canonical(decision)
            if ctx.repo.page(ctx.site.id, key) is not None:  # stored already (a resumed crawl)
                continue
            identity, record = self.workers.identities.judge(key, page)
            write = self.workers.write_of(key, page, decision, identity, record)
            ctx.repo.save_pages(ctx.site.id, [write])
            if record is not None:  # one record under two URLs: stored once
                ctx.stats.duplicates += 1
                self.loop.facts.repeated(key, record, page.body)
                continue
            if page.body:
                self.loop.facts.learn_text(key, identity.text or main_text(page.body))
            ctx.stats.pages_fetched += 1
            for observer in self.workers.on_fetch:
                observer(page)
            # queued like any wanted URL: its lease finds the page stored and delivers it
            adopted += self.frontier.add(
                [NewURL(key, priority=decision.score, source=SETUP_SOURCE)]
            )
        if adopted:
            self.workers.wake()
        return adopted

    def _read_already(self, page: FetchedPage, decision: Decision) -> None:
        """A page of a kind not wanted that the setup phase fetched: a free trial of its kind as
        a hub (its wanted links queued, their number its yield)."""
        url = self.admission.canonical(decision)
        links = [(link.url, link.text) for link in page.links]
        new = self.admission.enqueue(links, f"hub {url}", on_record=True, scout=url)
        self.admission.hubs.read_already(url, page_kind(decision), new)
        self.ctx.stats.hub_records += new

    def _learn_stored(self, *, follow: bool) -> None:
        """The record pages stored before a crash — or, when fetch jobs fetch them, since the
        last look —: with ``follow``, their links enqueued again (the frontier ignores known
        ones). What the querying learnt of a page comes back with its event log; one it has not
        learnt (a page a fetch job stored, one whose event a crash lost) is learnt now, as when
        it is fetched here: its words for the paging control, its record known."""
        ctx, ledger = self.ctx, self.loop.ledger
        for stored in ctx.repo.contents(ctx.site.id, kind="record", after=self._learnt_upto):
            page = stored.page
            self._learnt_upto = max(self._learnt_upto, page.id)
            # the record's id as links name it now (its canonical URL, the learnt parameters
            # dropped), not the URL it was stored under
            rid = self.admission.key(page.canonical_url or page.url) or page.url
            if stored.body and page.error is None and rid not in ledger.texts:
                self.loop.facts.learn_text(rid, main_text(stored.body))
            if follow:
                if rid not in ledger.records:
                    self.loop.facts.observe([rid])
                links = [(link.target_url, link.text) for link in stored.links]
                self.admission.enqueue(links, f"link on {page.url}", on_record=True)

    # -- the phase -------------------------------------------------------------------------

    async def run(self) -> None:
        """Run until the manager stops and the frontier is drained (or the page budget)."""
        ctx = self.ctx
        ctx.enter("crawling")
        if self.dispatcher is None:  # the URLs held by fetch jobs are the job queue's
            ctx.state.release_leases()
        stored = ctx.state.queries()
        for query in stored:
            self.admission.enqueue(query.result_links(), query_source(query.row.keyword))
        self._learn_stored(follow=ctx.settings.crawl.follow_record_links)
        if self._poller is not None:  # its first poll delivers what a crashed run left
            assert self._tasks is not None
            self._poller.start(self._tasks)
        elif self.workers.delivery == "direct":
            for page in ctx.state.undelivered():
                await self.workers.deliver(page)
        if ctx.budget.spent:
            return
        ctx.changed()
        # what the setup built (the models, the stored lists, the frontier's known URLs) lives
        # as long as the phase: left out of the collector's full passes, which would walk it
        # again every few thousand pages fetched; given back to the collector when it ends
        gc.freeze()
        try:
            await self._fetch_while(self._sitemaps_then_queries())
        finally:
            gc.unfreeze()
            if self.loop.log is not None:  # what the querying learnt while the frontier drained
                self.loop.log.flush()

    async def _sitemaps_then_queries(self) -> None:
        if self.ctx.settings.crawl.sitemaps:  # the records they list are known to the queries
            from deepcrawl.crawler.sitemaps import read_sitemaps

            await read_sitemaps(
                self.ctx, self.admission.enqueue_listed, stop=lambda: self.workers.stopping
            )
        if self.search is not None:
            await self._query_until_done()

    async def _fetch_while(self, work: Awaitable[None]) -> None:
        """Run the fetch workers beside ``work`` until it is done and the frontier drained.

        Supervised: a task that fails (the sink, the database) cancels ``work`` and the other
        tasks at once, each returning its lease, and its error is raised here.
        """
        workers = self.workers
        workers.restart()
        workers.querying = True
        try:
            async with supervised() as tasks:
                if self.dispatcher is not None:
                    tasks.start(self.dispatcher.run(lambda: workers.querying), name="dispatcher")
                else:
                    for n in range(workers.concurrency):
                        tasks.start(workers.work(), name=f"fetch worker {n}")
                await work
                workers.querying = False
                self._queued()
        finally:
            workers.stop()

    async def finish(self) -> None:
        """Deliver what is left and stop the delivery point (after ``run`` and ``--navigate``).

        In a shared crawl, fetch until no URL is pending in any job — a dead worker's jobs run
        again once the job queue's sweep finds them stalled — and then sweep every page still
        undelivered. A no-op with direct delivery.

        Raises:
            StorageError, FetchError, or the sink's error.
        """
        if self._poller is None:
            return
        if not self.ctx.budget.spent:
            await self._fetch_while(asyncio.sleep(0))
        poller, self._poller = self._poller, None
        await poller.close(sweep=not self.ctx.budget.spent)

    async def _query_until_done(self) -> None:
        ctx, workers = self.ctx, self.workers
        ended = None if ctx.settings.crawl.requery else ctx.state.query_end()
        if ended is not None:  # an earlier run saturated the form: what is left is fetched only
            ctx.stats.stop_reason = ended.reason
            return
        follow = ctx.settings.crawl.follow_record_links
        while not workers.stopping:
            if follow:
                await workers.drained()
            if self.dispatcher is not None:  # what the fetch jobs stored, as if fetched here
                self._learn_stored(follow=follow)
            # a hub beats the next query, but not a list of every record (the frame query)
            if not self.loop.words.frame_due and await self._read_hub(querying=True):
                continue
            assert self.search is not None
            result = await self.loop.step(self.search)
            if result is None:
                ctx.stats.complete = self.loop.judged_complete
                if not self.loop.budget_spent:  # a larger budget queries on
                    # the stored queries, the empty query's empty answer among them (the
                    # manager's history leaves it out)
                    ctx.state.end_queries(
                        ctx.stats.stop_reason or "querying ended", ctx.state.count("queries")
                    )
                # the hubs that still pay for themselves, now that no query competes (none
                # where the querying ended on evidence of the database's size)
                while (
                    not self.loop.judged_sized
                    and self.loop.ran_away() is None
                    and not workers.stopping
                    and await self._read_hub(querying=False)
                ):
                    await workers.drained()
                return
            links = [(link.url, link.text) for link in result.result_links]
            source = query_source(result.keyword)
            self.admission.enqueue(links, source, scout=source)
            await asyncio.sleep(0)  # let the workers fetch between queries
