"""Politeness: a per-host request rate and concurrency, and back-off for overloaded servers.

:class:`HostLimiter` spaces requests to one host at least ``1 / requests_per_second`` apart (or
the robots.txt ``Crawl-delay``, whichever is longer) and keeps at most
``concurrency_per_host`` in flight. :func:`backoff_delay` says how long to wait before retrying a
transient failure: ``Retry-After`` when the server sent one (RFC 9110 §10.2.3: seconds or an
HTTP date), else exponential back-off from ``backoff_base_s``. The limiter reads time from a
:class:`Clock` (the event loop's monotonic clock by default), so tests drive it with a fake one
instead of asserting on wall time.

The hosts' next start times are kept by a :class:`~deepcrawl.storage.hosts.HostSchedule`: in
memory for one process, in the database for :class:`SharedHostLimiter`, the same limiter for every
process on one PostgreSQL database (``deepcrawl worker``, the jobs of a harvest), so N workers and
M sites share one host's rate instead of multiplying it; the concurrency too: a request holds one
of its host's seats in the database (:class:`~deepcrawl.storage.hosts.HostSeats`) beside the
process's own. :func:`make_limiter` picks the limiter for a database. One process running many
sites (a harvest on SQLite) gives every site's crawl the same :class:`HostLimiter`.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

from deepcrawl.storage import is_shared
from deepcrawl.storage.hosts import HostSeats, MemoryHostSchedule, SqlHostSchedule

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from deepcrawl.settings import PolitenessSettings
    from deepcrawl.storage import Engine
    from deepcrawl.storage.hosts import HostSchedule

__all__ = [
    "HOST_WAITS",
    "TRANSIENT_STATUSES",
    "Clock",
    "HostLimiter",
    "MonotonicClock",
    "SharedHostLimiter",
    "backoff_delay",
    "host_pause",
    "make_limiter",
    "parse_retry_after",
]

#: How late a turn may be taken (a share of the interval) before the host's schedule is pushed
#: back by as much (a write to the database when it is shared).
_LATE_SHARE = 0.05

#: Seconds between two looks for a free seat of a host whose seats other processes hold.
_SEAT_POLL_S = 0.02

#: Statuses worth retrying: the server is overloaded or briefly broken.
TRANSIENT_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})

#: Statuses after which the whole host waits, not only the URL: the server said it is
#: overloaded (RFC 6585 §4, RFC 9110 §15.6.4).
HOST_WAITS = frozenset({429, 503})


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
        schedule: where the hosts' next start times are kept (in memory, on ``clock``, unless
            given: :class:`SharedHostLimiter` keeps them in the database).
    """

    def __init__(
        self,
        settings: PolitenessSettings,
        clock: Clock | None = None,
        *,
        schedule: HostSchedule | None = None,
    ) -> None:
        self.settings = settings
        self.clock: Clock = clock or MonotonicClock()
        self.schedule: HostSchedule = schedule or MemoryHostSchedule(self.clock.now)
        self._delays: dict[str, float] = {}
        self._slots: dict[str, asyncio.Semaphore] = {}
        self._after: dict[str, float] = {}
        """One interval after the last turn this process claimed for each host (on ``clock``):
        the next turn it claims starts no earlier."""
        self._next: dict[str, float] = {}
        """One interval after the turn this process last took to each host, when it was really
        taken (on ``clock``): no turn is taken before it, however late its sleeper woke."""

    def set_crawl_delay(self, host: str, delay_s: float) -> None:
        """Honour a robots.txt Crawl-delay for ``host`` (only ever slows down)."""
        self._delays[host] = max(delay_s, self._delays.get(host, 0.0))

    def interval(self, host: str) -> float:
        """Seconds between two request starts to ``host``."""
        rps = self.settings.requests_per_second
        base = 1.0 / rps if rps > 0 else 0.0
        return max(base, self._delays.get(host, 0.0))

    def pause(self, host: str, seconds: float) -> None:
        """Send nothing to ``host`` for ``seconds`` (after a 429 or 503), from any process
        sharing the schedule."""
        self.schedule.pause(host, seconds)

    @contextlib.asynccontextmanager
    async def slot(self, url: str) -> AsyncIterator[None]:
        """Wait for one of ``url``'s host's concurrency seats and for its turn (:meth:`turn`),
        and hold the seat meanwhile."""
        host = urlsplit(url).netloc
        slots = self._slots.setdefault(
            host, asyncio.Semaphore(max(1, self.settings.concurrency_per_host))
        )
        async with slots, self.seat(host):
            await self.turn(url)
            yield

    @contextlib.asynccontextmanager
    async def seat(self, host: str) -> AsyncIterator[None]:
        """Hold one of ``host``'s seats shared with other processes while the block runs; one
        process alone has none to take (its own semaphore is the cap)."""
        yield

    def close(self) -> None:
        """Give back what the limiter holds outside this process (nothing, here)."""

    async def turn(self, url: str) -> float:
        """Wait for ``url``'s host's next start time (its rate, its Crawl-delay, a pause) and
        take it: the next request to the host starts one interval later.

        Returns:
            The instant the turn was taken, on the limiter's clock: the next turn this process
            takes to the host is one interval after it (what a caller records is later by
            however long the process waits to run it).

        The interval is kept from when a turn is really taken, not only from when it was
        reserved: a sleeper woken late (the event loop was busy, the process was not
        scheduled) would otherwise start right before the next reservation's turn, both
        within one interval. So a turn claims its start before it sleeps (the next turn
        counts from the claim), is taken only when its task runs again at least one interval
        after the turn this process took last (read again after every sleep), and a turn
        taken late pushes the host's schedule (which other processes may share) back by as
        much.
        """
        host = urlsplit(url).netloc
        interval = self.interval(host)
        while True:
            wait = self.schedule.reserve(host, interval)
            due = self.clock.now() + max(wait, 0.0)
            if wait <= 0:
                break
            await self.clock.sleep(wait)
            # the host was paused while this turn waited (a 429 or 503 to another request,
            # maybe of another process): its start is void, a new one is claimed after the pause
            if (left := self.schedule.paused(host)) <= 0:
                break
            await self.clock.sleep(left)
        now = max(self.clock.now(), due)
        start = max(now, self._after.get(host, -math.inf))
        self._after[host] = start + interval
        if start - due > interval * _LATE_SHARE:
            self.schedule.pause(host, start + interval - now)
        while now < (start := max(start, self._next.get(host, -math.inf))):
            await self.clock.sleep(start - now)
            now = max(self.clock.now(), start)
        self._next[host] = now + interval
        self._after[host] = max(self._after[host], now + interval)
        return now


