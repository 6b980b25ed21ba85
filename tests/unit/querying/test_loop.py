"""The query loop's stop rules: evidence scaled with the site, counts refused, lists deepened."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, cast

import pytest

from deepcrawl.page.fetched import Link
from deepcrawl.querying import (
    KnownTexts,
    ListReader,
    QueryLoop,
    main_text,
    paging,
    resume_url,
    runaway,
    saturation,
    stops,
)
from deepcrawl.querying.events import QueryEvent
from deepcrawl.querying.paging import page_read
from deepcrawl.querying.rule import Ask
from deepcrawl.querying.size import gap
from deepcrawl.querying.stops import (
    checked_need,
    checked_out,
    lists_checked_out,
)
from deepcrawl.querying.totals import trusts_totals, unknown_left
from deepcrawl.search.judge import without_chrome
from deepcrawl.search.results import ChromeFilter, QueryResult, ResultLink, ResultPage
from tests.unit.querying.answers import cut_event, list_event, record
from tests.unit.querying.fake_search import FakeSearch, fake_query_loop
from tests.unit.querying.sections import settings_of

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from deepcrawl.querying import Event
    from deepcrawl.search.form_search import FormSearch

DATA = Path(__file__).parents[2] / "data" / "real"


def _record_id(url: str) -> str | None:
    return None if "/search" in url else url


@pytest.fixture(autouse=True)
def _no_trap(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fetched pages' texts are a word or two each, many alike: no trap repeating content
    (the repeat rule off)."""
    monkeypatch.setattr(runaway, "RUNAWAY_WINDOW", 0)


def _loop(**crawl: object) -> QueryLoop:
    # the stop rule reads the settings and the ledger only: no storage, no limiter
    return QueryLoop(settings_of(**crawl), record_id=_record_id)


def test_lists_checked_out_sums_the_latest_lists_until_the_evidence_is_reached() -> None:
    # oldest first; the latest three hold 100 + 100 + 100 records, 2 of them lacking
    checked = [(100, 40), (100, 1), (100, 0), (100, 1)]
    assert lists_checked_out(checked, need=300, share=0.01)  # 2 < 3
    # a fourth list is needed for 400: 42 lacking of 400
    assert not lists_checked_out(checked, need=400, share=0.01)
    assert not lists_checked_out(checked, need=401, share=0.01)  # not enough evidence at all
    assert not lists_checked_out(checked, need=300, share=0.005)  # 2 >= 1.5
    assert not lists_checked_out([], need=1, share=0.5)


def test_the_evidence_grows_with_the_records_known(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stops, "STOP_CHECKED_FRACTION", 0.1)
    loop = _loop(stop_checked_records=300)
    assert checked_need(loop.ledger, loop.settings) == 300  # nothing known: the floor
    loop.facts.observe(f"r{i}" for i in range(10_000))
    assert checked_need(loop.ledger, loop.settings) == 1000
    off = _loop(stop_checked_records=0)
    assert checked_need(off.ledger, off.settings) == 0  # the rule is off


def _page(total: int, ids: list[str]) -> ResultPage:
    """The first result page of a list that goes on (its end is not in question here)."""
    return ResultPage(
        url="http://site/search?q=w",
        blocks=[f"{total} results for “w”"],
        links=[
            *(Link(f"http://site/{rid}") for rid in ids),
            Link("http://site/search?q=w&page=2", "Next", rel="next"),
        ],
    )


def _check_first_page(loop: QueryLoop, word: str, page: ResultPage) -> None:
    """Query ``word``, its list's first page read: the loop keeps what it says the list
    lacks."""
    read = page_read(page, 1, loop.record_id)
    results = tuple((url, text, rid, 1) for url, text, rid in read.links if rid is not None)
    loop.apply(QueryEvent(word, (read,), results, total=read.total))


