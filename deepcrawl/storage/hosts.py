"""The politeness clock and seats: when each host may next be sent a request, and how many
requests it has in flight.

A :class:`HostSchedule` hands out request starts to a host, one ``interval_s`` after the other,
and can be pushed back (a server asked to wait). Two backends side by side:
:class:`MemoryHostSchedule` for one process, on the limiter's own clock; :class:`SqlHostSchedule`
for every process sharing a PostgreSQL database, so that N workers share one host's rate instead
of multiplying it — one site's clocks (the ``frontier_host`` table), or, with no site, one clock
per host for every site and process of the database (``host_clock``: a harvest, where two sites
may share a host). :class:`HostSeats` caps the requests in flight to a host over every process
of the database.

Why these stay deepcrawl's own, beside the job queue that runs the work (procrastinate): the
engine's ``lock`` runs one *job* at a time per key, and it knows nothing of the requests inside
a job; no maintained PostgreSQL job queue holds a per-key request rate, a Crawl-delay or a
pause after a 429, and none a per-key count of requests in flight across jobs. The policy — the
interval, the concurrency, when to pause — is the crawler's limiter's
(``deepcrawl.fetch.politeness``).
"""

from __future__ import annotations

import abc
import hashlib
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.exc import SQLAlchemyError

from deepcrawl.storage.guard import StorageGuard

if TYPE_CHECKING:
    from collections.abc import Callable

    from sqlalchemy.engine import Connection, Engine

__all__ = ["HostSchedule", "HostSeats", "MemoryHostSchedule", "SqlHostSchedule"]


class HostSchedule(abc.ABC):
    """When the next request to each host may start."""

    @abc.abstractmethod
    def reserve(self, host: str, interval_s: float) -> float:
        """Reserve the next start to ``host``: now, or ``interval_s`` after the start reserved
        last, whichever is later; return the seconds to wait for it (0 or less: go now)."""

    @abc.abstractmethod
    def pause(self, host: str, seconds: float) -> None:
        """Start nothing to ``host`` for ``seconds`` from now (a later reservation stands)."""

    @abc.abstractmethod
    def paused(self, host: str) -> float:
        """Seconds left of the latest pause of ``host`` (0 or less: none in force).

        A start reserved before a pause was set still falls inside it: its holder asks this
        once its wait is over, and waits out the pause before it reserves again."""


class MemoryHostSchedule(HostSchedule):
    """The schedule of one process, in memory.

    Args:
        now: seconds on a monotonic clock (the limiter's, so that tests can drive it).
    """

    def __init__(self, now: Callable[[], float]) -> None:
        self.now = now
        self._next_at: dict[str, float] = {}
        self._paused_until: dict[str, float] = {}

    def reserve(self, host: str, interval_s: float) -> float:
        now = self.now()
        start = max(now, self._next_at.get(host, 0.0))
        self._next_at[host] = start + interval_s
        return start - now

    def pause(self, host: str, seconds: float) -> None:
        until = self.now() + seconds
        self._next_at[host] = max(self._next_at.get(host, 0.0), until)
        self._paused_until[host] = max(self._paused_until.get(host, 0.0), until)

    def paused(self, host: str) -> float:
        return self._paused_until.get(host, 0.0) - self.now()


# The start of the next request to a host, reserved atomically: the clock moves to
# max(next_at, now) + interval and the wait is the reserved start minus now, all on the database's
# clock (epoch seconds). One site's clocks (``frontier_host``) or every site's (``host_clock``).
_NOW = "EXTRACT(EPOCH FROM clock_timestamp())::float8"
_RESERVE = {
    site: sa.text(
        f"""
        INSERT INTO {table} ({keys}, next_at) VALUES ({values}, {_NOW} + :interval)
        ON CONFLICT ({keys}) DO UPDATE SET next_at =
            GREATEST({table}.next_at, {_NOW}) + :interval
        RETURNING next_at - :interval - {_NOW}
        """
    )
    for site, table, keys, values in (
        (True, "frontier_host", "site_id, host", ":site, :host"),
        (False, "host_clock", "host", ":host"),
    )
}
_PAUSE = {
    site: sa.text(
        f"""
        INSERT INTO {table} ({keys}, next_at) VALUES ({values}, {_NOW} + :pause)
        ON CONFLICT ({keys}) DO UPDATE SET next_at = GREATEST({table}.next_at, {_NOW} + :pause)
        """
    )
    for site, table, keys, values in (
        (True, "frontier_host", "site_id, host", ":site, :host"),
        (False, "host_clock", "host", ":host"),
    )
}


