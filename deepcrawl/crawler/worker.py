"""Fetch jobs in a worker process: what it keeps of each site it fetches for.

A fetch job (:mod:`deepcrawl.crawler.dispatch`) names a site and some of its frontier URLs. The
process that runs it — a ``deepcrawl worker`` on any machine, a harvest's in-process runner on
SQLite, a ``deepcrawl crawl`` process's own worker — fetches them as the crawl's own fetch
tasks would, with the very same object (:meth:`FetchWorkers.fetch_batch
<deepcrawl.crawler.fetching.FetchWorkers.fetch_batch>`): through the site's gate (scope,
robots.txt, the host's rate and seats shared by every process through the database, back-off),
stored with its record's identity, its own links judged and queued by an
:class:`~deepcrawl.crawler.admission.Admission` of its own, settled in the frontier.

**Delivery**: a fetch job delivers nothing. The crawl's delivery point (the ``deepcrawl crawl``
process, or the harvest's coordinator) delivers every page any job stored, once.

**Bodies**: on PostgreSQL every page body is kept in the database, whatever
``storage.bodies_inline_max`` says (:class:`~deepcrawl.storage.Repository`), so a worker on
another machine needs nothing but the database URL.

:class:`SiteFetchers` keeps, for each site, its context (the gate with robots.txt read), its
fetcher and its fetch workers across the jobs a process runs: a job costs its fetches, not
robots.txt and a new browser again.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from deepcrawl._resource import AsyncResource
from deepcrawl.browser.access import with_start_origin
from deepcrawl.browser.scope import Scope, host_of
from deepcrawl.browser.wrapped import gate_fetcher, teach_fetcher
from deepcrawl.crawler.admission import Admission
from deepcrawl.crawler.context import CrawlContext
from deepcrawl.crawler.deliver import NullSink
from deepcrawl.crawler.fetching import FetchWorkers, site_frontier
from deepcrawl.errors import ConfigError
from deepcrawl.storage.state import CrawlState

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.fetch.politeness import HostLimiter
    from deepcrawl.settings import Settings
    from deepcrawl.storage import Repository
    from deepcrawl.storage.frontier import SqlFrontier

__all__ = ["FetchJobReport", "SiteFetchers"]


@dataclass(frozen=True, slots=True)
class FetchJobReport:
    """What one fetch job did: its site, and the pages, requests and failed URLs it added.

    The jobs of one site that a process runs at once share the site's counts, so each report
    holds what the site's counts gained since the process's previous report for the site: the
    reports of a site sum to what its fetching sent, each request once.
    """

    site_id: int
    urls: int
    """URLs of the job still to fetch when it began (those settled before are skipped)."""
    pages: int
    requests: int
    errors: int


@dataclass(slots=True)
class _Site:
    """One site's fetching in this process."""

    ctx: CrawlContext
    frontier: SqlFrontier
    workers: FetchWorkers
    reported: tuple[int, int, int] = (0, 0, 0)
    """Pages fetched, requests sent and URLs failed that earlier reports already hold."""


class SiteFetchers(AsyncResource):
    """Every site's fetching in one worker process; an async context manager (its fetchers are
    closed on exit).

    Args:
        settings: the worker's settings (the politeness, the fetchers, the crawl's rules).
        repo: the database.
        limiter: the per-host rate and concurrency of this process, shared by its sites
            (shared with every process through the database on PostgreSQL).
        make_fetcher: a fetcher for a site's scope (default: :func:`deepcrawl.browser
            .make_fetcher`).
    """

    def __init__(
        self,
        settings: Settings,
        repo: Repository,
        *,
        limiter: HostLimiter,
        make_fetcher: Callable[[Settings, Scope], Fetcher] | None = None,
    ) -> None:
        self.settings = settings
        self.repo = repo
        self.limiter = limiter
        self.make_fetcher = make_fetcher
        self._sites: dict[int, _Site] = {}
        self._opening: dict[int, asyncio.Lock] = {}
        self._stack = contextlib.AsyncExitStack()

    async def close(self) -> None:
        self._sites.clear()
        await self._stack.aclose()

    async def _site(self, site_id: int) -> _Site:
        found = self._sites.get(site_id)
        if found is not None:
            return found
        async with self._opening.setdefault(site_id, asyncio.Lock()):
            if (found := self._sites.get(site_id)) is not None:
                return found
            row = next((s for s in self.repo.sites() if s.id == site_id), None)
            if row is None:
                raise ConfigError(f"a fetch job names site {site_id}, which the database lacks")
            settings = with_start_origin(self.settings, row.start_url)  # where headers go
            state = CrawlState(self.repo, site_id)
            ctx = CrawlContext.create(
                row.start_url, settings, self.repo, row, state, limiter=self.limiter
            )
            scope = Scope((host_of(row.start_url),), implicit=False)
            if self.make_fetcher is not None:
                fetcher = self.make_fetcher(settings, scope)
            else:
                from deepcrawl.browser import make_fetcher

                fetcher = make_fetcher(settings, scope, forms=False)
            fetcher = await self._stack.enter_async_context(fetcher)
            gate_fetcher(fetcher, ctx.gate)  # its pages' requests pass the site's gate too
            ctx.stats.phase = "worker"
            await ctx.gate.open(row.start_url, fetcher)
            frontier = site_frontier(ctx)
            admission = Admission(ctx, frontier)  # the site's dispatcher finds what it queues
            workers = FetchWorkers(
                ctx, fetcher, frontier, admission, sink=NullSink(), delivery="none", alone=False
            )
            teach_fetcher(fetcher, admission.prototype_key)
            site = self._sites[site_id] = _Site(ctx, frontier, workers)
            return site

    def totals(self) -> tuple[int, int, int, int]:
        """Pages fetched, requests sent and URLs failed by this process's jobs, and the sites
        it fetched for."""
        stats = [site.ctx.stats for site in self._sites.values()]
        return (
            sum(s.pages_fetched for s in stats),
            sum(s.requests for s in stats),
            sum(s.errors for s in stats),
            len(stats),
        )

    async def fetch(self, site_id: int, url_ids: Sequence[int]) -> FetchJobReport:
        """Run one fetch job: fetch, store and settle those of ``url_ids`` not settled yet.

        Raises:
            ConfigError: the site is not in the database.
            StorageError, BrowserError: as the crawl's (the job queue retries the job).
        """
        site = await self._site(site_id)
        ctx = site.ctx
        state = ctx.state  # the parameters learnt by the other processes since
        ctx.sessions.know(state.session_params(), anyway=state.session_params(anyway=True))
        leases = site.frontier.leases_of(url_ids)
        site.workers.restart()
        await site.workers.fetch_batch(leases)
        stats = ctx.stats
        now = (stats.pages_fetched, stats.requests, stats.errors)
        # a window of this job's own would hold the requests of the site's jobs beside it too
        pages, requests, errors = (n - b for n, b in zip(now, site.reported, strict=True))
        site.reported = now
        return FetchJobReport(site_id, len(leases), pages, requests, errors)
