"""The database side of many processes on one crawl: the query lock and the process rows.

A crawl on PostgreSQL is shared by one ``deepcrawl crawl`` process and any number of ``deepcrawl
worker`` processes; the database is their only coordinator. This module holds what it stores:

* :class:`QueryLock`: the right to run a site's query loop, a PostgreSQL session advisory lock;
* the ``crawl_worker`` rows: every process registers one (:func:`register_worker`), refreshes it
  with its figures (:func:`record_heartbeat`), and is listed (:func:`workers`) or counted as a
  live peer (:func:`live_peers`) from it. On SQLite the row is the process's claim on the site
  (:func:`deepcrawl.storage.claims.claim_site`).

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
    "dead_workers",
    "heard_since",
    "live_peers",
    "record_heartbeat",
    "register_worker",
    "workers",
]

#: Heartbeats a running process may miss before it is judged dead: ``deepcrawl status`` shows it
#: ``dead``, it is no live peer, and the leases it holds go back to the frontier.
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
    ``role`` (``crawl`` or ``worker``); its id."""
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


def dead_workers(
    site_id: int, heartbeat_s: float, now: datetime | None = None, *, me: int | None = None
) -> sa.Select[Any]:
    """The ids of the site's processes judged dead, as a subquery: ended (no longer
    ``running``: a process that ended has given its leases back, so any it still holds are
    stale) or silent for :data:`SILENT_BEATS` heartbeats — the rule ``deepcrawl status``
    shows. ``me`` (this process's row) is never among them: a process that asks is alive."""
    c = t.Worker.__table__.c  # type: ignore[attr-defined]
    return sa.select(c.id).where(
        c.site_id == site_id,
        c.id != (me or 0),
        sa.or_(c.state != "running", c.seen_at < heard_since(heartbeat_s, now)),
    )


def live_peers(engine: Engine, site_id: int, heartbeat_s: float, *, me: int | None) -> int:
    """Processes other than ``me`` (a worker row id) heard of within :data:`SILENT_BEATS`
    heartbeats."""
    since = heard_since(heartbeat_s)
    stmt = select(sa.func.count()).where(
        t.Worker.site_id == site_id,
        t.Worker.state == "running",
        col(t.Worker.seen_at) >= since,
        col(t.Worker.id) != (me or 0),
    )
    with (
        StorageGuard.of(engine, f"count the live workers of site {site_id}"),
        Session(engine) as s,
    ):
        return int(s.exec(stmt).one())