class SharedHostLimiter(HostLimiter):
    """Per-host rate and concurrency shared by every process on a PostgreSQL database; see the
    module docstring.

    Args:
        settings: politeness settings (the same in every worker: the rate is the host's).
        engine: the PostgreSQL engine.
        site_id: one site's clocks; None (the default): one clock per host for every site of
            the database, what a harvest shares.
    """

    def __init__(
        self,
        settings: PolitenessSettings,
        engine: Engine,
        site_id: int | None = None,
        clock: Clock | None = None,
    ) -> None:
        super().__init__(settings, clock, schedule=SqlHostSchedule(engine, site_id))
        self.seats = HostSeats(engine)

    @contextlib.asynccontextmanager
    async def seat(self, host: str) -> AsyncIterator[None]:
        """Hold one of ``host``'s ``concurrency_per_host`` seats of the database (polled for
        while every seat is taken by some process)."""
        cap = max(1, self.settings.concurrency_per_host)
        while (taken := self.seats.take(host, cap)) is None:
            await self.clock.sleep(_SEAT_POLL_S)
        try:
            yield
        finally:
            self.seats.give_back(host, taken)

    def close(self) -> None:
        """Give back every seat this process holds (its connection to them goes)."""
        self.seats.close()


def make_limiter(settings: PolitenessSettings, engine: Engine, site_id: int) -> HostLimiter:
    """The limiter for a crawl's database: shared on PostgreSQL — one clock and one set of
    seats per host for every site and process of the database —, in-process otherwise."""
    if is_shared(engine):
        return SharedHostLimiter(settings, engine)
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


def host_pause(settings: PolitenessSettings, *, retry_after: str | None = None) -> float:
    """Seconds a host is paused after a 429 or 503: its ``Retry-After`` (at most
    ``backoff_max_s``: a longer wait fails the URL, it does not stall the crawl), else the first
    back-off step, ``backoff_base_s``."""
    asked = parse_retry_after(retry_after)
    return settings.backoff_base_s if asked is None else min(asked, settings.backoff_max_s)
