"""MemoryFrontier's heaps against a plain model of the contract: sort every queued URL."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from deepcrawl.storage.frontier import MemoryFrontier, NewURL


@dataclass
class _Entry:
    priority: float
    order: int
    state: str = "queued"


class _Model:
    """The contract written the slow way: a URL's place is (priority descending, order)."""

    def __init__(self) -> None:
        self.entries: dict[str, _Entry] = {}
        self.order = 0

    def add(self, urls: list[NewURL], *, requeue: bool = False) -> int:
        queued = 0
        for u in urls:
            entry = self.entries.get(u.url)
            if entry is not None and not (requeue and entry.state == "queued"):
                continue
            self.order += 1
            self.entries[u.url] = _Entry(u.priority, self.order)
            queued += 1
        return queued

    def lease(self, n: int) -> list[str]:
        ready = sorted(
            (-e.priority, e.order, url) for url, e in self.entries.items() if e.state == "queued"
        )
        for _, _, url in ready[:n]:
            self.entries[url].state = "leased"
        return [url for _, _, url in ready[:n]]

    def counts(self) -> tuple[int, ...]:
        states = [e.state for e in self.entries.values()]
        return tuple(states.count(s) for s in ("queued", "leased", "done", "failed"))


@pytest.mark.parametrize("seed", range(12))
def test_memory_frontier_agrees_with_the_model(seed: int) -> None:
    rng = random.Random(seed)
    frontier, model = MemoryFrontier(), _Model()
    leased: dict[str, int] = {}
    for _ in range(400):
        urls = [
            NewURL(
                f"http://s.test/{rng.randrange(60)}", priority=rng.choice([0.0, 0.5, rng.random()])
            )
            for _ in range(rng.randrange(1, 6))
        ]
        op = rng.random()
        if op < 0.3:
            assert frontier.add(urls) == model.add(urls)
        elif op < 0.5:
            assert frontier.requeue(urls) == model.add(urls, requeue=True)
        elif op < 0.75:
            n = rng.randrange(5)
            got = frontier.lease(n, lease_s=3600)
            assert [lease.url for lease in got] == model.lease(n)
            leased.update((lease.url, lease.id) for lease in got)
        elif leased:
            url = rng.choice(sorted(leased))
            lease_id = leased.pop(url)
            state = rng.choice(["done", "failed", "queued"])
            if state == "done":
                frontier.complete(lease_id)
            elif state == "failed":
                frontier.fail(lease_id, "HTTP 404")
            else:
                frontier.retry(lease_id, after_s=0.0)  # keeps its place
            model.entries[url].state = state
        counts = frontier.counts()
        assert (counts.queued, counts.leased, counts.done, counts.failed) == model.counts()
