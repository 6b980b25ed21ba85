"""The frontier in memory: the reference backend of the contract, for tests and small runs."""

from __future__ import annotations

import heapq
import itertools
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from deepcrawl.storage.frontier.base import Frontier, FrontierCounts, Lease, NewURL, State

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["MemoryFrontier"]


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
            self._entries[entry_id] = (u, "queued", datetime.now(UTC), 0)
            added += 1
        return added

    def lease(self, n: int, *, lease_s: float = 300.0) -> list[Lease]:
        now = datetime.now(UTC)
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
        self._set(lease_id, "queued", datetime.now(UTC) + timedelta(seconds=after_s))

    def counts(self) -> FrontierCounts:
        found: dict[str, int] = {}
        for _u, state, _at, _n in self._entries.values():
            found[state] = found.get(state, 0) + 1
        return FrontierCounts(**found)

    def seen(self, url: str) -> bool:
        return url in self._by_url
