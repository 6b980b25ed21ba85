"""The paging control on its own: a reader over a ledger answers page by page, writes nothing
but itself, and the list's facts go into the ledger only when the query is over."""

from __future__ import annotations

from deepcrawl.page.fetched import Link
from deepcrawl.querying import Ledger, ListReader
from deepcrawl.querying.paging import keep_list, records_total
from deepcrawl.search.results import QueryResult, ResultPage
from deepcrawl.settings import Settings

SETTINGS = Settings()


def _page(number: int, ids: list[str], *, total: int | None, last: bool) -> ResultPage:
    links = [Link(f"http://site/{rid}") for rid in ids]
    if not last:
        links.append(Link(f"http://site/search?q=red&page={number + 1}", "Next", rel="next"))
    return ResultPage(
        url=f"http://site/search?q=red&page={number}",
        blocks=[f"{total} results for “red”"] if total is not None else [],
        links=links,
    )


def _reader(ledger: Ledger, threshold: float = 1.0) -> ListReader:
    return ListReader(
        ledger, SETTINGS, lambda url: None if "/search" in url else url, "red", threshold=threshold
    )


def test_a_page_of_records_the_crawl_has_ends_a_list_without_a_total() -> None:
    ledger = Ledger()
    ledger.observe(f"http://site/r{i}" for i in range(10, 20))
    reader = _reader(ledger, threshold=6.0)  # the pages' mean must stay at six new records
    assert reader(_page(1, [f"r{i}" for i in range(10)], total=None, last=False), 1)
    assert not reader(_page(2, [f"r{i}" for i in range(10, 20)], total=None, last=False), 2)
    assert reader.fresh == [10, 0]
    assert ledger.checked == []  # the reader wrote nothing
    assert ledger.lists == {}


def test_the_total_and_the_fetched_words_say_what_a_list_lacks() -> None:
    ledger = Ledger()
    for i in range(60):  # 30 fetched records hold "red"; the list reports 40
        ledger.texts.add(f"held{i}", "red" if i < 30 else "blue")
    reader = _reader(ledger)
    # the first page shows the ten records the crawl lacks: the next is not worth reading
    assert not reader(_page(1, [f"r{i}" for i in range(10)], total=40, last=False), 1)
    assert reader.check == (40, 10)
    result = QueryResult(keyword="red", pages=1, outcome="ok")
    assert keep_list(ledger, reader, result, cap=50) == "red"
    assert ledger.checked == [(40, 10)]
    assert ledger.lists["red"].total == 40
    assert not ledger.lists["red"].complete


def test_a_list_read_to_its_end_says_exactly_what_the_crawl_lacked() -> None:
    ledger = Ledger()
    ledger.observe(["http://site/r0"])
    reader = _reader(ledger)
    reader(_page(1, ["r0", "r1", "r2"], total=3, last=True), 1)
    keep_list(ledger, reader, QueryResult(keyword="red", pages=1, outcome="ok"), cap=50)
    assert ledger.complete == {"red": frozenset({f"http://site/r{i}" for i in range(3)})}
    assert ledger.first_shown == {"red": {"http://site/r1", "http://site/r2"}}
    assert ledger.checked == [(3, 2)]  # its exact count, not its total's estimate


def test_a_list_read_on_from_the_setup_phases_pages_counts_what_both_parts_brought() -> None:
    ledger = Ledger()
    ledger.observe(["http://site/r0", "http://site/r1", "http://site/r9"])
    ledger.read_before["red"] = {"http://site/r0", "http://site/r1"}
    # the setup phase's page showed r0 and r1, both new then
    ledger.fresh_before["red"] = frozenset({"http://site/r0", "http://site/r1"})
    reader = ListReader(
        ledger, SETTINGS, lambda url: url, "red", skip=1, threshold=1.0, before=["r0", "r1"]
    )
    reader(_page(2, ["r8", "r9"], total=None, last=True), 2)
    keep_list(ledger, reader, QueryResult(keyword="red", pages=1, outcome="ok"), cap=50)
    assert len(ledger.complete["red"]) == 4
    # r0, r1 then; r8 now (r9 the links brought)
    assert ledger.first_shown == {"red": {"http://site/r0", "http://site/r1", "http://site/r8"}}
    again = ListReader(ledger, SETTINGS, lambda url: url, "blue", skip=1, threshold=1.0)
    again(_page(2, ["r7"], total=None, last=True), 2)
    keep_list(ledger, again, QueryResult(keyword="blue", pages=1, outcome="ok"), cap=50)
    assert "blue" not in ledger.first_shown  # a re-read whose first part is not known


