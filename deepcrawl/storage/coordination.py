"""The database side of a ``deepcrawl crawl`` process: the query lock and its process row.

The work of many processes (fetch jobs, a harvest's site jobs) is the job queue's
(procrastinate: its workers' heartbeats, its locks, its retry of a dead worker's jobs). What
stays here is what a process that is *not* a job holds:

* :class:`QueryLock`: the right to run a site's query loop, a PostgreSQL session advisory lock.
  ``deepcrawl crawl`` runs its query loop in the user's own process (with the user at the
  terminal to label), not as a job, so the engine's job lock cannot hold it; a harvest's site
  job takes it too, so that a ``deepcrawl crawl`` of the same site and the job exclude each
  other;
* the ``crawl_worker`` row of a crawl process: registered (:func:`register_worker`), refreshed
  with its figures (:func:`record_heartbeat`) for ``deepcrawl status``, and listed
  (:func:`workers`). On SQLite the row is the process's claim on the site
  (:func:`deepcrawl.storage.claims.claim_site`): SQLite has no job queue and no session lock.

When to beat, and what a crawl does with a refused lock or claim, is the crawler's
(``deepcrawl.crawler.coordination``).
"""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select

from deepcrawl.storage import tables as t
from deepcrawl.storage.engine import is_shared
from deepcrawl.storage.guard import StorageGuard

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection, Engine

__all__ = [
    "SILENT_BEATS",
    "QueryLock",
    "heard_since",
    "record_heartbeat",
    "register_worker",
    "workers",
]

#: Heartbeats a running crawl process may miss before ``deepcrawl status`` shows it ``dead`` (and,
#: on SQLite, before its claim on the site is taken over).
SILENT_BEATS = 3

#: First key of the advisory lock held by the process running a site's query loop (the second
#: is the site id); distinct from the frontier's lease lock.
_QUERY_LOCK = 0x6463_0002


class QueryLock:
    """The right to run a site's query loop: a PostgreSQL session advisory lock.

    The lock lives as long as the connection that took it, so a process killed by SIGKILL
    releases it when the server notices the closed socket. On other databases it is always
    granted (one process per crawl).
    """

    def __init__(self, engine: Engine, site_id: int) -> None:
        self.engine = engine
        self.site_id = site_id
        self._conn: Connection | None = None
        #: Whether this is a real lock (PostgreSQL); elsewhere it is always granted.
        self.shared = is_shared(engine)

    def _try(self, conn: Connection) -> bool:
        stmt = sa.select(sa.func.pg_try_advisory_lock(_QUERY_LOCK, self.site_id))
        return bool(conn.execute(stmt).scalar())

    def acquire(self) -> bool:
        """Take the lock if it is free; True when this process holds it now."""
        if not self.shared or self._conn is not None:
            return True
        with StorageGuard.of(self.engine, f"take the query lock of site {self.site_id}"):
            conn = self.engine.connect()
            if self._try(conn):
                conn.commit()
                self._conn = conn
                return True
            conn.close()
        return False

    def release(self) -> None:
        """Give the lock back.

        Unlocked explicitly: closing the connection only returns it to the engine's pool, where
        a session lock lives on.
        """
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            conn.execute(sa.select(sa.func.pg_advisory_unlock(_QUERY_LOCK, self.site_id)))
            conn.commit()
        except SQLAlchemyError:
            conn.invalidate()  # the server session goes, and its lock with it
        with contextlib.suppress(SQLAlchemyError):
            conn.close()

    def held_elsewhere(self) -> bool:
        """Whether another process holds the lock (is running the query loop) right now.

        Read from ``pg_locks`` without taking the lock: a probe that took and released it
        would, for that instant, make a ``deepcrawl crawl`` starting (or taking over) at the
        same moment believe the site is being crawled, and refuse to run.
        """
        if not self.shared or self._conn is not None:
            return False
        # a two-key advisory lock shows its keys as classid and objid, with objsubid 2
        stmt = sa.text(
            "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted"
            " AND objsubid = 2 AND classid = CAST(:k1 AS oid) AND objid = CAST(:k2 AS oid)"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))"
        )
        with (
            StorageGuard.of(self.engine, f"read the query lock of site {self.site_id}"),
            self.engine.connect() as conn,
        ):
            return bool(conn.execute(stmt, {"k1": _QUERY_LOCK, "k2": self.site_id}).scalar())


def register_worker(engine: Engine, site_id: int, *, name: str, role: str) -> int:
    """Insert a running ``crawl_worker`` row for process ``name`` (``hostname:pid``) in
    ``role`` (``crawl``); its id."""
    with (
        StorageGuard.of(engine, "register this worker"),
        Session(engine, expire_on_commit=False) as s,
    ):
        row = t.Worker(site_id=site_id, name=name, role=role)
        s.add(row)
        s.commit()
        assert row.id is not None
        return row.id


def record_heartbeat(
    engine: Engine, worker_id: int, *, state: str, pages: int, errors: int, figures: dict[str, Any]
) -> None:
    """Refresh a ``crawl_worker`` row: its state, its figures, and the time it was heard of."""
    stmt = (
        sa.update(t.Worker)
        .where(col(t.Worker.id) == worker_id)
        .values(state=state, pages=pages, errors=errors, figures=figures, seen_at=datetime.now(UTC))
    )
    with StorageGuard.of(engine, "record this worker's heartbeat"), engine.begin() as conn:
        conn.execute(stmt)


def workers(engine: Engine, site_id: int) -> list[t.WorkerRead]:
    """Every process that worked on the site's crawl, the latest first."""
    stmt = select(t.Worker).where(t.Worker.site_id == site_id).order_by(col(t.Worker.id).desc())
    with StorageGuard.of(engine, f"list the workers of site {site_id}"), Session(engine) as s:
        return [t.WorkerRead.model_validate(r) for r in s.exec(stmt).all()]


def heard_since(heartbeat_s: float, now: datetime | None = None) -> datetime:
    """The time a process's last heartbeat must be after for it to count as alive: it is
    judged dead once silent for :data:`SILENT_BEATS` heartbeats of ``heartbeat_s`` seconds."""
    return (now or datetime.now(UTC)) - timedelta(seconds=SILENT_BEATS * heartbeat_s)
