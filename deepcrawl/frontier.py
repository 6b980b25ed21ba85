"""The frontier: URLs waiting to be fetched, deduplicated, prioritised, leased to workers.

Contract (:class:`Frontier`), whatever the backend:

* ``add`` enqueues URLs that were never seen in this crawl and ignores the rest — dedup is by the
  normalised URL and is enforced by the backend itself (a unique key), not by a set in memory;
* ``lease`` hands out up to *n* ready URLs, highest priority first (ties: first added first), and
  marks them leased until a deadline; an expired lease makes the URL ready again, so a worker that
  dies gives its URLs back;
* ``complete`` / ``fail`` / ``retry`` settle a lease; a URL is never handed out again once
  completed or failed;
* ``requeue`` gives queued URLs new priorities, each going behind the URLs of its new priority
  as if added now (a link learner that re-ranked its links after learning);
* state survives the process: a crawl resumed from the same database continues where it stopped.

Backends: :class:`SqlFrontier` keeps the frontier in the crawl's database through SQLAlchemy —
SQLite for one process, PostgreSQL (``SELECT … FOR UPDATE SKIP LOCKED``) for many workers;
:class:`MemoryFrontier` is the in-process reference used by tests and small runs.
"""

from __future__ import annotations

import abc
import ast
import heapq
import itertools
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select

from deepcrawl.errors import StorageError
from deepcrawl.storage.tables import FrontierEntry

if TYPE_CHECKING:
    from collections.abc import Iterable

    from sqlalchemy.engine import Connection, Engine

__all__ = [
    "SETUP_SOURCE",
    "Frontier",
    "FrontierCounts",
    "Lease",
    "MemoryFrontier",
    "NewURL",
    "SqlFrontier",
    "query_source",
    "source_query",
]

State = Literal["queued", "leased", "done", "failed"]


@dataclass(frozen=True, slots=True)
class NewURL:
    """A URL to enqueue: ``url`` is already normalised (the dedup key)."""

    url: str
    priority: float = 0.0
    depth: int = 0
    source: str = ""
    """Why it was enqueued (``results of 'river'``, ``link on /cat/3`` …)."""


_QUERY_SOURCE = "results of "
#: The ``source`` of a page the setup phase fetched (a ``--like`` example, a layout sample).
SETUP_SOURCE = "setup"


def query_source(keyword: str) -> str:
    """The ``source`` of a URL a query's result pages showed (``results of 'river'``)."""
    return f"{_QUERY_SOURCE}{keyword!r}"


def source_query(source: str | None) -> str | None:
    """The keyword of a :func:`query_source`; None for any other source (or a keyword cut
    off by the column's length)."""
    if not source or not source.startswith(_QUERY_SOURCE):
        return None
    try:
        keyword = ast.literal_eval(source[len(_QUERY_SOURCE) :])
    except (ValueError, SyntaxError):
        return None
    return keyword if isinstance(keyword, str) else None


@dataclass(frozen=True, slots=True)
class Lease:
    """A URL handed to a worker; settle it with its ``id``."""

    id: int
    url: str
    priority: float
    depth: int
    attempts: int


@dataclass(frozen=True, slots=True)
class FrontierCounts:
    """How many URLs are in each state."""

    queued: int = 0
    leased: int = 0
    done: int = 0
    failed: int = 0

    @property
    def pending(self) -> int:
        """URLs not yet settled."""
        return self.queued + self.leased


#: The frontier's table, for Core statements.
_TABLE: sa.Table = FrontierEntry.__table__  # type: ignore[attr-defined]

#: First key of the PostgreSQL advisory lock that serialises one site's lease transactions
#: (the second is the site id).
_LEASE_LOCK = 0x6463_0001

#: Seconds between two looks for expired leases by one frontier object.
_RECLAIM_S = 1.0


def _now() -> datetime:
    return datetime.now(UTC)