# A host's latest pause, in a row of its own beside its clock: under the host's name and
# _PAUSE_SUFFIX, which no host can spell (a space), so the clock's reservations never touch it.
_PAUSE_SUFFIX = " paused"
_PAUSED = {
    site: sa.text(f"SELECT next_at - {_NOW} FROM {table} WHERE {keys}")
    for site, table, keys in (
        (True, "frontier_host", "site_id = :site AND host = :host"),
        (False, "host_clock", "host = :host"),
    )
}


class SqlHostSchedule(HostSchedule):
    """The schedule shared by every process on one PostgreSQL database.

    A host's next start lives in a table; each reservation advances it with one atomic
    ``INSERT … ON CONFLICT DO UPDATE … RETURNING``, on the database's clock (the processes' own
    clocks may differ).

    Args:
        engine: the crawl's PostgreSQL engine.
        site_id: the crawl's site (each site has its own clocks, ``frontier_host``); None:
            one clock per host for every site of the database (``host_clock``), what a
            harvest of many sites shares.
    """

    def __init__(self, engine: Engine, site_id: int | None = None) -> None:
        self.engine = engine
        self.site_id = site_id
        self._by_site = site_id is not None

    def reserve(self, host: str, interval_s: float) -> float:
        params = {"site": self.site_id, "host": host, "interval": interval_s}
        with StorageGuard.of(self.engine, "reserve a request slot"), self.engine.begin() as conn:
            return float(conn.execute(_RESERVE[self._by_site], params).scalar() or 0.0)

    def pause(self, host: str, seconds: float) -> None:
        """Push the host's clock back, and keep the pause in its own row (:meth:`paused`)."""
        params = {"site": self.site_id, "host": host, "pause": seconds}
        marked = {**params, "host": host + _PAUSE_SUFFIX}
        with StorageGuard.of(self.engine, f"pause requests to {host}"), self.engine.begin() as conn:
            conn.execute(_PAUSE[self._by_site], params)  # no row comes back: nothing to read
            conn.execute(_PAUSE[self._by_site], marked)

    def paused(self, host: str) -> float:
        params = {"site": self.site_id, "host": host + _PAUSE_SUFFIX}
        with StorageGuard.of(self.engine, f"read the pause of {host}"), self.engine.begin() as conn:
            return float(conn.execute(_PAUSED[self._by_site], params).scalar() or 0.0)


def _seat_key(host: str, seat: int) -> int:
    """The advisory lock key of one of ``host``'s seats: 64 bits of a hash, signed."""
    digest = hashlib.blake2b(f"deepcrawl-seat {host} {seat}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class HostSeats:
    """Seats for the requests in flight to each host, shared by every process of a PostgreSQL
    database: a host has ``cap`` seats, each a session advisory lock.

    The locks of one process live on one connection of their own, opened on the first seat
    taken: a process killed by SIGKILL gives its seats back when the server sees its socket
    close, with no lease to expire. A seat is taken with ``pg_try_advisory_lock`` (never
    waiting in the database); the caller polls (:meth:`take` is None while the host is full).

    Args:
        engine: the PostgreSQL engine.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._conn: Connection | None = None
        self._held: dict[tuple[str, int], int] = {}

    def _connection(self) -> Connection:
        if self._conn is None:
            self._conn = self.engine.connect()
        return self._conn

    def take(self, host: str, cap: int) -> int | None:
        """Take a free seat of ``host`` (one of ``cap``); its number, or None when all are
        taken by this or other processes."""
        with StorageGuard.of(self.engine, f"take a request seat of {host}"):
            conn = self._connection()
            for seat in range(max(1, cap)):
                if (host, seat) in self._held:
                    continue
                key = _seat_key(host, seat)
                if conn.execute(sa.select(sa.func.pg_try_advisory_lock(key))).scalar():
                    conn.commit()
                    self._held[host, seat] = key
                    return seat
            conn.commit()
        return None

    def give_back(self, host: str, seat: int) -> None:
        """Free a seat :meth:`take` gave."""
        key = self._held.pop((host, seat), None)
        if key is None or self._conn is None:
            return
        with StorageGuard.of(self.engine, f"give back a request seat of {host}"):
            self._conn.execute(sa.select(sa.func.pg_advisory_unlock(key)))
            self._conn.commit()

    def close(self) -> None:
        """Give every seat back: unlocked at once, then the connection goes (invalidated, not
        returned to the pool, where session locks would live on).

        The explicit unlock is what makes the seats free when this returns: a closed socket
        alone frees them only once the server has noticed it, a moment later.
        """
        conn, self._conn = self._conn, None
        self._held.clear()
        if conn is not None:
            try:
                conn.execute(sa.select(sa.func.pg_advisory_unlock_all()))
                conn.commit()
            except SQLAlchemyError:
                pass  # a broken connection's locks end with its session on the server
            try:
                conn.invalidate()
                conn.close()
            except SQLAlchemyError:
                pass
