"""The job queue on PostgreSQL: procrastinate, with deepcrawl's two jobs and the stalled-job sweep.

procrastinate keeps its jobs in tables of the crawl's own PostgreSQL database (its schema is
applied on first use, :func:`~deepcrawl.storage.harvests.ensure_job_schema`) and runs them in
asyncio workers — what deepcrawl already runs on. :class:`JobEngine` registers:

* ``deepcrawl.site`` (queue :data:`SITES_QUEUE`) — a site's setup and query loop
  (:func:`~deepcrawl.harvest.jobs.run_site_job`), under the engine's ``lock`` on the site (one at
  a time per site) and a ``queueing_lock`` (a site queued once);
* ``deepcrawl.fetch`` (queue :data:`FETCH_QUEUE`) — a batch of URLs to fetch
  (:func:`~deepcrawl.harvest.jobs.run_fetch_job`), many at a time, retried on failure;
* ``deepcrawl.retry_stalled`` — every few seconds, the engine's stalled jobs (``doing`` jobs of
  workers silent for :data:`~deepcrawl.storage.coordination.SILENT_BEATS` heartbeats) are run
  again: procrastinate detects a dead worker by its heartbeats but retries its jobs only
  through a task its user schedules (its how-to "Retry stalled jobs"). A site job killed with
  its worker resumes elsewhere; a fetch job fetches what it had not settled.

Each worker process registers its own worker ids with the engine (one a ``Worker``, never
reused: procrastinate issue #1518 is of jobs stuck in ``doing`` when a restarted worker reused
one) and names them ``host:pid:role``. Their heartbeats come from a thread as well
(:class:`~deepcrawl.harvest.pulse.Pulse`): a job step that holds the event loop for seconds does
not make its worker look dead to the sweep. The jobs reach the process's :class:`~deepcrawl.harvest
.jobs.WorkerRuntime` through the worker's ``additional_context``.
"""

from __future__ import annotations

import logging
import os
import socket
from typing import TYPE_CHECKING, Any

from deepcrawl._resource import AsyncResource
from deepcrawl.errors import ConfigError
from deepcrawl.harvest.jobs import run_fetch_job, run_site_job
from deepcrawl.harvest.pulse import Pulse
from deepcrawl.storage.coordination import SILENT_BEATS
from deepcrawl.storage.engine import safe_url
from deepcrawl.storage.harvests import ensure_job_schema, live_jobs

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from procrastinate import App, JobContext

    from deepcrawl.crawler.dispatch import FetchQueue
    from deepcrawl.harvest.jobs import WorkerRuntime
    from deepcrawl.storage import Engine

__all__ = ["FETCH_QUEUE", "SITES_QUEUE", "JobEngine", "conninfo"]

logger = logging.getLogger(__name__)

#: The queue of the site jobs (query loops: long, a browser each).
SITES_QUEUE = "deepcrawl-sites"
#: The queue of the fetch jobs and of the stalled-job sweep.
FETCH_QUEUE = "deepcrawl-fetch"
#: How often the stalled-job sweep runs: every 5 s (a cron line whose sixth field is seconds).
_SWEEP_CRON = "* * * * * */5"
#: Runs of a fetch job before the engine gives it up (its URLs are then dispatched again).
_FETCH_TRIES = 5
#: Runs of a site job (beyond those the sweep starts again after a worker died).
_SITE_TRIES = 3
#: Seconds a stopping worker lets its jobs end before they are aborted (and queued again).
_GRACE_S = 5.0
#: Heartbeats of silence after which the engine deletes a dead worker's row (its jobs, left
#: with no worker, are still found stalled).
_PRUNE_BEATS = 20


def conninfo(url: str) -> str:
    """The libpq connection string of a SQLAlchemy PostgreSQL URL (its driver dropped).

    Raises:
        ConfigError: the URL is no PostgreSQL URL.
    """
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() != "postgresql":
        raise ConfigError(
            f"the job queue needs PostgreSQL, not {parsed.get_backend_name()} ({safe_url(url)})"
        )
    return parsed.set(drivername="postgresql").render_as_string(hide_password=False)


def site_lock(site_id: int) -> str:
    """The engine's lock (and queueing lock) of a site's job."""
    return f"deepcrawl-site-{site_id}"


def _runtime(context: JobContext) -> WorkerRuntime:
    runtime: WorkerRuntime = context.additional_context["runtime"]
    return runtime


class _FetchQueue:
    """A site's fetch jobs on the engine, counted for one harvest (:class:`~deepcrawl.crawler
    .dispatch.FetchQueue`)."""

    def __init__(self, engine: JobEngine, harvest: str | None) -> None:
        self.engine = engine
        self.harvest = harvest

    async def defer_fetch(self, site_id: int, url_ids: Sequence[int]) -> int:
        return await self.engine.defer_fetch(self.harvest, site_id, url_ids)

    async def live(self, job_ids: Collection[int]) -> set[int]:
        return live_jobs(self.engine.db, job_ids)


