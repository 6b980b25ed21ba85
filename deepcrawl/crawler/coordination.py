"""Many processes, one crawl: who queries, and how far the crawl has come.

A crawl on PostgreSQL is shared by the process running its query loop (``deepcrawl crawl``, or
a harvest's site job) and the fetch jobs any ``deepcrawl worker`` runs, on any machine. Which
process runs which job, and what becomes of the jobs of a process that died, is the job queue's
(:mod:`deepcrawl.crawler.dispatch`); what stays here:

* **the query loop** runs only in the process holding the site's PostgreSQL advisory lock
  (:class:`~deepcrawl.storage.coordination.QueryLock`), so two processes never submit the same
  query. ``deepcrawl crawl`` runs it in the user's process, not as a job, so the job queue's
  lock cannot hold it: the crawl takes the advisory lock for the whole run and refuses to start
  while another process holds it; when that process dies the lock goes with its connection, and
  running ``deepcrawl crawl`` again takes over by replaying the stored queries (what a resumed
  crawl does).
* **the crawl's figures**: the query loop's process has a ``crawl_worker`` row
  (:class:`Heartbeat`) it refreshes every ``crawl.heartbeat_s`` with its figures; ``deepcrawl
  status`` shows it, ``dead`` once silent for three heartbeats.

On SQLite one process crawls a site: its ``crawl_worker`` row is its claim
(:func:`deepcrawl.storage.claims.claim_site`), and a second ``deepcrawl crawl`` of the same site
is refused while the first lives — its heartbeat is recent and, on this host, its process
exists. A crashed process's claim is taken over. SQLite has no job queue and no session lock:
that is why the claim and its heartbeat are deepcrawl's own.

The rows and the lock are stored by :mod:`deepcrawl.storage.coordination`; this module decides
when to beat, whose process is alive, and what the crawl's state is.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Self

import psutil

from deepcrawl.errors import ConfigError, StorageError
from deepcrawl.storage.claims import claim_site
from deepcrawl.storage.coordination import (
    QueryLock,
    heard_since,
    record_heartbeat,
    register_worker,
    workers,
)
from deepcrawl.storage.frontier import SqlFrontier
from deepcrawl.storage.state import CrawlState

if TYPE_CHECKING:
    from deepcrawl.crawler.context import CrawlContext, CrawlStats
    from deepcrawl.storage import Engine, Repository
    from deepcrawl.storage import tables as t
    from deepcrawl.storage.frontier import FrontierCounts

__all__ = [
    "CrawlSeat",
    "CrawlStatus",
    "Heartbeat",
    "crawl_status",
    "process_alive",
    "process_name",
]


def process_name() -> str:
    """``hostname:pid`` of this process: how status and the heartbeat table name it."""
    return f"{socket.gethostname()}:{os.getpid()}"


def process_alive(row: t.WorkerRead) -> bool:
    """Whether the process of a ``crawl_worker`` row may still run.

    On this host, its pid must name a live process started before the row (a pid reused since
    — this very process's, in a container — is a new process); on another host only the
    heartbeat can tell, and the process counts as alive.
    """
    host, _, pid = row.name.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return True
    try:
        proc = psutil.Process(int(pid))
        if proc.status() == psutil.STATUS_ZOMBIE:
            return False
        started = float(proc.create_time())
    except psutil.Error:
        return False
    return started <= _aware(row.started_at).timestamp() + 1.0


class Heartbeat:
    """This process's ``crawl_worker`` row, refreshed in the background while the crawl runs.

    :meth:`register` inserts the row; :meth:`run` beats until cancelled, as a task of the
    crawl's supervised scope (a database failure of the heartbeat stops the crawl like any
    other); :meth:`stop` records the final state: ``done`` on a clean end, ``stopped`` on an
    error or an interruption.

    Args:
        engine: the crawl's engine.
        site_id: the site.
        role: ``crawl`` (the process of the query loop).
        stats: the figures to record (pages fetched, errors).
        every_s: seconds between two heartbeats.
    """

    def __init__(
        self, engine: Engine, site_id: int, role: str, stats: CrawlStats, *, every_s: float
    ) -> None:
        self.engine = engine
        self.site_id = site_id
        self.role = role
        self.stats = stats
        self.every_s = every_s
        self.id: int | None = None

    def register(self, *, exclusive: bool = False) -> None:
        """Insert this process's row.

        Args:
            exclusive: claim the site for this process's role (:func:`~deepcrawl.storage.claims
                .claim_site`; the lock of a crawl on SQLite).

        Raises:
            ConfigError: ``exclusive``, and another live process holds the site.
            StorageError: the database fails.
        """
        if exclusive:
            stale = heard_since(self.every_s)
            claim = claim_site(
                self.engine,
                self.site_id,
                name=process_name(),
                role=self.role,
                stale_before=stale,
                alive=process_alive,
            )
            if claim.holder is not None:
                seen = (datetime.now(UTC) - _aware(claim.holder.seen_at)).total_seconds()
                raise ConfigError(
                    f"another process ({claim.holder.name}, heard of {max(0.0, seen):.0f} s "
                    "ago) is crawling this site in this database: wait for it to end, or stop "
                    "it (one process crawls a site on SQLite)"
                )
            self.id = claim.worker_id
            return
        self.id = register_worker(self.engine, self.site_id, name=process_name(), role=self.role)

    def beat(self, state: str = "running") -> None:
        """Record that this process is alive, with its figures."""
        if self.id is None:
            return
        record_heartbeat(
            self.engine,
            self.id,
            state=state,
            pages=self.stats.pages_fetched,
            errors=self.stats.errors,
            figures=self.stats.to_dict(),
        )

    async def run(self) -> None:
        """Beat every ``every_s`` seconds until cancelled."""
        while True:
            await asyncio.sleep(self.every_s)
            self.beat()

    def stop(self, state: str) -> None:
        """Record the final state (``done``, ``stopped``; a crawl's: how it ended)."""
        with contextlib.suppress(StorageError):
            self.beat(state)


class CrawlSeat:
    """What the ``deepcrawl crawl`` process holds while it runs: the query lock and a heartbeat.

    Raises (from :meth:`take`):
        ConfigError: another process holds the site's query lock (it is crawling the site).
    """

    def __init__(self, lock: QueryLock, heartbeat: Heartbeat) -> None:
        self.lock = lock
        self.heartbeat = heartbeat

    @classmethod
    def take(cls, ctx: CrawlContext) -> Self:
        """Take the site's query lock and register this process (the crawl runs the heartbeat,
        :meth:`Heartbeat.run`, in its supervised scope)."""
        engine, site_id = ctx.repo.engine, ctx.site.id
        lock = QueryLock(engine, site_id)
        if not lock.acquire():
            raise ConfigError(
                f"another process is crawling {ctx.start_url} (it holds the query lock): "
                "join it with 'deepcrawl worker', or run this again once it has stopped"
            )
        every = ctx.settings.crawl.heartbeat_s
        heartbeat = Heartbeat(engine, site_id, "crawl", ctx.stats, every_s=every)
        try:
            # on PostgreSQL the query lock keeps out a second crawl; elsewhere the row does
            heartbeat.register(exclusive=not lock.shared)
        except BaseException:
            lock.release()
            raise
        return cls(lock, heartbeat)

    def leave(self, state: str) -> None:
        """Record the final state (how the crawl ended: ``done``, ``max_pages``,
        ``needs_labels``, or ``stopped`` by an error) and give the query lock back."""
        try:
            self.heartbeat.stop(state)
        finally:
            self.lock.release()


@dataclass(frozen=True, slots=True)
class CrawlStatus:
    """Progress of one site's crawl over all its processes (what ``deepcrawl status`` shows).

    ``records_reached`` and ``records_estimated`` come from the query loop's process (its last
    heartbeat); the rest is counted in the database.
    """

    site: t.SiteRead
    state: str
    """Where the crawl stands: ``not started``, ``running``, ``dead`` (its process vanished
    without a word: run it again to continue), ``stopped`` (interrupted or failed),
    ``needs labels`` (the setup phase is done and no prototype is labelled relevant),
    ``labelled`` (labels were given since: resume it), ``max pages`` or ``done``."""
    queries: int
    records_reached: int | None
    records_estimated: float | None
    frontier: FrontierCounts
    pages: int
    delivered: int
    failed: int
    workers: list[t.WorkerRead]
    alive: frozenset[int]
    """Ids of the workers heard of within three heartbeats."""


def crawl_status(repo: Repository, site: t.SiteRead, *, heartbeat_s: float) -> CrawlStatus:
    """Count one site's crawl: queries, frontier states, pages, deliveries, processes."""
    state = CrawlState(repo, site.id)
    queries = state.count("queries")
    found = workers(repo.engine, site.id)
    since = heard_since(heartbeat_s)
    alive = frozenset(w.id for w in found if w.state == "running" and _aware(w.seen_at) >= since)
    crawler = next((w for w in found if w.role == "crawl"), None)
    figures = crawler.figures if crawler is not None else {}
    labelled = any(label.relevant for label in repo.labels(site.id))
    return CrawlStatus(
        site=site,
        state=_state(crawler, alive, labelled=labelled),
        queries=queries,
        records_reached=figures.get("records_reached"),
        records_estimated=figures.get("records_estimated"),
        frontier=SqlFrontier(repo.engine, site.id).counts(),
        pages=state.count("records"),
        delivered=state.count("delivered"),
        failed=state.count("failed"),
        workers=found,
        alive=alive,
    )


def _state(crawler: t.WorkerRead | None, alive: frozenset[int], *, labelled: bool) -> str:
    """The crawl's state from its crawl process's row (see :attr:`CrawlStatus.state`)."""
    if crawler is None:
        return "not started"
    if crawler.state == "running":
        return "running" if crawler.id in alive else "dead"
    # a crawl that stopped for labels before its process recorded it did so reads "done"
    if crawler.state in ("needs_labels", "done") and not labelled:
        return "needs labels"
    if crawler.state == "needs_labels":
        return "labelled"
    return crawler.state.replace("_", " ")


def _aware(when: datetime) -> datetime:
    # SQLite (and PostgreSQL's plain TIMESTAMP) hand back naive datetimes: they were written in UTC
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)
