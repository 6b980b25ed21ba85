"""The frontier: URLs waiting to be fetched, deduplicated, prioritised, leased to workers.

Contract (:class:`Frontier`), whatever the backend:

* ``add`` enqueues URLs that were never seen in this crawl and ignores the rest — dedup is by the
  normalised URL and is enforced by the backend itself (a unique key), not by a set in memory;
* ``lease`` hands out up to *n* ready URLs, highest priority first (ties: first added first), and
  marks them leased until a deadline; an expired lease makes the URL ready again, so a worker that
  dies gives its URLs back;
* ``complete`` / ``fail`` / ``retry`` settle a lease; a URL is never handed out again once
  completed or failed;
* state survives the process: a crawl resumed from the same database continues where it stopped.

Backends: :class:`SqlFrontier` keeps the frontier in the crawl's database through SQLAlchemy —
SQLite for one process, PostgreSQL (``SELECT … FOR UPDATE SKIP LOCKED``) for many workers;
:class:`MemoryFrontier` is the in-process reference used by tests and small runs.
"""

from __future__ import annotations

import abc
import heapq
import itertools
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select

from deepcrawl.errors import StorageError
from deepcrawl.storage.tables import FrontierEntry

if TYPE_CHECKING:
    from collections.abc import Iterable

    from sqlalchemy.engine import Engine

__all__ = ["Frontier", "FrontierCounts", "Lease", "MemoryFrontier", "NewURL", "SqlFrontier"]

State = Literal["queued", "leased", "done", "failed"]


@dataclass(frozen=True, slots=True)
class NewURL:
    """A URL to enqueue: ``url`` is already normalised (the dedup key)."""

    url: str
    priority: float = 0.0
    depth: int = 0
    source: str = ""
    """Why it was enqueued (``results of 'river'``, ``link on /cat/3`` …)."""


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


def _now() -> datetime:
    return datetime.now(UTC)


class Frontier(abc.ABC):
    """The frontier contract; see the module docstring."""

    @abc.abstractmethod
    def add(self, urls: Iterable[NewURL]) -> int:
        """Enqueue the URLs not seen before; return how many were new."""

    @abc.abstractmethod
    def lease(self, n: int, *, lease_s: float = 300.0) -> list[Lease]:
        """Hand out up to ``n`` ready URLs, leased for ``lease_s`` seconds."""

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


class SqlFrontier(Frontier):
    """The frontier of one site, in the crawl's SQL database (SQLite or PostgreSQL).

    Args:
        engine: the crawl's engine (``Repository.engine``); the table is created with the schema.
        site_id: the site whose frontier this is.
    """

    def __init__(self, engine: Engine, site_id: int) -> None:
        self.engine = engine
        self.site_id = site_id
        self._dialect = engine.dialect.name

    def _insert(self) -> sqlite.Insert | postgresql.Insert:
        table = FrontierEntry.__table__  # type: ignore[attr-defined]
        if self._dialect == "postgresql":
            return postgresql.insert(table)
        if self._dialect == "sqlite":
            return sqlite.insert(table)
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
        table = FrontierEntry.__table__  # type: ignore[attr-defined]
        stmt = (
            self._insert()
            .on_conflict_do_nothing(index_elements=["site_id", "url"])
            .returning(table.c.id)
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
        entry = FrontierEntry
        ready = sa.or_(
            sa.and_(col(entry.state) == "queued", col(entry.ready_at) <= now),
            sa.and_(col(entry.state) == "leased", col(entry.ready_at) <= now),
        )
        stmt = (
            select(entry)
            .where(entry.site_id == self.site_id, ready)
            .order_by(col(entry.priority).desc(), col(entry.id))
            .limit(n)
        )
        if self._dialect == "postgresql":
            stmt = stmt.with_for_update(skip_locked=True)
        try:
            with Session(self.engine) as session:
                rows = session.exec(stmt).all()
                leases = []
                for row in rows:
                    # An expired lease (a dead worker) counts as an attempt.
                    row.state, row.ready_at, row.attempts = "leased", until, row.attempts + 1
                    session.add(row)
                    assert row.id is not None
                    leases.append(Lease(row.id, row.url, row.priority, row.depth, row.attempts))
                session.commit()
                return leases
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot lease URLs from the frontier: {exc}") from exc

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


class MemoryFrontier(Frontier):
    """The same contract in memory: for tests, and for runs that need no persistence."""

    def __init__(self) -> None:
        self._entries: dict[int, tuple[NewURL, State, datetime, int]] = {}
        self._by_url: dict[str, int] = {}
        self._ids = itertools.count(1)

    def add(self, urls: Iterable[NewURL]) -> int:
        added = 0
        for u in urls:
            if u.url in self._by_url:
                continue
            entry_id = next(self._ids)
            self._by_url[u.url] = entry_id
            self._entries[entry_id] = (u, "queued", _now(), 0)
            added += 1
        return added

    def lease(self, n: int, *, lease_s: float = 300.0) -> list[Lease]:
        now = _now()
        ready = [
            (-u.priority, i)
            for i, (u, state, at, _) in self._entries.items()
            if state in ("queued", "leased") and at <= now
        ]
        leases = []
        for _, entry_id in heapq.nsmallest(n, ready):
            u, _state, _at, attempts = self._entries[entry_id]
            self._entries[entry_id] = (u, "leased", now + timedelta(seconds=lease_s), attempts + 1)
            leases.append(Lease(entry_id, u.url, u.priority, u.depth, attempts + 1))
        return leases

    def _set(self, lease_id: int, state: State, at: datetime | None = None) -> None:
        u, _state, old_at, attempts = self._entries[lease_id]
        self._entries[lease_id] = (u, state, at or old_at, attempts)

    def complete(self, lease_id: int) -> None:
        self._set(lease_id, "done")

    def fail(self, lease_id: int, reason: str) -> None:
        self._set(lease_id, "failed")

    def retry(self, lease_id: int, *, after_s: float) -> None:
        self._set(lease_id, "queued", _now() + timedelta(seconds=after_s))

    def counts(self) -> FrontierCounts:
        found: dict[str, int] = {}
        for _u, state, _at, _n in self._entries.values():
            found[state] = found.get(state, 0) + 1
        return FrontierCounts(**found)

    def seen(self, url: str) -> bool:
        return url in self._by_url
