"""Fetching through a job queue: the frontier's wanted URLs handed to fetch jobs, a batch a job.

A crawl that fetches alone leases URLs from its frontier and fetches them in its own tasks
(:class:`~deepcrawl.crawler.fetching.FetchWorkers`). A crawl that shares its fetching — a
``deepcrawl crawl`` on PostgreSQL that workers join, every site of a harvest — gives them to a
:class:`FetchQueue` instead: a job queue's fetch task (procrastinate on PostgreSQL, the
harvest's in-process runner on SQLite) that any worker runs. The :class:`Dispatcher` is the
crawl's side of it:

1. the frontier's ready URLs (deduplicated by their normal form, in priority order, a back-off
   waited out) go to a fetch job, :data:`JOB_URLS` a job;
2. the frontier names the job holding each (:meth:`~deepcrawl.storage.frontier.SqlFrontier
   .assign`) — after the job is queued: a crawl killed in between leaves its URLs queued, and
   they are given again;
3. a URL held by a job that is no longer live — its worker died and the engine gave it up, or
   it ended without settling it — is queued again (every ``_ORPHANS_S``); the engine's own
   retry of a dead worker's jobs does the rest.

A fetch job fetches, stores and settles its URLs (:meth:`FetchWorkers.fetch_batch
<deepcrawl.crawler.fetching.FetchWorkers.fetch_batch>`); it is idempotent: a URL settled by an
earlier run of the job is skipped, and a page stored twice is stored once (the store's unique
key), so a job run twice — or a URL given to two jobs — stores and delivers each page once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Sequence

    from deepcrawl.storage.frontier import SqlFrontier

__all__ = ["JOB_URLS", "Dispatcher", "FetchQueue"]

logger = logging.getLogger(__name__)

#: URLs a fetch job fetches: enough that a job's start costs little beside its fetches, few
#: enough that two workers share a site of a few hundred records.
JOB_URLS = 16

#: Seconds between two looks for URLs held by jobs no longer live.
_ORPHANS_S = 2.0

#: Longest wait of an idle dispatcher before it looks at the frontier again (back-offs expire).
_IDLE_S = 0.25


class FetchQueue(Protocol):
    """Where a crawl's wanted URLs go to be fetched: a job queue's fetch task."""

    async def defer_fetch(self, site_id: int, url_ids: Sequence[int]) -> int:
        """Queue a fetch job for the frontier URLs ``url_ids`` of ``site_id``; its id."""
        ...

    async def live(self, job_ids: Collection[int]) -> set[int]:
        """Those of ``job_ids`` still to run or running."""
        ...


class Dispatcher:
    """The crawl's side of fetching through a job queue; see the module docstring.

    Args:
        frontier: the crawl's frontier.
        queue: where fetch jobs go.
        batch: URLs a job.
    """

    def __init__(self, frontier: SqlFrontier, queue: FetchQueue, *, batch: int = JOB_URLS) -> None:
        self.frontier = frontier
        self.queue = queue
        self.batch = max(1, batch)
        #: Fetch jobs this dispatcher queued.
        self.jobs = 0
        self._wake = asyncio.Event()
        self._orphans_at = 0.0

    def wake(self) -> None:
        """New URLs are in the frontier (or no more will come): dispatch now."""
        self._wake.set()

    async def dispatch(self) -> int:
        """Give every ready URL to fetch jobs; how many URLs were given."""
        given = 0
        while ready := self.frontier.dispatchable(self.batch):
            ids = [lease.id for lease in ready]
            job = await self.queue.defer_fetch(self.frontier.site_id, ids)
            self.frontier.assign(ids, job)
            self.jobs += 1
            given += len(ids)
            if len(ready) < self.batch:
                break
        return given

    async def requeue_orphans(self) -> int:
        """Queue again the URLs held by jobs that are no longer live; how many."""
        self._orphans_at = time.monotonic() + _ORPHANS_S
        held = self.frontier.held()
        if not held:
            return 0
        live = await self.queue.live(held)
        lost = [url for job, urls in held.items() if job not in live for url in urls]
        if lost:
            logger.info("site %d: %d URLs of ended jobs queued again", self.frontier.site_id,
                        len(lost))  # fmt: skip
        return self.frontier.release(lost)

    async def run(self, more: Callable[[], bool]) -> None:
        """Dispatch until no URL is pending and ``more()`` says none may come (the query loop
        ended); then every URL of the crawl is settled."""
        await self.requeue_orphans()  # a crawl resumed: what its jobs left
        while True:
            self._wake.clear()
            await self.dispatch()
            if time.monotonic() >= self._orphans_at:
                await self.requeue_orphans()
            if not more() and self.frontier.pending() == 0:
                return
            # ``asyncio.timeout``: 3.11's ``wait_for`` can lose a cancellation (a stop request)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(_IDLE_S):
                    await self._wake.wait()
