"""The stop rule of the result lists read to their end: capture–recapture over whole lists."""

from __future__ import annotations

import asyncio
import random
from typing import TYPE_CHECKING, cast

import pytest

from deepcrawl.keywords.estimate import chapman, lists_estimate
from deepcrawl.querying import QueryLoop, paging, runaway, size
from deepcrawl.querying.events import QueryEvent
from deepcrawl.querying.ledger import Ledger
from deepcrawl.querying.stops import complete_out, lists_complete_out
from tests.unit.querying.answers import cut_event, list_event
from tests.unit.querying.fake_search import FakeSearch, fake_query_loop
from tests.unit.querying.sections import settings_of

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from deepcrawl.querying import Event
    from deepcrawl.search.form_search import FormSearch


def _wagtail_like() -> tuple[list[str], list[str], list[str]]:
    """240 records; "the" holds 218, "a" 228, 208 of them both (the measured figures)."""
    records = [f"r{i}" for i in range(240)]
    the = records[:218]
    a = records[:208] + records[218:238]
    return records, the, a


def test_two_whole_lists_give_lincoln_petersen_and_more_give_schnabel() -> None:
    _, the, a = _wagtail_like()
    estimate, both = lists_estimate([the, a]) or (0.0, 0)
    assert both == 208
    assert estimate == pytest.approx(chapman(218, 228, 208))
    assert round(estimate) == 239
    assert lists_estimate([the]) is None
    # random lists of a population of 1,000: Schnabel over five is within 10%
    rng = random.Random(3)
    population = [str(i) for i in range(1000)]
    lists = [rng.sample(population, 400) for _ in range(5)]
    estimate, recaptured = lists_estimate(lists) or (0.0, 0)
    assert estimate == pytest.approx(1000, rel=0.1)
    assert recaptured > 500


@pytest.mark.parametrize(
    ("known", "stops"),
    [
        (238, True),  # the union of the two lists: ~239 estimated
        (230, False),  # 96% of the estimate: records are lacking
        (300, False),  # more than the estimate: the words go together, the estimate is wrong
    ],
)
def test_the_records_known_must_be_the_estimate_either_way(known: int, stops: bool) -> None:
    _, the, a = _wagtail_like()
    assert (lists_complete_out([the, a], known) is not None) == stops


def test_short_lists_and_a_small_overlap_are_no_evidence(monkeypatch: pytest.MonkeyPatch) -> None:
    _, the, a = _wagtail_like()
    # a topic's words: two short lists holding the same records put the size at them
    topic = [f"r{i}" for i in range(100)]
    assert lists_complete_out([topic, topic[:80]], 100) is not None
    assert lists_complete_out([topic, topic[:80]], 238) is None  # under the share
    # the overlap asked for
    with monkeypatch.context() as few:
        few.setattr(size, "STOP_COMPLETE_OVERLAP", 209)
        assert lists_complete_out([the, a], 238) is None
    # one list, or the rule off
    assert lists_complete_out([the], 218) is None
    monkeypatch.setattr(size, "STOP_COMPLETE_COVERAGE", 1.0)
    assert lists_complete_out([the, a], 238) is None


def test_one_whole_list_and_the_records_learnt_otherwise_give_chapman() -> None:
    """ht://Dig: the notes' frame words list all 240 notes; 93 were known before from other
    words (every one of them in the list), 147 were new: Chapman puts the size at the list."""
    frame = [f"r{i}" for i in range(240)]
    found = lists_complete_out([frame], 240, first_shown=[147])
    assert found == (chapman(240, 93, 93), 93) == (240.0, 93)
    # known records the list lacks: the size is more than the crawl knows
    assert lists_complete_out([frame], 260, first_shown=[147]) is None
    # too few records learnt otherwise to recapture, or a list read in parts (unknown: -1)
    assert lists_complete_out([frame], 240, first_shown=[200]) is None
    assert lists_complete_out([frame], 240, first_shown=[-1]) is None
    # a list of most records, those learnt before it partly outside it: no stop
    the = frame[:230]
    assert lists_complete_out([the], 232, first_shown=[182]) is None


