"""``deepcrawl harvest``: many sites crawled as one job, on any number of workers.

:class:`Harvest` is the harvest's coordinator and its one delivery point. In this order:

1. **the sites** — each site of the sites file (:mod:`deepcrawl.harvest.sites`) gets its row in
   the database (:class:`~deepcrawl.storage.harvests.HarvestStore`), under the harvest's name:
   its output folder. ``--resume`` goes on with the rows stored; a new harvest refuses an output
   folder that holds one;
2. **the jobs** — a site job for each site not ended (:mod:`deepcrawl.harvest.jobs`): on
   PostgreSQL queued in procrastinate (:mod:`deepcrawl.harvest.engine`), run by ``deepcrawl
   worker`` processes on any machine (``workers`` of them started here, each started again if
   it dies); on SQLite run in this process by the in-process runner
   (:mod:`deepcrawl.harvest.runner`), the same job functions;
3. **delivery** — every page any job stored goes once to its site's ``OUT/<site>/pages.jsonl``
   (and WARC file): a :class:`~deepcrawl.crawler.deliver.DeliveryPoller` a site, here only, so
   no page is written twice whatever ran where; a site's last pages are swept once its job ended
   and its frontier is settled;
4. **the table** — every half second each site's row (:class:`~deepcrawl.harvest.status
   .SiteStatus`: state, records, estimate, requests, rate, errors) goes to ``progress`` and,
   every few seconds and at the end, to ``OUT/harvest.json``.

A site that fails — no search form, unreachable, refused by robots.txt, or its job failing
again and again — is recorded ``failed`` with its reason; the others go on. Politeness holds
over the whole harvest: one clock and one set of seats per host for every site and process
(:mod:`deepcrawl.fetch.politeness`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from deepcrawl._tasks import supervised
from deepcrawl.crawler.context import CrawlContext
from deepcrawl.crawler.deliver import DeliveryPoller, JsonlSink, TeeSink, WarcSink
from deepcrawl.crawler.worker import SiteFetchers
from deepcrawl.errors import ConfigError, OutputError
from deepcrawl.fetch.politeness import HostLimiter
from deepcrawl.harvest.jobs import WorkerRuntime
from deepcrawl.harvest.runner import LocalRunner
from deepcrawl.harvest.sites import site_names
from deepcrawl.harvest.status import HarvestStatus, SiteStatus
from deepcrawl.settings import override_args
from deepcrawl.storage import Repository, is_shared
from deepcrawl.storage.frontier import SqlFrontier
from deepcrawl.storage.harvests import ENDED, HarvestStore
from deepcrawl.storage.state import CrawlState

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path
    from types import TracebackType

    from deepcrawl.crawler.deliver import Sink
    from deepcrawl.harvest.engine import JobEngine
    from deepcrawl.harvest.sites import SiteSpec
    from deepcrawl.settings import Settings
    from deepcrawl.storage import Engine, SiteRead
    from deepcrawl.storage.tables import HarvestSiteRead

__all__ = ["HARVEST_FILE", "Harvest", "run_harvest"]

logger = logging.getLogger(__name__)

#: The harvest's own file in its output folder.
HARVEST_FILE = "harvest.json"
#: Seconds between two looks at every site.
_TICK_S = 0.5
#: Seconds between two writes of ``harvest.json`` while the harvest runs.
_WRITE_S = 2.0
#: Seconds a worker process started here gets to end once the harvest is over.
_WORKER_GRACE_S = 20.0
#: Times one of the worker processes started here is started again after it died (a crash
#: that repeats is the worker's own fault, and its log says why: the harvest stops replacing it).
_WORKER_RESTARTS = 3
#: The engine's states of a job that will not run again.
_JOB_OVER = frozenset({"failed", "cancelled", "aborted"})


@dataclass(eq=False)
class _Site:
    """One site as the coordinator follows it."""

    row: HarvestSiteRead
    ctx: CrawlContext
    sink: Sink
    poller: DeliveryPoller
    frontier: SqlFrontier
    job: int | None = None
    began: float | None = None
    ended: float | None = None
    delivered_before: int = 0
    finished: bool = False
    state: str = "queued"


class Harvest:
    """A harvest of many sites; an async context manager, then :meth:`run`.

    Args:
        sites: the sites (:func:`~deepcrawl.harvest.sites.read_sites`).
        settings: deepcrawl settings; the database is ``settings.storage.url`` (SQLite: the
            jobs run in this process; PostgreSQL: in procrastinate's workers).
        out: the output folder: ``OUT/<site>/pages.jsonl`` and ``OUT/harvest.json``.
        resume: go on with the harvest ``out`` holds (a new harvest refuses one).
        warc: also write each site's pages to ``OUT/<site>/pages.warc.gz``.
        workers: on PostgreSQL, ``deepcrawl worker`` processes to start here (0: the workers
            run elsewhere); one that dies is started again.
        sites_at_once: query loops a worker (or the in-process runner) runs at once.
        fetches: fetch jobs a worker (or the in-process runner) runs at once.
        progress: called with the harvest's status every half second.

    Raises (on entering):
        ConfigError: ``out`` holds a harvest and ``resume`` is False, or holds none and
            ``resume`` is True.
        StorageError: the database cannot be opened.
    """

    def __init__(
        self,
        sites: Sequence[SiteSpec],
        settings: Settings,
        *,
        out: Path,
        resume: bool = False,
        warc: bool = False,
        workers: int = 1,
        sites_at_once: int = 2,
        fetches: int = 4,
        progress: Callable[[HarvestStatus], None] | None = None,
    ) -> None:
        self.specs = list(sites)
        self.settings = settings
        self.out = out
        self.name = str(out.resolve())
        self.resume = resume
        self.warc = warc
        self.workers = max(0, workers)
        self.sites_at_once = max(1, sites_at_once)
        self.fetches = max(1, fetches)
        self.progress = progress
        self.started = time.monotonic()
        self._repo: Repository | None = None
        self._sites: list[_Site] = []
        self._procs: list[subprocess.Popen[bytes]] = []
        self._restarts: list[int] = []
        self._entered = False
        self._written_at = 0.0
        #: The status the latest look gave (None before the first).
        self.status: HarvestStatus | None = None

    # -- entering ------------------------------------------------------------------------------

    async def __aenter__(self) -> Harvest:
        if self._entered:
            raise RuntimeError("a Harvest cannot be entered twice")
        self._entered = True
        held = (self.out / HARVEST_FILE).exists()
        if held and not self.resume:
            raise ConfigError(
                f"{self.out} holds a harvest ({HARVEST_FILE}): continue it with --resume, "
                "or give another --out"
            )
        if self.resume and not held:
            raise ConfigError(f"nothing to resume: {self.out} holds no {HARVEST_FILE}")
        self.out.mkdir(parents=True, exist_ok=True)
        self._repo = Repository.open(self.settings.storage.url, self.settings.storage)
        try:
            self._enrol(self._repo)
        except BaseException:
            await self.__aexit__(None, None, None)
            raise
        return self

    def _enrol(self, repo: Repository) -> None:
        store = HarvestStore(repo.engine, self.name)
        for spec, name in zip(self.specs, site_names(self.specs), strict=True):
            site = repo.site(spec.url)
            stored = store.site(site.id)
            row = store.enrol(
                site.id,
                name=stored.name if stored is not None else name,
                start_url=spec.url,
                options=spec.options(),
            )
            if row.state == "failed" or (row.state not in ENDED and self.resume):
                store.requeue(site.id)  # a resumed harvest tries its failed sites again
                row = store.site(site.id) or row
            self._sites.append(self._follow(repo, row, site))

    def _follow(self, repo: Repository, row: HarvestSiteRead, site: SiteRead) -> _Site:
        folder = self.out / row.name
        folder.mkdir(parents=True, exist_ok=True)
        state = CrawlState(repo, site.id)
        ctx = CrawlContext.create(row.start_url, self.settings, repo, site, state,
                                  limiter=HostLimiter(self.settings.politeness))  # fmt: skip
        ctx.stats.pages_delivered = delivered = state.count("delivered")
        sink: Sink = JsonlSink(folder / "pages.jsonl")
        if self.warc:
            sink = TeeSink(
                sink, WarcSink(folder / "pages.warc.gz", info={"isPartOf": row.start_url})
            )
        poller = DeliveryPoller(
            ctx, sink, full=lambda: False, poll_s=self.settings.crawl.deliver_poll_s
        )
        return _Site(row, ctx, sink, poller, SqlFrontier(repo.engine, site.id),
                     delivered_before=delivered, state=row.state)  # fmt: skip

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            self._stop_workers()
            for site in self._sites:
                site.sink.close()
        finally:
            if self._repo is not None:
                self._repo.close()

    # -- running -------------------------------------------------------------------------------

    async def run(self) -> HarvestStatus:
        """Run the harvest until every site has ended; its final status.

        Raises:
            StorageError: the database fails.
            OutputError: a site's output cannot be written.
            ConfigError: PostgreSQL without procrastinate installed.
        """
        repo = self._repo
        if repo is None:
            raise RuntimeError("use the Harvest inside 'async with'")
        if is_shared(repo.engine):
            await self._run_on_engine(repo)
        else:
            await self._run_in_process(repo)
        status = self._look()
        self._write(status)
        return status

    async def _run_in_process(self, repo: Repository) -> None:
        settings = self.settings
        runner = LocalRunner(sites=self.sites_at_once, fetches=self.fetches)
        limiter = HostLimiter(settings.politeness)  # one per host for every site
        # the fetchers close once every job's task has ended (the scope waits for them)
        async with SiteFetchers(settings, repo, limiter=limiter) as fetchers, supervised() as tasks:
            runner.start(WorkerRuntime(settings, repo, limiter, fetchers, runner), tasks)
            for site in self._pending():
                runner.defer_site(self.name, site.row.site_id)
            await self._follow_until_ended(lambda _site: None)
            tasks.stop_daemons()

    async def _run_on_engine(self, repo: Repository) -> None:
        from deepcrawl.harvest.engine import JobEngine

        heartbeat = self.settings.crawl.heartbeat_s
        async with JobEngine(self.settings.storage.url, repo.engine, heartbeat_s=heartbeat) as jobs:
            for site in self._pending():
                site.job = await jobs.defer_site(self.name, site.row.site_id)
            self._start_workers()
            await self._follow_until_ended(lambda site: self._check_job(jobs, site))

    def _mind_workers(self) -> None:
        """Start again each worker process started here that died (a signal, or an error
        status) while sites remain.

        The engine runs a dead worker's jobs again (its stalled-job sweep), but only on the
        workers left: a harvest that started ``workers`` processes keeps that many, as a process
        supervisor would. The new process registers new worker ids (never the dead one's).
        """
        for n, proc in enumerate(self._procs):
            code = proc.poll()
            # a worker ended on purpose (status 0: stopped by its user) is not replaced
            if code is None or code == 0 or self._restarts[n] >= _WORKER_RESTARTS:
                continue
            self._restarts[n] += 1
            logger.warning(
                "worker %d (pid %d) ended with status %d; starting it again (%d of %d)",
                n + 1, proc.pid, code, self._restarts[n], _WORKER_RESTARTS,
            )  # fmt: skip
            self._procs[n] = self._spawn_worker(n)

    def _pending(self) -> list[_Site]:
        return [site for site in self._sites if site.state not in ENDED]

    async def _check_job(self, jobs: JobEngine, site: _Site) -> None:
        """A site whose job the engine gave up (failed on every try) failed."""
        if site.job is None or site.state in ENDED:
            return
        status = await jobs.job_status(site.job)
        if status in _JOB_OVER:
            reason = site.row.reason or f"its job {status} (see the workers' logs)"
            HarvestStore(jobs.db, self.name).end(site.row.site_id, "failed", reason)

    async def _follow_until_ended(self, check: Callable[[_Site], object]) -> None:
        """Deliver, look and show until every site has ended and its pages are delivered."""
        store = HarvestStore(self._store_engine(), self.name)
        while True:
            rows = {row.site_id: row for row in store.sites()}
            for site in self._sites:
                if site.finished:
                    continue
                site.row = rows.get(site.row.site_id, site.row)
                site.state = site.row.state
                if site.state == "running" and site.began is None:
                    site.began = time.monotonic()
                awaited = check(site)
                if asyncio.iscoroutine(awaited):
                    await awaited
                await site.poller.poll()
                if site.state in ENDED and (site.state == "failed" or site.frontier.pending() == 0):
                    await site.poller.close(sweep=True)
                    site.finished = True
                    site.ended = time.monotonic()
            self._mind_workers()
            status = self._look()
            if time.monotonic() - self._written_at >= _WRITE_S:
                self._write(status)
            if all(site.finished for site in self._sites):
                return
            await asyncio.sleep(_TICK_S)

    def _store_engine(self) -> Engine:
        assert self._repo is not None
        return self._repo.engine

    # -- the status ----------------------------------------------------------------------------

    def _look(self) -> HarvestStatus:
        rows = []
        for site in self._sites:
            row, stats = site.row, site.ctx.stats
            figures = row.figures
            pending = 0 if site.finished else site.frontier.pending()
            state = site.state
            if state in ENDED and not site.finished:
                state = "finishing"
            until = site.ended or time.monotonic()
            active = until - site.began if site.began is not None else 0.0
            new = stats.pages_delivered - site.delivered_before
            rows.append(
                SiteStatus(
                    name=row.name,
                    url=row.start_url,
                    state=state,
                    reason=row.reason,
                    records=stats.pages_delivered,
                    estimate=figures.get("records_estimated"),
                    requests=row.requests,
                    rate=new / active if active > 0 else 0.0,
                    errors=site.ctx.state.count("failed"),
                    queries=int(figures.get("queries") or 0),
                    pending=pending,
                )
            )
        ended = all(site.finished for site in self._sites)
        where = (
            "in-process"
            if self._repo is None or not is_shared(self._repo.engine)
            else (f"{self.workers} worker processes started here (others may join)")
        )
        self.status = HarvestStatus(rows, time.monotonic() - self.started, where, ended=ended)
        if self.progress is not None:
            self.progress(self.status)
        return self.status

    def _write(self, status: HarvestStatus) -> None:
        self._written_at = time.monotonic()
        path = self.out / HARVEST_FILE
        temp = path.with_suffix(".json.tmp")
        try:
            temp.write_text(json.dumps(status.to_dict(), indent=2) + "\n")
            temp.replace(path)  # whole or not at all: a harvest killed here can be resumed
        except OSError as exc:
            raise OutputError(f"cannot write {path}: {exc}", written=status.records) from exc

    # -- worker processes ----------------------------------------------------------------------

    def _start_workers(self) -> None:
        """Start the ``deepcrawl worker`` processes this harvest runs on this machine."""
        self._procs = [self._spawn_worker(n) for n in range(self.workers)]
        self._restarts = [0] * self.workers

    def _spawn_worker(self, n: int) -> subprocess.Popen[bytes]:
        """Start worker process ``n`` (from 0), its output appended to ``OUT/worker-<n+1>.log``."""
        cmd = [
            sys.executable, "-m", "deepcrawl", *override_args(), "worker",
            "--db", self.settings.storage.url,
            "--sites", str(self.sites_at_once), "--concurrency", str(self.fetches),
        ]  # fmt: skip
        with (self.out / f"worker-{n + 1}.log").open("ab") as log:
            return subprocess.Popen(
                cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )

    def _stop_workers(self) -> None:
        """End the worker processes started here: SIGTERM (each ends its jobs, or gives them
        back to the queue), then SIGKILL after a grace period."""
        for proc in self._procs:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + _WORKER_GRACE_S
        for proc in self._procs:
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        self._procs.clear()


async def run_harvest(
    sites: Sequence[SiteSpec],
    settings: Settings,
    *,
    out: Path,
    resume: bool = False,
    warc: bool = False,
    workers: int = 1,
    sites_at_once: int = 2,
    fetches: int = 4,
    progress: Callable[[HarvestStatus], None] | None = None,
) -> HarvestStatus:
    """Harvest ``sites`` into ``out`` (arguments as :class:`Harvest`); the final status.

    Raises:
        ConfigError, StorageError, OutputError: see :class:`Harvest`.
    """
    async with Harvest(
        sites, settings, out=out, resume=resume, warc=warc, workers=workers,
        sites_at_once=sites_at_once, fetches=fetches, progress=progress,
    ) as harvest:  # fmt: skip
        return await harvest.run()
