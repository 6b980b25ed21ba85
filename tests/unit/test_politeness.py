"""Politeness: per-host spacing and concurrency, Retry-After, exponential back-off."""

from __future__ import annotations

import asyncio
import itertools
import time
from datetime import UTC, datetime

from deepcrawl.crawler.politeness import HostLimiter, backoff_delay, parse_retry_after
from deepcrawl.settings import PolitenessSettings


async def test_requests_to_one_host_are_spaced() -> None:
    limiter = HostLimiter(PolitenessSettings(requests_per_second=20, concurrency_per_host=8))
    starts: list[float] = []

    async def one() -> None:
        async with limiter.slot("http://a.test/x"):
            starts.append(time.monotonic())

    await asyncio.gather(*(one() for _ in range(5)))
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert all(gap >= 0.045 for gap in gaps), gaps


async def test_other_hosts_do_not_wait() -> None:
    limiter = HostLimiter(PolitenessSettings(requests_per_second=1))
    began = time.monotonic()
    for host in ("a", "b", "c"):
        async with limiter.slot(f"http://{host}.test/"):
            pass
    assert time.monotonic() - began < 0.5


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


def test_backoff_is_exponential_then_gives_up() -> None:
    settings = PolitenessSettings(retries=3, backoff_base_s=0.5, backoff_max_s=60)
    assert [backoff_delay(n, settings) for n in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, None]
    assert backoff_delay(1, settings, retry_after="5") == 5.0
    assert backoff_delay(1, settings, retry_after="3600") is None