def test_pages_of_other_kinds_listed_first_are_read_past_by_the_lead_the_lists_showed() -> None:
    help_pages = [f"search/help{i}" for i in range(10)]  # no record: ``_reader`` maps them so
    ledger = Ledger()
    lone = _reader(ledger, threshold=1.0)
    assert not lone(_page(1, help_pages, total=30, last=False), 1)  # no lead learnt: it stops
    ledger.lead = 1
    reader = _reader(ledger, threshold=1.0)
    assert reader(_page(1, help_pages, total=30, last=False), 1)  # read past, not counted
    assert reader.fresh == []
    assert reader(_page(2, [f"r{i}" for i in range(10)], total=30, last=False), 2)
    assert reader.fresh == [10]
    assert reader.total == 30  # its first page's count, though that page showed no record
    # a list past its lead that shows no record is judged as before
    later = _reader(ledger, threshold=1.0)
    assert later(_page(1, help_pages, total=30, last=False), 1)
    assert not later(_page(2, help_pages, total=30, last=False), 2)


def test_a_list_read_past_its_lead_is_checked_on_its_first_page_of_records() -> None:
    ledger = Ledger()
    for i in range(60):  # 30 fetched records hold "red"
        ledger.texts.add(f"http://site/held{i}", "red" if i < 30 else "blue")
    ledger.lead = 1
    reader = _reader(ledger, threshold=0.0)
    reader(_page(1, [f"search/help{i}" for i in range(10)], total=40, last=False), 1)
    assert reader.check is None
    reader(_page(2, [f"held{i}" for i in range(10)], total=40, last=False), 2)
    assert reader.check == (40, 10)  # the records it lacks, by its first page of records
    result = QueryResult(keyword="red", pages=2, outcome="ok")
    assert keep_list(ledger, reader, result, cap=50) == "red"
    assert ledger.lists["red"].total == 40


def test_a_site_wide_total_counts_only_the_records_among_its_entries() -> None:
    """A list whose pages show two records where another list's page showed ten is a list of
    other kinds too (wiki pages beside tickets): its total promises a fifth as many records."""
    ledger = Ledger()
    for i in range(60):  # 4 fetched records hold "red"
        ledger.texts.add(f"held{i}", "red" if i < 4 else "blue")
    tickets = _reader(ledger)
    tickets(_page(1, [f"t{i}" for i in range(10)], total=10, last=True), 1)
    keep_list(ledger, tickets, QueryResult(keyword="red", pages=1, outcome="ok"), cap=50)
    assert records_total(ledger, 50, 10) == 50  # as many a page as any list: all records
    assert records_total(ledger, 50, 2) == 10
    assert records_total(ledger, 8, 2) == 8  # one page holds the whole list
    reader = _reader(ledger, threshold=1.5)
    wiki = [f"search/wiki{i}" for i in range(8)]  # other entries: ``_reader`` maps no record
    # 50 matches less 4 held and 2 shown would promise 44 records over 24 pages, 1.8 a page;
    # 10 records less 4 held and 2 shown promise 4 over 4 pages: 1 a page, not worth reading
    assert not reader(_page(1, ["r0", "r1", *wiki], total=50, last=False), 1)
    assert reader.check == (10, 6)  # the stop evidence: 10 records, 6 of them lacking


def test_a_load_more_list_brings_a_page_of_records_a_step_however_many_it_shows() -> None:
    reader = _reader(Ledger(), threshold=0.0)
    reader(_page(1, [f"r{i}" for i in range(5)], total=50, last=False), 1)
    reader(_page(2, [f"r{i}" for i in range(10)], total=50, last=False), 2)  # the five again
    assert (reader.size, reader.per_page) == (10, 5)
