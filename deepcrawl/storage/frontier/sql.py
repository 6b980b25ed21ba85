"""The frontier in the crawl's SQL database: SQLite or PostgreSQL.

What stays here rather than in the job queue that runs the fetches (procrastinate): a site's
URLs deduplicated by their normal form, each fetched once however many links, queries, jobs and
processes name it, in priority order. A job queue deduplicates queued *jobs* by a lock string,
not the URLs inside a batch, and forgets a job once it has run; the frontier remembers every URL
ever seen, so a link met again in the thousandth page is dropped by a unique key.

Two ways of handing URLs out:

* :meth:`SqlFrontier.lease` — one process fetching alone (``deepcrawl crawl`` with no job
  queue) leases ready URLs in priority order; a lease that expires makes its URL ready again;
* dispatch — the URLs go to fetch jobs (:meth:`SqlFrontier.dispatchable`, then
  :meth:`SqlFrontier.assign` names the job holding them). A URL held by a job that is no
  longer live (its process died, the engine gave it up) is found by :meth:`SqlFrontier.held`
  and queued again (:meth:`SqlFrontier.release`) by the process dispatching: the job queue's
  own retry of a dead worker's jobs (its stalled-job sweep) does the rest.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, select

from deepcrawl.errors import StorageError
from deepcrawl.storage.frontier.base import Frontier, FrontierCounts, Lease, NewURL
from deepcrawl.storage.guard import StorageGuard
from deepcrawl.storage.tables import FrontierEntry

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from sqlalchemy.engine import Engine

__all__ = ["SqlFrontier"]

#: The frontier's table, for Core statements.
_TABLE: sa.Table = FrontierEntry.__table__  # type: ignore[attr-defined]


class SqlFrontier(Frontier):
    """The frontier of one site, in the crawl's SQL database (SQLite or PostgreSQL).

    Every operation reads a bounded number of rows whatever the frontier's size: ``lease`` and
    ``dispatchable`` walk the lease index (site, state, priority descending, id) from its
    start, expired leases are found among the leased rows only, ``add`` is one batched insert
    that lets the unique key drop known URLs.

    Args:
        engine: the crawl's engine (``Repository.engine``); the table is created with the schema.
        site_id: the site whose frontier this is.
    """

    def __init__(self, engine: Engine, site_id: int) -> None:
        self.engine = engine
        self.site_id = site_id
        self._dialect = engine.dialect.name
        # The statements of every lease and settlement (once or twice per page fetched),
        # built once with bound parameters: building one cost more than running it.
        c = _TABLE.c
        mine = c.site_id == self.site_id
        self._pick = (
            sa.select(c.id, c.url, c.host, c.priority, c.depth, c.attempts, c.source)
            .where(mine, c.state == "queued", c.ready_at <= sa.bindparam("now"))
            .order_by(c.priority.desc(), c.id)
            .limit(sa.bindparam("n"))
        )
        self._take = (
            sa.update(_TABLE)
            .where(c.id.in_(sa.bindparam("ids", expanding=True)), c.state == "queued")
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

    @staticmethod
    def _lease(row: Any, *, taken: bool) -> Lease:
        # a lease taken counts as an attempt (an expired one too: its process died)
        attempts = row.attempts + 1 if taken else row.attempts
        return Lease(row.id, row.url, row.priority, row.depth, attempts, row.source)

    def lease(self, n: int, *, lease_s: float = 300.0) -> list[Lease]:
        """Lease up to ``n`` ready URLs to this process (one process fetching alone)."""
        now = datetime.now(UTC)
        until = now + timedelta(seconds=lease_s)
        with self._guard("lease URLs from the frontier"), self.engine.begin() as conn:
            rows = list(conn.execute(self._pick, {"now": now, "n": n}).all())
            if len(rows) < n and self._reclaim(conn, now):
                rows = list(conn.execute(self._pick, {"now": now, "n": n}).all())
            if rows:
                taken = {"ids": [r.id for r in rows], "until": until, "holder": None}
                conn.execute(self._take, taken)
        return [self._lease(r, taken=True) for r in rows]

    def _reclaim(self, conn: sa.Connection, now: datetime) -> int:
        """Queue again, ready at once, the leases of this process that expired; how many (a
        lease call does it when it finds fewer ready URLs than asked)."""
        c = _TABLE.c
        stmt = (
            sa.update(_TABLE)
            .where(
                c.site_id == self.site_id,
                c.state == "leased",
                c.holder.is_(None),
                c.ready_at <= now,
            )
            .values(state="queued", ready_at=now)
        )
        return int(conn.execute(stmt).rowcount or 0)

    # -- dispatch to fetch jobs ----------------------------------------------------------------

    def dispatchable(self, n: int) -> list[Lease]:
        """Up to ``n`` ready URLs in priority order, not yet given to a job (nothing changes:
        :meth:`assign` names their job once it is queued)."""
        with self._guard("read the frontier's ready URLs"), self.engine.connect() as conn:
            rows = conn.execute(self._pick, {"now": datetime.now(UTC), "n": n}).all()
        return [self._lease(r, taken=False) for r in rows]

    def assign(self, ids: Sequence[int], holder: int) -> int:
        """Mark the URLs ``ids`` held by the fetch job ``holder``; those settled meanwhile (the
        job may have run already) stay as they are. How many were marked."""
        if not ids:
            return 0
        far = datetime.now(UTC) + timedelta(days=3650)  # a job's hold has no deadline
        with self._guard(f"give {len(ids)} URLs to fetch job {holder}"), self.engine.begin() as c:
            found = c.execute(self._take, {"ids": list(ids), "until": far, "holder": holder})
            return int(found.rowcount or 0)

    def held(self) -> dict[int, list[int]]:
        """The URLs held by fetch jobs, by job: ``{job id: [URL ids]}`` (the leased rows
        only, through the lease index's (site, state) prefix)."""
        c = _TABLE.c
        stmt = sa.select(c.id, c.holder).where(
            c.site_id == self.site_id, c.state == "leased", c.holder.is_not(None)
        )
        found: dict[int, list[int]] = {}
        with self._guard("read the frontier's dispatched URLs"), self.engine.connect() as conn:
            for row in conn.execute(stmt):
                found.setdefault(int(row.holder), []).append(int(row.id))
        return found

    def release(self, ids: Sequence[int]) -> int:
        """Queue the URLs ``ids`` again, ready at once (their job is no longer live), unless
        they were settled meanwhile; how many."""
        if not ids:
            return 0
        c = _TABLE.c
        stmt = (
            sa.update(_TABLE)
            .where(c.id.in_(list(ids)), c.state == "leased")
            .values(state="queued", ready_at=datetime.now(UTC), holder=None)
        )
        with self._guard(f"queue {len(ids)} URLs again"), self.engine.begin() as conn:
            return int(conn.execute(stmt).rowcount or 0)

    def leases_of(self, ids: Iterable[int]) -> list[Lease]:
        """The URLs ``ids`` not settled yet, as leases (what a fetch job fetches: a URL done
        or failed by an earlier run of the job is left out), in the order given."""
        wanted = list(ids)
        if not wanted:
            return []
        c = _TABLE.c
        stmt = sa.select(c.id, c.url, c.priority, c.depth, c.attempts, c.source).where(
            c.site_id == self.site_id, c.id.in_(wanted), c.state.in_(("queued", "leased"))
        )
        with self._guard("read a fetch job's URLs"), self.engine.connect() as conn:
            rows = {row.id: row for row in conn.execute(stmt)}
        return [self._lease(rows[i], taken=False) for i in wanted if i in rows]

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
