"""The events the ledger folds: each kind turns into a plain dict and back, each note changes
the ledger as it says, and the events a live loop kept fold into its ledger again."""

from __future__ import annotations

import asyncio
import json
from collections import deque
from enum import Enum
from typing import TYPE_CHECKING, Any, cast

import pytest

from deepcrawl.keywords import WordSource
from deepcrawl.querying import Ledger, QueryLoop, event_from_dict, event_to_dict, runaway
from deepcrawl.querying.events import (
    ContentRepeated,
    DeepeningBegun,
    ListsDropped,
    PageRead,
    QueryEvent,
    Reading,
    RecordRead,
    RecordsMerged,
    RecordsReached,
    SourceLeft,
    WordsExhausted,
)
from tests.unit.querying.answers import cut_event, list_event
from tests.unit.querying.fake_search import FakeSearch
from tests.unit.querying.sections import settings_of

if TYPE_CHECKING:
    from deepcrawl.querying import Event
    from deepcrawl.search.form_search import FormSearch

EVERY_KIND: list[Event] = [
    QueryEvent(
        "red",
        pages=(
            PageRead(
                1,
                (("http://site/r1", "Red house", "http://site/r1"), ("http://site/help", "", None)),
                total=40,
                next_url="http://site/search?q=red&page=2",
                blocks=("40 results for red", "Red house"),
            ),
            PageRead(2, (("http://site/r2", "", "http://site/r2"),), ended=True, scrolls=True),
        ),
        results=(
            ("http://site/r1", "Red house", "http://site/r1", 1),
            ("http://site/help", "", None, 1),
            ("http://site/r2", "", "http://site/r2", 2),
        ),
        values=(("cat", "a"), ("region", "north")),
        source=WordSource.ENTRIES,
        reading=Reading.PART,
        skip=1,
        threshold=0.0,
        whole=True,
        cap=3,
        capped=True,
        result_pages=2,
        first_page=1,
        total=40,
        outcome="ok",
        error="stopped at the page cap (2 result pages)",
        resume_url="http://site/search?q=red&page=3",
        part_of="red",
        split_by="cat",
    ),
    QueryEvent.of("blue", ["r3"], texts={"r3": "blue"}, cost=2, total=1),
    QueryEvent.of("gone", [], error="HTTP 500"),
    RecordRead("http://site/r1", "Red house by the river"),
    RecordsReached(("r4", "r5"), {"r4": "linked"}),
    RecordsMerged({"r5?s=1": "r5"}),
    ContentRepeated({"r6": "r5", "r5": "r5"}, "the same page"),
    SourceLeft(WordSource.RESULTS, trial=True, trial_length=5),
    SourceLeft(None, trial=False, trial_length=0),
    ListsDropped((("red", (40, 3)), ("blue", None))),
    WordsExhausted(),
    DeepeningBegun(),
]


@pytest.mark.parametrize("event", EVERY_KIND, ids=lambda e: type(e).__name__)
def test_every_kind_of_event_turns_into_plain_data_and_back(event: Event) -> None:
    data = event_to_dict(event)
    assert data["kind"] == type(event).__name__
    stored = json.loads(json.dumps(data))  # as the storage keeps it
    assert event_from_dict(stored) == event
    assert event_from_dict(data) == event


def test_a_record_reads_counted_words_are_not_stored_being_its_texts() -> None:
    event = RecordRead("r1", "red house", frozenset({"red", "house"}))
    data = event_to_dict(event)
    assert "terms" not in data
    back = event_from_dict(data)
    assert back == event
    assert isinstance(back, RecordRead)
    assert back.terms is None


def test_an_unknown_kind_is_no_event() -> None:
    with pytest.raises(ValueError, match="not a querying event"):
        event_from_dict({"kind": "Ledger"})
    with pytest.raises(ValueError, match="not a querying event"):
        event_from_dict({"word": "red"})


# -- the notes, folded ----------------------------------------------------------------------


def _ledger(*events: Event) -> Ledger:
    return Ledger(settings_of(), reads_on=True).replayed(events)


def test_a_source_left_starts_saturation_afresh_and_puts_the_next_on_trial() -> None:
    ledger = _ledger(
        QueryEvent.of("w0", ["a"], source=WordSource.RESULTS), QueryEvent.of("w1", ["b"])
    )
    ledger.apply(SourceLeft(WordSource.RESULTS, trial=True, trial_length=4))
    sources = ledger.sources
    assert sources.left == {WordSource.RESULTS}
    assert sources.since == sources.trial == sources.switched_at == 2
    assert sources.trial_length == 4
    ledger.apply(QueryEvent.of("w2", ["c"]))
    ledger.apply(SourceLeft(None, trial=False, trial_length=0))  # no source to leave
    assert sources.left == {WordSource.RESULTS}
    assert sources.since == 2  # judged over the same queries
    assert sources.trial is None
    assert sources.switched_at == 3


