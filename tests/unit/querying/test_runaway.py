"""The runaway rules (issue 25): pure functions of counters and thresholds, no crawl needed."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import pytest

from deepcrawl.querying import Ledger, QueryView, Verdict, runaway
from deepcrawl.querying.events import ContentRepeated, QueryEvent, RecordRead
from deepcrawl.querying.runaway import ContentLedger, Runaway, outgrown, repeating
from tests.unit.querying.sections import settings_of

if TYPE_CHECKING:
    from deepcrawl.querying import KeywordManager

#: The runaway rule reads no word: a view of the ledger alone.
_NO_WORDS = cast("KeywordManager", None)


def test_deliveries_outgrow_the_estimate_and_the_totals() -> None:
    # 30 records by the estimate and by the largest list: 4 x 30 + 200 may be delivered
    assert outgrown(320, 28.0, 30, factor=4, slack=200) is None
    verdict = outgrown(321, 28.0, 30, factor=4, slack=200)
    assert verdict == Verdict(
        "the crawl ran away: 321 records delivered, more than 4 times the ~30 that its "
        "estimate and the result lists' totals say exist",
        rule="outgrown",
    )
    # the larger of the two counts: a list of 500 says 500 exist, whatever the estimate
    assert outgrown(600, 30.0, 500, factor=4, slack=200) is None
    assert outgrown(600, 500.0, None, factor=4, slack=200) is None


def test_no_estimate_and_no_total_or_the_rule_off_judges_nothing() -> None:
    assert outgrown(10_000, None, None, factor=4, slack=200) is None
    assert outgrown(10_000, 3.0, 2, factor=0, slack=0) is None


def test_repeats_need_a_full_window_and_the_share() -> None:
    assert repeating(20, 39, window=40, share=0.5) is None  # too few pages yet
    assert repeating(19, 40, window=40, share=0.5) is None
    verdict = repeating(20, 40, window=40, share=0.5)
    assert verdict is not None
    assert verdict.rule == "repeating"
    assert verdict.reason.startswith("the crawl ran away: 20 of the last 40 pages fetched")
    assert repeating(40, 40, window=0, share=0.5) is None  # off


def test_the_ledger_counts_pages_whose_main_text_was_fetched_before() -> None:
    ledger = ContentLedger(window=4)
    assert not ledger.add("Moby Dick  by Herman Melville")
    assert ledger.add("moby dick by herman   MELVILLE")  # spacing and case are no difference
    assert not ledger.add("Moby Dick by Herman Melville, abridged")
    assert not ledger.add("   ")  # an empty page repeats nothing, and is not counted
    assert (ledger.pages, ledger.repeats) == (3, 1)
    for _ in range(3):
        ledger.add("Moby Dick by Herman Melville")
    assert (ledger.recent, ledger.recent_repeats) == (4, 3)  # the window's latest 4


def test_runaway_applies_the_rules_with_their_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runaway, "RUNAWAY_WINDOW", 4)
    monkeypatch.setattr(runaway, "RUNAWAY_REPEAT_SHARE", 0.5)
    monkeypatch.setattr(runaway, "RUNAWAY_SLACK", 0)
    ledger = Ledger()
    ledger.apply(QueryEvent.of("w", [], total=4))  # a list said four records exist
    for text in ("a", "b", "c", "d"):
        ledger.apply(RecordRead(f"r-{text}", text))
    assert ledger.content.recent == 4
    assert runaway.runaway(ledger, delivered=4) is None
    outgrew = runaway.runaway(ledger, delivered=17)
    assert outgrew is not None
    assert outgrew.rule == "outgrown"
    ledger.apply(ContentRepeated({"r-a2": "r-a"}, "a"))  # a page showing a record fetched before
    ledger.apply(RecordRead("r-b2", "b"))  # another id, the same content
    assert ledger.content.recent_repeats == 2
    repeated = runaway.runaway(ledger, delivered=17)
    assert repeated is not None
    assert repeated.rule == "repeating"  # the repeats are named first


def test_the_runaway_rule_holds_its_verdict_once_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runaway, "RUNAWAY_FACTOR", 4)
    monkeypatch.setattr(runaway, "RUNAWAY_SLACK", 0)
    settings = settings_of()
    ledger = Ledger(settings)
    ledger.apply(QueryEvent.of("w", ["r1", "r2"], total=2))  # two exist: 8 may be delivered
    rule = Runaway()
    assert rule.decide(QueryView(ledger, _NO_WORDS, delivered=8), settings) is None
    found = rule.decide(QueryView(ledger, _NO_WORDS, delivered=9), settings)
    assert found is not None
    assert found.rule == "outgrown"
    assert rule.found is found
    # once found it stays, whatever the counts say after
    assert rule.decide(QueryView(ledger, _NO_WORDS, delivered=0), settings) is found
