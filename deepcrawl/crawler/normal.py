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
* **fetch workers** (:mod:`~deepcrawl.crawler.fetching`) lease URLs from the frontier and fetch
  them through the crawl's polite path (:mod:`deepcrawl.fetch.polite`: scope, robots.txt, the
  per-host rate and concurrency, back-off with ``Retry-After`` on 429/503 and transient
  failures, retried through the frontier), store each page, and hand it to the extractor
  (:class:`~deepcrawl.crawler.deliver.Sink`); a URL that fails for good is stored with its
  reason.

**Delivery** is direct when one process crawls (SQLite): a page goes to the sink right after it
is stored. In a crawl shared on PostgreSQL the phase's :class:`~deepcrawl.crawler.deliver
.DeliveryPoller` is the one delivery point of every process: the fetch tasks here, like the
``deepcrawl worker`` processes (:mod:`deepcrawl.crawler.worker`), only store, and :meth:`NormalPhase
.finish` waits for every process's leases to be settled before the poller's final sweep.

Everything is in the database as it happens, so a crawl killed at any point resumes here: the
stored queries are replayed into the manager, their result links enqueued again (the frontier
ignores known ones), stale leases released, and stored pages not yet delivered delivered first.
"""

from __future__ import annotations

import asyncio
import fnmatch
import functools
import logging
import re
from typing import TYPE_CHECKING, Literal

from deepcrawl._tasks import supervised
from deepcrawl.classify.url import LabelStats
from deepcrawl.crawler.deliver import DeliveryPoller
from deepcrawl.crawler.fetching import LeaseFetching
from deepcrawl.crawler.kinds import canonical_url, make_classifier, page_kind, teach_fetcher
from deepcrawl.crawler.setup import query_loop
from deepcrawl.links.hubs import HubScout, query_yield
from deepcrawl.querying import normalised_id
from deepcrawl.safety import SafetyRule
from deepcrawl.storage import is_shared
from deepcrawl.storage.frontier import SETUP_SOURCE, NewURL, SqlFrontier, query_source

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterable, Sequence

    from deepcrawl._tasks import Supervisor
    from deepcrawl.browser.base import Fetcher
    from deepcrawl.classify.url import Decision
    from deepcrawl.crawler.context import CrawlContext
    from deepcrawl.crawler.deliver import Sink
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.search.backend import QueryBackend

__all__ = ["NormalPhase"]

logger = logging.getLogger(__name__)

#: Result links whose record id is cached (a query's links are asked for several times).
_ID_CACHE = 1 << 16


class NormalPhase(LeaseFetching):
    """Query to saturation while fetching the wanted result links; see the module docstring.

    Args:
        ctx: the crawl's context.
        search: the entered form search.
        form_id: the stored form.
        fetcher: an entered fetcher for the wanted pages.
        sink: where delivered pages go.
        on_fetch: called with every page fetched (the bench counts them).
        examples: texts of the ``--like`` pages (their words are queried early).
        delivery: ``direct`` (each page delivered by the task that stored it), ``poll`` (the
            :class:`~deepcrawl.crawler.deliver.DeliveryPoller` delivers what any process stored)
            or ``none`` (store only: a ``deepcrawl worker``). Default: ``poll`` on PostgreSQL
            (other processes may share the crawl), ``direct`` elsewhere or for a sink that
            records nothing (:class:`~deepcrawl.crawler.deliver.NullSink`).
        tasks: the crawl's supervised scope, where the delivery poller runs (``poll`` only):
            a failure of the poller stops the crawl at once.
    """

    def __init__(
        self,
        ctx: CrawlContext,
        search: QueryBackend,
        form_id: int,
        fetcher: Fetcher,
        sink: Sink,
        *,
        on_fetch: Sequence[Callable[[FetchedPage], None]] = (),
        delivery: Literal["direct", "poll", "none"] | None = None,
        tasks: Supervisor | None = None,
        examples: Sequence[str] = (),
    ) -> None:
        self.ctx = ctx
        self.search = search
        self.fetcher = fetcher
        #: ``fetcher`` behind the crawl's polite path (scope, robots.txt, rate, back-off).
        self.polite = ctx.polite.wrap(fetcher)
        self.sink = sink
        if delivery is None:
            delivery = "poll" if is_shared(ctx.repo.engine) and sink.remembers else "direct"
        self.delivery = delivery
        if delivery == "poll" and tasks is None:
            raise ValueError("a delivery poller needs the crawl's supervised scope (tasks=)")
        self._tasks = tasks
        self._poller = (
            DeliveryPoller(ctx, sink, full=self._full, poll_s=ctx.settings.crawl.deliver_poll_s)
            if delivery == "poll"
            else None
        )
        self.on_fetch = list(on_fetch)
        self.classifier = make_classifier(ctx)
        self.label_stats = LabelStats()
        #: Judges the links only the learned model wants (a labelled prototype vouches for its).
        self.safety = SafetyRule()
        # the per-host cap of live leases holds across every worker process (PostgreSQL); a
        # lease names this process, whose leases come back at once if it is judged dead
        cap = ctx.settings.politeness.concurrency_per_host
        self.frontier = SqlFrontier(
            ctx.repo.engine,
            ctx.site.id,
            host_cap=max(1, cap),
            holder=ctx.state.worker_id,
            heartbeat_s=ctx.settings.crawl.heartbeat_s,
        )
        globs = "|".join(fnmatch.translate(g) for g in ctx.settings.crawl.drop_params)
        self._drop = re.compile(globs or r"(?!)", re.IGNORECASE)
        # bounded: one entry per result link ever seen would grow with the site
        self._ids = functools.lru_cache(maxsize=_ID_CACHE)(self._record_id)
        self.loop = query_loop(ctx, form_id, record_id=self.record_id, examples=examples)
        #: Pages of the kinds not wanted, read as hubs while they beat the queries; the start
        #: page, read by the setup phase, is none.
        start = canonical_url(self._decide([ctx.start_url])[0].url, self._drop)
        self.hubs = HubScout(ctx.settings.links, read=[start])
        teach_fetcher(fetcher, self.prototype_key)
        ctx.sessions.listeners.append(self._judge_again)
        self._querying = True
        self._in_flight = 0
        self._stop = asyncio.Event()
        self._wake = asyncio.Event()

    # -- classification --------------------------------------------------------------------

    def _decide(self, urls: Iterable[str]) -> list[Decision]:
        sessions = self.ctx.sessions
        if sessions.names:  # the parameters learnt to carry a session are no part of a URL
            urls = [sessions.drop(normalised_id(url) or url) for url in urls]
        return self.classifier.decide_many(urls)

    def record_id(self, url: str) -> str | None:
        """The canonical URL of a wanted result link, None for the rest (the manager's ids)."""
        return self._ids(url)

    def _record_id(self, url: str) -> str | None:
        decision = self._decide([url])[0]
        return canonical_url(decision.url, self._drop) if decision.relevant else None

    def _judge_again(self, _learnt: set[str]) -> None:
        """A parameter was learnt to carry a session: the stored queries' result links are
        judged again without it (one of a kind not wanted under its old spelling may be)."""
        self._ids.cache_clear()
        for query in self.ctx.state.queries():
            self.enqueue(query.result_links(), query_source(query.row.keyword))

    def prototype_key(self, url: str) -> str:
        """The URL's prototype id (its shape when no prototype matches): the unit by which an
        adaptive fetcher decides plain HTTP or browser."""
        return page_kind(self._decide([url])[0])

    def enqueue(
        self,
        links: Iterable[tuple[str, str]],
        source: str,
        *,
        on_record: bool = False,
        scout: str | None = None,
    ) -> int:
        """Classify links and add the wanted ones to the frontier; returns how many new.

        Args:
            links: ``(url, anchor text)`` pairs (result links, or links on a record page).
            source: why they are wanted (kept in the frontier).
            on_record: links found outside the results area — a fetched record page's own
                links, the URLs a sitemap lists. Only those a labelled prototype matches are
                taken (a record page's tool links — print, export — are near variants the
                learned model might accept; the results area vouched for result links,
                nothing vouches for these), and the keyword manager counts them as known.
            scout: the page the links are on (a result list's source): the links the crawl
                does not want are shown to the hub scout (:meth:`HubScout.admits
                <deepcrawl.links.hubs.HubScout.admits>`).
        """
        new, texts = self._wanted(links, source, on_record=on_record, scout=scout)
        return self._add(new, texts, observe=on_record)

    def enqueue_listed(self, urls: Iterable[str], source: str) -> int:
        """Queue the wanted URLs of a list that is no page (a sitemap): judged as a record
        page's links are, known to the keyword manager; returns how many were wanted."""
        new, texts = self._wanted(((url, "") for url in urls), source, on_record=True)
        self._add(new, texts, observe=True)
        return len(new)

    def _wanted(
        self,
        links: Iterable[tuple[str, str]],
        source: str,
        *,
        on_record: bool,
        scout: str | None = None,
    ) -> tuple[dict[str, NewURL], dict[str, str]]:
        """The wanted links as frontier entries by canonical URL, with their texts; with
        ``scout``, the others are shown to the hub scout, from the same decisions."""
        pairs = list(links)
        if on_record:  # decided without their tracking and session parameters (``?ref=related``)
            pairs = [
                (canonical_url(normal, self._drop), text)
                for url, text in pairs
                if (normal := normalised_id(url)) is not None
            ]
        new: dict[str, NewURL] = {}
        texts: dict[str, str] = {}
        stats = self.label_stats
        scouting = scout if self.hubs.enabled else None
        hubs: list[tuple[str, str]] = []
        for decision, (_url, text) in zip(
            self._decide([url for url, _text in pairs]), pairs, strict=True
        ):
            if scouting and not decision.relevant and self.hubs.admits(decision, text):
                hubs.append((canonical_url(decision.url, self._drop), page_kind(decision)))
            if on_record and decision.source != "prototype":
                continue
            stats.add(decision)
            # A labelled prototype vouches for the results area's links (their text is a title,
            # which may read like anything); a record page's own links are its chrome, where
            # logout and delete links live, so their URLs are judged even when a (perhaps too
            # general) prototype matches; a link only the learned model wants is judged whole.
            if decision.source == "prototype":
                safe = not on_record or self.safety.allows(decision.url)
            else:
                safe = self.safety.allows(decision.url, text)
            if decision.relevant and not safe:
                logger.info("%s: refused by the safety rule (it may change the site)", decision.url)
            if decision.relevant and safe:
                key = canonical_url(decision.url, self._drop)
                new.setdefault(key, NewURL(key, priority=decision.score, source=source))
                if text:
                    texts.setdefault(key, text)
        self.ctx.stats.accepted = dict(stats.accepted)
        self.ctx.stats.rejected = dict(stats.rejected)
        self.ctx.stats.unsure = stats.unsure
        logger.debug("%s: %d links, %d wanted", source, len(pairs), len(new))
        if scouting:
            self.hubs.see(scouting, hubs)
        return new, texts

    async def _read_hub(self, *, querying: bool) -> bool:
        """Fetch the hub page the scout finds worth a request now, if any, and queue the wanted
        records it links to (judged as a record page's links); whether one was fetched.

        The scout weighs a hub against the queries' new records a request (their latest
        ``links.hub_query_window``), or against ``links.hub_min_yield`` alone once they ended.
        """
        window = self.ctx.settings.links.hub_query_window
        rate = query_yield(self.loop.ledger.history, window) if querying else None
        url = self.hubs.next_hub(rate)
        if url is None:
            return False
        new = 0
        tried = await self.polite.fetch_retrying(url)
        if (page := tried.page) is not None and page.status < 400:
            links = [(link.url, link.text) for link in page.links]
            new = self.enqueue(links, f"hub {url}", on_record=True, scout=url)
        self.hubs.record(url, new)
        self.ctx.stats.hub_pages += 1
        self.ctx.stats.hub_records += new
        self.ctx.changed()
        return True

    def _add(self, new: dict[str, NewURL], texts: dict[str, str], *, observe: bool) -> int:
        """Queue wanted URLs; ``observe``: the keyword manager counts them as known records."""
        if observe:
            self.loop.observe(new, texts)
        added = self.frontier.add(new.values())
        if added:
            self._wake.set()
        return added

    def adopt(self, pages: Iterable[FetchedPage]) -> int:
        """Store the wanted pages the setup phase fetched already — the ``--like`` examples and
        the layout check's samples — as this phase stores its own; returns how many it queued.

        When their URLs come up, the phase (or the delivery point) delivers them from the store
        (see ``_fetch``): no URL is fetched twice, by this process or a worker.
        """
        ctx, follow, adopted = self.ctx, self.ctx.settings.crawl.follow_record_links, 0
        for page in pages:
            decision = self._decide([page.url])[0]
            if page.status < 400 and not decision.relevant and self.hubs.enabled:
                self._read_already(page, decision)
            if page.status >= 400 or not (decision.relevant and decision.source == "prototype"):
                continue
            key = canonical_url(decision.url, self._drop)
            if ctx.repo.page(ctx.site.id, key) is not None:  # stored already (a resumed crawl)
                continue
            ctx.repo.save_page(
                ctx.site.id,
                page,
                url=key,
                kind="record",
                prototype_id=decision.prototype,
                label=decision.label,
                with_links=follow,
            )
            if page.body:
                self.loop.learn_text(key, page.body)
            ctx.stats.pages_fetched += 1
            for observer in self.on_fetch:
                observer(page)
            # queued like any wanted URL: its lease finds the page stored and delivers it
            adopted += self.frontier.add(
                [NewURL(key, priority=decision.score, source=SETUP_SOURCE)]
            )
        if adopted:
            self._wake.set()
        return adopted

    def _read_already(self, page: FetchedPage, decision: Decision) -> None:
        """A page of a kind not wanted that the setup phase fetched: a free trial of its kind as
        a hub (its wanted links queued, their number its yield)."""
        url = canonical_url(decision.url, self._drop)
        links = [(link.url, link.text) for link in page.links]
        new = self.enqueue(links, f"hub {url}", on_record=True, scout=url)
        self.hubs.read_already(url, page_kind(decision), new)
        self.ctx.stats.hub_records += new

    def _learn_stored(self, *, follow: bool) -> None:
        """The record pages stored before a crash, learnt as when they were fetched: their
        words for the paging control and, with ``follow``, their links enqueued again (the
        frontier ignores known ones) and known to the manager."""
        ctx = self.ctx
        for stored in ctx.repo.contents(ctx.site.id, kind="record"):
            page = stored.page
            if stored.body and page.error is None:
                self.loop.learn_text(page.url, stored.body)
            if follow:
                self.loop.observe([page.url])
                links = [(link.target_url, link.text) for link in stored.links]
                self.enqueue(links, f"link on {page.url}", on_record=True)

    # -- the phase -------------------------------------------------------------------------

    async def run(self) -> None:
        """Run until the manager stops and the frontier is drained (or ``max_pages``)."""
        ctx = self.ctx
        ctx.enter("crawling")
        ctx.state.release_leases()
        stored = ctx.state.queries()
        self.loop.replay(stored)
        for query in stored:
            self.enqueue(query.result_links(), query_source(query.row.keyword))
        self._learn_stored(follow=ctx.settings.crawl.follow_record_links)
        if self._poller is not None:  # its first poll delivers what a crashed run left
            assert self._tasks is not None
            self._poller.start(self._tasks)
        elif self.delivery == "direct":
            for page in ctx.state.undelivered():
                await self._deliver_stored(page)
        if self._full():
            return
        ctx.changed()
        await self._fetch_while(self._sitemaps_then_queries())

    async def _sitemaps_then_queries(self) -> None:
        if self.ctx.settings.crawl.sitemaps:  # the records they list are known to the queries
            from deepcrawl.crawler.sitemaps import read_sitemaps

            await read_sitemaps(self.ctx, self.enqueue_listed, stop=self._stopping)
        await self._query_until_done()

    async def _fetch_while(self, work: Awaitable[None]) -> None:
        """Run the fetch tasks beside ``work`` until it is done and the frontier drained.

        Supervised: a task that fails (the sink, the database) cancels ``work`` and the other
        tasks at once, each returning its lease, and its error is raised here.
        """
        self._stop.clear()
        self._querying = True
        try:
            async with supervised() as tasks:
                for n in range(max(1, self.ctx.settings.politeness.concurrency_per_host)):
                    tasks.start(self._worker(), name=f"fetch worker {n}")
                await work
                self._querying = False
                self._wake.set()
        finally:
            self._stop.set()

    async def finish(self) -> None:
        """Deliver what is left and stop the delivery point (after ``run`` and ``--navigate``).

        In a shared crawl, fetch until no URL is pending in any process — leases a dead worker
        held come back once it is judged dead and are fetched here — and then sweep every page
        still undelivered. A no-op with direct delivery.

        Raises:
            StorageError, FetchError, or the sink's error.
        """
        if self._poller is None:
            return
        if not self._full():
            await self._fetch_while(asyncio.sleep(0))
        poller, self._poller = self._poller, None
        await poller.close(sweep=not self._full())

    def _stopping(self) -> bool:
        return self._stop.is_set() or self._full()

    async def _query_until_done(self) -> None:
        ctx = self.ctx
        ended = None if ctx.settings.crawl.requery else ctx.state.query_end()
        if ended is not None:  # an earlier run saturated the form: what is left is fetched only
            ctx.stats.stop_reason = ended.reason
            return
        follow = ctx.settings.crawl.follow_record_links
        while not self._stop.is_set() and not self._full():
            if follow:
                await self._drained()
            # a hub beats the next query, but not a list of every record (the frame query)
            if not self.loop.words.frame_due and await self._read_hub(querying=True):
                continue
            result = await self.loop.step(self.search)
            if result is None:
                if not self.loop.budget_spent:  # a larger budget queries on
                    # the stored queries, the empty query's empty answer among them (the
                    # manager's history leaves it out)
                    ctx.state.end_queries(
                        ctx.stats.stop_reason or "querying ended", ctx.state.count("queries")
                    )
                # the hubs that still pay for themselves, now that no query competes (none
                # where the querying ended on the evidence that every record is known)
                while (
                    not self.loop.judged_complete
                    and self.loop.ran_away() is None
                    and not self._stopping()
                    and await self._read_hub(querying=False)
                ):
                    await self._drained()
                return
            links = [(link.url, link.text) for link in result.result_links]
            source = query_source(result.keyword)
            self.enqueue(links, source, scout=source)
            await asyncio.sleep(0)  # let the workers fetch between queries
