"""The frontier contract, on every backend: memory, SQLite file, real PostgreSQL server."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from deepcrawl.frontier import Frontier, MemoryFrontier, NewURL, SqlFrontier
from deepcrawl.storage import Repository


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def frontier(request: pytest.FixtureRequest, make_db: Callable[[str], str]) -> Iterator[Frontier]:
    if request.param == "memory":
        yield MemoryFrontier()
        return
    with Repository.open(make_db(request.param)) as repo:
        site = repo.site("http://example.test/")
        yield SqlFrontier(repo.engine, site.id)


def _urls(*paths: str, priority: float = 0.0) -> list[NewURL]:
    return [NewURL(f"http://example.test{p}", priority=priority) for p in paths]


def test_dedup_by_url(frontier: Frontier) -> None:
    assert frontier.add(_urls("/a", "/b", "/a")) == 2
    assert frontier.add(_urls("/b", "/c")) == 1
    assert frontier.seen("http://example.test/c")
    assert not frontier.seen("http://example.test/d")
    assert frontier.counts().queued == 3


def test_priority_then_insertion_order(frontier: Frontier) -> None:
    frontier.add(_urls("/low1", "/low2", priority=0.1))
    frontier.add(_urls("/high", priority=0.9))
    leased = frontier.lease(3)
    assert [lease.url.rsplit("/", 1)[1] for lease in leased] == ["high", "low1", "low2"]
    assert frontier.lease(3) == []  # all leased
    assert frontier.counts().leased == 3


def test_settled_urls_never_come_back(frontier: Frontier) -> None:
    frontier.add(_urls("/a", "/b"))
    a, b = frontier.lease(2)
    frontier.complete(a.id)
    frontier.fail(b.id, "HTTP 404")
    frontier.add(_urls("/a", "/b"))
    assert frontier.lease(5, lease_s=0) == []
    counts = frontier.counts()
    assert (counts.done, counts.failed, counts.pending) == (1, 1, 0)


def test_expired_lease_is_handed_out_again(frontier: Frontier) -> None:
    frontier.add(_urls("/a"))
    [first] = frontier.lease(1, lease_s=0.05)
    assert frontier.lease(1) == []
    time.sleep(0.1)
    [again] = frontier.lease(1)
    assert again.id == first.id
    assert again.attempts == 2


def test_retry_waits_for_its_back_off(frontier: Frontier) -> None:
    frontier.add(_urls("/a"))
    [lease] = frontier.lease(1)
    frontier.retry(lease.id, after_s=0.2)
    assert frontier.lease(1) == []
    time.sleep(0.25)
    assert [x.id for x in frontier.lease(1)] == [lease.id]


def test_sql_frontier_persists_across_reopen(db_url: str) -> None:
    with Repository.open(db_url) as repo:
        site = repo.site("http://example.test/")
        SqlFrontier(repo.engine, site.id).add(_urls("/a", "/b"))
    with Repository.open(db_url) as repo:
        frontier = SqlFrontier(repo.engine, repo.site("http://example.test/").id)
        assert frontier.counts().queued == 2
        assert frontier.add(_urls("/a")) == 0
