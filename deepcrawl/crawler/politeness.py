"""Politeness: a per-host request rate and concurrency, and back-off for overloaded servers.

:class:`HostLimiter` spaces requests to one host at least ``1 / requests_per_second`` apart (or
the robots.txt ``Crawl-delay``, whichever is longer) and keeps at most
``concurrency_per_host`` in flight. :func:`backoff_delay` says how long to wait before retrying a
transient failure: ``Retry-After`` when the server sent one (RFC 9110 §10.2.3: seconds or an
HTTP date), else exponential back-off from ``backoff_base_s``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from deepcrawl.settings import PolitenessSettings

__all__ = ["TRANSIENT_STATUSES", "HostLimiter", "backoff_delay", "parse_retry_after"]

#: Statuses worth retrying: the server is overloaded or briefly broken.
TRANSIENT_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})


class HostLimiter:
    """Per-host rate and concurrency limits for one crawl process."""

    def __init__(self, settings: PolitenessSettings) -> None:
        self.settings = settings
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
        self._next_at[host] = max(self._next_at.get(host, 0.0), time.monotonic() + seconds)

    @contextlib.asynccontextmanager
    async def slot(self, url: str) -> AsyncIterator[None]:
        """Wait for ``url``'s host to accept one more request, and hold the slot meanwhile."""
        host = urlsplit(url).netloc
        slots = self._slots.setdefault(
            host, asyncio.Semaphore(max(1, self.settings.concurrency_per_host))
        )
        async with slots:
            async with self._locks.setdefault(host, asyncio.Lock()):
                now = time.monotonic()
                start = max(now, self._next_at.get(host, 0.0))
                self._next_at[host] = start + self.interval(host)
            if start > now:
                await asyncio.sleep(start - now)
            yield


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
