"""The paging control on its own: a reader over a ledger answers page by page, writes nothing
but itself, and the list's facts go into the ledger only when the query's event is folded."""

from __future__ import annotations

from deepcrawl.page.fetched import Link
from deepcrawl.querying import Ledger, ListReader
from deepcrawl.querying.events import PageRead, QueryEvent, Reading, RecordRead, RecordsReached
from deepcrawl.querying.paging import page_read
from deepcrawl.querying.totals import records_total
from deepcrawl.search.results import PAGE_CAP_NOTE, ResultPage
from deepcrawl.settings import Settings
from tests.unit.querying.answers import cut_event, list_event

SETTINGS = Settings()


def _record_id(url: str) -> str | None:
    return None if "/search" in url else url


def _page(number: int, ids: list[str], *, total: int | None, last: bool) -> PageRead:
    """Result page ``number`` of "red" as the search shows it, as its reader takes it in."""
    links = [Link(f"http://site/{rid}") for rid in ids]
    if not last:
        links.append(Link(f"http://site/search?q=red&page={number + 1}", "Next", rel="next"))
    page = ResultPage(
        url=f"http://site/search?q=red&page={number}",
        blocks=[f"{total} results for “red”"] if total is not None else [],
        links=links,
    )
    return page_read(page, number, _record_id)


def _reader(ledger: Ledger, threshold: float = 1.0, word: str = "red") -> ListReader:
    return ListReader(ledger, SETTINGS, word, threshold=threshold)


def _event(reader: ListReader, *pages: PageRead, **fields: object) -> QueryEvent:
    """The query the reader read ``pages`` of, as the loop makes it."""
    results = tuple(
        (url, text, rid, page.number)
        for page in pages
        for url, text, rid in page.links
        if "?q=" not in url  # the pager's links are no results
    )
    facts: dict[str, object] = {"cap": 50, "result_pages": len(pages), **fields}
    return QueryEvent(reader.word, pages, results, total=pages[0].total, **facts)  # type: ignore[arg-type]


def _fetched(ledger: Ledger, texts: dict[str, str]) -> None:
    for rid, text in texts.items():
        ledger.apply(RecordRead(rid, text))


def test_a_result_page_is_read_as_its_links_records_its_total_and_its_way_on() -> None:
    first = _page(1, ["r0", "r1"], total=2, last=False)
    assert first.links == (
        ("http://site/r0", "", "http://site/r0"),
        ("http://site/r1", "", "http://site/r1"),
        ("http://site/search?q=red&page=2", "Next", None),
    )
    assert (first.total, first.ended, first.next_url) == (
        2,
        False,
        "http://site/search?q=red&page=2",
    )
    assert first.blocks == ("2 results for “red”",)
    last = _page(2, ["r2"], total=2, last=True)
    assert (last.total, last.ended, last.next_url) == (None, True, None)  # the first's total


def test_a_page_of_records_the_crawl_has_ends_a_list_without_a_total() -> None:
    ledger = Ledger()
    ledger.apply(RecordsReached(tuple(f"http://site/r{i}" for i in range(10, 20))))
    reader = _reader(ledger, threshold=6.0)  # the pages' mean must stay at six new records
    assert reader.read(_page(1, [f"r{i}" for i in range(10)], total=None, last=False))
    assert not reader.read(_page(2, [f"r{i}" for i in range(10, 20)], total=None, last=False))
    assert reader.fresh == [10, 0]
    assert ledger.checked == []  # the reader wrote nothing
    assert ledger.lists == {}
    assert ledger.open_lists == {}


def test_the_total_and_the_fetched_words_say_what_a_list_lacks() -> None:
    ledger = Ledger()
    _fetched(ledger, {f"held{i}": "red" if i < 30 else "blue" for i in range(60)})
    reader = _reader(ledger)  # 30 fetched records hold "red"; the list reports 40
    # the first page shows the ten records the crawl lacks: the next is not worth reading
    page = _page(1, [f"r{i}" for i in range(10)], total=40, last=False)
    assert not reader.read(page)
    assert reader.check == (40, 10)
    assert ledger.checked == []
    ledger.apply(_event(reader, page))
    assert ledger.checked == [(40, 10)]
    assert ledger.kept == "red"
    assert ledger.lists["red"].total == 40
    assert not ledger.lists["red"].complete


