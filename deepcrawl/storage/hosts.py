"""The politeness clock: when each host of a site may next be sent a request.

A :class:`HostSchedule` hands out request starts to a host, one ``interval_s`` after the other,
and can be pushed back (a server asked to wait). Two backends side by side:
:class:`MemoryHostSchedule` for one process, on the limiter's own clock; :class:`SqlHostSchedule`
for every process of a crawl shared on PostgreSQL, in the ``frontier_host`` table, so that N
workers share one host's rate instead of multiplying it. The policy — the interval, the
concurrency, when to pause — is the crawler's limiter's (``deepcrawl.fetch.politeness``).
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING

import sqlalchemy as sa

from deepcrawl.storage.guard import StorageGuard

if TYPE_CHECKING:
    from collections.abc import Callable

    from sqlalchemy.engine import Engine

__all__ = ["HostSchedule", "MemoryHostSchedule", "SqlHostSchedule"]


class HostSchedule(abc.ABC):
    """When the next request to each host may start."""

    @abc.abstractmethod
    def reserve(self, host: str, interval_s: float) -> float:
        """Reserve the next start to ``host``: now, or ``interval_s`` after the start reserved
        last, whichever is later; return the seconds to wait for it (0 or less: go now)."""

    @abc.abstractmethod
    def pause(self, host: str, seconds: float) -> None:
        """Start nothing to ``host`` for ``seconds`` from now (a later reservation stands)."""


class MemoryHostSchedule(HostSchedule):
    """The schedule of one process, in memory.

    Args:
        now: seconds on a monotonic clock (the limiter's, so that tests can drive it).
    """

    def __init__(self, now: Callable[[], float]) -> None:
        self.now = now
        self._next_at: dict[str, float] = {}

    def reserve(self, host: str, interval_s: float) -> float:
        now = self.now()
        start = max(now, self._next_at.get(host, 0.0))
        self._next_at[host] = start + interval_s
        return start - now

    def pause(self, host: str, seconds: float) -> None:
        self._next_at[host] = max(self._next_at.get(host, 0.0), self.now() + seconds)


# The start of the next request to a host, reserved atomically: the clock moves to
# max(next_at, now) + interval and the wait is the reserved start minus now, all on the database's
# clock (epoch seconds).
_RESERVE = sa.text(
    """
    INSERT INTO frontier_host (site_id, host, next_at)
    VALUES (:site, :host, EXTRACT(EPOCH FROM clock_timestamp())::float8 + :interval)
    ON CONFLICT (site_id, host) DO UPDATE SET next_at =
        GREATEST(frontier_host.next_at, EXTRACT(EPOCH FROM clock_timestamp())::float8) + :interval
    RETURNING next_at - :interval - EXTRACT(EPOCH FROM clock_timestamp())::float8
    """
)
_PAUSE = sa.text(
    """
    INSERT INTO frontier_host (site_id, host, next_at)
    VALUES (:site, :host, EXTRACT(EPOCH FROM clock_timestamp())::float8 + :pause)
    ON CONFLICT (site_id, host) DO UPDATE SET next_at = GREATEST(
        frontier_host.next_at, EXTRACT(EPOCH FROM clock_timestamp())::float8 + :pause)
    """
)


class SqlHostSchedule(HostSchedule):
    """The schedule shared by every process of a crawl on PostgreSQL.

    A host's next start lives in the ``frontier_host`` table; each reservation advances it with
    one atomic ``INSERT … ON CONFLICT DO UPDATE … RETURNING``, on the database's clock (the
    processes' own clocks may differ).

    Args:
        engine: the crawl's PostgreSQL engine.
        site_id: the crawl's site (each site has its own clocks).
    """

    def __init__(self, engine: Engine, site_id: int) -> None:
        self.engine = engine
        self.site_id = site_id

    def reserve(self, host: str, interval_s: float) -> float:
        params = {"site": self.site_id, "host": host, "interval": interval_s}
        with StorageGuard.of(self.engine, "reserve a request slot"), self.engine.begin() as conn:
            return float(conn.execute(_RESERVE, params).scalar() or 0.0)

    def pause(self, host: str, seconds: float) -> None:
        params = {"site": self.site_id, "host": host, "pause": seconds}
        with StorageGuard.of(self.engine, f"pause requests to {host}"), self.engine.begin() as conn:
            conn.execute(_PAUSE, params)  # no row comes back: nothing to read
