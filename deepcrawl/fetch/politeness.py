"""Politeness: a per-host request rate and concurrency, and back-off for overloaded servers.

:class:`HostLimiter` spaces requests to one host at least ``1 / requests_per_second`` apart (or
the robots.txt ``Crawl-delay``, whichever is longer) and keeps at most
``concurrency_per_host`` in flight. :func:`backoff_delay` says how long to wait before retrying a
transient failure: ``Retry-After`` when the server sent one (RFC 9110 §10.2.3: seconds or an
HTTP date), else exponential back-off from ``backoff_base_s``. The limiter reads time from a
:class:`Clock` (the event loop's monotonic clock by default), so tests drive it with a fake one
instead of asserting on wall time.

:class:`SharedHostLimiter` is the same limiter for many processes on PostgreSQL (``deepcrawl
worker``): a host's next start time lives in the ``frontier_host`` table and each request
advances it with one atomic ``INSERT … ON CONFLICT DO UPDATE … RETURNING``, on the database's
clock, so N workers share one host's rate instead of multiplying it. The per-host concurrency of
many processes is the frontier's cap of live leases (``SqlFrontier(host_cap=…)``).
:func:`make_limiter` picks the limiter for a database.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

import sqlalchemy as sa
from sqlalchemy.exc import SQLAlchemyError

from deepcrawl.errors import StorageError

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from sqlalchemy.engine import Engine

    from deepcrawl.settings import PolitenessSettings

__all__ = [
    "TRANSIENT_STATUSES",
    "Clock",
    "HostLimiter",
    "MonotonicClock",
    "SharedHostLimiter",
    "backoff_delay",
    "make_limiter",
    "parse_retry_after",
]

#: Statuses worth retrying: the server is overloaded or briefly broken.
TRANSIENT_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})


class Clock(Protocol):
    """What the limiter needs of time: a monotonic reading and a way to wait."""

    def now(self) -> float:
        """Seconds on a monotonic clock."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Return after ``seconds`` of this clock."""
        ...


class MonotonicClock:
    """The real clock: :func:`time.monotonic` and :func:`asyncio.sleep`."""

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class HostLimiter:
    """Per-host rate and concurrency limits for one crawl process.

    Args:
        settings: the politeness settings (rate, concurrency per host).
        clock: where time comes from (the real monotonic clock unless a test gives another).
    """

    def __init__(self, settings: PolitenessSettings, clock: Clock | None = None) -> None:
        self.settings = settings
        self.clock: Clock = clock or MonotonicClock()
        self._next_at: dict[str, float] = {}
        self._delays: dict[str, float] = {}
        self._slots: dict[str, asyncio.Semaphore] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def set_crawl_delay(self, host: str, delay_s: float) -> None:
        """Honour a robots.txt Crawl-delay for ``host`` (only ever slows down)."""
        self._delays[host] = max(delay_s, self._delays.get(host, 0.0))

    def interval(self, host: str) -> float:
        """Seconds between two request starts to ``host``."""
        rps = self.settings.requests_per_second
        base = 1.0 / rps if rps > 0 else 0.0
        return max(base, self._delays.get(host, 0.0))

    def pause(self, host: str, seconds: float) -> None:
        """Send nothing to ``host`` for ``seconds`` (after a 429 or 503)."""
        self._next_at[host] = max(self._next_at.get(host, 0.0), self.clock.now() + seconds)

    @contextlib.asynccontextmanager
    async def slot(self, url: str) -> AsyncIterator[None]:
        """Wait for ``url``'s host to accept one more request, and hold the slot meanwhile."""
        host = urlsplit(url).netloc
        slots = self._slots.setdefault(
            host, asyncio.Semaphore(max(1, self.settings.concurrency_per_host))
        )
        async with slots:
            async with self._locks.setdefault(host, asyncio.Lock()):
                now = self.clock.now()
                start = max(now, self._next_at.get(host, 0.0))
                self._next_at[host] = start + self.interval(host)
            if start > now:
                await self.clock.sleep(start - now)
            yield


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


class SharedHostLimiter(HostLimiter):
    """Per-host rate shared by every process of a crawl on PostgreSQL; see the module docstring.

    Args:
        settings: politeness settings (the same in every worker: the rate is the site's).
        engine: the crawl's PostgreSQL engine.
        site_id: the crawl's site (each site has its own clocks).
    """

    def __init__(
        self,
        settings: PolitenessSettings,
        engine: Engine,
        site_id: int,
        clock: Clock | None = None,
    ) -> None:
        super().__init__(settings, clock)
        self.engine = engine
        self.site_id = site_id

    def _execute(self, stmt: sa.TextClause, **params: object) -> float:
        try:
            with self.engine.begin() as conn:
                return float(conn.execute(stmt, {"site": self.site_id, **params}).scalar() or 0.0)
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot reserve a request slot: {exc}") from exc

    def pause(self, host: str, seconds: float) -> None:
        """Send nothing to ``host`` for ``seconds``, from any worker."""
        super().pause(host, seconds)
        self._execute(_PAUSE, host=host, pause=seconds)

    @contextlib.asynccontextmanager
    async def slot(self, url: str) -> AsyncIterator[None]:
        """Wait for the host's shared clock to give this process the next request to it."""
        host = urlsplit(url).netloc
        slots = self._slots.setdefault(
            host, asyncio.Semaphore(max(1, self.settings.concurrency_per_host))
        )
        async with slots:
            wait = self._execute(_RESERVE, host=host, interval=self.interval(host))
            if wait > 0:
                await self.clock.sleep(wait)
            yield


def make_limiter(settings: PolitenessSettings, engine: Engine, site_id: int) -> HostLimiter:
    """The limiter for a crawl's database: shared on PostgreSQL, in-process otherwise."""
    if engine.dialect.name == "postgresql":
        return SharedHostLimiter(settings, engine, site_id)
    return HostLimiter(settings)


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks to wait, or None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def backoff_delay(
    attempt: int, settings: PolitenessSettings, *, retry_after: str | None = None
) -> float | None:
    """Delay before retry number ``attempt`` (1-based), or None when it should not be retried.

    None means: the retries are spent, or the server asked for a wait longer than
    ``backoff_max_s`` (better to fail the URL and say so than to stall the crawl).
    """
    if attempt > settings.retries:
        return None
    asked = parse_retry_after(retry_after)
    delay = asked if asked is not None else settings.backoff_base_s * 2 ** (attempt - 1)
    return None if delay > settings.backoff_max_s else delay