class Frontier(abc.ABC):
    """The frontier contract; see the module docstring."""

    @abc.abstractmethod
    def add(self, urls: Iterable[NewURL]) -> int:
        """Enqueue the URLs not seen before; return how many were new."""

    @abc.abstractmethod
    def lease(self, n: int, *, lease_s: float = 300.0) -> list[Lease]:
        """Hand out up to ``n`` ready URLs, leased for ``lease_s`` seconds (fewer when the
        backend's per-host cap of live leases is reached)."""

    @abc.abstractmethod
    def complete(self, lease_id: int) -> None:
        """Mark a leased URL as fetched."""

    @abc.abstractmethod
    def fail(self, lease_id: int, reason: str) -> None:
        """Mark a leased URL as failed for good (the reason is kept)."""

    @abc.abstractmethod
    def retry(self, lease_id: int, *, after_s: float) -> None:
        """Give a leased URL back, ready again in ``after_s`` seconds (back-off)."""

    @abc.abstractmethod
    def counts(self) -> FrontierCounts:
        """URLs per state."""

    @abc.abstractmethod
    def seen(self, url: str) -> bool:
        """Whether ``url`` was ever added."""

    @abc.abstractmethod
    def requeue(self, urls: Iterable[NewURL]) -> int:
        """Queue ``urls`` at their priorities as if each were added now, in the order given.

        A URL waiting in the queue takes its new priority and goes behind the queued URLs of
        equal priority (its depth, source, attempts and back-off stay); a URL never added is
        added; a leased or settled URL is left as it is. Return how many were queued. A link
        strategy calls it when it learnt new priorities for the links it had queued: ``add``
        ignores a URL seen before, whatever its priority.
        """

    def pending(self) -> int:
        """URLs not yet settled (queued or leased): what a fetch loop polls to know it is done.

        Backends count only the pending URLs here, not every state as :meth:`counts` does.
        """
        return self.counts().pending


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
    """

    def __init__(self, engine: Engine, site_id: int, *, host_cap: int | None = None) -> None:
        self.engine = engine
        self.site_id = site_id
        self.host_cap = host_cap
        self._dialect = engine.dialect.name
        self._reclaim_at = 0.0

    def _insert(self) -> sqlite.Insert | postgresql.Insert:
        if self._dialect == "postgresql":
            return postgresql.insert(_TABLE)
        if self._dialect == "sqlite":
            return sqlite.insert(_TABLE)
        raise StorageError(f"the frontier supports SQLite and PostgreSQL, not {self._dialect}")

    def add(self, urls: Iterable[NewURL]) -> int:
        now = _now()
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
        try:
            with self.engine.begin() as conn:
                batch = list(rows.values())
                for start in range(0, len(batch), 500):
                    # RETURNING counts the rows really inserted, on every backend.
                    added += len(conn.execute(stmt, batch[start : start + 500]).all())
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot add URLs to the frontier: {exc}") from exc
        return added

    def lease(self, n: int, *, lease_s: float = 300.0) -> list[Lease]:
        now = _now()
        until = now + timedelta(seconds=lease_s)
        c = _TABLE.c
        mine = c.site_id == self.site_id
        try:
            with self.engine.begin() as conn:
                if self._dialect == "postgresql":
                    conn.execute(
                        sa.select(sa.func.pg_advisory_xact_lock(_LEASE_LOCK, self.site_id))
                    )
                pick = (
                    sa.select(c.id, c.url, c.host, c.priority, c.depth, c.attempts)
                    .where(mine, c.state == "queued", c.ready_at <= now)
                    .order_by(c.priority.desc(), c.id)
                    .limit(n)
                )
                if self._dialect == "postgresql":
                    pick = pick.with_for_update(skip_locked=True)
                rows = list(conn.execute(pick).all())
                if (len(rows) < n or time.monotonic() >= self._reclaim_at) and self._reclaim(
                    conn, now
                ):
                    rows = list(conn.execute(pick).all())
                rows = self._within_host_cap(conn, rows)
                if rows:
                    conn.execute(
                        sa.update(_TABLE)
                        .where(c.id.in_([r.id for r in rows]))
                        .values(state="leased", ready_at=until, attempts=c.attempts + 1)
                    )
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot lease URLs from the frontier: {exc}") from exc
        # An expired lease (a dead worker) counts as an attempt.
        return [Lease(r.id, r.url, r.priority, r.depth, r.attempts + 1) for r in rows]

    def _reclaim(self, conn: Connection, now: datetime) -> int:
        """Queue the expired leases again (a dead worker's), ready at once; how many.

        Only leased rows are read, through the lease index's (site, state) prefix. A lease call
        does it when it finds fewer ready URLs than asked, and else once a second: leases last
        minutes, and the round trip would double a lease's cost.
        """
        self._reclaim_at = time.monotonic() + _RECLAIM_S
        c = _TABLE.c
        stmt = (
            sa.update(_TABLE)
            .where(c.site_id == self.site_id, c.state == "leased", c.ready_at <= now)
            .values(state="queued")
        )
        return int(conn.execute(stmt).rowcount or 0)

    def _within_host_cap(self, conn: Connection, rows: list[Any]) -> list[Any]:
        if self.host_cap is None or not rows:
            return rows
        c = _TABLE.c
        live: dict[str, int] = dict(
            conn.execute(
                sa.select(c.host, sa.func.count())
                .where(c.site_id == self.site_id, c.state == "leased")
                .group_by(c.host)
            ).all()
        )
        kept = []
        for row in rows:
            if live.get(row.host, 0) < self.host_cap:
                live[row.host] = live.get(row.host, 0) + 1
                kept.append(row)
        return kept

    def _settle(self, lease_id: int, **values: object) -> None:
        stmt = sa.update(FrontierEntry).where(col(FrontierEntry.id) == lease_id).values(**values)
        try:
            with self.engine.begin() as conn:
                conn.execute(stmt)
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot update frontier entry {lease_id}: {exc}") from exc

    def complete(self, lease_id: int) -> None:
        self._settle(lease_id, state="done")

    def fail(self, lease_id: int, reason: str) -> None:
        self._settle(lease_id, state="failed", error=reason[:2000])

    def retry(self, lease_id: int, *, after_s: float) -> None:
        self._settle(lease_id, state="queued", ready_at=_now() + timedelta(seconds=after_s))

    def counts(self) -> FrontierCounts:
        stmt = (
            select(FrontierEntry.state, sa.func.count())
            .where(FrontierEntry.site_id == self.site_id)
            .group_by(FrontierEntry.state)
        )
        try:
            with Session(self.engine) as session:
                found = {state: int(count) for state, count in session.exec(stmt).all()}
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot count the frontier: {exc}") from exc
        return FrontierCounts(**found)

    def seen(self, url: str) -> bool:
        stmt = select(FrontierEntry.id).where(
            FrontierEntry.site_id == self.site_id, FrontierEntry.url == url
        )
        with Session(self.engine) as session:
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
        now = _now()
        try:
            with self.engine.begin() as conn:
                if self._dialect == "postgresql":  # no lease transaction sees the rows vanish
                    conn.execute(
                        sa.select(sa.func.pg_advisory_xact_lock(_LEASE_LOCK, self.site_id))
                    )
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
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot requeue URLs of the frontier: {exc}") from exc
        return queued

    def pending(self) -> int:
        # two ranges of the lease index: the cost follows the pending URLs, not the done ones
        c = _TABLE.c
        stmt = sa.select(sa.func.count()).where(
            c.site_id == self.site_id, c.state.in_(("queued", "leased"))
        )
        try:
            with self.engine.connect() as conn:
                return int(conn.execute(stmt).scalar() or 0)
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot count the frontier: {exc}") from exc


class MemoryFrontier(Frontier):
    """The same contract in memory: for tests, for runs that need no persistence, and for the
    link strategies' own crawls (:mod:`deepcrawl.links`).

    A URL costs O(log n) to add, lease or requeue, whatever the frontier's size: ready URLs
    wait in a heap by (priority descending, order of adding), URLs leased or backing off in a
    heap by the time they are ready again; both drop stale items lazily (a requeued URL leaves
    its old item behind, a settled one its lease deadline) and are filtered when stale items
    outnumber the live ones.
    """

    def __init__(self) -> None:
        self._entries: dict[int, _MemoryEntry] = {}
        self._by_url: dict[str, int] = {}
        self._order = itertools.count(1)
        #: (-priority, order, id) of the queued URLs ready now (and stale items).
        self._ready: list[tuple[float, int, int]] = []
        #: (ready again at, order, id) of leased and backing-off URLs (and stale items).
        self._later: list[tuple[float, int, int]] = []
        self._states: dict[State, int] = dict.fromkeys(_STATES, 0)

    def add(self, urls: Iterable[NewURL]) -> int:
        added = 0
        for u in urls:
            if u.url in self._by_url:
                continue
            order = next(self._order)
            self._by_url[u.url] = order  # the first order given is the entry's id
            self._entries[order] = _MemoryEntry(u, "queued", 0.0, 0, order, u.priority)
            heapq.heappush(self._ready, (-u.priority, order, order))
            added += 1
        self._states["queued"] += added
        return added

    def requeue(self, urls: Iterable[NewURL]) -> int:
        now = time.monotonic()
        queued = 0
        for u in urls:
            entry_id = self._by_url.get(u.url)
            if entry_id is None:
                queued += self.add([u])
                continue
            entry = self._entries[entry_id]
            if entry.state != "queued":
                continue
            entry.order, entry.priority = next(self._order), u.priority
            if entry.at <= now:
                entry.at = 0.0
                heapq.heappush(self._ready, (-u.priority, entry.order, entry_id))
            else:
                heapq.heappush(self._later, (entry.at, entry.order, entry_id))
            queued += 1
        self._compact()
        return queued

    def lease(self, n: int, *, lease_s: float = 300.0) -> list[Lease]:
        now = time.monotonic()
        self._wake(now)
        leases: list[Lease] = []
        until = now + lease_s
        while self._ready and len(leases) < n:
            _neg, order, entry_id = heapq.heappop(self._ready)
            entry = self._entries[entry_id]
            if entry.state != "queued" or entry.order != order:
                continue  # stale: leased, settled or requeued since
            self._move(entry, "leased")
            entry.at, entry.attempts = until, entry.attempts + 1
            heapq.heappush(self._later, (until, entry.order, entry_id))
            u = entry.url
            leases.append(Lease(entry_id, u.url, entry.priority, u.depth, entry.attempts))
        self._compact()
        return leases

    def _wake(self, now: float) -> None:
        """Make ready the URLs whose back-off ended and the expired leases (a dead worker's)."""
        while self._later and self._later[0][0] <= now:
            at, order, entry_id = heapq.heappop(self._later)
            entry = self._entries[entry_id]
            if entry.at != at or entry.order != order or entry.state not in ("queued", "leased"):
                continue  # stale: settled, leased again or requeued since
            self._move(entry, "queued")
            entry.at = 0.0
            heapq.heappush(self._ready, (-entry.priority, entry.order, entry_id))

    def _compact(self) -> None:
        """Drop the stale items when they outnumber the live ones (settled URLs' lease
        deadlines, requeued URLs' old places): a cost in proportion to the items dropped."""
        live = self._states["queued"] + self._states["leased"]
        if len(self._ready) + len(self._later) <= 2 * live + 64:
            return
        entries = self._entries
        self._ready = [
            (neg, order, i)
            for neg, order, i in self._ready
            if (e := entries[i]).state == "queued" and e.order == order and e.at == 0.0
        ]
        self._later = [
            (at, order, i)
            for at, order, i in self._later
            if (e := entries[i]).state in ("queued", "leased") and e.order == order and e.at == at
        ]
        heapq.heapify(self._ready)
        heapq.heapify(self._later)

    def _move(self, entry: _MemoryEntry, state: State) -> None:
        self._states[entry.state] -= 1
        self._states[state] += 1
        entry.state = state

    def complete(self, lease_id: int) -> None:
        self._move(self._entries[lease_id], "done")

    def fail(self, lease_id: int, reason: str) -> None:
        self._move(self._entries[lease_id], "failed")

    def retry(self, lease_id: int, *, after_s: float) -> None:
        entry = self._entries[lease_id]
        self._move(entry, "queued")
        entry.at = time.monotonic() + after_s
        heapq.heappush(self._later, (entry.at, entry.order, lease_id))

    def counts(self) -> FrontierCounts:
        return FrontierCounts(**self._states)

    def pending(self) -> int:
        return self._states["queued"] + self._states["leased"]

    def seen(self, url: str) -> bool:
        return url in self._by_url


_STATES: tuple[State, ...] = ("queued", "leased", "done", "failed")


@dataclass(slots=True)
class _MemoryEntry:
    """One URL of a :class:`MemoryFrontier`."""

    url: NewURL
    state: State
    at: float
    """Queued: when it may be leased (0: at once). Leased: when the lease expires."""
    attempts: int
    order: int
    """Its place among URLs of equal priority: the order in which it was added or requeued."""
    priority: float