def test_records_of_the_one_whole_list_that_later_queries_caught_are_learnt_otherwise() -> None:
    """ht://Dig, its setup phase reading each word's first page only: 36 notes were known
    before the frame words' list, too few recaptures. The words asked after it caught 80 of
    its notes again, 44 of them new when it showed them: those are a second capture as well,
    and the size is the list."""
    frame = [f"r{i}" for i in range(240)]
    assert lists_complete_out([frame], 240, first_shown=[204]) is None
    found = lists_complete_out([frame], 240, first_shown=[204], again=[44])
    assert found == (chapman(240, 80, 80), 80) == (240.0, 80)
    # a later query's records outside the list: the size is more than the crawl knows
    assert lists_complete_out([frame], 262, first_shown=[204], again=[44]) is None


def _loop(
    *,
    seeds: Sequence[str] = ("a", "more"),
    frequent: Sequence[str] = (),
    events: Iterable[Event] = (),
    **keywords: object,
) -> QueryLoop:
    """A normal phase's loop; ``events``: the setup phase's, folded first (its tests use the
    ``pages_alone`` fixture)."""
    defaults = {"stopword_probes": (), "paging_min_new": 0.0, "deepen_min_new": 0.0}
    settings = settings_of(**{**defaults, **keywords})
    return fake_query_loop(settings, seeds=seeds, frequent=frequent, events=events)


@pytest.fixture
def pages_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A list without a total judged by its own pages alone (no estimate counted as pages
    beside them); no trap rule: the fetched pages' texts are a word or two, many alike."""
    monkeypatch.setattr(paging, "PAGING_PRIOR_PAGES", 0.0)
    monkeypatch.setattr(runaway, "RUNAWAY_WINDOW", 0)


def _fetched(loop: QueryLoop, texts: dict[str, str]) -> None:
    for rid, text in texts.items():
        loop.facts.learn_text(rid, text)


def _text(word: str, n: int) -> str:
    """A fetched record page's text: ``word``, and a word of its own (no page's frame)."""
    return f"{word} k{'abcdefghij'[n // 10]}{'abcdefghij'[n % 10]}"


def _frame_words_loop(
    frequent: Sequence[str], known: Sequence[str], events: Iterable[Event] = ()
) -> QueryLoop:
    """A loop whose 20 fetched notes share the frame words "home plain" (no stop word
    indexed), ``known`` observed; ``events``: the setup phase's."""
    loop = _loop(seeds=(), frequent=frequent, paging_min_new=1.0, events=events)
    loop.words.record_stopword_probe(False)
    for i in range(20):
        loop.words.learn_record(f"Home Plain {'abcdefghijklmnopqrst'[i] * 3}")
    loop.facts.observe(known)
    return loop


@pytest.mark.usefixtures("pages_alone")
def test_a_list_read_on_past_the_setup_pages_is_whole_and_the_two_lists_stop_the_querying() -> None:
    """No total: "the" was read three pages deep by the setup phase and goes on from page 4;
    with the records of those pages it is whole, and "a" read to its end makes the second
    list: the records known are the estimate, and querying stops before the word "more"."""
    _, the, a = _wagtail_like()
    search = FakeSearch({"the": the, "a": a, "more": ["r239"]}, reports_totals=False, by_url=True)
    loop = _loop(events=[cut_event("the", the, 3)])
    assert loop.ledger.read_before == {"the": set(the[:30])}
    assert loop.ledger.resume_urls == {"the": "http://site/search?q=the&page=4"}
    while asyncio.run(loop.step(cast("FormSearch", search))) is not None:
        pass
    assert search.read == [("the", 19), ("a", 23)]
    assert loop.ledger.complete["the"] == frozenset(the)
    assert complete_out(loop.ledger) is not None
    assert "read to their end" in (loop.figures.stop_reason or "")


@pytest.mark.usefixtures("pages_alone")
def test_a_list_without_a_total_cut_short_is_kept_with_its_next_pages_url() -> None:
    _, the, _ = _wagtail_like()
    search = FakeSearch({"the": the}, reports_totals=False, by_url=True)
    loop = _loop(seeds=("the",), paging_min_new=1.0)
    loop.facts.observe(the[:100])  # its first page brings nothing new: the paging stops there
    asyncio.run(loop.step(cast("FormSearch", search)))
    assert search.read == [("the", 1)]
    assert loop.ledger.open_lists["the"] == (
        "the", 1, "http://site/search?q=the&page=2", frozenset(the[:10])
    )  # fmt: skip


