"""The size the crawl reports: whole lists first, a capped search corrected (Lu 2010), else the
ledger's estimator."""

from __future__ import annotations

import dataclasses
import random

import pytest

from deepcrawl.querying.events import PageRead, QueryEvent, RecordRead
from deepcrawl.querying.ledger import Ledger
from deepcrawl.querying.loop import QueryLoop
from deepcrawl.querying.size import (
    capped_lists,
    everything_listed,
    overflow_rate,
    records_share,
    size_estimate,
)
from tests.unit.querying.answers import list_event
from tests.unit.querying.sections import settings_of


def _list(ledger: Ledger, word: str, shown: set[str], total: int, *, ended: bool) -> None:
    """A query whose list reported ``total`` and showed ``shown``, ten a page, read to its end
    where ``ended`` (else stopped by the paging)."""
    ledger.apply(list_event(word, shown, total=total, ended=ended))
    assert ledger.lists[word].complete is ended
    assert (word in ledger.complete) is ended


def test_two_whole_lists_give_their_own_estimate_whatever_the_other_captures_say() -> None:
    ledger = Ledger()
    records = [f"r{i}" for i in range(240)]
    _list(ledger, "the", set(records[:218]), 218, ended=True)
    _list(ledger, "a", set(records[:208] + records[218:238]), 228, ended=True)
    for i in range(20):  # rare words, each catching one record once: Chao's estimate swells
        ledger.apply(QueryEvent.of(f"rare{i}", [records[200 + i]]))
    size = size_estimate(ledger)
    assert size.method == "whole lists"
    assert size.value == pytest.approx(239, abs=1)


def test_too_few_whole_lists_fall_back_on_the_ledgers_estimator() -> None:
    ledger = Ledger()
    _list(ledger, "the", {f"r{i}" for i in range(100)}, 100, ended=True)
    ledger.apply(QueryEvent.of("rare", ["r1", "x"]))
    size = size_estimate(ledger)
    assert size.method == "chao1"
    assert size.value == ledger.coverage().estimated


def test_a_search_showing_the_top_of_each_list_is_corrected_by_its_overflow_rate() -> None:
    # 1,000 records in a fixed ranking; every word matches about a quarter of them, and the
    # search shows the 50 best ranked of its matches: the same few hundred records every time
    rng = random.Random(1)
    rank = list(range(1000))
    rng.shuffle(rank)
    ledger = Ledger()
    for q in range(40):
        share = rng.uniform(0.2, 0.3)
        matched = [r for r in range(1000) if rng.random() < share]
        top = {f"r{r}" for r in sorted(matched, key=lambda r: rank[r])[:50]}
        _list(ledger, f"w{q}", top, len(matched), ended=True)
    assert capped_lists(ledger) == set(ledger.lists)
    assert overflow_rate(ledger) == pytest.approx(5.0, rel=0.1)
    size = size_estimate(ledger)
    assert size.method == "capped lists, by the overflow rate"  # no record's text is known
    assert size.value == pytest.approx(1000, rel=0.25)
    assert (ledger.coverage().estimated or 0) < 500  # uncorrected, far short


def test_capped_lists_ranked_by_relevance_are_told_by_the_fetched_texts() -> None:
    # 300 records, each holding a few of 30 words; every word's list shows its 14 best (a
    # fresh sample per word: the overflow rate would put the size in the thousands); the
    # crawl fetched 200 of the records and knows their words
    rng = random.Random(2)
    words = [f"{c}{v}rn" for c in "bcdfgh" for v in "aeiou"]  # barn, bern … hurn
    texts = {f"r{i}": set(rng.sample(words, 6)) for i in range(300)}
    ledger = Ledger()
    for rid in list(texts)[:200]:
        ledger.apply(RecordRead(rid, " ".join(sorted(texts[rid]))))
    for word in words:
        matched = [rid for rid, held in texts.items() if word in held]
        _list(ledger, word, set(rng.sample(matched, 14)), len(matched), ended=True)
    assert capped_lists(ledger) == set(ledger.lists)
    size = size_estimate(ledger)
    assert size.method == "capped lists, by the fetched texts"
    assert size.value == pytest.approx(300, rel=0.1)


def test_a_site_wide_searchs_totals_count_records_by_their_share_of_the_entries() -> None:
    # as above, but each list shows three entries of other kinds (news) for each record, and
    # its total counts them all: the totals alone would put the size at four times the truth
    rng = random.Random(2)
    words = [f"{c}{v}rn" for c in "bcdfgh" for v in "aeiou"]
    texts = {f"r{i}": set(rng.sample(words, 6)) for i in range(300)}
    ledger = Ledger()
    for rid in list(texts)[:200]:
        ledger.apply(RecordRead(rid, " ".join(sorted(texts[rid]))))
    for n, word in enumerate(words):
        matched = [rid for rid, held in texts.items() if word in held]
        event = list_event(word, set(rng.sample(matched, 14)), total=4 * len(matched))
        news = tuple((f"http://site/news/{n}-{i}", "", None, 1) for i in range(42))
        ledger.apply(dataclasses.replace(event, results=event.results + news))
    assert records_share(ledger) == pytest.approx(0.25)
    size = size_estimate(ledger)
    assert size.method == "capped lists, by the fetched texts"
    assert size.value == pytest.approx(300, rel=0.1)