@pytest.mark.parametrize(("known", "stopped"), [(1_000, True), (10_000, False)])
def test_a_lucky_window_stops_a_small_site_but_not_a_large_one(
    known: int, stopped: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand-made tail: lists of 50 records, 19 of 700 lacking, then six lucky lists (300
    records, 2 lacking). The 300 records asked for with 1,000 records known stop the crawl;
    with 10,000 known the rule asks for 1,000, and those lack 21: 2.1%, above 1%."""
    monkeypatch.setattr(stops, "STOP_CHECKED_FRACTION", 0.1)
    monkeypatch.setattr(stops, "STOP_CHECKED_SHARE", 0.01)
    loop = _loop(stop_checked_records=300)
    loop.facts.observe(f"http://site/r{i}" for i in range(known))  # each list's record among them
    lacking = [2, 1, 1, 2, 1, 1, 2, 1, 1, 2, 1, 1, 2, 1, 0, 1, 0, 0, 1, 0]  # the last six: lucky
    for n, lack in enumerate(lacking):
        word = "word" + "abcdefghijklmnopqrst"[n]
        for i in range(50 - lack):  # the fetched records holding the word: 50 - lack
            loop.facts.learn_text(f"held-{n}-{i}", word)
        # the first page reports the whole list's total: 50, of which ``lack`` are not held
        _check_first_page(loop, word, _page(50, [f"r{n}"]))
    assert checked_need(loop.ledger, loop.settings) == (300 if known == 1_000 else 1_000)
    assert (checked_out(loop.ledger, loop.settings) is not None) is stopped


def test_lists_lacking_a_few_records_by_their_totals_are_read_deeper_their_size_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the lucky window above (1,000 records known): its lists lack 2 of 300 records by their
    # totals; the records lacking are in lists already asked, past the pages read, so the
    # deepening begins, carrying that evidence, and its end reports the size it gives
    from deepcrawl.querying.events import DeepeningBegun
    from deepcrawl.querying.reading import DeepenLists
    from deepcrawl.querying.stops import TotalsCovered
    from deepcrawl.querying.verdict import Verdict

    monkeypatch.setattr(stops, "STOP_CHECKED_FRACTION", 0.1)
    loop = _loop(stop_checked_records=300)
    loop.facts.observe(f"http://site/r{i}" for i in range(1_000))
    for n, lack in enumerate([2, 1, 1, 2, 1, 1, 2, 1, 1, 2, 1, 1, 2, 1, 0, 1, 0, 0, 1, 0]):
        word = "word" + "abcdefghijklmnopqrst"[n]
        for i in range(50 - lack):
            loop.facts.learn_text(f"held-{n}-{i}", word)
        _check_first_page(loop, word, _page(50, [f"r{n}"]))
    totals = checked_out(loop.ledger, loop.settings)
    assert totals is not None
    assert totals.size is not None
    assert not totals.complete
    begun = TotalsCovered().decide(loop.view, loop.settings)
    assert begun == DeepeningBegun(totals.reason, totals.size)
    loop.apply(begun)
    assert TotalsCovered().decide(loop.view, loop.settings) is None  # the deepening's to end
    deepen = DeepenLists()
    deepen.observe(begun, loop.view)
    ended = deepen.decide(loop.view, loop.settings)
    assert isinstance(ended, Verdict), ended  # no list pays a re-read: it ends
    assert ended.size == totals.size
    assert ended.reason.endswith(totals.reason)


def test_a_word_held_by_more_fetched_records_than_the_search_returns_is_not_counted() -> None:
    texts = KnownTexts()
    for i in range(30):  # "history" labels the history books' pages, which the search ignores
        words = ["history" if i < 20 else "travel", "nothing" if i < 10 else "else"]
        texts.add(f"r{i}", " ".join(words))
    assert texts.unknown_left("nothing", 14, ()) == 4
    assert texts.unknown_left("history", 12, ()) is None  # 20 held, 12 returned: no measure
    assert texts.unknown_left("history", 25, ()) == 5


# -- deepening: the lists already asked read again once the words are spent -------------------


def _deepening_loop(
    *,
    seeds: Sequence[str] = ("red", "blue"),
    frequent: Sequence[str] = (),
    crawl: dict[str, object] | None = None,
    max_pages: int | None = None,
    events: Iterable[Event] = (),
    **keywords: object,
) -> QueryLoop:
    fields = {
        "stopword_probes": (),
        **keywords,
        "stop_checked_records": 0,
        **(crawl or {}),
    }
    # as a settings override takes them: None leaves the default
    settings = settings_of(**{key: value for key, value in fields.items() if value is not None})
    # by default the two seeds and no other word: the manager runs out after them
    return fake_query_loop(
        settings, seeds=seeds, frequent=frequent, max_pages=max_pages, events=events
    )


async def _crawl(loop: QueryLoop, search: FakeSearch, texts: dict[str, str]) -> None:
    """Query until the loop stops, fetching every record a query showed before the next."""
    while (result := await loop.step(cast("FormSearch", search))) is not None:
        for link in result.result_links:
            loop.facts.learn_text(link.url, texts[link.url])


@pytest.mark.parametrize(
    ("threshold", "rereads"), [(0.0, []), (1.0, ["red"]), (0.5, ["red", "blue"])]
)
def test_the_lists_lacking_the_most_are_read_again_once_the_words_are_spent(
    threshold: float, rereads: list[str]
) -> None:
    """120 records: "red" holds r0–r59, "blue" r60–r119. Links reached r60–r114 before any
    query, so "blue" lacks 5 of 60 and "red" 50. Each first query reads one page (a page must
    bring 11 records); then the words are spent. "red" re-read is expected to bring 50 records
    in 6 requests (its first page again), "blue" 5 in 6: 0.83 a request."""
    texts = {f"r{i}": "red" if i < 60 else "blue" for i in range(120)}
    search = FakeSearch({w: [r for r, t in texts.items() if t == w] for w in ("red", "blue")})
    loop = _deepening_loop(paging_min_new=11.0, deepen_min_new=threshold)
    _known(loop, [f"r{i}" for i in range(60, 115)], texts)
    asyncio.run(_crawl(loop, search, texts))
    assert search.read[:2] == [("red", 1), ("blue", 1)]
    assert search.read[2:] == [(word, 6) for word in rereads]  # from page 1 to the end
    assert len(loop.ledger.records) == 10 + 55 + 50 * ("red" in rereads) + 5 * ("blue" in rereads)
    assert loop.ledger.deepened == len(rereads)
    # the pages read again are no second capture of their records
    assert set(loop.ledger.capture.counts.values()) == {1}
    assert loop.verdict is not None
    if threshold:
        assert f"({len(rereads)} were)" in str(loop.figures.stop_reason)


def test_the_empty_query_goes_first_and_is_read_past_the_setup_pages_while_pages_bring_news() -> (
    None
):
    """A search that answers the empty query with every record (45, ten a page): it is asked
    before any word and read to its end although the loop reads three pages a query; the
    words then bring nothing new. A search that does not take it is never asked it."""
    texts = {f"r{i}": "red" if i < 20 else "blue" for i in range(45)}
    lists = {w: [r for r, t in texts.items() if t == w] for w in ("red", "blue")}
    search = FakeSearch({"": list(texts), **lists}, accepts_empty=True)
    loop = _deepening_loop(paging_min_new=1.0, max_pages=3)
    asyncio.run(_crawl(loop, search, texts))
    assert search.read[0] == ("", 5)
    assert len(loop.ledger.records) == 45
    assert [word for word, _ in search.read[1:]] == ["red", "blue"]
    refused = FakeSearch({"": list(texts), **lists})
    asyncio.run(_crawl(_deepening_loop(paging_min_new=1.0), refused, texts))
    assert "" not in {word for word, _ in refused.read}
    # a search that wants words: the empty query is asked once, and leaves no trace in the
    # history the stop rules and the setup phase's count read
    wants_words = FakeSearch(lists, accepts_empty=True)
    loop = _deepening_loop(paging_min_new=1.0)
    asyncio.run(_crawl(loop, wants_words, texts))
    assert [word for word, _ in wants_words.read] == ["", "red", "blue"]
    assert [outcome.query for outcome in loop.ledger.history] == ["red", "blue"]


def test_a_list_whose_total_passes_every_record_known_is_read_again_without_word_counts() -> None:
    """ "a" lists all 120 records; the links brought 110 of them, fetched. The word is too short
    for the fetched words to count, but its total says 10 records are missing: read again."""
    texts = {f"r{i}": "a b" for i in range(120)}
    search = FakeSearch({"a": list(texts)})
    loop = _deepening_loop(seeds=("a",), paging_min_new=5.0, deepen_min_new=0.2)
    _known(loop, [f"r{i}" for i in range(110)], texts)
    asyncio.run(_crawl(loop, search, texts))
    assert search.read == [("a", 1), ("a", 12)]
    assert len(loop.ledger.records) == 120


def test_a_list_read_to_the_page_cap_is_not_read_again() -> None:
    texts = {f"r{i}": "red" for i in range(100)}
    search = FakeSearch({"red": list(texts)})
    loop = _deepening_loop(paging_min_new=0.0, deepen_min_new=0.01, max_result_pages=3, max_pages=3)
    asyncio.run(_crawl(loop, search, texts))
    # 70 records past the cap lack, but no page of the form reaches them
    assert search.read == [("red", 3), ("blue", 0)]
    assert loop.ledger.deepened == 0


class _ClientSideSearch:
    """A client-side JS search (lunr): no total; its first thirty queries each bring a new
    guide, the rest only guides the crawl has."""

    accepts_empty = False
    partitions: ClassVar[dict[str, list[str]]] = {}

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def query(
        self,
        word: str,
        values: Mapping[str, str] | None = None,
        *,
        max_pages: int | None = None,
        more: Callable[[ResultPage, int], bool] | None = None,
        resume: tuple[str, int] | None = None,
    ) -> QueryResult:
        self.asked.append(word)
        n = len(self.asked)
        ids = [f"g{n}" if n <= 30 else "g1", "g1"]
        page = ResultPage(url=f"http://site/?q={word}", links=[Link(rid) for rid in ids])
        if more is not None:
            more(page, 1)
        return QueryResult(
            keyword=word, links=[ResultLink(url=rid) for rid in ids], pages=1, requests=1
        )


@pytest.mark.parametrize(("share", "asked"), [(0.1, 30 + 20), (0.5, 30 + 30), (0.0, 30 + 20)])
def test_a_run_of_fruitless_queries_ends_the_querying_without_totals_or_estimate(
    share: float, asked: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The words never run out (the MkDocs guide's words, then a long list), the search reports
    no total and the saturation window is off: the run of ``stop_fruitless_queries`` fruitless
    queries — or of ``STOP_FRUITLESS_SHARE`` of the queries made, if more — ends the querying
    all the same."""
    monkeypatch.setattr(stops, "STOP_FRUITLESS_SHARE", share)
    monkeypatch.setattr(saturation, "SATURATION_RECORDS", None)
    guide = DATA / "mkdocs" / "guide.html"
    words = [f"{a}{b}word" for a in "abcdefghij" for b in "abcdefghij"]
    loop = _deepening_loop(seeds=(), frequent=words, saturation_window=10_000)
    queued = loop.words.add_examples([main_text(guide.read_bytes())])
    search = _ClientSideSearch()
    asyncio.run(_crawl_until_stop(loop, search))
    assert search.asked[: len(queued)] == queued  # the example's words first
    assert len(search.asked) == asked
    assert "in a row brought no new record" in str(loop.figures.stop_reason)


async def _crawl_until_stop(loop: QueryLoop, search: _ClientSideSearch) -> None:
    while await loop.step(cast("FormSearch", search)) is not None:
        pass


def test_the_stop_reason_reports_the_gap_the_estimate_sees_and_the_sources_tried() -> None:
    loop = _deepening_loop(frequent=["amber", "birch", "cedar", "dune"])
    for i in range(6):  # six rare records, each caught once: the estimate says more are missing
        word = loop.next_word()
        assert word is not None
        record(loop, word, {f"r{i}"})
    reason = "saturated" + gap(loop.ledger)
    assert reason.startswith("saturated; the estimate says ~15 of ~21 records are missing")
    assert reason.endswith("(word sources tried: user 2 (0 empty), frequent 4 (0 empty))")


# -- paging: the total's estimate tested by the pages, novelty of the latest pages ------------


def _known(loop: QueryLoop, ids: list[str], texts: dict[str, str]) -> None:
    """Records the links brought, their pages fetched."""
    loop.facts.observe(ids)
    for rid in ids:
        loop.facts.learn_text(rid, texts[rid])


def test_pages_bringing_nothing_refute_the_totals_estimate_and_paging_stops() -> None:
    """A search matching substrings ("the" in "other"): 100 results, and only the 20 fetched
    records whose words hold "red" count as held, so the total says 80 are lacking. The crawl
    has all 100: the second page brings none of the 8 a page predicted, and paging stops."""
    ids = [f"r{i}" for i in range(100)]
    texts = {rid: "red" if i < 20 else "reddish" for i, rid in enumerate(ids)}
    search = FakeSearch({"red": ids})
    loop = _deepening_loop(deepen_min_new=0.0)
    _known(loop, ids, texts)
    asyncio.run(loop.step(cast("FormSearch", search)))
    assert search.read == [("red", 2)]
    assert loop.ledger.refutations == 1
    # one list is no evidence against the search's totals
    assert trusts_totals(loop.ledger)


def test_repeated_refutations_end_the_use_of_the_searchs_totals() -> None:
    words = ["red", "blue", "green"]
    # listed by relevance: the records' keys in no order (in key order nothing is refuted)
    ids = {w: random.Random(w).sample([f"{w}{i}" for i in range(100)], 100) for w in words}
    texts = {rid: w if i < 20 else w + "ish" for w in words for i, rid in enumerate(ids[w])}
    search = FakeSearch(ids)
    loop = _deepening_loop(seeds=words, deepen_min_new=0.0)
    for w in words:
        _known(loop, ids[w], texts)
        asyncio.run(loop.step(cast("FormSearch", search)))
    assert search.read == [(w, 2) for w in words]
    assert not trusts_totals(loop.ledger)
    assert unknown_left(loop.ledger, "red", 100, ()) is None
    assert loop.ledger.texts.unknown_left("red", 100, ()) == 80


@pytest.mark.parametrize(("window", "pages"), [(2, 3), (0, 11)])
def test_without_a_total_the_novelty_of_the_pages_read_decides(
    window: int, pages: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No total: the first page brings ten new records, the next ones none. With a window of
    two pages (``paging.PAGING_WINDOW``) the mean of the latest two decides: three pages;
    the mean of every page read falls under one on the eleventh."""
    monkeypatch.setattr(paging, "PAGING_WINDOW", window)
    ids = [f"r{i}" for i in range(200)]
    search = FakeSearch({"red": ids}, totals={"red": 0})
    loop = _deepening_loop(deepen_min_new=0.0)
    loop.facts.observe(ids[10:])
    asyncio.run(loop.step(cast("FormSearch", search)))
    assert search.read == [("red", pages)]


def test_a_list_read_to_its_end_is_never_deepened() -> None:
    """A site-wide search: 30 results, 20 of them the wanted kind. Read to its end, the list
    lacks nothing, whatever its total says."""
    ids = [f"r{i}" for i in range(20)]
    search = FakeSearch({"red": ids}, totals={"red": 30})
    loop = _deepening_loop(deepen_min_new=0.01)
    asyncio.run(_crawl(loop, search, dict.fromkeys(ids, "red")))
    assert search.read[0] == ("red", 2)
    assert loop.ledger.deepened == 0
    assert all(lst.complete for lst in loop.ledger.lists.values())


def test_an_unfinished_list_is_read_again_past_the_pages_read_before() -> None:
    """The setup phase read three pages of "red" (60 records) before any was known; asked
    again, those pages come again whatever they bring, and the paging judges the pages past
    them."""
    ids = [f"r{i}" for i in range(60)]
    texts = dict.fromkeys(ids, "red")
    search = FakeSearch({"red": ids})
    # its pager named no page: read again from the first
    loop = _deepening_loop(deepen_min_new=0.0, events=[cut_event("red", ids, 3, resume=False)])
    assert loop.ledger.unfinished == {"red": 3}
    _known(loop, ids[:30], texts)
    asyncio.run(loop.step(cast("FormSearch", search)))
    assert search.read == [("red", 6)]
    assert len(loop.ledger.records) == 60
    assert loop.ledger.unfinished == {}
    # the pages read before, read again, are no second capture of their records
    assert set(loop.ledger.capture.counts.values()) == {1}


def test_an_unfinished_list_goes_on_from_its_next_pages_url_where_the_search_loads_it() -> None:
    """As above, the search loading a result page by its URL: the list goes on from page 4,
    the three pages read before not paid again, and the records of the pages read now are
    the capture–recapture sample."""
    ids = [f"r{i}" for i in range(60)]
    texts = dict.fromkeys(ids, "red")
    search = FakeSearch({"red": ids}, by_url=True)
    loop = _deepening_loop(deepen_min_new=0.0, events=[cut_event("red", ids, 3)])
    assert loop.ledger.resume_urls == {"red": "http://site/search?q=red&page=4"}
    _known(loop, ids[:30], texts)
    asyncio.run(loop.step(cast("FormSearch", search)))
    assert search.read == [("red", 3)]
    assert len(loop.ledger.records) == 60
    # the setup phase's pages caught the first 30, the pages read now the other 30: once each
    assert loop.ledger.capture.reached == 60
    assert set(loop.ledger.capture.counts.values()) == {1}


def _cut(submitted: str, pages: int, pager: list[str]) -> QueryResult:
    """A query of "red" its page cap stopped after ``pages`` pages from ``submitted``, its
    pages' pager links ``pager``."""
    links = [ResultLink(url="http://site/r1", text="r1")]
    links += [ResultLink(url=url, text="Next", role="pager") for url in pager]
    return QueryResult(
        keyword="red",
        submitted=[submitted],
        links=links,
        pages=pages,
        outcome="ok",
        error="stopped at the page cap",
    )


def test_a_cut_lists_resume_url_is_its_pager_link_to_the_page_after_those_read() -> None:
    pager = [f"http://site/search?q=red&page={n}" for n in range(2, 25)]
    assert resume_url(_cut("http://site/search?q=red", 10, pager)) == pager[9]  # page=11
    # a list resumed on page 11 and read 12 pages more goes on from page 23
    assert resume_url(_cut(pager[9], 12, pager)) == pager[21]
    # offsets, or a pager naming no page by number: read again from the first page
    assert resume_url(_cut("http://site/search?q=red", 3, ["http://site/more"])) is None
    # a pager naming its pages in the path: the "next" link each page read showed, the last
    # one the last page's
    older = [f"http://site/page/{n}/?s=red" for n in (2, 3, 4)]
    assert resume_url(_cut("http://site/?s=red", 3, older)) == older[2]
    assert resume_url(_cut("http://site/?s=red", 3, older[:2])) is None  # one page showed none


def test_a_stored_list_lacking_nothing_by_its_reported_total_costs_no_request() -> None:
    """The setup phase read three pages of "red" (its first page reported 60) and stopped at
    its page cap; since then every record of the 60 was fetched. The crawl resumed from the
    store does not ask for it again: its stored total says it lacks nothing, and that is the
    evidence of the stop by the lists' totals its first page would have given."""
    ids = [f"http://site/r{i}" for i in range(60)]
    search = FakeSearch({"red": ids, "blue": ids[:5]})
    loop = _deepening_loop(deepen_min_new=0.0, events=[cut_event("red", ids, 3, total=60)])
    assert loop.ledger.unfinished == {"red": 3}
    assert loop.ledger.lists["red"].total == 60
    blue = [f"b{i}" for i in range(40)]  # a word on every page would be no evidence
    _known(loop, ids + blue, {**dict.fromkeys(ids, "red"), **dict.fromkeys(blue, "blue")})
    asyncio.run(loop.step(cast("FormSearch", search)))
    assert search.read == [("blue", 1)]
    assert loop.ledger.checked[0] == (60, 0)


def test_without_a_total_a_barren_page_ends_no_list_while_the_estimate_sees_many_lacking(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No total; the crawl knows 50 records, and two lists that caught them (ten twice) make
    the capture–recapture estimate 121 (chao1): 59% of a page's records are expected new, so the
    first page bringing none does not end the list, the estimate counting as one page
    (``paging.PAGING_PRIOR_PAGES``); the next pages bring ten each. Without the estimate
    the first barren page ends it."""
    known = [f"k{i}" for i in range(50)]
    for weight, pages in ((1.0, 5), (0.0, 1)):
        monkeypatch.setattr(paging, "PAGING_PRIOR_PAGES", weight)
        search = FakeSearch({"red": known[:10] + [f"n{i}" for i in range(40)]}, totals={"red": 0})
        loop = _deepening_loop(deepen_min_new=0.0)
        loop.facts.observe(known)
        record(loop, "w0", known[:30])
        record(loop, "w1", known[20:])
        assert round(loop.ledger.estimated_size or 0) == 121
        asyncio.run(loop.step(cast("FormSearch", search)))
        assert search.read == [("red", pages)]


def test_a_word_shorter_than_the_indexed_words_has_no_count() -> None:
    texts = KnownTexts(min_length=2)
    texts.add("r1", "a cat on a mat")
    assert texts.holding("a") is None
    assert texts.holding("cat") == 1


def test_a_list_read_to_its_end_is_exact_evidence_for_the_stop_whatever_its_total() -> None:
    """A site-wide search counts talk and user pages in its totals: by them every list lacks
    records. Read to their ends, six one-page lists of 50 records, one of them new, check
    out."""
    words = [f"word{c}" for c in "abcdef"]
    lists = {w: [f"{w}-{i}" for i in range(50)] for w in words}
    loop = _deepening_loop(seeds=words, crawl={"stop_checked_records": 300}, deepen_min_new=0.0)
    for w in words:
        loop.facts.observe(lists[w][1:] if w == "worda" else lists[w])  # one new to the crawl
    search = FakeSearch(lists, totals=dict.fromkeys(words, 400), size=50)
    for _ in words:
        asyncio.run(loop.step(cast("FormSearch", search)))
    assert loop.ledger.checked == [(50, 1), *[(50, 0)] * 5]
    assert checked_out(loop.ledger, loop.settings) is not None


def test_a_typed_list_shows_no_next_link_yet_is_no_evidence_until_its_end_was_seen() -> None:
    """A search-as-you-type list renders more as it is scrolled: its first reading has no next
    link. Read one reading deep (the paging expects nothing more of it), it does not count as
    read to its end, so it is no evidence that the crawl lacks nothing."""
    words = [f"word{c}" for c in "abcdef"]
    lists = {w: [f"{w}-{i}" for i in range(50)] for w in words}
    loop = _deepening_loop(seeds=words, deepen_min_new=0.0, paging_min_new=1000.0)
    search = FakeSearch(lists, size=10, scrolls=True)
    for _ in words:
        asyncio.run(loop.step(cast("FormSearch", search)))
    assert search.read == [(w, 1) for w in words]
    assert loop.ledger.checked == []
    assert checked_out(loop.ledger, loop.settings) is None


def test_a_search_matching_more_than_the_words_is_measured_by_the_records_it_showed() -> None:
    """WordPress matches substrings: "the" finds "other" and "there". Of 30 posts it returns,
    10 hold the word itself; the ten its page showed, fetched, hold it three times: the
    fetched words account for 0.3 of its matches, and nothing is lacking."""
    texts = KnownTexts()
    for i in range(30):
        texts.add(f"p{i}", "the tale" if i % 3 == 0 else "other tales there")
    assert texts.unknown_left("the", 30, ()) == 20  # by the words alone
    page = [f"p{i}" for i in range(10)]  # p0, p3, p6, p9 hold "the": 0.4
    assert texts.match_share("the", page) == 0.4
    assert texts.unknown_left("the", 30, (), page) == 5  # 10 / 0.4 = 25 held by the search
    assert texts.match_share("the", page[:4]) is None  # too few to measure
    assert texts.match_share("tale", page) == 0.4


def test_an_unfinished_list_lacking_nothing_by_its_total_is_not_read_again() -> None:
    """The setup phase read three pages of "red" and kept no count of it; since then every
    record of its 60 was fetched. Its first page, asked again, reports the total: nothing lies
    past the pages read before, and re-reading them is not paid for."""
    ids = [f"r{i}" for i in range(60)]
    blue = [f"b{i}" for i in range(40)]  # a word on every page would be no evidence
    search = FakeSearch({"red": ids})
    loop = _deepening_loop(deepen_min_new=0.0, events=[cut_event("red", ids, 3, resume=False)])
    _known(loop, ids + blue, {**dict.fromkeys(ids, "red"), **dict.fromkeys(blue, "blue")})
    asyncio.run(loop.step(cast("FormSearch", search)))
    assert search.read == [("red", 1)]


# -- what the result-list stop counts as evidence ----------------------------------------------


def test_the_paging_control_sees_a_page_without_its_chrome() -> None:
    """A documentation site's sidebar links every page on every page, results or not (MkDocs:
    206 links beside 14 results). Read as the list's records, it made every typed list "read
    to its end" a list of ~208 records lacking 2–4, and the result-list stop ended the crawl
    with 16 pages missing. Learnt as chrome from the nonsense keyword's page, its links are
    not the list's records: the page holds its 14 results, all new to the crawl."""
    nav = [
        Link(f"http://site/page{i}", f"Page {i}", dom_path="html/body/nav/ul/li/a")
        for i in range(200)
    ]
    results = [
        Link(f"http://site/page{i}", f"Page {i}", dom_path="html/body/main/ol/li/a")
        for i in range(300, 314)
    ]
    chrome = ChromeFilter()
    chrome.learn_baseline(nav)
    loop = _deepening_loop()
    loop.facts.observe(link.url for link in nav)
    page = ResultPage(url="http://site/search", blocks=["214 results"], links=nav + results)

    def reader() -> tuple[ListReader, Callable[[ResultPage, int], bool]]:
        """The paging control of a query of "word", as the search asks it after each page."""
        paging = ListReader.asked(loop.ledger, Ask("word", None))
        return paging, lambda page, number: paging.read(page_read(page, number, loop.record_id))

    seen, more = reader()
    more(page, 1)
    assert (len(seen.shown), seen.fresh) == (214, [14])  # the navigation counted
    paging, more = reader()
    without_chrome(more, chrome)(page, 1)
    assert paging.shown == {link.url for link in results}
    assert (paging.size, paging.fresh) == (14, [14])


def test_a_typed_list_showing_fewer_records_than_its_total_was_not_read_to_its_end() -> None:
    """A live list rendered 14 of the 204 records its count reports, and scrolling brought no
    more: the reading ended, the list did not. Its pages say nothing of the 190 records they
    did not show, so the evidence stays what its total says (6 lacking), not "14, none
    new"."""
    ids = [f"r{i}" for i in range(14)]
    loop = _deepening_loop(deepen_min_new=0.0, paging_min_new=0.1)  # a reading worth scrolling
    held = [f"h{i}" for i in range(184)]
    blue = [f"b{i}" for i in range(100)]  # a word on every page would be no evidence
    _known(
        loop, ids + held + blue, {**dict.fromkeys(ids + held, "red"), **dict.fromkeys(blue, "blue")}
    )
    search = FakeSearch({"red": ids}, totals={"red": 204}, size=14, scrolls=True)
    asyncio.run(loop.step(cast("FormSearch", search)))
    assert loop.ledger.checked == [(204, 6)]  # 204 - 198 held


@pytest.mark.parametrize("scaled", [True, False])
def test_a_count_scaled_by_its_match_share_is_stop_evidence_only_if_asked(
    scaled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search matching stems: of the ten results "use" shows, fetched, four hold "use"
    itself (the others "used", "uses"). Its 30 results less 10 / 0.4 held is a count measured
    on ten records; with ``stops.STOP_CHECKED_SCALED`` off it is no evidence for the stop, while
    a word the records hold as the search matches it ("red") still is."""
    monkeypatch.setattr(stops, "STOP_CHECKED_SCALED", scaled)
    loop = _loop()
    ids = [f"http://site/p{i}" for i in range(40)]
    for i, rid in enumerate(ids):
        loop.facts.learn_text(rid, ("use red" if i % 3 == 0 else "used uses") if i < 30 else "blue")
    # ten records a page each (a page of fewer would read as a list of other kinds too)
    _check_first_page(loop, "use", _page(30, [rid.rsplit("/", 1)[1] for rid in ids[:10]]))
    _check_first_page(loop, "red", _page(12, [rid.rsplit("/", 1)[1] for rid in ids[:30:3]]))
    assert loop.ledger.texts.match_share("use", ids[:10]) == 0.4
    assert loop.ledger.texts.match_share("red", ids[:30:3]) == 1.0
    assert loop.ledger.checked == ([(30, 5), (12, 2)] if scaled else [(12, 2)])


def test_a_list_reporting_more_than_the_page_cap_holds_is_read_to_its_end_by_its_total() -> None:
    """700 results, ten a page, every one new: read past ``max_result_pages`` (50) to the
    70th page, its last, where a constant cap would leave 200 records out of reach."""
    ids = [f"r{i}" for i in range(700)]
    search = FakeSearch({"red": ids})
    loop = _deepening_loop(seeds=["red"], deepen_min_new=0.0, max_result_pages=50)
    asyncio.run(loop.step(cast("FormSearch", search)))
    assert search.read == [("red", 70)]
    assert loop.ledger.lists["red"].complete


@pytest.mark.parametrize(("fixed", "pages"), [(True, 20), (False, 2)])
def test_in_a_fixed_order_a_lists_first_pages_do_not_refute_its_total(
    fixed: bool, pages: int
) -> None:
    """ "red" lists 200 records in key order, the 50 lowest known and fetched. Its first pages
    bring nothing new. Where the search is seen to list in a fixed order (two lists before it
    ran by key), that says nothing of the rest: the total's 150 unknown records are read to
    the end. Where it ranks by relevance, the first pages refute the total and paging stops."""
    rng = random.Random(1)
    lists = {w: [f"{w}{i}" for i in range(20)] for w in ("blue", "green")}
    if not fixed:
        lists = {w: rng.sample(ids, len(ids)) for w, ids in lists.items()}
    red = [f"red{i}" for i in range(200)]
    search = FakeSearch({**lists, "red": red})
    loop = _deepening_loop(seeds=["blue", "green", "red"], deepen_min_new=0.0)
    _known(loop, red[:50], dict.fromkeys(red[:50], "red"))
    others = [f"other{i}" for i in range(100)]  # fetched, without the word
    _known(loop, others, dict.fromkeys(others, "stone"))
    for _ in range(3):
        asyncio.run(loop.step(cast("FormSearch", search)))
    assert loop.ledger.order.fixed is fixed
    assert search.read[-1] == ("red", pages)


def test_the_lead_of_other_kinds_the_setup_lists_showed_is_learnt_from_two_lists() -> None:
    """Help pages fill each list's first page (ten a page), the records follow: a lead of one
    page, learnt once two lists of the setup phase show it; records first, no lead."""
    helps = [f"http://site/help/{i}" for i in range(10)]

    def records(n: int) -> list[str]:
        return [f"http://site/r{n}-{i}" for i in range(10)]

    def resumed(*lists: list[str]) -> QueryLoop:
        """A normal phase folding the setup's lists, each cut at its second page."""

        def record_id(url: str) -> str | None:
            return None if "/help/" in url else url

        events = [cut_event(f"w{n}", ids, 2).rekeyed(record_id) for n, ids in enumerate(lists)]
        return QueryLoop(settings_of(), record_id=record_id, events=events)

    assert resumed(helps + records(1)).ledger.lead == 0  # one list is no pattern
    assert resumed(helps + records(1), helps + records(2)).ledger.lead == 1
    assert resumed(records(1) + helps, records(2) + helps).ledger.lead == 0


@pytest.mark.parametrize(
    ("step", "reason"),
    [
        (5, "showed all 200 matches"),  # 40 of its records caught again: the list of everything
        # 50 caught again: the whole lists' estimate would stop too (the records learnt since
        # are a second capture), but the proof is asked first and says what is proved
        (10, "showed all 200 matches"),
    ],
)
def test_a_stored_list_of_every_record_read_whole_ends_the_querying_before_any_request(
    step: int, reason: str
) -> None:
    """The setup phase read the empty query's list to its end (200 records of the 200 it
    reported), then three words whose lists, cut at three pages, showed only records of it.
    Resumed from its events, the loop knows the list was whole: no list is read on, no word
    asked; the querying ends on that evidence."""
    ids = [f"http://site/r{i}" for i in range(200)]
    search = FakeSearch({"red": ids, "blue": ids})
    setup = [
        list_event("", ids, total=200, capped=True),
        *(
            cut_event(word, ids[n * step : n * step + 30], 3, total=150)
            for n, word in ((2, "the"), (3, "of"), (4, "a"))
        ),
    ]
    loop = _deepening_loop(deepen_min_new=0.0, stop_whole_lists=3, events=setup)
    assert loop.ledger.complete[""] == frozenset(ids)
    assert loop.ledger.first_shown[""] == frozenset(ids)  # all new when it showed them
    assert asyncio.run(loop.step(cast("FormSearch", search))) is None
    assert search.read == []
    assert loop.verdict is not None
    assert loop.verdict.sized
    assert reason in loop.verdict.reason
