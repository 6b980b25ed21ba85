"""The two jobs of a harvest, whatever runs them: a site's crawl, and a batch of URLs to fetch.

Both are plain async functions of a :class:`WorkerRuntime` — what one worker process brings to
the jobs it runs — so that procrastinate's workers (PostgreSQL, :mod:`deepcrawl.harvest.engine`)
and the in-process runner (SQLite, :mod:`deepcrawl.harvest.runner`) run the very same code:

* :func:`run_site_job` — a site's setup and query loop: :class:`~deepcrawl.crawler.Crawl` with
  its wanted pages fetched by fetch jobs (:mod:`deepcrawl.crawler.dispatch`), nothing delivered
  (the harvest's coordinator delivers). One at a time per site: the job queue's lock on the site
  (and, on PostgreSQL, the site's query lock against a ``deepcrawl crawl`` of the same site). A
  run killed with its process is run again by the job queue and resumes from what it stored:
  the stored queries replayed, the URLs of its ended fetch jobs given again. A site that cannot
  be crawled (no search form, unreachable, refused by robots.txt) ends ``failed`` with its
  reason, and the job ends: no other site is touched.
* :func:`run_fetch_job` — fetch, store and settle some of a site's frontier URLs
  (:class:`~deepcrawl.crawler.worker.SiteFetchers`); idempotent (a URL settled is skipped, a page
  is stored once).

Each job adds the requests it sent to its site's count (:class:`~deepcrawl.storage.harvests
.HarvestStore`), so the harvest's table shows every process's requests.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from deepcrawl.crawler.deliver import NullSink
from deepcrawl.errors import DeepcrawlError
from deepcrawl.storage.coordination import QueryLock
from deepcrawl.storage.harvests import HarvestStore
from deepcrawl.storage.state import CrawlState

if TYPE_CHECKING:
    from deepcrawl.crawler.context import CrawlStats
    from deepcrawl.crawler.dispatch import FetchQueue
    from deepcrawl.crawler.worker import SiteFetchers
    from deepcrawl.fetch.politeness import HostLimiter
    from deepcrawl.settings import Settings
    from deepcrawl.storage import Repository

__all__ = ["JobQueue", "WorkerRuntime", "run_fetch_job", "run_site_job"]

logger = logging.getLogger(__name__)

#: Seconds between two records of a running site's figures.
_FIGURES_S = 1.0
#: Seconds between two looks at a site's query lock held by another process.
_LOCK_WAIT_S = 1.0


class JobQueue(Protocol):
    """A job queue that runs a harvest's jobs (procrastinate, or the in-process runner)."""

    def fetch_queue(self, harvest: str | None) -> FetchQueue:
        """Where a site's crawl sends its fetch jobs; their requests counted for ``harvest``
        (None: a crawl's, no harvest)."""
        ...


@dataclass(eq=False)
class WorkerRuntime:
    """What one worker process brings to the jobs it runs.

    Attributes:
        settings: the worker's settings.
        repo: the database.
        limiter: the per-host rate and concurrency, one for every site of the process (shared
            with every process through the database on PostgreSQL).
        fetchers: every site's fetching in this process (fetch jobs).
        jobs: the job queue, where site jobs send their fetch jobs.
    """

    settings: Settings
    repo: Repository
    limiter: HostLimiter
    fetchers: SiteFetchers
    jobs: JobQueue
    #: Jobs running now, and when the last one ended (an idle worker ends after a while).
    running: int = 0
    idle_since: float = field(default_factory=time.monotonic)

    def began(self) -> None:
        """A job began."""
        self.running += 1

    def ended(self) -> None:
        """A job ended."""
        self.running -= 1
        self.idle_since = time.monotonic()