class JobEngine(AsyncResource):
    """procrastinate on the crawl's PostgreSQL database; an async context manager (its
    connection pool is open inside).

    Args:
        url: the database's SQLAlchemy URL.
        db: the same database's engine (the schema is applied through it).
        heartbeat_s: seconds between two heartbeats of a worker (``crawl.heartbeat_s``); a
            worker silent for :data:`SILENT_BEATS` of them is dead and its jobs run again.

    Raises:
        ConfigError: procrastinate is not installed, or ``url`` is no PostgreSQL URL.
    """

    def __init__(self, url: str, db: Engine, *, heartbeat_s: float) -> None:
        try:
            from procrastinate import App, PsycopgConnector, RetryStrategy
        except ImportError as exc:  # the postgres extra's
            raise ConfigError(
                "the workers' job queue needs procrastinate: pip install 'deepcrawl[postgres]'"
            ) from exc

        self.db = db
        self.heartbeat_s = heartbeat_s
        connector = PsycopgConnector(conninfo=conninfo(url), min_size=1, max_size=8)
        self.app: App = App(connector=connector)
        self.pulse = Pulse(db, heartbeat_s=heartbeat_s)
        app, pulse = self.app, self.pulse

        @app.task(name="deepcrawl.site", queue=SITES_QUEUE, pass_context=True,
                  retry=RetryStrategy(max_attempts=_SITE_TRIES, wait=2))  # fmt: skip
        async def site(context: JobContext, harvest: str, site_id: int) -> str:
            runtime = _runtime(context)
            pulse.hold(context.job.worker_id)
            runtime.began()
            try:
                return await run_site_job(runtime, harvest, site_id)
            finally:
                runtime.ended()

        @app.task(name="deepcrawl.fetch", queue=FETCH_QUEUE, pass_context=True,
                  retry=RetryStrategy(max_attempts=_FETCH_TRIES, exponential_wait=2))  # fmt: skip
        async def fetch(
            context: JobContext, harvest: str | None, site_id: int, urls: list[int]
        ) -> None:
            runtime = _runtime(context)
            pulse.hold(context.job.worker_id)
            runtime.began()
            try:
                await run_fetch_job(runtime, harvest, site_id, urls)
            finally:
                runtime.ended()

        stalled_after = SILENT_BEATS * heartbeat_s

        @app.periodic(cron=_SWEEP_CRON)
        @app.task(name="deepcrawl.retry_stalled", queue=FETCH_QUEUE,
                  queueing_lock="deepcrawl.retry_stalled")  # fmt: skip
        async def retry_stalled(timestamp: int) -> int:
            stalled = list(
                await app.job_manager.get_stalled_jobs(seconds_since_heartbeat=stalled_after)
            )
            for job in stalled:
                logger.info("job %s of a dead worker runs again", job.call_string)
                await app.job_manager.retry_job(job)
            return len(stalled)

        del site, fetch, retry_stalled  # registered with the app

    async def open(self) -> None:
        from procrastinate.schema import SchemaManager

        ensure_job_schema(self.db, SchemaManager.get_schema())
        await self.app.open_async()
        await self.pulse.open()

    async def close(self) -> None:
        await self.pulse.close()
        await self.app.close_async()

    def fetch_queue(self, harvest: str | None) -> FetchQueue:
        """Where a site's crawl sends its fetch jobs."""
        return _FetchQueue(self, harvest)

    async def defer_fetch(self, harvest: str | None, site_id: int, url_ids: Sequence[int]) -> int:
        """Queue a fetch job; its id."""
        deferrer = self.app.configure_task("deepcrawl.fetch", allow_unknown=False)
        return await deferrer.defer_async(harvest=harvest, site_id=site_id, urls=list(url_ids))

    async def defer_site(self, harvest: str, site_id: int) -> int:
        """Queue the site's job unless one is queued or running; the id of the job that will
        run it."""
        from procrastinate.exceptions import AlreadyEnqueued

        lock = site_lock(site_id)
        manager = self.app.job_manager
        for status in ("doing", "todo"):
            found = list(await manager.list_jobs_async(lock=lock, status=status))
            if found and found[0].id is not None:
                return found[0].id
        deferrer = self.app.configure_task(
            "deepcrawl.site", allow_unknown=False, lock=lock, queueing_lock=lock
        )
        try:
            return await deferrer.defer_async(harvest=harvest, site_id=site_id)
        except AlreadyEnqueued:  # queued by another coordinator meanwhile
            found = list(await manager.list_jobs_async(queueing_lock=lock, status="todo"))
            if not found or found[0].id is None:
                raise
            return found[0].id

    async def job_status(self, job_id: int) -> str:
        """The engine's status of a job (``todo``, ``doing``, ``succeeded``, ``failed`` …)."""
        status = await self.app.job_manager.get_job_status_async(job_id)
        return str(status.value)

    async def run_worker(
        self, runtime: WorkerRuntime, *, role: str, queues: Sequence[str], concurrency: int
    ) -> None:
        """Run one engine worker on ``queues`` until cancelled (then its jobs get
        ``_GRACE_S`` to end, and the rest are aborted and queued again)."""
        options: dict[str, Any] = {
            "queues": list(queues),
            "name": f"{socket.gethostname()}:{os.getpid()}:{role}",
            "concurrency": max(1, concurrency),
            "additional_context": {"runtime": runtime},
            "install_signal_handlers": False,
            "update_heartbeat_interval": self.heartbeat_s,
            "stalled_worker_timeout": _PRUNE_BEATS * self.heartbeat_s,
            "shutdown_graceful_timeout": _GRACE_S,
            "fetch_job_polling_interval": 1.0,
            "abort_job_polling_interval": 5.0,
            "delete_jobs": "never",
        }
        await self.app.run_worker_async(**options)
