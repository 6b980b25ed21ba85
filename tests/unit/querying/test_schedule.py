"""The schedule of the sources of words, rule by rule, on ledgers built in a line or two."""

from __future__ import annotations

from deepcrawl.keywords import WordSource
from deepcrawl.querying import KeywordManager, Ledger
from deepcrawl.querying.schedule import (
    apply_switch,
    empty_source,
    most_missing,
    next_switch,
    on_trial,
    saturated,
    trial_failed,
)
from deepcrawl.settings import KeywordSettings, QuerySettings

SETTINGS = QuerySettings(
    saturation_window=3, saturation_records=None, source_trial_queries=2, source_empty_run=2
)


def _ledger(*answers: set[str], source: WordSource = WordSource.RESULTS) -> Ledger:
    ledger = Ledger()
    for n, ids in enumerate(answers):
        ledger.record(f"w{n}", ids, source=source)
    return ledger


def test_saturation_is_judged_since_the_last_source_left() -> None:
    ledger = _ledger({"a"}, {"a"}, {"a"}, {"a"})
    assert saturated(ledger, SETTINGS)
    ledger.sources.since = 2
    assert not saturated(ledger, SETTINGS)


def test_a_spent_source_hands_over_to_an_untried_one_on_trial() -> None:
    ledger = _ledger({"a", "b"}, {"a"}, {"a"}, {"a"})
    words = KeywordManager(KeywordSettings(), ledger, querying=SETTINGS, frequent=[], stop_words=())
    assert next_switch(ledger, words, SETTINGS) is None  # nothing else to try: saturation
    words.learn_record("fresh words")
    switch = next_switch(ledger, words, SETTINGS)
    assert switch is not None
    assert (switch.source, switch.trial, switch.trial_length) == (WordSource.RESULTS, True, 2)
    assert next_switch(ledger, words, SETTINGS, stopped=True) is None  # the words ran out
    apply_switch(ledger, switch)
    assert ledger.sources.left == {WordSource.RESULTS}
    assert ledger.sources.since == ledger.sources.trial == 4
    assert on_trial(ledger, SETTINGS)


def test_a_trial_that_brings_nothing_fails_and_one_that_brings_a_record_does_not() -> None:
    ledger = _ledger({"a"})
    ledger.sources.trial, ledger.sources.trial_length = 1, 2
    ledger.record("x", {"a"})
    assert on_trial(ledger, SETTINGS)
    assert not trial_failed(ledger, SETTINGS)
    ledger.record("y", {"a"})
    assert trial_failed(ledger, SETTINGS)
    assert not on_trial(ledger, SETTINGS)
    lucky = _ledger({"a"})
    lucky.sources.trial, lucky.sources.trial_length = 1, 2
    lucky.record("x", {"a"})
    lucky.record("y", {"new"})
    assert not trial_failed(lucky, SETTINGS)


def test_a_source_whose_words_keep_coming_back_empty_is_left() -> None:
    ledger = _ledger({"a"}, set())
    assert empty_source(ledger, WordSource.RECORDS, SETTINGS) is None  # not its answers
    assert empty_source(ledger, WordSource.RESULTS, SETTINGS) is None  # one empty answer
    ledger.record("w", set(), source=WordSource.RESULTS)
    assert empty_source(ledger, WordSource.RESULTS, SETTINGS) is WordSource.RESULTS
    users = _ledger(set(), set(), source=WordSource.USER)
    assert empty_source(users, WordSource.USER, SETTINGS) is None  # the user's are all sent


def test_records_known_by_links_count_against_the_estimate_of_what_is_missing() -> None:
    ledger = _ledger({"a", "b"}, {"c", "d"}, {"e", "f"}, {"g", "h"}, {"a"})  # one recapture
    settings = QuerySettings(saturation_max_missing=0.5)
    estimated = ledger.coverage().estimated
    assert estimated is not None
    assert estimated > 2 * ledger.coverage().reached
    assert most_missing(ledger, settings)
    ledger.observe(f"linked{n}" for n in range(round(estimated)))  # the links brought many
    assert not most_missing(ledger, settings)
