"""``deepcrawl worker``: a procrastinate worker of deepcrawl's jobs, on any machine.

A worker process runs two engine workers (:meth:`~deepcrawl.harvest.engine.JobEngine
.run_worker`), each with its own worker id: one on the site jobs (``sites`` query loops at
once), one on the fetch jobs (``concurrency`` batches at once) — a site's query loop waits for
its fetches, so the two never compete for one slot. Every site it fetches for shares the
process's one limiter, itself shared with every process through the database (each host's
rate, Crawl-delay, pause after 429/503, and seats).

It ends once it has had no job for ``crawl.worker_wait_s`` seconds, or when stopped (SIGINT,
SIGTERM): its running jobs get a few seconds to end, and the others are aborted and queued
again for another worker. A worker killed outright (SIGKILL) stops beating; the engine's
stalled-job sweep, run by any other worker, queues its jobs again.

:func:`shared_fetching` is the same worker inside a ``deepcrawl crawl`` on PostgreSQL: it
fetches that crawl's pages (and, like any worker, other fetch jobs of the database) while
``deepcrawl worker`` processes join; with no worker in the crawl's process (``concurrency=0``),
the ``deepcrawl worker`` processes fetch every page.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from deepcrawl._tasks import supervised
from deepcrawl.crawler.worker import SiteFetchers
from deepcrawl.errors import ConfigError
from deepcrawl.fetch.politeness import SharedHostLimiter
from deepcrawl.harvest.jobs import WorkerRuntime
from deepcrawl.storage import Repository, is_shared

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from deepcrawl.crawler.dispatch import FetchQueue
    from deepcrawl.harvest.engine import JobEngine
    from deepcrawl.settings import Settings

__all__ = ["WorkerReport", "run_worker", "shared_fetching"]

#: Seconds between two looks at whether the worker is idle.
_IDLE_LOOK_S = 1.0


@dataclass(frozen=True, slots=True)
class WorkerReport:
    """What one worker process did: pages fetched and stored, requests, failed URLs."""

    pages: int
    requests: int
    errors: int
    sites: int
    """Sites it fetched for."""


def _engine(settings: Settings, repo: Repository) -> JobEngine:
    if not is_shared(repo.engine):
        url = settings.storage.url
        raise ConfigError(
            f"workers share their jobs through PostgreSQL, not {url.split(':', 1)[0]}: run "
            "'deepcrawl harvest … --db postgresql://…' or 'deepcrawl crawl … --db "
            "postgresql://…' (a harvest on SQLite runs its jobs in its own process)"
        )
    from deepcrawl.harvest.engine import JobEngine

    return JobEngine(settings.storage.url, repo.engine, heartbeat_s=settings.crawl.heartbeat_s)


async def _until_idle(runtime: WorkerRuntime, wait_s: float) -> None:
    while runtime.running > 0 or time.monotonic() - runtime.idle_since < wait_s:
        await asyncio.sleep(_IDLE_LOOK_S)


async def run_worker(settings: Settings, *, sites: int = 2, concurrency: int = 4) -> WorkerReport:
    """Run deepcrawl's jobs from the PostgreSQL database ``settings.storage.url`` until idle
    for ``crawl.worker_wait_s`` (or cancelled).

    Args:
        settings: deepcrawl settings (the same politeness as every other process).
        sites: site jobs (query loops, a browser each) at once.
        concurrency: fetch jobs at once.

    Raises:
        ConfigError: the database is not PostgreSQL, or procrastinate is not installed.
        StorageError: the database fails.
    """
    from deepcrawl.harvest.engine import FETCH_QUEUE, SITES_QUEUE

    with Repository.open(settings.storage.url, settings.storage) as repo:
        limiter = SharedHostLimiter(settings.politeness, repo.engine)
        try:
            async with (
                _engine(settings, repo) as jobs,
                SiteFetchers(settings, repo, limiter=limiter) as fetchers,
            ):
                runtime = WorkerRuntime(settings, repo, limiter, fetchers, jobs)
                async with supervised() as tasks:
                    for role, queue, at_once in (
                        ("sites", SITES_QUEUE, sites),
                        ("fetch", FETCH_QUEUE, concurrency),
                    ):
                        work = jobs.run_worker(
                            runtime, role=role, queues=[queue], concurrency=at_once
                        )
                        tasks.daemon(work, name=f"{role} jobs")
                    await _until_idle(runtime, settings.crawl.worker_wait_s)
                    tasks.stop_daemons()
                totals = fetchers.totals()
        finally:
            limiter.close()
    return WorkerReport(*totals)


@contextlib.asynccontextmanager
async def shared_fetching(
    settings: Settings, *, concurrency: int = 2
) -> AsyncIterator[FetchQueue | None]:
    """The fetch jobs of a ``deepcrawl crawl`` on PostgreSQL, and a worker in this process that
    runs them beside any ``deepcrawl worker``: the queue to give the crawl (``dispatch=``).
    None on another database (the crawl fetches in its own tasks).

    Args:
        settings: deepcrawl settings (``storage.url`` names the database).
        concurrency: fetch jobs this process's worker runs at once; 0: no worker here, the
            ``deepcrawl worker`` processes run them all (a crawl process that must not fetch,
            or a test that must know who fetched).

    Raises:
        ConfigError: procrastinate is not installed.
        StorageError: the database fails.
    """
    from deepcrawl.storage.engine import is_shared_url

    if not is_shared_url(settings.storage.url):
        yield None
        return
    from deepcrawl.harvest.engine import FETCH_QUEUE

    with Repository.open(settings.storage.url, settings.storage) as repo:
        limiter = SharedHostLimiter(settings.politeness, repo.engine)
        try:
            async with _engine(settings, repo) as jobs:
                if concurrency == 0:
                    yield jobs.fetch_queue(None)
                    return
                async with SiteFetchers(settings, repo, limiter=limiter) as fetchers:
                    runtime = WorkerRuntime(settings, repo, limiter, fetchers, jobs)
                    work = jobs.run_worker(
                        runtime, role="crawl-fetch", queues=[FETCH_QUEUE], concurrency=concurrency
                    )
                    worker = asyncio.create_task(work, name="the crawl's fetch jobs")
                    try:
                        yield jobs.fetch_queue(None)
                    finally:
                        worker.cancel()
                        with contextlib.suppress(asyncio.CancelledError):
                            await worker
        finally:
            limiter.close()