def test_lists_dropped_are_read_on_no_more_and_leave_their_evidence() -> None:
    ledger = _ledger(
        cut_event("red", [f"r{i}" for i in range(30)], 3, total=60),
        cut_event("blue", [f"b{i}" for i in range(30)], 3),
        cut_event("green", [f"g{i}" for i in range(30)], 3),
    )
    assert set(ledger.unfinished) == set(ledger.resume_urls) == {"red", "blue", "green"}
    checked = list(ledger.checked)
    ledger.apply(ListsDropped((("red", (60, 2)), ("blue", None))))
    assert ledger.unfinished == {"green": 3}
    assert set(ledger.resume_urls) == {"green"}
    assert ledger.checked == [*checked, (60, 2)]  # a list without evidence leaves none
    assert ledger.lists["red"].total == 60  # its total is kept


def test_words_exhausted_and_the_deepening_are_marked() -> None:
    ledger = _ledger(QueryEvent.of("w0", ["a"]), QueryEvent.of("w1", ["b"]))
    assert not ledger.exhausted
    ledger.apply(WordsExhausted())
    assert ledger.exhausted
    assert not ledger.deepening
    ledger.apply(DeepeningBegun())
    assert ledger.deepening
    assert ledger.deepened_from == 2  # the fruitless run starts afresh there
    ledger.apply(list_event("w0", ["a", "c"], total=2, reading=Reading.DEEPEN, skip=1))
    assert ledger.deepened == 1


# -- a live loop's events, folded again --------------------------------------------------------


class _Log:
    """An event log in memory (:class:`~deepcrawl.querying.figures.EventLog`), its events kept
    as the storage keeps them."""

    def __init__(self) -> None:
        self.stored: list[str] = []
        self.flushed = 0

    def append(self, event: Event) -> None:
        self.stored.append(json.dumps(event_to_dict(event)))

    def flush(self) -> None:
        self.flushed += 1

    def events(self) -> list[Event]:
        return [event_from_dict(json.loads(data)) for data in self.stored]


def facts(value: Any) -> Any:
    """``value`` as plain comparable data: objects by their attributes, recursively."""
    if isinstance(value, str | int | float | bool | bytes | Enum) or value is None:
        return value
    if isinstance(value, dict):
        return {facts(k): facts(v) for k, v in value.items()}
    if isinstance(value, list | tuple | deque):
        return [facts(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((facts(v) for v in value), key=repr)
    slots = [s for cls in type(value).__mro__ for s in getattr(cls, "__slots__", ())]
    attributes = {s: getattr(value, s) for s in slots if hasattr(value, s)}
    attributes.update(getattr(value, "__dict__", {}))
    return {type(value).__name__: {k: facts(v) for k, v in sorted(attributes.items())}}


def test_the_events_a_live_loop_kept_fold_into_its_ledger_field_by_field(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A normal phase resumed with the setup phase's cut lists reads them on, asks its words,
    deepens its lists, and learns records, texts and merges from the fetch side meanwhile: the
    setup's events and those it kept, folded into a fresh ledger, give its ledger."""
    ids = [f"http://site/r{i}" for i in range(90)]
    lists = {"red": ids[:60], "blue": ids[30:90], "green": ids[::7]}
    search = FakeSearch(lists, totals={"blue": 75})
    setup = [cut_event("red", ids[:60], 2, total=60), cut_event("green", ids[::7], 1)]
    monkeypatch.setattr(runaway, "RUNAWAY_WINDOW", 0)
    settings = settings_of(stopword_probes=("the",), paging_min_new=3.0)
    log = _Log()
    loop = QueryLoop(
        settings,
        record_id=lambda url: None if "/search" in url else url,
        seeds=["blue"],
        frequent=["river"],
        events=setup,
        log=log,
    )
    loop.facts.observe(ids[80:], {ids[80]: "a linked record"})

    async def crawl() -> None:
        while (result := await loop.step(cast("FormSearch", search))) is not None:
            for n, link in enumerate(result.result_links):
                if n % 2:  # every other record page fetched
                    loop.facts.learn_text(link.url, f"red blue river {link.url[-3:]}")
            loop.facts.merge({ids[81]: ids[1]})  # two ids of one record (once)

    asyncio.run(crawl())
    assert loop.verdict is not None
    assert log.flushed == 1
    kinds = {type(event).__name__ for event in log.events()}
    assert {"RecordRead", "RecordsReached", "RecordsMerged", "WordsExhausted"} <= kinds
    assert "DeepeningBegun" in kinds
    readings = {e.reading for e in log.events() if isinstance(e, QueryEvent)}
    assert readings == {Reading.WORD, Reading.READ_ON, Reading.DEEPEN}
    folded = Ledger(settings, reads_on=True).replayed([*setup, *log.events()])
    for ledger in (loop.ledger, folded):
        ledger.coverage()  # the estimates, which the capture keeps once asked
    live = {k: facts(v) for k, v in vars(loop.ledger).items() if k != "settings"}
    again = {k: facts(v) for k, v in vars(folded).items() if k != "settings"}
    assert again.keys() == live.keys()
    for key in live:
        assert again[key] == live[key], f"the ledger's {key} differs once folded again"