def test_a_list_read_to_its_end_says_exactly_what_the_crawl_lacked() -> None:
    ledger = Ledger()
    ledger.apply(RecordsReached(("http://site/r0",)))
    reader = _reader(ledger)
    page = _page(1, ["r0", "r1", "r2"], total=3, last=True)
    reader.read(page)
    ledger.apply(_event(reader, page))
    assert ledger.complete == {"red": frozenset({f"http://site/r{i}" for i in range(3)})}
    assert ledger.first_shown == {"red": {"http://site/r1", "http://site/r2"}}
    assert ledger.checked == [(3, 2)]  # its exact count, not its total's estimate


def test_a_list_read_on_from_the_setup_phases_pages_counts_what_both_parts_brought() -> None:
    ledger = Ledger(reads_on=True)
    # the setup phase's page showed r0 and r1, both new then, and its page cap cut it there
    setup = cut_event("red", ["http://site/r0", "http://site/r1"], 1)
    assert setup.error is not None
    assert setup.error.startswith(PAGE_CAP_NOTE)
    ledger.apply(setup)
    assert ledger.unfinished == {"red": 1}
    assert ledger.read_before == {"red": {"http://site/r0", "http://site/r1"}}
    ledger.apply(RecordsReached(("http://site/r9",)))
    reader = ListReader(
        ledger, SETTINGS, "red", skip=1, threshold=1.0, before=ledger.read_before["red"]
    )
    page = _page(2, ["r8", "r9"], total=None, last=True)
    reader.read(page)
    ledger.apply(_event(reader, page, skip=1, first_page=2, reading=Reading.READ_ON))
    assert ledger.unfinished == {}
    assert len(ledger.complete["red"]) == 4
    # r0, r1 then; r8 now (r9 the links brought)
    assert ledger.first_shown == {"red": {"http://site/r0", "http://site/r1", "http://site/r8"}}
    again = ListReader(ledger, SETTINGS, "blue", skip=1, threshold=1.0)
    page = _page(2, ["r7"], total=None, last=True)
    again.read(page)
    ledger.apply(_event(again, page, skip=1, first_page=2))
    assert "blue" in ledger.complete
    assert "blue" not in ledger.first_shown  # a re-read whose first part is not known


def _led(ledger: Ledger, lists: int) -> None:
    """``lists`` setup-phase lists of two pages: ten help pages, then ten records."""
    for n in range(lists):
        helps = [f"http://site/search/help{i}" for i in range(10)]
        records = [f"http://site/r{n}-{i}" for i in range(10)]
        event = cut_event(f"w{n}", [*helps, *records], 2)
        # the help pages are no records (``_record_id``)
        ledger.apply(event.rekeyed(_record_id))


def test_pages_of_other_kinds_listed_first_are_read_past_by_the_lead_the_lists_showed() -> None:
    help_pages = [f"search/help{i}" for i in range(10)]  # no record: ``_record_id`` maps them so
    ledger = Ledger(reads_on=True)
    lone = _reader(ledger, threshold=1.0)
    assert not lone.read(_page(1, help_pages, total=30, last=False))  # no lead: it stops
    _led(ledger, 1)
    assert ledger.lead == 0  # one list is no pattern
    _led(ledger, 2)
    assert ledger.lead == 1
    reader = _reader(ledger, threshold=1.0)
    assert reader.read(_page(1, help_pages, total=30, last=False))  # read past, not counted
    assert reader.fresh == []
    assert reader.read(_page(2, [f"r{i}" for i in range(10)], total=30, last=False))
    assert reader.fresh == [10]
    assert reader.total == 30  # its first page's count, though that page showed no record
    # a list past its lead that shows no record is judged as before
    later = _reader(ledger, threshold=1.0)
    assert later.read(_page(1, help_pages, total=30, last=False))
    assert not later.read(_page(2, help_pages, total=30, last=False))


def test_lists_showing_their_records_first_teach_no_lead() -> None:
    ledger = Ledger(reads_on=True)
    for n in range(2):
        records = [f"http://site/r{n}-{i}" for i in range(10)]
        helps = [f"http://site/search/help{i}" for i in range(10)]
        ledger.apply(cut_event(f"w{n}", [*records, *helps], 2).rekeyed(_record_id))
    assert ledger.lead == 0
    normal = Ledger()  # a loop that reads on no list: the leads are the setup's to learn
    _led(normal, 2)
    assert normal.lead == 0


