"""The in-process runner: a harvest's jobs in one process, on SQLite.

procrastinate keeps its jobs in PostgreSQL tables; a harvest on the default SQLite file has no
such server. :class:`LocalRunner` runs the very same job functions (:mod:`deepcrawl.harvest
.jobs`) as tasks of the harvest's own process, with what the engine gives on PostgreSQL that a
single process needs:

* a site's job runs once at a time (the engine's lock on the site), ``sites`` sites at once;
* fetch jobs run ``fetches`` at a time, each tried again after a failure (``_TRIES`` in all),
  as the engine's retry strategy does; one that keeps failing (the database gone) fails the
  harvest — a database that cannot be written stops every site alike;
* :meth:`live` answers the dispatcher's question, which jobs still run.

Nothing of it survives the process: a harvest killed here is resumed with ``--resume``, which
queues its sites' jobs again; what they stored stays (their frontier, their pages).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from typing import TYPE_CHECKING

from deepcrawl.harvest.jobs import run_fetch_job, run_site_job

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from deepcrawl._tasks import Supervisor
    from deepcrawl.crawler.dispatch import FetchQueue
    from deepcrawl.harvest.jobs import WorkerRuntime

__all__ = ["LocalRunner"]

logger = logging.getLogger(__name__)

#: Runs of a fetch job before its failure fails the harvest.
_TRIES = 3
#: Seconds before a failed fetch job runs again.
_RETRY_S = 1.0


class _FetchQueue:
    """A site's fetch jobs, counted for one harvest (:class:`~deepcrawl.crawler.dispatch
    .FetchQueue`)."""

    def __init__(self, runner: LocalRunner, harvest: str | None) -> None:
        self.runner = runner
        self.harvest = harvest

    async def defer_fetch(self, site_id: int, url_ids: Sequence[int]) -> int:
        return self.runner.defer_fetch(self.harvest, site_id, list(url_ids))

    async def live(self, job_ids: Collection[int]) -> set[int]:
        return self.runner.live(job_ids)


class LocalRunner:
    """A harvest's jobs as tasks of this process; see the module docstring.

    Args:
        sites: site jobs (query loops) at once.
        fetches: fetch jobs at once.
    """

    def __init__(self, *, sites: int, fetches: int) -> None:
        self._sites = asyncio.Semaphore(max(1, sites))
        self._fetches = asyncio.Semaphore(max(1, fetches))
        self._ids = itertools.count(1)
        self._live: set[int] = set()
        self._running_sites: dict[int, asyncio.Task[str | None]] = {}
        self._runtime: WorkerRuntime | None = None
        self._tasks: Supervisor | None = None

    def start(self, runtime: WorkerRuntime, tasks: Supervisor) -> None:
        """Run the jobs with ``runtime``, as tasks of the harvest's supervised scope."""
        self._runtime, self._tasks = runtime, tasks

    def _scope(self) -> tuple[WorkerRuntime, Supervisor]:
        if self._runtime is None or self._tasks is None:
            raise RuntimeError("start the LocalRunner before it runs jobs")
        return self._runtime, self._tasks

    def fetch_queue(self, harvest: str | None) -> FetchQueue:
        """Where a site's crawl sends its fetch jobs."""
        return _FetchQueue(self, harvest)

    def live(self, job_ids: Collection[int]) -> set[int]:
        """Those of ``job_ids`` queued or running."""
        return {job for job in job_ids if job in self._live}

    def site_running(self, site_id: int) -> bool:
        """Whether the site's job is queued or running."""
        task = self._running_sites.get(site_id)
        return task is not None and not task.done()

    def defer_site(self, harvest: str, site_id: int) -> None:
        """Queue the site's job, unless it is queued or running already (the site's lock)."""
        if self.site_running(site_id):
            return
        _runtime, tasks = self._scope()
        self._running_sites[site_id] = tasks.start(
            self._site(harvest, site_id), name=f"site job {site_id}"
        )

    def defer_fetch(self, harvest: str | None, site_id: int, url_ids: list[int]) -> int:
        """Queue a fetch job; its id."""
        _runtime, tasks = self._scope()
        job = next(self._ids)
        self._live.add(job)
        tasks.start(self._fetch(job, harvest, site_id, url_ids), name=f"fetch job {job}")
        return job

    async def _site(self, harvest: str, site_id: int) -> str | None:
        runtime, _tasks = self._scope()
        async with self._sites:
            runtime.began()
            try:
                return await run_site_job(runtime, harvest, site_id)
            except Exception:
                # recorded as the site's failure by the job: the other sites go on
                logger.exception("the job of site %d failed", site_id)
                return None
            finally:
                runtime.ended()

    async def _fetch(self, job: int, harvest: str | None, site_id: int, url_ids: list[int]) -> None:
        runtime, _tasks = self._scope()
        try:
            for attempt in range(1, _TRIES + 1):
                async with self._fetches:
                    runtime.began()
                    try:
                        await run_fetch_job(runtime, harvest, site_id, url_ids)
                        return
                    except Exception:
                        if attempt == _TRIES:
                            raise
                        logger.warning("fetch job %d failed, run again", job, exc_info=True)
                    finally:
                        runtime.ended()
                await asyncio.sleep(_RETRY_S)
        finally:
            self._live.discard(job)