@pytest.mark.usefixtures("pages_alone")
@pytest.mark.parametrize("a_whole", [True, False])
def test_a_list_cut_short_is_read_to_its_end_where_it_completes_the_stops_evidence(
    a_whole: bool,
) -> None:
    """No total: "a" was read to its end, "the" cut short after five pages that brought
    nothing new, and the crawl knows 238 records. The fetched records say "the" is in most of
    them: read on to its end (seventeen pages, none bringing a record), it is the second whole
    list, and querying stops on it rather than word after word of one page each. Without a
    whole list to pair it with, it is not read on."""
    records, the, a = _wagtail_like()
    search = FakeSearch({"the": the, "a": a, "more": ["r1"]}, reports_totals=False, by_url=True)
    loop = _loop(seeds=("more",), paging_min_new=1.0)
    if a_whole:
        loop.apply(list_event("a", a))  # read to its end, its records new then
        assert loop.ledger.complete == {"a": frozenset(a)}
    loop.facts.observe(records[:238])
    _fetched(
        loop, {rid: _text("the" if rid in the else "a", n) for n, rid in enumerate(records[:40])}
    )
    loop.apply(list_event("the", the[:50], ended=False))  # five pages, the paging stopped it
    url = "http://site/search?q=the&page=6"
    assert loop.ledger.open_lists == {"the": ("the", 5, url, frozenset(the[:50]))}
    asyncio.run(loop.step(cast("FormSearch", search)))
    if not a_whole:
        assert search.read == [("more", 1)]
        return
    assert search.read == [("the", 17)]
    assert loop.ledger.complete["the"] == frozenset(the)
    assert asyncio.run(loop.step(cast("FormSearch", search))) is None
    assert "read to their end" in (loop.figures.stop_reason or "")


@pytest.mark.usefixtures("pages_alone")
def test_the_setup_phases_list_that_completes_the_evidence_is_read_on_before_the_others() -> None:
    """No total: "the" is whole, and the setup phase cut "one" (a few records) and "and" at
    their first page. The fetched records say "and" is in most records: it is read on to its
    end first, the second whole list, and querying stops on it; "one" is never read on."""
    records, the, most = _wagtail_like()
    one = records[200:240]
    search = FakeSearch({"the": the, "and": most, "one": one}, reports_totals=False, by_url=True)
    setup = [list_event("the", the), cut_event("one", one, 1), cut_event("and", most, 1)]
    loop = _loop(seeds=(), paging_min_new=1.0, events=setup)
    assert loop.ledger.unfinished == {"one": 1, "and": 1}
    loop.facts.observe(records[:230])
    _fetched(
        loop, {rid: _text("and" if rid in most else "one", n) for n, rid in enumerate(records[:40])}
    )
    while asyncio.run(loop.step(cast("FormSearch", search))) is not None:
        pass
    assert search.read == [("and", 22)]
    assert loop.ledger.complete["and"] == frozenset(most)
    assert "read to their end" in (loop.figures.stop_reason or "")


