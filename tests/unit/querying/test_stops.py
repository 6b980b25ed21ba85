"""Each stop rule on its own: a ledger built from a few events, the settings, the verdict."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import pytest

from deepcrawl.keywords import StopReason, WordSource
from deepcrawl.querying import KeywordManager, Ledger, saturation, schedule, stops
from deepcrawl.querying.events import (
    ListsDropped,
    QueryEvent,
    RecordsReached,
    SourceLeft,
    WordsExhausted,
)
from deepcrawl.querying.schedule import words_stop
from deepcrawl.querying.size import gap, unread_matches
from deepcrawl.querying.stops import (
    checked_need,
    checked_out,
    complete_out,
    covered,
    fruitless,
    keys_complete,
    whole_listed,
)
from deepcrawl.settings import Settings
from tests.unit.querying.answers import list_event
from tests.unit.querying.sections import settings_of

if TYPE_CHECKING:
    from collections.abc import Iterable

    from deepcrawl.querying.events import Event


def _settings(**sections: dict[str, object]) -> Settings:
    return Settings().with_overrides(**sections)


def _ledger(
    *answers: set[str] | tuple[set[str], str], known: int = 0, settings: Settings | None = None
) -> Ledger:
    """A ledger of one query per answer (its records, or (records, error)), after ``known``
    records reached by links."""
    ledger = Ledger(settings)
    _reached(ledger, (f"k{i}" for i in range(known)))
    for n, answer in enumerate(answers):
        ids, error = answer if isinstance(answer, tuple) else (answer, None)
        ledger.apply(QueryEvent.of(f"w{n}", sorted(ids), error=error))
    return ledger


def _reached(ledger: Ledger, ids: Iterable[str]) -> None:
    ledger.apply(RecordsReached(tuple(ids)))


def _checked(ledger: Ledger, *checks: tuple[int, int]) -> None:
    """Lists whose totals are the stop's evidence: (records, those the crawl lacks) each (the
    evidence cut lists not read on leave)."""
    ledger.apply(ListsDropped(tuple((f"cut{n}", check) for n, check in enumerate(checks))))


def _words(ledger: Ledger, settings: Settings) -> KeywordManager:
    """A word supply with nothing left to give but what the test says."""
    return KeywordManager(
        settings.keywords, ledger, querying=settings.querying, frequent=[], stop_words=()
    )


def test_fruitless_needs_a_run_of_queries_bringing_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stops, "STOP_FRUITLESS_SHARE", 0.0)
    settings = _settings(querying={"stop_fruitless_queries": 3})
    assert fruitless(_ledger({"a"}, {"a"}, {"a"}), settings) is None  # the first brought "a"
    verdict = fruitless(_ledger({"a"}, {"a"}, {"a"}, {"a"}), settings)
    assert verdict is not None
    assert not verdict.complete
    assert verdict.reason == "3 or more queries in a row brought no new record"
    off = _settings(querying={"stop_fruitless_queries": 0})
    assert fruitless(_ledger({"a"}, *[{"a"}] * 30), off) is None


def test_fruitless_grows_with_the_queries_made_and_starts_afresh_with_a_source(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stops, "STOP_FRUITLESS_SHARE", 0.5)
    settings = _settings(querying={"stop_fruitless_queries": 2})
    ledger = _ledger({"a"}, {"b"}, {"a"}, {"a"})  # two fruitless of four: half is two
    assert fruitless(ledger, settings) is not None
    ledger = _ledger({"a"}, {"b"}, {"c"}, {"d"}, {"a"}, {"a"})  # two of six: three needed
    assert fruitless(ledger, settings) is None
    ledger = _ledger({"a"}, {"a"})
    ledger.apply(SourceLeft(WordSource.RESULTS, trial=False, trial_length=0))
    assert fruitless(ledger, settings) is None  # a source was left: no query since
    ledger.apply(QueryEvent.of("x", ["a"]))
    assert fruitless(ledger, settings) is None  # one query since
    ledger.apply(QueryEvent.of("y", ["a"]))
    assert fruitless(ledger, settings) is not None


def test_checked_out_needs_enough_records_of_evidence_lacking_almost_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stops, "STOP_CHECKED_LISTS", 2)
    monkeypatch.setattr(stops, "STOP_CHECKED_SHARE", 0.05)
    settings = _settings(querying={"stop_checked_records": 100})
    ledger = _ledger(known=500)
    _checked(ledger, (60, 1), (60, 1))
    verdict = checked_out(ledger, settings)
    assert verdict is not None
    # 2 of 120 lacking: no proof; the share lacked estimates the missing of the 500 known
    assert not verdict.complete
    assert verdict.size == pytest.approx(500 / (1 - 2 / 120))
    assert "lack 2 of their 120 records" in verdict.reason
    none_lacking = _ledger(known=500)
    _checked(none_lacking, (60, 0), (60, 0))
    proof = checked_out(none_lacking, settings)
    assert proof is not None
    assert proof.complete
    assert proof.size is None
    lacking = _ledger(known=500)
    _checked(lacking, (60, 1), (60, 6))  # 7 of 120 lacking: over 5%
    assert checked_out(lacking, settings) is None
    one = _ledger(known=500)
    _checked(one, (60, 0))  # one list of 60: too little evidence
    assert checked_out(one, settings) is None


def test_checked_out_waits_while_a_source_is_on_trial(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stops, "STOP_CHECKED_LISTS", 1)
    settings = _settings(querying={"stop_checked_records": 100})
    ledger = _ledger({"a"})
    _checked(ledger, (200, 0))
    assert checked_out(ledger, settings) is not None
    ledger.apply(SourceLeft(None, trial=True, trial_length=5))  # its queries not all answered
    assert checked_out(ledger, settings) is None


def test_the_checked_evidence_needed_grows_with_the_records_known(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stops, "STOP_CHECKED_FRACTION", 0.1)
    settings = _settings(querying={"stop_checked_records": 300})
    assert checked_need(_ledger(known=100), settings) == 300
    assert checked_need(_ledger(known=10_000), settings) == 1_000
    assert checked_need(_ledger(), _settings(querying={"stop_checked_records": 0})) == 0


def test_complete_out_reads_the_lists_read_to_their_end() -> None:
    records = [f"r{i}" for i in range(240)]
    ledger = Ledger()
    ledger.apply(list_event("the", records[:218]))  # read to its end
    assert complete_out(ledger) is None  # one list, the crawl knowing it alone
    ledger.apply(list_event("a", records[:208] + records[218:238]))
    assert set(ledger.complete) == {"the", "a"}
    verdict = complete_out(ledger)
    assert verdict is not None
    assert not verdict.complete  # capture–recapture: an estimate, never a proof
    assert verdict.size is not None
    _reached(ledger, records[238:] + [f"x{i}" for i in range(60)])  # more known than estimated
    assert complete_out(ledger) is None


def test_covered_needs_the_estimate_and_a_patient_tail(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = Settings()
    both = {"a", "b", "c"}
    ledger = _ledger(both, both, both, both, both, both)  # every record caught six times
    assert covered(ledger, settings) is None  # off by default
    monkeypatch.setattr(stops, "STOP_COVERAGE", 0.9)
    monkeypatch.setattr(stops, "STOP_PATIENCE", 2)
    verdict = covered(ledger, settings)
    assert verdict is not None
    assert not verdict.complete
    assert verdict.size == pytest.approx(3.0)
    assert covered(_ledger(both, both, both, both, both, {"d"}), settings) is None  # d was new


@pytest.mark.parametrize(
    ("events", "reason"),
    [
        ([WordsExhausted()], StopReason.EXHAUSTED),
        ([QueryEvent.of(f"e{n}", [], error="HTTP 500") for n in range(5)], StopReason.ERRORS),
        ([QueryEvent.of("dear", ["b"], cost=10**9)], StopReason.COST_BUDGET),
    ],
)
def test_the_words_stop_for_their_own_reasons(events: list[Event], reason: StopReason) -> None:
    settings = _settings(querying={"max_cost": 1000})
    ledger = _ledger({"a"}, settings=settings)
    assert words_stop(ledger, _words(ledger, settings), settings) is None
    ledger.replayed(events)
    assert words_stop(ledger, _words(ledger, settings), settings) is reason


def test_the_words_stop_when_the_form_answers_every_word_alike_or_the_budget_is_spent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(schedule, "IDENTICAL_WINDOW", 3)
    settings = _settings(querying={"max_queries": 10})
    same = {"a", "b"}
    ledger = _ledger(same, same, settings=settings)
    assert words_stop(ledger, _words(ledger, settings), settings) is None
    ledger.apply(QueryEvent.of("w", sorted(same)))
    assert words_stop(ledger, _words(ledger, settings), settings) is StopReason.IDENTICAL
    many = _ledger(*[{f"r{i}"} for i in range(10)], settings=settings)
    assert words_stop(many, _words(many, settings), settings) is StopReason.QUERY_BUDGET


def test_saturated_words_wait_for_the_users_words_and_an_untried_source(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(saturation, "SATURATION_RECORDS", None)
    settings = settings_of(saturation_window=3)
    ledger = _ledger({"a"}, {"a"}, {"a"}, {"a"}, settings=settings)
    words = _words(ledger, settings)
    assert words_stop(ledger, words, settings) is StopReason.SATURATED
    users = KeywordManager(
        settings.keywords,
        ledger,
        querying=settings.querying,
        seeds=["mine"],
        frequent=[],
        stop_words=(),
    )
    assert words_stop(ledger, users, settings) is None  # "mine" is sent all the same
    words.learn_record("fresh words")  # the record pages' words: a source untried
    assert words_stop(ledger, words, settings) is None


def test_the_gap_names_what_the_estimate_misses_and_the_sources_tried() -> None:
    ledger = Ledger()
    for i in range(6):  # six rare records, each caught once: the estimate says more are missing
        source = WordSource.USER if i < 2 else WordSource.FREQUENT
        ledger.apply(QueryEvent.of(f"w{i}", [f"r{i}"], source=source))
    assert gap(ledger) == (
        "; the estimate says ~15 of ~21 records are missing "
        "(word sources tried: user 2 (0 empty), frequent 4 (0 empty))"
    )
    caught = _ledger({"a"}, {"a"})
    assert gap(caught) == ""  # nothing missing by the estimate


def test_the_gap_names_the_matches_the_lists_reported_and_the_crawl_did_not_read() -> None:
    ledger = _ledger({"a", "b"}, {"a", "b"})
    records = [f"r{i}" for i in range(200)]
    ledger.apply(list_event("w", records, total=1200, size=100, ended=False))  # two pages read
    ledger.apply(list_event("v", records[:150], total=150, size=100))  # read to its end
    ledger.apply(QueryEvent.of("u", records[150:]))  # every record caught twice: none missing
    assert (ledger.lists["w"].shown, ledger.lists["w"].pages) == (200, 2)
    assert ledger.lists["v"].complete
    assert unread_matches(ledger) == 1000
    assert gap(ledger) == "; the result lists reported 1000 matches it did not read"


def _keyed(*keys: int) -> list[str]:
    return [f"http://site/ticket/{key}" for key in keys]


def _falling(ledger: Ledger, *keys: int) -> None:
    """Two lists of ``keys`` read in a fixed order, the highest key first."""
    for word in ("f0", "f1"):
        ledger.apply(list_event(word, _keyed(*sorted(keys, reverse=True))))


def test_serial_keys_with_none_missing_end_the_querying_where_the_highest_heads_the_lists() -> None:
    ledger = Ledger()
    _reached(ledger, _keyed(*range(1, 101)))  # the links brought keys 1 to 100
    _falling(ledger, *range(1, 100, 9))  # two lists of evidence
    assert ledger.order.falling
    ledger.apply(QueryEvent.of("w0", _keyed(99, 50, 3)))
    ledger.apply(QueryEvent.of("w1", _keyed(97, 12)))
    assert keys_complete(ledger, lists=5) is None  # four lists of evidence
    ledger.apply(QueryEvent.of("by", []))  # a word nothing matched: no evidence either way
    assert keys_complete(ledger, lists=5) is None
    ledger.apply(QueryEvent.of("w2", _keyed(100, 60)))
    verdict = keys_complete(ledger, lists=5)
    assert verdict is not None
    assert verdict.complete
    assert "1 to 100" in verdict.reason
    gapped = Ledger()
    _reached(gapped, _keyed(*range(1, 50), *range(51, 101)))  # 50 is missing
    _falling(gapped, *range(1, 100, 9))
    for n in range(3):
        gapped.apply(QueryEvent.of(f"w{n}", _keyed(99, 3)))
    assert gapped.order.falling
    assert keys_complete(gapped, lists=5) is None
    rising = Ledger()
    _reached(rising, _keyed(*range(1, 101)))  # the lowest keys first: the rest lies past them
    for word in ("r0", "r1"):
        rising.apply(list_event(word, _keyed(*range(1, 100, 9))))
    for n in range(3):
        rising.apply(QueryEvent.of(f"w{n}", _keyed(1, 2)))
    assert rising.order.fixed
    assert keys_complete(rising, lists=5) is None


def test_a_whole_list_of_every_record_stops_once_later_lists_show_none_outside() -> None:
    settings = _settings(querying={"stop_whole_lists": 3})
    everything = {f"r{i}" for i in range(200)}
    ledger = Ledger()
    ledger.apply(list_event("", everything, total=200))  # read to its end
    ledger.apply(QueryEvent.of("the", [f"r{i}" for i in range(100)], total=140))
    ledger.apply(QueryEvent.of("zzz", []))  # a word nothing matched: no evidence either way
    ledger.apply(QueryEvent.of("a", [f"r{i}" for i in range(100)], total=150))
    assert whole_listed(ledger, settings) is None  # two lists since
    ledger.apply(QueryEvent.of("of", [f"r{i}" for i in range(50, 150)], total=120))
    verdict = whole_listed(ledger, settings)
    assert verdict is not None
    assert verdict.complete
    assert "all 200 matches" in verdict.reason
    assert whole_listed(ledger, _settings(querying={"stop_whole_lists": 0})) is None
    _reached(ledger, ["r999"])  # a link led to a record the list did not show
    assert whole_listed(ledger, settings) is None


def test_a_whole_list_of_every_kind_stops_when_its_entries_meet_its_total() -> None:
    """A site-wide search lists other kinds beside the records, and its total counts them all:
    read to its end, the list showed every match when its entries (a record once, another
    kind's entry by its link) are its total exactly; links counted twice are no proof."""
    settings = _settings(querying={"stop_whole_lists": 2})
    records = [f"r{i}" for i in range(150)]

    def everything(*others: str) -> QueryEvent:
        event = list_event("", records, total=200)
        return replace(event, results=(*event.results, *((url, "", None, 1) for url in others)))

    news = [f"http://site/news/{i}" for i in range(50)]
    for others, stopped in (
        (news, True),
        (news[:30], False),  # it showed 180 of its 200
        ([*news, *(f"{url}?print" for url in news)], False),  # each entry's two links
    ):
        ledger = Ledger()
        ledger.apply(everything(*others))
        assert ledger.entries[""] == len(records) + len(others)
        for word in ("the", "a"):
            ledger.apply(QueryEvent.of(word, records[:60], total=80))
        verdict = whole_listed(ledger, settings)
        assert (verdict is not None and verdict.complete) is stopped, others[-1:]


def test_a_whole_list_short_of_its_total_is_no_list_of_every_record() -> None:
    settings = _settings(querying={"stop_whole_lists": 1})
    shown = {f"r{i}" for i in range(150)}
    ledger = Ledger()
    ledger.apply(list_event("", shown, total=200))  # its total counts what it did not show
    assert ledger.complete[""] == shown
    for word in ("the", "a"):
        ledger.apply(QueryEvent.of(word, ["r1", "r2"], total=90))
    assert whole_listed(ledger, settings) is None


def test_a_rare_words_whole_list_of_the_few_records_known_is_no_list_of_every_record() -> None:
    """The example's own words each list the example alone: the first of them, read to its
    end, holds every record known, and the lists since show none outside it."""
    settings = _settings(querying={"stop_whole_lists": 3})
    for word, source, stopped in (("chinese", None, False), ("chinese", WordSource.FRAME, True)):
        ledger = Ledger()
        ledger.apply(list_event(word, ["r1"], total=1, source=source))  # read to its end
        for other in ("ways", "extra", "biggest"):
            ledger.apply(QueryEvent.of(other, ["r1"], total=1))
        assert (whole_listed(ledger, settings) is not None) is stopped