class _Figures:
    """A site job's progress callback: the query loop's figures and the requests sent, written
    to the site's row at most every :data:`_FIGURES_S`."""

    def __init__(self, store: HarvestStore, site_id: int) -> None:
        self.store = store
        self.site_id = site_id
        self.counted = 0
        self._at = 0.0

    def __call__(self, stats: CrawlStats, *, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._at < _FIGURES_S:
            return
        self._at = now
        self.store.add_requests(self.site_id, stats.requests - self.counted)
        self.counted = stats.requests
        self.store.record_figures(
            self.site_id,
            {
                "phase": stats.phase,
                "queries": stats.queries,
                "records_reached": stats.records_reached,
                "records_estimated": stats.records_estimated,
                "complete": stats.complete,
                "stop_reason": stats.stop_reason,
            },
        )


async def _query_lock_free(rt: WorkerRuntime, site_id: int, start_url: str) -> None:
    """Wait while another process runs the site's query loop: a ``deepcrawl crawl`` of the
    site, or a run of this job the engine took for dead (a worker whose heartbeats came late)
    and that still ends its work."""
    lock = QueryLock(rt.repo.engine, site_id)
    told = False
    while lock.held_elsewhere():
        if not told:
            logger.warning("%s: another process runs its query loop; waiting", start_url)
            told = True
        await asyncio.sleep(_LOCK_WAIT_S)


async def run_site_job(rt: WorkerRuntime, harvest: str, site_id: int) -> str:
    """Crawl one site of ``harvest`` (module docstring); the state it ended in.

    Raises:
        Exception: anything but a :class:`~deepcrawl.errors.DeepcrawlError` (a bug, the
            database gone): recorded as the site's failure, and raised for the job queue to
            run the job again.
    """
    from deepcrawl.crawler import Crawl
    from deepcrawl.crawler.inputs import check_start_page

    store = HarvestStore(rt.repo.engine, harvest)
    row = store.site(site_id)
    if row is None:
        logger.warning("harvest %s has no site %d: its job does nothing", harvest, site_id)
        return "failed"
    options = row.options
    settings = rt.settings.with_overrides(
        forms={"form": options.get("form"), "fields": options.get("fields") or None}
    )
    await _query_lock_free(rt, site_id, row.start_url)
    store.began(site_id)
    figures = _Figures(store, site_id)
    crawl: Crawl | None = None
    try:
        start = None
        if not CrawlState(rt.repo, site_id).queries():  # a new crawl: is the site there?
            start = await check_start_page(row.start_url, settings, limiter=rt.limiter)
        crawl = Crawl(
            row.start_url,
            settings=settings,
            like=options.get("like") or (),
            start=start,
            progress=figures,
            dispatch=rt.jobs.fetch_queue(harvest),
            delivery="none",
            limiter=rt.limiter,
        )
        async with crawl:
            report = await crawl.run(NullSink())
        state: str = report.status
        reason = report.stats.stop_reason
    except DeepcrawlError as exc:
        state, reason = "failed", f"{type(exc).__name__}: {exc}"
    except Exception as exc:
        store.end(site_id, "failed", f"{type(exc).__name__}: {exc} (its job runs again)")
        raise
    finally:
        if crawl is not None and crawl.ctx is not None:
            figures(crawl.ctx.stats, force=True)
    logger.info("harvest site %d (%s): %s%s", site_id, row.start_url, state,
                f" ({reason})" if reason else "")  # fmt: skip
    store.end(site_id, state, reason)
    return state


async def run_fetch_job(
    rt: WorkerRuntime, harvest: str | None, site_id: int, url_ids: list[int]
) -> None:
    """Fetch, store and settle the URLs ``url_ids`` of ``site_id`` not settled yet; count the
    requests it sent to the site's row of ``harvest`` (None: a crawl's job, no harvest).

    Raises:
        StorageError, BrowserError, ConfigError: the job queue runs the job again.
    """
    report = await rt.fetchers.fetch(site_id, url_ids)
    if harvest is not None:
        HarvestStore(rt.repo.engine, harvest).add_requests(site_id, report.requests)
