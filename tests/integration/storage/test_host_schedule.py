"""The politeness clock's contract, on both backends: in memory, and shared in PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from deepcrawl.storage import Repository
from deepcrawl.storage.hosts import HostSchedule, MemoryHostSchedule, SqlHostSchedule

# Waits are read off the backend's own clock: the database's moves while the test runs, so
# every assertion allows this much of it (the intervals are far longer).
_SLACK = 1.0


@pytest.fixture(params=["memory", "postgres"])
def schedule(
    request: pytest.FixtureRequest, make_db: Callable[[str], str]
) -> Iterator[HostSchedule]:
    if request.param == "memory":
        yield MemoryHostSchedule(lambda: 1000.0)  # a clock that stands still
        return
    with Repository.open(make_db(request.param)) as repo:
        site = repo.site("http://example.test/")
        yield SqlHostSchedule(repo.engine, site.id)


def test_successive_starts_are_one_interval_apart(schedule: HostSchedule) -> None:
    waits = [schedule.reserve("a.test", 10.0) for _ in range(3)]
    assert waits == pytest.approx([0.0, 10.0, 20.0], abs=_SLACK)


def test_hosts_have_their_own_clocks(schedule: HostSchedule) -> None:
    schedule.reserve("a.test", 10.0)
    assert schedule.reserve("b.test", 10.0) == pytest.approx(0.0, abs=_SLACK)


def test_a_pause_pushes_the_next_start_back_and_never_forward(schedule: HostSchedule) -> None:
    schedule.pause("a.test", 30.0)
    assert schedule.reserve("a.test", 10.0) == pytest.approx(30.0, abs=_SLACK)
    schedule.pause("a.test", 5.0)  # the start reserved at 40 s stands
    assert schedule.reserve("a.test", 10.0) == pytest.approx(40.0, abs=_SLACK)


def test_a_pause_is_told_apart_from_the_starts_reserved(schedule: HostSchedule) -> None:
    for _ in range(3):  # reservations push the clock, but are no pause
        schedule.reserve("a.test", 10.0)
    assert schedule.paused("a.test") <= 0
    schedule.pause("a.test", 30.0)
    assert schedule.paused("a.test") == pytest.approx(30.0, abs=_SLACK)
    schedule.pause("a.test", 5.0)  # the longer pause stands
    assert schedule.paused("a.test") == pytest.approx(30.0, abs=_SLACK)
    assert schedule.paused("b.test") <= 0


def test_a_site_wide_pause_holds_for_every_site_of_the_database(
    make_db: Callable[[str], str],
) -> None:
    with Repository.open(make_db("postgres")) as repo:
        one, other = SqlHostSchedule(repo.engine), SqlHostSchedule(repo.engine)
        one.pause("a.test", 30.0)
        assert other.paused("a.test") == pytest.approx(30.0, abs=_SLACK)
        assert other.reserve("a.test", 1.0) == pytest.approx(30.0, abs=_SLACK)