@pytest.mark.usefixtures("pages_alone")
@pytest.mark.parametrize(("whole", "pages"), [(0.3, 4), (1.0, 2)])
def test_a_list_without_a_total_holding_most_records_is_read_on_to_its_end(
    whole: float, pages: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No total; "a" holds 100 records, the setup phase showed 60 of them, and the crawl
    knows 98, and "the" (95) was read to its end. Read on from page 7, its pages bring 1, 0,
    1, 0 new records: under ``querying.paging_min_new`` (1) after page 8, but over
    ``paging.PAGING_MIN_NEW_WHOLE``; a list holding most of the records known, the second
    of them, is read to its end at that."""
    monkeypatch.setattr(paging, "PAGING_MIN_NEW_WHOLE", whole)
    ids = [f"r{i}" for i in range(100)]
    new = {"r60", "r80"}
    known = [rid for rid in ids if rid not in new]
    setup = [list_event("the", known[:95]), cut_event("a", ids, 6)]
    loop = _loop(paging_min_new=1.0, events=setup)
    loop.facts.observe(known)
    search = FakeSearch({"a": ids}, reports_totals=False, by_url=True)
    asyncio.run(loop.step(cast("FormSearch", search)))
    assert search.read == [("a", pages)]
    assert ("a" in loop.ledger.complete) == (pages == 4)
    # the first such list is read at ``querying.paging_min_new``: no second list to pair
    loop = _loop(paging_min_new=1.0, events=[cut_event("a", ids, 6)])
    loop.facts.observe(known)
    search = FakeSearch({"a": ids}, reports_totals=False, by_url=True)
    asyncio.run(loop.step(cast("FormSearch", search)))
    assert search.read == [("a", 2)]


@pytest.mark.usefixtures("pages_alone")
def test_the_frame_words_list_is_read_to_its_end_and_alone_stops_the_querying() -> None:
    """ht://Dig refuses stop words and indexes whole pages: the notes' frame words list all
    240, the 93 known first. Its first pages bring nothing new, yet a list of as many results
    as records known is read to its end; with the records learnt before it, it is the stop."""
    notes = [f"n{i}" for i in range(240)]
    search = FakeSearch({"home plain": notes, "more": ["n1"]}, by_url=True)
    loop = _frame_words_loop(["more"], notes[:93])
    while asyncio.run(loop.step(cast("FormSearch", search))) is not None:
        pass
    assert search.read == [("home plain", 24)]
    # an estimate of the database's size, no proof: the crawl does not claim every record
    assert loop.judged_sized
    assert not loop.judged_complete
    assert loop.figures.records_estimated == pytest.approx(240, abs=1)
    assert "read to their end" in (loop.figures.stop_reason or "")


@pytest.mark.usefixtures("pages_alone")
def test_the_frame_query_goes_before_the_lists_the_setup_phase_cut_short() -> None:
    """As above, the setup phase having cut "like" (200 notes) at three pages: the list of
    every note is asked first, and after it "like" has nothing to bring: it is never read on."""
    notes = [f"n{i}" for i in range(240)]
    search = FakeSearch({"home plain": notes, "like": notes[:200]}, by_url=True)
    loop = _frame_words_loop(["more"], notes[:93], [cut_event("like", notes[:200], 3, total=200)])
    while asyncio.run(loop.step(cast("FormSearch", search))) is not None:
        pass
    assert search.read == [("home plain", 24)]
    assert loop.judged_sized


@pytest.mark.usefixtures("pages_alone")
def test_after_a_list_of_every_record_known_the_cut_lists_are_not_read_on() -> None:
    """As above with 36 notes known before the list of every note: too few recaptured. The cut
    list "like" holds notes the crawl knows, and is not read on; the next words' first pages
    recapture the notes the list brought."""
    notes = [f"n{i}" for i in range(240)]
    lists = {"home plain": notes, "like": notes[:200], "more": notes[100:110]}
    search = FakeSearch({**lists, "other": notes[110:120], "third": notes[120:130]}, by_url=True)
    cut = cut_event("like", notes[:200], 3, total=200)
    loop = _frame_words_loop(["more", "other", "third"], notes[:36], [cut])
    while asyncio.run(loop.step(cast("FormSearch", search))) is not None:
        pass
    read = [(word, pages) for word, pages in search.read if pages]  # words of no list aside
    assert read[0] == ("home plain", 24)
    assert "like" not in dict(read)
    assert {word for word, _ in read[1:]} <= {"more", "other", "third"}


@pytest.mark.usefixtures("pages_alone")
def test_without_the_frame_query_the_same_list_stops_at_its_first_page() -> None:
    notes = [f"n{i}" for i in range(240)]
    search = FakeSearch({"home plain": notes}, by_url=True)
    loop = _loop(seeds=["home plain"], paging_min_new=1.0, frame_query_terms=0)
    loop.words.record_stopword_probe(False)
    loop.facts.observe(notes[:93])
    asyncio.run(loop.step(cast("FormSearch", search)))
    assert search.read == [("home plain", 1)]


def test_the_stop_counts_the_whole_lists_records_that_later_queries_caught() -> None:
    frame = [f"r{i}" for i in range(240)]
    ledger = Ledger()
    ledger.apply(QueryEvent.of("one", frame[:36]))
    ledger.apply(list_event("home plain", frame))  # read to its end
    assert ledger.complete["home plain"] == frozenset(frame)
    assert ledger.first_shown["home plain"] == frozenset(frame[36:])
    assert complete_out(ledger) is None  # 36 recaptures
    ledger.apply(QueryEvent.of("like", frame[30:45]))  # 9 of those the list brought
    assert ledger.first_shown_figures(["home plain"]) == ([204], [9])
    assert complete_out(ledger) is None  # 45 recaptures, known before or since
    ledger.apply(QueryEvent.of("called", frame[40:60]))
    assert ledger.first_shown_figures(["home plain"]) == ([204], [24])
    verdict = complete_out(ledger)
    assert verdict is not None
    assert verdict.size is not None
    assert not verdict.complete