def test_a_list_read_past_its_lead_is_checked_on_its_first_page_of_records() -> None:
    ledger = Ledger(reads_on=True)
    _led(ledger, 2)
    _fetched(ledger, {f"http://site/held{i}": "red" if i < 30 else "blue" for i in range(60)})
    reader = _reader(ledger, threshold=0.0)
    first = _page(1, [f"search/help{i}" for i in range(10)], total=40, last=False)
    reader.read(first)
    assert reader.check is None
    second = _page(2, [f"held{i}" for i in range(10)], total=40, last=False)
    reader.read(second)
    assert reader.check == (40, 10)  # the records it lacks, by its first page of records
    ledger.apply(_event(reader, first, second, threshold=0.0, cap=2))  # stopped by its cap
    assert ledger.kept == "red"
    assert ledger.lists["red"].total == 40
    assert ledger.checked[-1] == (40, 10)


def test_a_site_wide_total_counts_only_the_records_among_its_entries() -> None:
    """A list whose pages show two records where another list's page showed ten is a list of
    other kinds too (wiki pages beside tickets): its total promises a fifth as many records."""
    ledger = Ledger()
    _fetched(ledger, {f"held{i}": "red" if i < 4 else "blue" for i in range(60)})
    tickets = _reader(ledger)  # 4 fetched records hold "red"
    page = _page(1, [f"t{i}" for i in range(10)], total=10, last=True)
    tickets.read(page)
    ledger.apply(_event(tickets, page))
    assert records_total(ledger, 50, 10) == 50  # as many a page as any list: all records
    assert records_total(ledger, 50, 2) == 10
    assert records_total(ledger, 8, 2) == 8  # one page holds the whole list
    reader = _reader(ledger, threshold=1.5)
    wiki = [f"search/wiki{i}" for i in range(8)]  # other entries: ``_record_id`` maps no record
    # 50 matches less 4 held and 2 shown would promise 44 records over 24 pages, 1.8 a page;
    # 10 records less 4 held and 2 shown promise 4 over 4 pages: 1 a page, not worth reading
    assert not reader.read(_page(1, ["r0", "r1", *wiki], total=50, last=False))
    assert reader.check == (10, 6)  # the stop evidence: 10 records, 6 of them lacking


def test_a_load_more_list_brings_a_page_of_records_a_step_however_many_it_shows() -> None:
    reader = _reader(Ledger(), threshold=0.0)
    reader.read(_page(1, [f"r{i}" for i in range(5)], total=50, last=False))
    reader.read(_page(2, [f"r{i}" for i in range(10)], total=50, last=False))  # the five again
    assert (reader.size, reader.per_page) == (10, 5)


def test_the_fold_reads_a_list_as_its_reader_read_it() -> None:
    """The ledger reads the event's pages again with a reader of its own, over the ledger as
    it was when the query was sent: the same list kept as a live reader keeps it."""
    ledger = Ledger()
    ledger.apply(RecordsReached(tuple(f"r{i}" for i in range(5))))
    event = list_event("red", [f"r{i}" for i in range(25)], total=25)
    live = ListReader.asked(ledger, event)
    for page in event.pages:
        live.read(page)
    ledger.apply(event)
    kept = ledger.lists["red"]
    assert (kept.total, kept.size, kept.pages, kept.shown) == (25, 10, 3, len(live.shown))
    assert kept.complete
    assert ledger.first_shown["red"] == live.fresh_ids


def test_a_list_stopped_at_its_readers_cap_is_cut_and_the_list_of_everything_read_on() -> None:
    # no total: the reader's cap is ``querying.max_result_pages``; every page brings new
    # records, so only the cap stops it — a cut list, however high the search's own cap
    from deepcrawl.search.results import QueryResult

    settings = Settings.model_validate({"querying": {"max_result_pages": 2}})
    ledger = Ledger(settings, reads_on=True)
    reader = ListReader(ledger, settings, "", threshold=1.0)
    pages = [_page(n, [f"r{n}-{i}" for i in range(10)], total=None, last=False) for n in (1, 2)]
    assert [reader.read(page) for page in pages] == [True, False]
    assert reader.at_cap
    result = QueryResult(keyword="", pages=2)
    reader.note_cap(result)
    assert result.error == f"{PAGE_CAP_NOTE} (2 result pages)"
    # the empty query's list, cut in the normal phase, is read on past its pages read
    ledger.apply(_event(reader, *pages, error=result.error))
    assert ledger.unfinished == {"": 2}
    on = ListReader(ledger, settings, "", skip=2, threshold=1.0)
    assert on.cap == 4  # its pages read before, and a cap's worth past them
    word = Ledger(settings, reads_on=True)
    word.apply(_event(_reader(word), *pages, error=result.error))  # a word's list: not so
    assert word.unfinished == {}
    ended = ListReader(ledger, settings, "blue", threshold=1.0)
    ended.read(_page(1, ["b1"], total=None, last=True))
    assert not ended.at_cap
