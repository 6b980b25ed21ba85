"""Politeness: per-host spacing and concurrency, Retry-After, exponential back-off."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from datetime import UTC, datetime

import pytest

from deepcrawl.fetch.politeness import HostLimiter, backoff_delay, host_pause, parse_retry_after
from deepcrawl.settings import PolitenessSettings


class FakeClock:
    """A clock that stands still, or moves by what a sleeper asked when ``moves`` (one sleeper
    at a time: with several, each would see the others' sleeps)."""

    def __init__(self, *, moves: bool = True) -> None:
        self.t = 1000.0
        self.moves = moves
        self.slept: list[float] = []

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        if self.moves:
            self.t += seconds
        await asyncio.sleep(0)


async def test_requests_to_one_host_are_spaced() -> None:
    clock = FakeClock()
    settings = PolitenessSettings(requests_per_second=20, concurrency_per_host=1)
    limiter = HostLimiter(settings, clock)
    starts: list[float] = []
    for _ in range(5):
        async with limiter.slot("http://a.test/x"):
            starts.append(clock.now())
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert gaps == pytest.approx([0.05] * 4)


async def test_concurrent_requests_reserve_successive_starts() -> None:
    clock = FakeClock(moves=False)
    limiter = HostLimiter(PolitenessSettings(requests_per_second=10, concurrency_per_host=8), clock)

    async def one() -> None:
        async with limiter.slot("http://a.test/x"):
            pass

    await asyncio.gather(*(one() for _ in range(4)))
    # Each reserved its start before any slept: waits of 0.1, 0.2 and 0.3 from the same instant.
    assert sorted(clock.slept) == pytest.approx([0.1, 0.2, 0.3])


class LateClock(FakeClock):
    """A clock whose sleepers wake ``late`` seconds after their time, once each in ``lates``
    (a busy event loop, a process the system did not schedule)."""

    def __init__(self, lates: list[float]) -> None:
        super().__init__()
        self.lates = lates

    async def sleep(self, seconds: float) -> None:
        await super().sleep(seconds)
        if self.lates:
            self.t += self.lates.pop(0)


async def test_a_turn_taken_late_moves_the_next_turn_with_it() -> None:
    clock = LateClock([0.15])
    limiter = HostLimiter(PolitenessSettings(requests_per_second=10, concurrency_per_host=1), clock)
    starts: list[float] = []
    for _ in range(3):
        async with limiter.slot("http://a.test/x"):
            starts.append(clock.now())
    # the second woke 0.15 s late; the third still starts an interval after it, not at once
    assert [b - a for a, b in itertools.pairwise(starts)] == pytest.approx([0.25, 0.1])


class SleepersClock(FakeClock):
    """Each sleeper wakes at its own time (set when it fell asleep), the first ``late`` seconds
    after it; the clock never runs back."""

    def __init__(self, late: float) -> None:
        super().__init__()
        self.late = late

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        wake, self.late = self.t + seconds + self.late, 0.0
        await asyncio.sleep(0)
        self.t = max(self.t, wake)


async def test_a_turn_reserved_before_a_late_one_still_starts_an_interval_after_it() -> None:
    clock = SleepersClock(late=0.15)
    limiter = HostLimiter(PolitenessSettings(requests_per_second=10, concurrency_per_host=4), clock)
    await limiter.turn("http://a.test/0")
    taken: dict[str, float] = {}

    async def one(name: str) -> None:
        taken[name] = await limiter.turn(f"http://a.test/{name}")  # the instant it took
        assert taken[name] == clock.now()

    # a is due at +0.1 and wakes 0.15 s late, b was due at +0.2: b waits an interval after a
    await asyncio.gather(one("a"), one("b"))
    assert taken["a"] == pytest.approx(1000.25)
    assert taken["b"] == pytest.approx(1000.35)


class StalledLoop(FakeClock):
    """Sleepers woken in the order of their times, as an event loop does; each time in
    ``stalls`` (seconds from the start) the loop is blocked for its value, and every sleeper
    due meanwhile wakes at its end, all ready at once."""

    def __init__(self, stalls: dict[float, float]) -> None:
        super().__init__()
        self.start = self.t
        self.stalls = stalls
        self.sleepers: list[tuple[float, int, asyncio.Future[None]]] = []

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        woken = asyncio.get_running_loop().create_future()
        heapq.heappush(self.sleepers, (self.t + seconds, len(self.slept), woken))
        await woken

    async def run(self) -> None:
        """Wake the sleepers until none is left."""
        for _ in range(20):
            await asyncio.sleep(0)
        while self.sleepers:
            self.t = max(self.t, self.sleepers[0][0])
            for at, blocked in list(self.stalls.items()):
                if self.t >= self.start + at:
                    del self.stalls[at]
                    self.t += blocked
            while self.sleepers and self.sleepers[0][0] <= self.t:
                heapq.heappop(self.sleepers)[2].set_result(None)
            for _ in range(20):
                await asyncio.sleep(0)


async def test_turns_woken_together_after_a_stall_are_still_an_interval_apart() -> None:
    # the first stall wakes c, d, e and f at once: c takes its turn, the others claim the next
    # three and sleep again; the second stall wakes d, e and f together again: e and f must
    # still wait, each an interval after the turn taken before it
    clock = StalledLoop({0.15: 0.3, 0.55: 0.25})
    limiter = HostLimiter(PolitenessSettings(requests_per_second=10, concurrency_per_host=8), clock)
    taken: list[float] = []

    async def one(name: str) -> None:
        await limiter.turn(f"http://a.test/{name}")
        taken.append(clock.now())

    await asyncio.gather(*(one(name) for name in "abcdef"), clock.run())
    assert len(taken) == 6
    gaps = [b - a for a, b in itertools.pairwise(taken)]
    assert min(gaps) >= 0.1 - 1e-9, gaps


async def test_other_hosts_do_not_wait() -> None:
    clock = FakeClock()
    limiter = HostLimiter(PolitenessSettings(requests_per_second=1), clock)
    for host in ("a", "b", "c"):
        async with limiter.slot(f"http://{host}.test/"):
            pass
    assert clock.slept == []


async def test_a_pause_holds_the_host_back() -> None:
    clock = FakeClock()
    limiter = HostLimiter(PolitenessSettings(requests_per_second=0), clock)
    limiter.pause("a.test", 30.0)
    async with limiter.slot("http://a.test/"):
        pass
    async with limiter.slot("http://b.test/"):
        pass
    assert clock.slept == [30.0]


async def test_a_turn_reserved_before_a_pause_waits_the_pause_out() -> None:
    # the pause comes while the second turn sleeps to its reserved start (another request's
    # 503, maybe of another process): that start is void, the turn starts after the pause
    clock = FakeClock()
    limiter = HostLimiter(PolitenessSettings(requests_per_second=1), clock)
    await limiter.turn("http://a.test/1")  # at 1000
    waiting = asyncio.ensure_future(limiter.turn("http://a.test/2"))  # reserved at 1001
    await asyncio.sleep(0)
    limiter.pause("a.test", 10.0)  # until 1011: the fake clock moved to the reserved start
    await waiting
    assert clock.now() >= 1011.0
    assert limiter.schedule.paused("a.test") <= 0


async def test_concurrency_per_host_is_capped() -> None:
    limiter = HostLimiter(PolitenessSettings(requests_per_second=0, concurrency_per_host=2))
    active = peak = 0

    async def one() -> None:
        nonlocal active, peak
        async with limiter.slot("http://a.test/"):
            active += 1
            peak = max(peak, active)
            await asyncio.sleep(0.02)
            active -= 1

    await asyncio.gather(*(one() for _ in range(6)))
    assert peak == 2


def test_crawl_delay_and_pause_slow_a_host_down() -> None:
    limiter = HostLimiter(PolitenessSettings(requests_per_second=10))
    assert limiter.interval("a.test") == 0.1
    limiter.set_crawl_delay("a.test", 2.0)
    limiter.set_crawl_delay("a.test", 1.0)  # never speeds up again
    assert limiter.interval("a.test") == 2.0


def test_retry_after_forms() -> None:
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after("Thu, 01 Jan 2026 12:00:30 GMT", now=now) == 30.0
    assert parse_retry_after("Thu, 01 Jan 2026 11:00:00 GMT", now=now) == 0.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after(None) is None


def test_a_throttled_host_is_paused_by_its_retry_after_within_bounds() -> None:
    settings = PolitenessSettings(backoff_base_s=0.5, backoff_max_s=60)
    assert host_pause(settings, retry_after="5") == 5.0
    assert host_pause(settings, retry_after="3600") == 60.0  # the URL fails; the crawl goes on
    assert host_pause(settings) == 0.5


def test_backoff_is_exponential_then_gives_up() -> None:
    settings = PolitenessSettings(retries=3, backoff_base_s=0.5, backoff_max_s=60)
    assert [backoff_delay(n, settings) for n in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, None]
    assert backoff_delay(1, settings, retry_after="5") == 5.0
    assert backoff_delay(1, settings, retry_after="3600") is None