def test_lists_ending_short_of_their_totals_each_at_its_own_count_are_not_capped() -> None:
    # totals that count what the lists do not show (a page's sections, other kinds)
    ledger = Ledger()
    _list(ledger, "one", {f"r{i}" for i in range(20)}, 60, ended=True)
    _list(ledger, "two", {f"r{i}" for i in range(10, 41)}, 90, ended=True)
    _list(ledger, "six", {f"r{i}" for i in range(5, 30)}, 70, ended=True)
    assert capped_lists(ledger) == set()
    assert size_estimate(ledger).method == "chao1"


def test_lists_the_crawl_stopped_reading_are_not_capped() -> None:
    ledger = Ledger()
    _list(ledger, "one", {f"r{i}" for i in range(20)}, 300, ended=False)
    _list(ledger, "two", {f"r{i}" for i in range(10, 30)}, 300, ended=False)
    assert capped_lists(ledger) == set()
    assert size_estimate(ledger).method == "chao1"


def test_a_list_of_everything_read_whole_is_the_size_the_crawl_reports() -> None:
    records = [f"http://site/r{i}" for i in range(120)]
    ledger = Ledger()
    ledger.apply(QueryEvent.of("rare", records[:3]))
    ledger.apply(list_event("", records, total=120, cap=50))
    assert everything_listed(ledger) == 120
    assert size_estimate(ledger).method == "a list of everything"
    # a list of everything the search counted less than it reported is no such list
    short = Ledger().replayed([list_event("", records[:100], total=120, cap=50)])
    assert everything_listed(short) is None
    # nor one that lacks a record the crawl knows
    other = Ledger().replayed([QueryEvent.of("x", ["http://site/elsewhere"])])
    other.apply(list_event("", records, total=120, cap=50))
    assert everything_listed(other) is None


def test_the_progress_figure_is_what_the_final_line_would_say() -> None:
    records = [f"http://site/r{i}" for i in range(60)]
    loop = QueryLoop(settings_of(), record_id=lambda url: url)
    loop.apply(list_event("", records, total=60, cap=50))
    assert loop.figures.records_estimated == 60  # the list of everything, before the stop
    for n in range(3):  # three lists since, none showing a record outside it: the stop holds
        loop.apply(QueryEvent.of(f"w{n}", records[n * 5 : n * 5 + 5]))
    assert loop.figures.records_estimated == 60


def _site_wide(word: str, records: list[str], others: int, total: int) -> QueryEvent:
    """A site-wide search's list read to its end at its cap: ``records`` among ``others``
    entries of other kinds (no record of the crawl's), ten a page, reporting ``total``."""
    links = [(rid, "", rid) for rid in records] + [
        (f"http://site/news/{word}/{i}", "", None) for i in range(others)
    ]
    chunks = [links[i : i + 10] for i in range(0, len(links), 10)]
    pages = tuple(
        PageRead(n, tuple(chunk), total=total if n == 1 else None, ended=n == len(chunks))
        for n, chunk in enumerate(chunks, 1)
    )
    results = tuple(
        (url, text, rid, page.number) for page in pages for url, text, rid in page.links
    )
    return QueryEvent(word, pages, results, cap=len(pages), result_pages=len(pages), total=total)


def test_a_site_wide_search_capping_its_entries_caps_lists_of_varying_records() -> None:
    # the search shows 30 entries of any list, news among the records: each list's records
    # differ in number, its entries do not
    ledger = Ledger()
    for q, records in enumerate((10, 14, 7)):
        ids = [f"http://site/r{q}-{i}" for i in range(records)]
        ledger.apply(_site_wide(f"w{q}", ids, 30 - records, total=100))
    assert {read.shown for read in ledger.lists.values()} == {10, 14, 7}
    assert capped_lists(ledger) == {"w0", "w1", "w2"}


def test_a_site_wide_searchs_totals_floor_the_size_at_the_records_they_count() -> None:
    # capped at 30 entries: one list of records alone (ten a page), and lists where news
    # fill seven entries of ten — their totals of 1,000 count 300 records
    ledger = Ledger()
    overlap = [f"http://site/r{i}" for i in range(30)]
    ledger.apply(_site_wide("all", [f"http://site/r{i}" for i in range(30)], 0, total=40))
    for q in range(2):
        records = [*overlap[q * 5 : q * 5 + 3], *overlap[q * 5 + 10 : q * 5 + 16]]
        links = [(rid, "", rid) for rid in records] + [
            (f"http://site/news/{q}/{i}", "", None) for i in range(21)
        ]
        mixed = [links[i] for i in sorted(range(30), key=lambda i: (i % 10 >= 3, i))]
        pages = tuple(
            PageRead(n + 1, tuple(mixed[n * 10 : n * 10 + 10]), total=1000 if n == 0 else None,
                     ended=n == 2)
            for n in range(3)
        )  # fmt: skip
        results = tuple((u, t, rid, p.number) for p in pages for u, t, rid in p.links)
        ledger.apply(QueryEvent(f"w{q}", pages, results, cap=3, result_pages=3, total=1000))
    assert capped_lists(ledger) == {"all", "w0", "w1"}
    size = size_estimate(ledger)
    assert size.value is not None
    assert size.value < 1000  # the raw total is no floor
