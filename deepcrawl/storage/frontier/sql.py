"""The frontier in the crawl's SQL database: SQLite for one process, PostgreSQL for many.

On PostgreSQL many processes lease from one frontier: ``SELECT … FOR UPDATE SKIP LOCKED`` under
the site's advisory transaction lock. State survives the process, so a crawl resumed from the
same database continues where it stopped.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, select

from deepcrawl.errors import StorageError
from deepcrawl.storage.coordination import dead_workers
from deepcrawl.storage.frontier.base import Frontier, FrontierCounts, Lease, NewURL
from deepcrawl.storage.guard import StorageGuard
from deepcrawl.storage.tables import FrontierEntry

if TYPE_CHECKING:
    from collections.abc import Iterable

    from sqlalchemy.engine import Connection, Engine

__all__ = ["SqlFrontier"]

#: The frontier's table, for Core statements.
_TABLE: sa.Table = FrontierEntry.__table__  # type: ignore[attr-defined]

#: First key of the PostgreSQL advisory lock that serialises one site's lease transactions
#: (the second is the site id).
_LEASE_LOCK = 0x6463_0001

#: Seconds between two looks for expired leases by one frontier object.
_RECLAIM_S = 1.0


class SqlFrontier(Frontier):
    """The frontier of one site, in the crawl's SQL database (SQLite or PostgreSQL).

    Every operation reads a bounded number of rows whatever the frontier's size: ``lease`` walks
    the lease index (site, state, priority descending, id) from its start, expired leases are
    found among the leased rows only, ``add`` is one batched insert that lets the unique key
    drop known URLs. On PostgreSQL many processes share the frontier: a lease transaction takes
    the site's advisory transaction lock (so the per-host count of live leases it checks cannot
    change under it) and reads its rows ``FOR UPDATE SKIP LOCKED``. On SQLite one process leases.

    Args:
        engine: the crawl's engine (``Repository.engine``); the table is created with the schema.
        site_id: the site whose frontier this is.
        host_cap: at most this many live leases per host, over every process sharing the
            frontier (the politeness setting ``concurrency_per_host``); None: no cap. A lease
            whose best candidates are of full hosts hands out fewer URLs rather than scanning
            for other hosts' (a site's frontier is mostly one host).
        holder: this process's ``crawl_worker`` row, written on each lease it takes.
        heartbeat_s: the crawl's heartbeat (``crawl.heartbeat_s``): the leases of a process
            judged dead by it (:func:`~deepcrawl.storage.coordination.dead_workers`) come back
            at once, not when they expire. None: leases come back when they expire only.
    """

    def __init__(
        self,
        engine: Engine,
        site_id: int,
        *,
        host_cap: int | None = None,
        holder: int | None = None,
        heartbeat_s: float | None = None,
    ) -> None:
        self.engine = engine
        self.site_id = site_id
        self.host_cap = host_cap
        self.holder = holder
        self.heartbeat_s = heartbeat_s
        self._dialect = engine.dialect.name
        self._reclaim_at = 0.0
        # The statements of every lease and settlement (once or twice per page fetched),
        # built once with bound parameters: building one cost more than running it.
        c = _TABLE.c
        mine = c.site_id == self.site_id
        pick = (
            sa.select(c.id, c.url, c.host, c.priority, c.depth, c.attempts, c.source)
            .where(mine, c.state == "queued", c.ready_at <= sa.bindparam("now"))
            .order_by(c.priority.desc(), c.id)
            .limit(sa.bindparam("n"))
        )
        self._live = (
            sa.select(c.host, sa.func.count()).where(mine, c.state == "leased").group_by(c.host)
        )
        if host_cap is not None:
            # the hosts at their cap left out by the pick itself: a single lease needs no
            # second statement, and a host at its cap holds up no other host's URLs
            full = self._live.with_only_columns(c.host).having(sa.func.count() >= host_cap)
            pick = pick.where(c.host.not_in(full))
        if self._dialect == "postgresql":
            pick = pick.with_for_update(skip_locked=True)
        self._pick = pick
        self._take = (
            sa.update(_TABLE)
            .where(c.id.in_(sa.bindparam("ids", expanding=True)))
            .values(
                state="leased",
                ready_at=sa.bindparam("until"),
                attempts=c.attempts + 1,
                holder=sa.bindparam("holder"),
            )
        )
        #: Sets the values it is run with on the entry ``lease_id``.
        self._settle_stmt = sa.update(_TABLE).where(c.id == sa.bindparam("lease_id"))

    def _guard(self, operation: str) -> StorageGuard:
        return StorageGuard.of(self.engine, operation)

    def _insert(self) -> sqlite.Insert | postgresql.Insert:
        if self._dialect == "postgresql":
            return postgresql.insert(_TABLE)
        if self._dialect == "sqlite":
            return sqlite.insert(_TABLE)
        raise StorageError(f"the frontier supports SQLite and PostgreSQL, not {self._dialect}")

    def add(self, urls: Iterable[NewURL]) -> int:
        now = datetime.now(UTC)
        rows = {
            u.url: {
                "site_id": self.site_id,
                "url": u.url,
                "host": urlsplit(u.url).hostname or "",
                "priority": u.priority,
                "depth": u.depth,
                "source": u.source[:512],
                "state": "queued",
                "ready_at": now,
                "attempts": 0,
                "added_at": now,
            }
            for u in urls
        }
        if not rows:
            return 0
        stmt = (
            self._insert()
            .on_conflict_do_nothing(index_elements=["site_id", "url"])
            .returning(_TABLE.c.id)
        )
        added = 0
        with self._guard("add URLs to the frontier"), self.engine.begin() as conn:
            batch = list(rows.values())
            for start in range(0, len(batch), 500):
                # RETURNING counts the rows really inserted, on every backend.
                added += len(conn.execute(stmt, batch[start : start + 500]).all())
        return added

    def lease(self, n: int, *, lease_s: float = 300.0) -> list[Lease]:
        now = datetime.now(UTC)
        until = now + timedelta(seconds=lease_s)
        asked = {"now": now, "n": n}
        with self._guard("lease URLs from the frontier"), self.engine.begin() as conn:
            if self._dialect == "postgresql":
                conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_LEASE_LOCK, self.site_id)))
            rows = list(conn.execute(self._pick, asked).all())
            if (len(rows) < n or time.monotonic() >= self._reclaim_at) and self._reclaim(conn, now):
                rows = list(conn.execute(self._pick, asked).all())
            if len(rows) > 1:  # several of one host may pass its cap between them
                rows = self._within_host_cap(conn, rows)
            if rows:
                taken = {"ids": [r.id for r in rows], "until": until, "holder": self.holder}
                conn.execute(self._take, taken)
        # An expired lease (a dead worker) counts as an attempt.
        return [Lease(r.id, r.url, r.priority, r.depth, r.attempts + 1, r.source) for r in rows]

    def _reclaim(self, conn: Connection, now: datetime) -> int:
        """Queue again, ready at once, the leases that expired and those of a process judged
        dead (silent for three heartbeats, or ended); how many.

        Only leased rows are read, through the lease index's (site, state) prefix. A lease call
        does it when it finds fewer ready URLs than asked, and else once a second: leases last
        minutes, and the round trip would double a lease's cost.
        """
        self._reclaim_at = time.monotonic() + _RECLAIM_S
        c = _TABLE.c
        stale = c.ready_at <= now
        if self.heartbeat_s is not None:
            dead = dead_workers(self.site_id, self.heartbeat_s, now, me=self.holder)
            stale = sa.or_(stale, c.holder.in_(dead.scalar_subquery()))
        stmt = (
            sa.update(_TABLE)
            .where(c.site_id == self.site_id, c.state == "leased", stale)
            .values(state="queued", ready_at=now, holder=None)
        )
        return int(conn.execute(stmt).rowcount or 0)

    def _within_host_cap(self, conn: Connection, rows: list[Any]) -> list[Any]:
        if self.host_cap is None or not rows:
            return rows
        live: dict[str, int] = dict(conn.execute(self._live).all())
        kept = []
        for row in rows:
            if live.get(row.host, 0) < self.host_cap:
                live[row.host] = live.get(row.host, 0) + 1
                kept.append(row)
        return kept

    def _settle(self, lease_id: int, **values: object) -> None:
        with self._guard(f"update frontier entry {lease_id}"), self.engine.begin() as conn:
            conn.execute(self._settle_stmt, {"lease_id": lease_id, **values})

    def complete(self, lease_id: int) -> None:
        self._settle(lease_id, state="done")

    def complete_many(self, lease_ids: Iterable[int]) -> None:
        rows = [{"lease_id": i, "state": "done"} for i in lease_ids]
        if not rows:
            return
        with self._guard(f"settle {len(rows)} frontier entries"), self.engine.begin() as conn:
            conn.execute(self._settle_stmt, rows)

    def fail(self, lease_id: int, reason: str) -> None:
        self._settle(lease_id, state="failed", error=reason[:2000])

    def retry(self, lease_id: int, *, after_s: float) -> None:
        ready_at = datetime.now(UTC) + timedelta(seconds=after_s)
        self._settle(lease_id, state="queued", ready_at=ready_at)

    def counts(self) -> FrontierCounts:
        stmt = (
            select(FrontierEntry.state, sa.func.count())
            .where(FrontierEntry.site_id == self.site_id)
            .group_by(FrontierEntry.state)
        )
        with self._guard("count the frontier"), Session(self.engine) as session:
            found = {state: int(count) for state, count in session.exec(stmt).all()}
        return FrontierCounts(**found)

    def seen(self, url: str) -> bool:
        stmt = select(FrontierEntry.id).where(
            FrontierEntry.site_id == self.site_id, FrontierEntry.url == url
        )
        with self._guard("look up a frontier URL"), Session(self.engine) as session:
            return session.exec(stmt).first() is not None

    def requeue(self, urls: Iterable[NewURL]) -> int:
        # A queued row is deleted and inserted anew: the lease order breaks ties by id, so the
        # new id puts it behind the rows of equal priority. A queued row has no live lease.
        wanted = {u.url: u for u in urls}
        if not wanted:
            return 0
        c = _TABLE.c
        keys = list(wanted)
        kept = (c.url, c.host, c.depth, c.source, c.ready_at, c.attempts, c.error, c.added_at)
        now = datetime.now(UTC)
        with self._guard("requeue URLs of the frontier"), self.engine.begin() as conn:
            if self._dialect == "postgresql":  # no lease transaction sees the rows vanish
                conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_LEASE_LOCK, self.site_id)))
            old: dict[str, Any] = {}
            for start in range(0, len(keys), 500):
                drop = (
                    sa.delete(_TABLE)
                    .where(c.site_id == self.site_id, c.state == "queued")
                    .where(c.url.in_(keys[start : start + 500]))
                    .returning(*kept)
                )
                old.update((row.url, row) for row in conn.execute(drop).all())
            rows = []
            for u in wanted.values():
                was = old.get(u.url)
                row = {
                    "site_id": self.site_id,
                    "url": u.url,
                    "priority": u.priority,
                    "state": "queued",
                }
                if was is None:
                    row |= {
                        "host": urlsplit(u.url).hostname or "",
                        "depth": u.depth,
                        "source": u.source[:512],
                        "ready_at": now,
                        "attempts": 0,
                        "error": None,
                        "added_at": now,
                    }
                else:
                    row |= {name: getattr(was, name) for name in was._fields if name != "url"}
                rows.append(row)
            stmt = (
                self._insert()
                .on_conflict_do_nothing(index_elements=["site_id", "url"])
                .returning(c.id)
            )
            queued = 0
            for start in range(0, len(rows), 500):
                queued += len(conn.execute(stmt, rows[start : start + 500]).all())
        return queued

    def pending(self) -> int:
        # two ranges of the lease index: the cost follows the pending URLs, not the done ones
        c = _TABLE.c
        stmt = sa.select(sa.func.count()).where(
            c.site_id == self.site_id, c.state.in_(("queued", "leased"))
        )
        with self._guard("count the frontier"), self.engine.connect() as conn:
            return int(conn.execute(stmt).scalar() or 0)
