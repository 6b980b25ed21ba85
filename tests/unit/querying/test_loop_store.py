"""What a crawl killed in its query loop leaves for the resumed one: a query is stored before
its event is logged (a crawl killed between the two never holds a logged query whose links no
frontier received: its records known to a resumed crawl, and never fetched), and the example
pages' queries are in the log (a resumed crawl that picked the records' kind has no examples of
its own)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, cast

import pytest

from deepcrawl.querying import QueryLoop
from deepcrawl.querying.events import QueryEvent
from tests.unit.querying.fake_search import FakeSearch
from tests.unit.querying.sections import settings_of

if TYPE_CHECKING:
    from collections.abc import Sequence

    from deepcrawl.querying import Event
    from deepcrawl.search.form_search import FormSearch
    from deepcrawl.search.results import QueryResult


class Killed(Exception):
    """The process died here."""


class Log:
    """An event log in memory."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def append(self, event: Event) -> None:
        self.events.append(event)

    def flush(self) -> None:
        pass


class Store:
    """A crawl's store of queries in memory; ``dies``: the process is killed as it stores."""

    def __init__(self, *, dies: bool = False) -> None:
        self.dies = dies
        self.saved: list[tuple[str, int]] = []

    def save(self, result: QueryResult, *, new_records: int) -> None:
        if self.dies:
            raise Killed
        self.saved.append((result.keyword, new_records))


def _loop(
    store: Store,
    log: Log,
    seeds: Sequence[str] = (),
    *,
    examples: Sequence[str] = (),
    events: Sequence[Event] = (),
) -> QueryLoop:
    return QueryLoop(
        settings_of(stopword_probes=()),
        record_id=lambda url: None if "/search" in url else url,
        seeds=seeds,
        examples=examples,
        store=store,
        log=log,
        events=events,
    )


def test_a_query_killed_as_it_is_stored_is_not_in_the_event_log() -> None:
    log = Log()
    loop = _loop(Store(dies=True), log, ["red"])
    search = FakeSearch({"red": [f"r{i}" for i in range(15)]})
    with pytest.raises(Killed):
        asyncio.run(loop.step(cast("FormSearch", search)))
    assert search.read == [("red", 2)]  # the query was sent
    assert not [e for e in log.events if isinstance(e, QueryEvent)]


def test_each_query_is_stored_with_the_records_new_to_the_crawl() -> None:
    store, log = Store(), Log()
    loop = _loop(store, log, ["red", "blue"])
    red = [f"r{i}" for i in range(15)]
    search = FakeSearch({"red": red, "blue": [*red[10:], "b1", "b2"]})
    asyncio.run(loop.step(cast("FormSearch", search)))
    asyncio.run(loop.step(cast("FormSearch", search)))
    assert store.saved == [("red", 15), ("blue", 2)]
    assert [o.new for o in loop.ledger.history] == [15, 2]
    assert [e.word for e in log.events if isinstance(e, QueryEvent)] == ["red", "blue"]


def test_a_resumed_loop_sends_the_example_queries_the_killed_one_had_left() -> None:
    text = "The harbour lighthouse keeper kept a diary of storms at the northern cape."
    log = Log()
    live = _loop(Store(), log, examples=[text])
    search = FakeSearch({})
    asyncio.run(live.step(cast("FormSearch", search)))  # the first example query
    again = FakeSearch({})
    resumed = _loop(Store(), Log(), events=log.events)  # no examples: it picked no kind again
    asyncio.run(resumed.step(cast("FormSearch", again)))
    asyncio.run(live.step(cast("FormSearch", search)))
    assert again.read == search.read[1:]
