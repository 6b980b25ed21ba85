"""The frontier in memory: the reference backend of the contract, for tests, small runs and the
link strategies' own crawls."""

from __future__ import annotations

import heapq
import itertools
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from deepcrawl.storage.frontier.base import Frontier, FrontierCounts, Lease, NewURL, State

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["MemoryFrontier"]


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
            leases.append(Lease(entry_id, u.url, entry.priority, u.depth, entry.attempts, u.source))
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
