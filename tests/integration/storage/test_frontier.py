"""The frontier contract, on every backend: memory, SQLite file, real PostgreSQL server."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable, Iterator

import pytest
import sqlalchemy as sa

from deepcrawl.fetch.politeness import SharedHostLimiter
from deepcrawl.settings import PolitenessSettings
from deepcrawl.storage import Repository
from deepcrawl.storage.frontier import Frontier, FrontierCounts, MemoryFrontier, NewURL, SqlFrontier


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def frontier(request: pytest.FixtureRequest, make_db: Callable[[str], str]) -> Iterator[Frontier]:
    if request.param == "memory":
        yield MemoryFrontier()
        return
    with Repository.open(make_db(request.param)) as repo:
        site = repo.site("http://example.test/")
        yield SqlFrontier(repo.engine, site.id)


#: A lease or back-off that must still hold at the very next call and be over after a sleep.
#: Half a second: on a loaded machine one PostgreSQL round trip has taken more than 50 ms.
SHORT_S = 0.5


def _urls(*paths: str, priority: float = 0.0) -> list[NewURL]:
    return [NewURL(f"http://example.test{p}", priority=priority) for p in paths]


def test_dedup_by_url(frontier: Frontier) -> None:
    assert frontier.add(_urls("/a", "/b", "/a")) == 2
    assert frontier.add(_urls("/b", "/c")) == 1
    assert frontier.seen("http://example.test/c")
    assert not frontier.seen("http://example.test/d")
    assert frontier.counts().queued == 3


def test_a_lease_names_why_its_url_was_queued(frontier: Frontier) -> None:
    frontier.add([NewURL("http://example.test/r/1", source="results of 'river'")])
    frontier.add([NewURL("http://example.test/r/1", source="link on elsewhere")])  # known
    (lease,) = frontier.lease(1)
    assert lease.source == "results of 'river'"


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


def test_a_batch_of_leases_is_settled_at_once(frontier: Frontier) -> None:
    frontier.add(_urls("/a", "/b", "/c"))
    a, b, c = frontier.lease(3)
    frontier.complete_many([a.id, c.id])
    frontier.complete_many([])
    counts = frontier.counts()
    assert (counts.done, counts.leased, counts.pending) == (2, 1, 1)
    frontier.complete_many(iter([b.id]))  # any iterable
    assert frontier.pending() == 0


def test_expired_lease_is_handed_out_again(frontier: Frontier) -> None:
    frontier.add(_urls("/a"))
    [first] = frontier.lease(1, lease_s=SHORT_S)
    assert frontier.lease(1) == []
    time.sleep(SHORT_S + 0.1)
    [again] = frontier.lease(1)
    assert again.id == first.id
    assert again.attempts == 2


def test_retry_waits_for_its_back_off(frontier: Frontier) -> None:
    frontier.add(_urls("/a"))
    [lease] = frontier.lease(1)
    frontier.retry(lease.id, after_s=SHORT_S)
    assert frontier.lease(1) == []
    time.sleep(SHORT_S + 0.1)
    assert [x.id for x in frontier.lease(1)] == [lease.id]


def test_requeue_goes_behind_its_new_priority(frontier: Frontier) -> None:
    frontier.add(_urls("/a", "/b", "/c", "/d", priority=0.5))
    [a] = frontier.lease(1)
    requeued = frontier.requeue(
        [*_urls("/b", "/a", priority=0.5), *_urls("/c", "/new", priority=0.9)]
    )
    assert requeued == 3  # b, c and the new URL; a is leased: left alone
    leased = frontier.lease(5)
    assert [lease.url.rsplit("/", 1)[1] for lease in leased] == ["c", "new", "d", "b"]
    assert [lease.priority for lease in leased] == [0.9, 0.9, 0.5, 0.5]
    frontier.complete(a.id)
    assert frontier.requeue(_urls("/a", priority=1.0)) == 0  # settled: stays done
    assert frontier.counts() == FrontierCounts(leased=4, done=1)


def test_requeue_keeps_a_back_off(frontier: Frontier) -> None:
    frontier.add(_urls("/a", "/b"))
    [a, _b] = frontier.lease(2)
    frontier.retry(a.id, after_s=SHORT_S)
    assert frontier.requeue(_urls("/a", priority=1.0)) == 1
    assert frontier.lease(1) == []
    time.sleep(SHORT_S + 0.1)
    [again] = frontier.lease(1)
    assert (again.url, again.priority, again.attempts) == ("http://example.test/a", 1.0, 2)


def test_sql_frontier_persists_across_reopen(db_url: str) -> None:
    with Repository.open(db_url) as repo:
        site = repo.site("http://example.test/")
        SqlFrontier(repo.engine, site.id).add(_urls("/a", "/b"))
    with Repository.open(db_url) as repo:
        frontier = SqlFrontier(repo.engine, repo.site("http://example.test/").id)
        assert frontier.counts().queued == 2
        assert frontier.add(_urls("/a")) == 0


def test_dispatched_urls_are_held_by_their_job_until_settled(db_url: str) -> None:
    with Repository.open(db_url) as repo:
        site = repo.site("http://example.test/")
        frontier = SqlFrontier(repo.engine, site.id)
        frontier.add(_urls("/a", "/b", "/c"))
        ready = frontier.dispatchable(2)
        assert [x.url for x in ready] == ["http://example.test/a", "http://example.test/b"]
        assert frontier.dispatchable(2) == ready  # nothing changes until the job is named
        ids = [x.id for x in ready]
        assert frontier.assign(ids, holder=41) == 2
        assert [x.url for x in frontier.dispatchable(5)] == ["http://example.test/c"]
        assert frontier.held() == {41: ids}
        assert [x.id for x in frontier.leases_of(ids)] == ids
        frontier.complete(ids[0])
        assert [x.id for x in frontier.leases_of(ids)] == [ids[1]]  # a job run again skips it
        assert frontier.assign([ids[0]], holder=42) == 0  # settled: no job may take it again
        # the job ended without settling the other: it is queued again, ready at once
        assert frontier.release([ids[1]]) == 1
        assert frontier.held() == {}
        assert next(x.url for x in frontier.dispatchable(5)) == "http://example.test/b"
        assert frontier.counts().pending == 2


def test_a_lease_of_a_process_fetching_alone_leaves_job_held_urls_alone(db_url: str) -> None:
    with Repository.open(db_url) as repo:
        site = repo.site("http://example.test/")
        frontier = SqlFrontier(repo.engine, site.id)
        frontier.add(_urls("/a", "/b"))
        [held] = frontier.dispatchable(1)
        frontier.assign([held.id], holder=7)
        assert [x.url for x in frontier.lease(2, lease_s=0)] == ["http://example.test/b"]
        # an expired lease comes back; a job's hold does not expire
        assert [x.url for x in frontier.lease(2)] == ["http://example.test/b"]
        assert frontier.held() == {7: [held.id]}


def test_lease_reads_the_lease_index_not_the_table(db_url: str) -> None:
    with Repository.open(db_url) as repo:
        site = repo.site("http://example.test/")
        frontier = SqlFrontier(repo.engine, site.id)
        frontier.add(_urls(*(f"/{i}" for i in range(2000))))
        sql = (
            "SELECT id FROM frontier WHERE site_id = :s AND state = 'queued' "
            "ORDER BY priority DESC, id LIMIT 1"
        )
        with repo.engine.connect() as conn:
            if repo.engine.dialect.name == "postgresql":
                conn.execute(sa.text("ANALYZE frontier"))
                rows = conn.execute(sa.text("EXPLAIN " + sql), {"s": site.id})
                plan = " ".join(r[0] for r in rows)
                sorts = "Sort" in plan
            else:
                rows = conn.execute(sa.text("EXPLAIN QUERY PLAN " + sql), {"s": site.id})
                plan = " ".join(str(r[-1]) for r in rows)
                sorts = "TEMP B-TREE" in plan
        # the first ready row comes straight off the index: no sort of the queued rows
        assert ("ix_frontier_lease" in plan, sorts) == (True, False), plan


def test_shared_limiter_spaces_one_host_over_two_processes(make_db: Callable[[str], str]) -> None:
    url = make_db("postgres")
    settings = PolitenessSettings(requests_per_second=20, concurrency_per_host=8)
    starts: list[float] = []

    async def fetch(limiter: SharedHostLimiter) -> None:
        async with limiter.slot("http://example.test/page"):
            starts.append(time.monotonic())

    async def both(a: SharedHostLimiter, b: SharedHostLimiter) -> None:
        await asyncio.gather(*(fetch(a if i % 2 else b) for i in range(12)))

    with Repository.open(url) as one, Repository.open(url) as two:
        a = SharedHostLimiter(settings, one.engine)
        b = SharedHostLimiter(settings, two.engine)
        asyncio.run(both(a, b))
    starts.sort()
    gaps = [later - earlier for earlier, later in itertools.pairwise(starts)]
    # one rate for the host (20/s: 50 ms apart), not one per process (which would be 2 x 20/s)
    assert starts[-1] - starts[0] >= 11 * 0.05 * 0.9, gaps


def test_shared_limiter_holds_a_hosts_concurrency_over_two_processes(
    make_db: Callable[[str], str],
) -> None:
    """Two processes (engines), four tasks each, one host of two seats: never more than two
    requests in flight, and a seat of a process that goes comes back."""
    url = make_db("postgres")
    settings = PolitenessSettings(requests_per_second=0, concurrency_per_host=2)
    in_flight, most = 0, 0

    async def fetch(limiter: SharedHostLimiter) -> None:
        nonlocal in_flight, most
        async with limiter.slot("http://example.test/page"):
            in_flight += 1
            most = max(most, in_flight)
            await asyncio.sleep(0.05)
            in_flight -= 1

    async def both(a: SharedHostLimiter, b: SharedHostLimiter) -> None:
        await asyncio.gather(*(fetch(a if i % 2 else b) for i in range(8)))

    with Repository.open(url) as one, Repository.open(url) as two:
        a = SharedHostLimiter(settings, one.engine)
        b = SharedHostLimiter(settings, two.engine)
        asyncio.run(both(a, b))
        assert most == 2
        # a process that ends holding seats gives them back by the time close() returns
        assert a.seats.take("example.test", 2) is not None
        assert a.seats.take("example.test", 2) is not None
        assert b.seats.take("example.test", 2) is None
        a.close()
        assert b.seats.take("example.test", 2) is not None
        b.close()


def test_a_dead_processs_seats_come_back_with_its_session(make_db: Callable[[str], str]) -> None:
    """A process killed holding seats never gives them back itself: its session ends on the
    server (here terminated, as a SIGKILL's closed socket ends it) and the seats are free again
    soon after, with no lease to wait out."""
    url = make_db("postgres")
    with Repository.open(url) as one, Repository.open(url) as two:
        dead = SharedHostLimiter(PolitenessSettings(concurrency_per_host=1), one.engine)
        alive = SharedHostLimiter(PolitenessSettings(concurrency_per_host=1), two.engine)
        assert dead.seats.take("example.test", 1) is not None
        assert alive.seats.take("example.test", 1) is None
        pid = dead.seats._connection().execute(sa.select(sa.func.pg_backend_pid())).scalar()
        with two.engine.begin() as conn:
            assert conn.execute(sa.select(sa.func.pg_terminate_backend(pid))).scalar()
        deadline = time.monotonic() + 10
        while (seat := alive.seats.take("example.test", 1)) is None:
            assert time.monotonic() < deadline, "the dead session's seat never came back"
            time.sleep(0.05)
        assert seat == 0
        alive.close()
        dead.close()  # its connection is broken: close() still ends quietly
