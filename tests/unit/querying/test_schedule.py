"""The schedule of the sources of words, rule by rule, on ledgers built in a line or two."""

from __future__ import annotations

import pytest

from deepcrawl.keywords import WordSource
from deepcrawl.querying import KeywordManager, Ledger, saturation, schedule
from deepcrawl.querying.events import QueryEvent, RecordsReached, SourceLeft
from deepcrawl.querying.schedule import (
    most_missing,
    next_switch,
    on_trial,
    saturated,
    trial_failed,
)
from deepcrawl.settings import KeywordSettings
from tests.unit.querying.sections import settings_of

FULL = settings_of(saturation_window=3)
SETTINGS = FULL.querying


@pytest.fixture(autouse=True)
def _short_trials(monkeypatch: pytest.MonkeyPatch) -> None:
    """No saturation counted in results; a trial of two queries; a source left after two
    empty answers in a row."""
    monkeypatch.setattr(saturation, "SATURATION_RECORDS", None)
    monkeypatch.setattr(schedule, "SOURCE_TRIAL_QUERIES", 2)
    monkeypatch.setattr(schedule, "SOURCE_EMPTY_RUN", 2)


def _ledger(*answers: set[str], source: WordSource = WordSource.RESULTS) -> Ledger:
    ledger = Ledger(FULL)
    for n, ids in enumerate(answers):
        _ask(ledger, f"w{n}", ids, source=source)
    return ledger


def _ask(
    ledger: Ledger, word: str, ids: set[str], *, source: WordSource = WordSource.RESULTS
) -> None:
    ledger.apply(QueryEvent.of(word, sorted(ids), source=source))


def _on_trial(ledger: Ledger, length: int) -> None:
    """The source of the queries so far is left, the next on trial for ``length`` queries."""
    ledger.apply(SourceLeft(WordSource.RESULTS, trial=True, trial_length=length))


def test_saturation_is_judged_since_the_last_source_left() -> None:
    ledger = _ledger({"a"}, {"a"}, {"a"}, {"a"})
    assert saturated(ledger, SETTINGS)
    since = _ledger({"a"}, {"a"})
    since.apply(SourceLeft(WordSource.RESULTS, trial=False, trial_length=0))
    for word in ("x", "y"):
        _ask(since, word, {"a"}, source=WordSource.RECORDS)
    assert since.sources.since == 2
    assert not saturated(since, SETTINGS)  # two queries since: no window yet


def test_a_spent_source_hands_over_to_an_untried_one_on_trial() -> None:
    ledger = _ledger({"a", "b"}, {"a"}, {"a"}, {"a"})
    words = KeywordManager(KeywordSettings(), ledger, querying=SETTINGS, frequent=[], stop_words=())
    assert next_switch(ledger, words, SETTINGS) is None  # nothing else to try: saturation
    words.learn_record("fresh words")
    switch = next_switch(ledger, words, SETTINGS)
    assert switch is not None
    assert (switch.source, switch.trial, switch.trial_length) == (WordSource.RESULTS, True, 2)
    assert next_switch(ledger, words, SETTINGS, stopped=True) is None  # the words ran out
    ledger.apply(switch)
    assert ledger.sources.left == {WordSource.RESULTS}
    assert ledger.sources.since == ledger.sources.trial == ledger.sources.switched_at == 4
    assert on_trial(ledger)
    assert next_switch(ledger, words, SETTINGS) is None  # judged afresh: nothing since


def test_a_trial_that_brings_nothing_fails_and_one_that_brings_a_record_does_not() -> None:
    ledger = _ledger({"a"})
    _on_trial(ledger, 2)
    _ask(ledger, "x", {"a"})
    assert on_trial(ledger)
    assert not trial_failed(ledger)
    _ask(ledger, "y", {"a"})
    assert trial_failed(ledger)
    assert not on_trial(ledger)
    lucky = _ledger({"a"})
    _on_trial(lucky, 2)
    _ask(lucky, "x", {"a"})
    _ask(lucky, "y", {"new"})
    assert not trial_failed(lucky)


def test_a_source_whose_words_keep_coming_back_empty_is_left() -> None:
    ledger = _ledger({"a"}, set())
    assert not ledger.sources.left  # one empty answer
    _ask(ledger, "v", set(), source=WordSource.RECORDS)  # not its answers
    assert not ledger.sources.left
    _ask(ledger, "w", set(), source=WordSource.RESULTS)
    assert ledger.sources.left == {WordSource.RESULTS}
    assert ledger.sources.empty_run[WordSource.RESULTS] == 2
    users = _ledger(set(), set(), source=WordSource.USER)
    assert not users.sources.left  # the user's are all sent
    failed = _ledger({"a"})
    for word in ("x", "y"):  # errors are no answers
        failed.apply(QueryEvent.of(word, [], error="HTTP 500", source=WordSource.RESULTS))
    assert not failed.sources.left


def test_records_known_by_links_count_against_the_estimate_of_what_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ledger = _ledger({"a", "b"}, {"c", "d"}, {"e", "f"}, {"g", "h"}, {"a"})  # one recapture
    monkeypatch.setattr(schedule, "SATURATION_MAX_MISSING", 0.5)
    estimated = ledger.coverage().estimated
    assert estimated is not None
    assert estimated > 2 * ledger.coverage().reached
    assert most_missing(ledger)
    ledger.apply(RecordsReached(tuple(f"linked{n}" for n in range(round(estimated)))))
    assert not most_missing(ledger)  # the links brought many
