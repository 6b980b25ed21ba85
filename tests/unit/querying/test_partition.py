"""Splitting the lists a search cuts short by the form's own fields (Madhavan et al.'s
templates): which lists, which field, and when a field is left."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, cast

import pytest

from deepcrawl.querying import Ledger, partition
from deepcrawl.querying.events import PageRead, QueryEvent
from deepcrawl.querying.lists import list_key
from deepcrawl.querying.partition import Partitioner, cut_lists

from .answers import list_event
from .fake_search import FakeSearch, fake_query_loop
from .sections import settings_of

if TYPE_CHECKING:
    from deepcrawl.querying import QueryLoop
    from deepcrawl.search.form_search import FormSearch

CATS = ["a", "b", "c", "d"]


def _site(words: list[str], per_value: int = 25) -> dict[str, list[str]]:
    """Each word's list: ``per_value`` records of each category, the whole list first by
    category (a fixed order); and each category's own list."""
    lists: dict[str, list[str]] = {}
    for word in words:
        lists[word] = []
        for cat in CATS:
            ids = [f"http://site/{word}/{cat}/{i}" for i in range(per_value)]
            lists[list_key(word, {"cat": cat})] = ids
            lists[word] += ids
    return lists


def _loop(**fields: object) -> QueryLoop:
    settings = settings_of(stopword_probes=(), stop_checked_records=0, deepen_min_new=0.0, **fields)
    return fake_query_loop(settings, seeds=["red", "blue"])


def _crawl(loop: QueryLoop, search: FakeSearch) -> None:
    async def run() -> None:
        while await loop.step(cast("FormSearch", search)) is not None:
            pass

    asyncio.run(run())


def test_lists_the_search_cuts_at_one_count_are_split_by_the_forms_field_to_their_end() -> None:
    """The search shows 30 results of any list: "red" and "blue" report 100 each and stop at
    30. Split by the category select, each category's 25 are under the cut: every record."""
    search = FakeSearch(_site(["red", "blue"]), partitions={"cat": CATS}, shows=30)
    loop = _loop()
    _crawl(loop, search)
    assert len(loop.ledger.records) == 200
    read = [key for key, _ in search.read]
    assert read[:2] == ["red", "blue"]
    assert sorted(read[2:]) == sorted(
        list_key(w, {"cat": c}) for w in ("red", "blue") for c in CATS
    )
    # the two lists stay cut, their parts read: nothing more to split
    assert cut_lists(loop.ledger, loop.settings) == ["red", "blue"]
    assert loop.verdict is not None


def test_the_empty_querys_list_ended_short_of_the_records_known_is_cut() -> None:
    """The search shows the top 100 of any list, and only the list of everything is that long:
    no second list is cut at the same count, but every record matches the empty query, and
    the crawl knows records it did not show. A list of everything short of its total alone
    says nothing: its total may count what no list shows."""
    settings = settings_of()
    ids = [f"http://site/r{i}" for i in range(300)]
    ledger = Ledger()
    ledger.apply(list_event("", ids[:100], total=300))  # read to its end: 100 shown
    assert cut_lists(ledger, settings) == []
    ledger.apply(QueryEvent.of("red", ids[90:140]))
    assert cut_lists(ledger, settings) == [""]
    word = Ledger()
    word.apply(list_event("tea", ids[:100], total=300))  # a word need not match every record
    word.apply(QueryEvent.of("red", ids[90:140]))
    assert cut_lists(word, settings) == []


def test_the_empty_querys_list_of_other_kinds_only_is_cut_and_split_past_the_values_asked() -> None:
    """A site-wide search lists its news first: the empty query's first page shows 100 news
    and none of the records, of 1,200 matches. No list of it is kept (no record was on it),
    yet it is the list of everything: it is cut, and split by the category field — past the
    value the setup phase tried already."""
    settings = settings_of()
    news = tuple((f"http://site/news/{i}", "", None) for i in range(100))
    pages = (PageRead(1, news, total=1200, ended=True),)
    results = tuple((url, text, rid, 1) for url, text, rid in news)
    ledger = Ledger()
    ledger.apply(QueryEvent("", pages, results, total=1200))
    assert "" not in ledger.lists
    ledger.apply(list_event("", [f"http://site/r{i}" for i in range(40)], total=40,
                            values=(("cat", "a"),)))  # fmt: skip
    ledger.apply(QueryEvent.of("red", [f"http://site/r{i}" for i in range(30, 60)]))
    assert cut_lists(ledger, settings) == [""]
    splits = Partitioner(settings, {"cat": CATS})
    splits.remember("")
    splits.remember("", {"cat": "a"})
    asked = [part.key for part in iter(lambda: splits.next(ledger), None)]
    assert asked == [list_key("", {"cat": c}) for c in CATS[1:]]


def test_a_field_whose_sub_lists_bring_nothing_is_left_after_its_trial(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A sort order that lists the same top 30 whatever its value brings nothing new: after
    ``partition.PARTITION_TRIAL`` (2) of its values the field is left for that list."""
    monkeypatch.setattr(partition, "PARTITION_TRIAL", 2)
    lists = _site(["red", "blue"])
    for word in ("red", "blue"):
        for order in ("w", "x", "y", "z"):
            lists[list_key(word, {"sort": order})] = lists[word]
    search = FakeSearch(lists, partitions={"sort": ["w", "x", "y", "z"]}, shows=30)
    loop = _loop()
    _crawl(loop, search)
    sorts = [key for key, _ in search.read if "sort=" in key]
    assert sorted(sorts) == sorted(list_key(w, {"sort": o}) for w in ("red", "blue") for o in "wx")
    assert len(loop.ledger.records) == 60


def test_no_split_without_fields_or_when_switched_off() -> None:
    for fields, partition_min_new in (({}, 1.0), ({"cat": CATS}, 0.0)):
        search = FakeSearch(_site(["red", "blue"]), partitions=fields, shows=30)
        loop = _loop(partition_min_new=partition_min_new)
        _crawl(loop, search)
        assert [key for key, _ in search.read] == ["red", "blue"]
