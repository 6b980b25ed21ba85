"""``deepcrawl worker``: one more fetch process for a crawl shared on PostgreSQL (issue 9).

A worker joins the crawl of a site that ``deepcrawl crawl … --db postgresql://…`` started, from
the same or any other machine, and does what the crawl's own fetch tasks do — the very same
object, :class:`~deepcrawl.crawler.fetching.FetchWorkers`: lease a URL from the shared frontier,
fetch it through the crawl's gate (robots.txt, the host's rate shared by every process through
:class:`~deepcrawl.fetch.politeness.SharedHostLimiter`, the per-host cap of live leases,
back-off), store the page (its own links judged and queued by an
:class:`~deepcrawl.crawler.admission.Admission` of its own), settle the lease. It never queries
the form: the query loop belongs to the process holding the site's query lock
(:mod:`deepcrawl.storage.coordination`).

**Delivery**: a worker delivers nothing. The ``deepcrawl crawl`` process is the crawl's one
delivery point (:class:`~deepcrawl.crawler.deliver.DeliveryPoller`): it delivers every page any
process stored, to its ``--out``, and ends only once every lease is settled and every stored page
delivered. With one deliverer a record cannot be written twice: a worker killed at any point
loses at most the fetches it had in flight (its leases come back once it is judged dead, silent
for three heartbeats, and another process fetches them again); a record the crawl process had
written but not yet remembered when it was killed is skipped when it runs again on the same
``--out`` (:class:`~deepcrawl.crawler.deliver.JsonlSink`).

**Bodies**: on PostgreSQL every page body is kept in the database, whatever
``storage.bodies_inline_max`` says (:class:`~deepcrawl.storage.Repository`), so a worker on
another machine needs nothing but the database URL — no shared ``storage.bodies_dir``.

A worker stops when the frontier is drained and no process holds the query lock (the query loop
is over, or its process died: run ``deepcrawl crawl`` again to take it over). Its figures (pages
fetched and stored, requests, failed URLs) are in its report and in its ``crawl_worker`` row
(``deepcrawl status``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from deepcrawl._tasks import supervised
from deepcrawl.browser.access import with_start_origin
from deepcrawl.browser.scope import Scope, host_of
from deepcrawl.browser.wrapped import gate_fetcher, teach_fetcher
from deepcrawl.crawler.admission import Admission
from deepcrawl.crawler.context import CrawlContext, CrawlStats
from deepcrawl.crawler.coordination import Heartbeat
from deepcrawl.crawler.deliver import NullSink
from deepcrawl.crawler.fetching import FetchWorkers, shared_frontier
from deepcrawl.errors import ConfigError
from deepcrawl.storage import Repository
from deepcrawl.storage.coordination import QueryLock
from deepcrawl.storage.state import CrawlState

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.settings import Settings
    from deepcrawl.storage import SiteRead

__all__ = ["FetchWorker", "WorkerReport", "run_worker"]

#: Seconds between two looks at the query lock (whether the query loop still runs somewhere).
_WATCH_S = 1.0


@dataclass(frozen=True, slots=True)
class WorkerReport:
    """What one worker did: its site and figures (pages fetched and stored, errors, requests)."""

    site_id: int
    stats: CrawlStats


class FetchWorker:
    """The fetch workers of a crawl, without its query loop and its delivery: they store.

    Args:
        ctx: the worker's context (its own limiter, robots rules and figures).
        fetcher: an entered fetcher.
        lock: the site's query lock, watched to know when no more URLs can come.
        concurrency: fetch tasks in this process.
        on_fetch: called with every page fetched.
    """

    def __init__(
        self,
        ctx: CrawlContext,
        fetcher: Fetcher,
        *,
        lock: QueryLock,
        concurrency: int,
        on_fetch: Sequence[Callable[[FetchedPage], None]] = (),
    ) -> None:
        self.ctx = ctx
        frontier = shared_frontier(ctx)
        self.admission = Admission(ctx, frontier, queued=lambda: self.workers.wake())
        # a worker delivers nothing: the crawl process delivers what it stores
        self.workers = FetchWorkers(
            ctx, fetcher, frontier, self.admission, sink=NullSink(), delivery="none",
            on_fetch=on_fetch,
        )  # fmt: skip
        teach_fetcher(fetcher, self.admission.prototype_key)
        self.lock = lock
        self.concurrency = max(1, concurrency)

    async def _watch(self) -> None:
        while True:
            self.workers.querying = self.lock.held_elsewhere()
            state = self.ctx.state  # learnt by the others
            self.ctx.sessions.know(state.session_params(), anyway=state.session_params(anyway=True))
            if not self.workers.querying:
                self.workers.wake()
            await asyncio.sleep(_WATCH_S)

    async def run(self) -> None:
        """Fetch until the frontier is drained and the query loop is over (or the page budget).

        Supervised: a fetch task or the lock's watch that fails stops the others (each giving
        its lease back) and its error is raised here.
        """
        self.ctx.stats.phase = "worker"
        self.workers.querying = self.lock.held_elsewhere()
        try:
            async with supervised() as tasks:
                tasks.daemon(self._watch(), name="query lock watch")
                workers = [
                    tasks.start(self.workers.work(), name=f"fetch worker {n}")
                    for n in range(self.concurrency)
                ]
                await asyncio.wait(workers)
        finally:
            self.workers.stop()


def _relevant(repo: Repository, site_id: int) -> bool:
    return any(label.relevant for label in repo.labels(site_id))


async def _wait_for_crawl(repo: Repository, site: str | None, wait_s: float) -> SiteRead:
    """The site to work on, once its setup phase is done (labels stored)."""
    deadline = time.monotonic() + wait_s
    while True:
        known = repo.sites()
        chosen: SiteRead | None = None
        if site is not None:
            with contextlib.suppress(ConfigError):
                chosen = repo.find_site(site)
        elif len(known) == 1:
            chosen = known[0]
        elif len(known) > 1:
            names = ", ".join(f"{s.id} ({s.start_url})" for s in known)
            raise ConfigError(f"the database holds several crawls: pick one with --site ({names})")
        if chosen is not None and _relevant(repo, chosen.id):
            return chosen
        if time.monotonic() > deadline:
            what = f"site {site!r}" if site else "a crawl"
            raise ConfigError(
                f"no labelled crawl of {what} after {wait_s:.0f} s: start it with "
                "'deepcrawl crawl START_URL --db …' (and label it), then run the workers"
            )
        await asyncio.sleep(1.0)


async def run_worker(
    settings: Settings,
    *,
    site: str | None = None,
    concurrency: int | None = None,
    fetcher: Fetcher | None = None,
    progress: Callable[[CrawlStats], None] | None = None,
) -> WorkerReport:
    """Join the crawl in ``settings.storage.url`` (PostgreSQL) and fetch until it is done.

    Args:
        settings: deepcrawl settings; the database is ``settings.storage.url``.
        site: the site (id, start URL or host); None: the database's only one.
        concurrency: fetch tasks (default ``politeness.concurrency_per_host``; the host's cap
            holds over all processes whatever this says).
        fetcher: the fetcher (default: ``make_fetcher`` in the site's scope).
        progress: called whenever the figures change.

    Raises:
        ConfigError: the database is not PostgreSQL, or no labelled crawl appears in time.
        StorageError, FetchError, BrowserError: as the crawl's.
    """
    url = settings.storage.url
    if not url.startswith(("postgresql", "postgres")):
        raise ConfigError(
            f"workers share a crawl through PostgreSQL, not {url.split(':', 1)[0]}: "
            "run 'deepcrawl crawl … --db postgresql://…'"
        )
    with Repository.open(url, settings.storage) as repo:
        chosen = await _wait_for_crawl(repo, site, settings.crawl.worker_wait_s)
        settings = with_start_origin(settings, chosen.start_url)  # where the headers go
        crawl_state = CrawlState(repo, chosen.id)
        ctx = CrawlContext.create(
            chosen.start_url, settings, repo, chosen, crawl_state, notify=progress
        )
        async with contextlib.AsyncExitStack() as stack:
            if fetcher is None:
                from deepcrawl.browser import make_fetcher

                scope = Scope((host_of(chosen.start_url),), implicit=False)
                made = make_fetcher(settings, scope, forms=False)
                fetcher = await stack.enter_async_context(made)
            gate_fetcher(fetcher, ctx.gate)  # its pages' requests pass the crawl's gate too
            await ctx.gate.open(chosen.start_url, fetcher)
            every = settings.crawl.heartbeat_s
            heartbeat = Heartbeat(repo.engine, chosen.id, "worker", ctx.stats, every_s=every)
            heartbeat.register()
            crawl_state.worker_id = heartbeat.id  # the holder of this process's leases
            lock = QueryLock(repo.engine, chosen.id)
            fetch_tasks = concurrency or settings.politeness.concurrency_per_host
            state = "stopped"
            try:
                async with supervised() as tasks:
                    tasks.daemon(heartbeat.run(), name="heartbeat")
                    await FetchWorker(ctx, fetcher, lock=lock, concurrency=fetch_tasks).run()
                state = "done"
            finally:
                heartbeat.stop(state)
        ctx.enter("done")
        return WorkerReport(chosen.id, ctx.stats)
