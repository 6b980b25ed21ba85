"""The keyword manager as the query loop drives it: probe, next word, record, stop."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deepcrawl.errors import ConfigError
from deepcrawl.keywords import FrequencyPolicy, StopReason, WordSource
from deepcrawl.querying import KeywordManager, Ledger, QueryLoop, saturation, schedule
from deepcrawl.querying.schedule import on_trial
from deepcrawl.settings import KeywordSettings
from tests.unit.querying.answers import record
from tests.unit.querying.sections import settings_of

FREQUENT = ["the", "a", "of", "house", "garden", "river", "stone", "bread", "light", "road"]
STOP = {"the", "a", "of", "and"}
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDE"


def manager(**settings: object) -> QueryLoop:
    """The keyword manager as the query loop drives it, word by word, with no search."""
    return QueryLoop(settings_of(**settings), frequent=FREQUENT, stop_words=STOP)


def test_stopword_probe_rejected_drops_stop_words() -> None:
    m = manager(policy="frequency")
    probes = m.words.stopword_probe_queries()
    assert probes == ["the", "a", "of"]
    for word in probes:
        record(m, word, [])
    m.words.record_stopword_probe(False)
    assert m.words.stopword_probe_queries() == []
    assert m.words.stopwords_accepted is False
    assert [m.next_word() for _ in range(3)] == ["house", "garden", "river"]


def test_stopword_probe_accepted_keeps_them_and_greedy_may_use_them() -> None:
    m = manager(stopword_probes=("the",))
    record(m, "the", ["r1", "r2"], {"r1": "the house and the river", "r2": "and stone"})
    m.words.record_stopword_probe(True)
    assert "a" in m.words.cold_start
    assert m.words.term_df["and"] == 2  # stop words are terms once the site accepts them
    assert m.next_word() == "and"
    rejected = manager(stopword_probes=("the",))
    record(rejected, "the", ["r1"], {"r1": "the house and the river"})
    rejected.words.record_stopword_probe(False)
    assert "and" not in rejected.words.term_df


def test_next_query_never_repeats_a_recorded_or_handed_out_query() -> None:
    m = manager(policy="frequency")
    m.words.record_stopword_probe(False)
    record(m, "HOUSE", ["r1"])  # recorded by hand, in another case
    seen = []
    while (query := m.next_word()) is not None:
        seen.append(query)
    assert "house" not in seen
    assert len(seen) == len(set(seen)) == 6
    assert m.words_stop is StopReason.EXHAUSTED


def test_record_counts_new_records_and_learns_terms_from_new_texts_only() -> None:
    m = manager()
    first = record(m, "house", ["r1", "r2"], {"r1": "red house", "r2": "blue house"}, cost=1)
    assert (first.results, first.new, first.reached) == (2, 2, 2)
    second = record(
        m, "blue", ["r2", "r3"], {"r2": "ignored text", "r3": "blue river"}, cost=2, total=2
    )
    assert (second.new, second.reached, second.cost, second.total_results) == (1, 3, 2, 2)
    assert m.words.term_df["blue"] == 2
    assert "ignored" not in m.words.term_df
    assert m.ledger.cost == 3
    assert m.ledger.page_size == 2
    assert m.ledger.history == [first, second]


def test_greedy_learns_from_the_results() -> None:
    m = manager()
    m.words.record_stopword_probe(False)
    assert m.next_word() == "house"  # cold start: the frequent list
    texts = {f"r{i}": "house cheese" + (" wine" if i % 2 else "") for i in range(10)}
    record(m, "house", list(texts), texts)
    assert m.next_word() == "cheese"  # in every record known, unlike wine
    assert m.next_word() == "wine"


def test_saturation_after_window_without_new_records(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(saturation, "SATURATION_MIN_NEW", 1)
    m = manager(policy="frequency", saturation_window=3)
    m.words.record_stopword_probe(False)
    record(m, m.next_word() or "", ["r1"])
    for _ in range(2):
        record(m, m.next_word() or "", ["r1"])
    assert m.words_stop is None  # the window still holds the query that found r1
    record(m, m.next_word() or "", [])
    assert m.words_stop is not None
    assert m.words_stop is StopReason.SATURATED
    assert m.next_word() is None


def test_query_and_request_budgets() -> None:
    m = manager(policy="frequency", max_queries=2)
    m.words.record_stopword_probe(False)
    for i in range(2):
        assert m.next_word() is not None
        record(m, f"q{i}", [f"r{i}"])
    assert m.words_stop is StopReason.QUERY_BUDGET
    m = manager(policy="frequency", max_cost=5)
    record(m, "house", ["r1"], cost=5)
    assert m.words_stop is StopReason.COST_BUDGET


def test_identical_results_for_every_keyword_end_the_crawl(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schedule, "IDENTICAL_WINDOW", 3)
    m = manager(saturation_window=50)
    for word in ("house", "garden"):
        record(m, word, ["same1", "same2"])
    assert m.words_stop is None
    record(m, "river", ["same1", "same2"])
    assert m.words_stop is StopReason.IDENTICAL
    assert "same results" in str(m.words_stop)


def test_repeated_errors_end_the_crawl(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schedule, "MAX_CONSECUTIVE_ERRORS", 2)
    m = manager(saturation_window=50)
    record(m, "house", [], error="HTTP 500")
    record(m, "garden", ["r1"])
    record(m, "river", [], error="timeout")
    assert m.words_stop is None  # not in a row
    record(m, "stone", [], error="timeout")
    assert m.words_stop is StopReason.ERRORS


def test_seeds_and_user_file_come_first(tmp_path: Path) -> None:
    words = tmp_path / "mine.txt"
    words.write_text("# mine\ncheddar\nbrie\n", encoding="utf-8")
    m = KeywordManager(
        KeywordSettings(keywords_file=words),
        Ledger(),
        policy=FrequencyPolicy(),
        seeds=["camembert"],
        frequent=FREQUENT,
        stop_words=STOP,
    )
    m.record_stopword_probe(False)
    assert [m.next_query() for _ in range(4)] == ["camembert", "cheddar", "brie", "house"]


def test_bad_user_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="missing.txt"):
        KeywordManager(KeywordSettings(keywords_file=tmp_path / "missing.txt"), Ledger())


def test_coverage_is_reported_as_queries_go() -> None:
    m = manager()
    assert m.ledger.coverage().estimated is None
    record(m, "house", ["r1", "r2", "r3"])
    record(m, "garden", ["r3", "r4"])
    coverage = m.ledger.coverage()
    assert coverage.reached == 4
    assert coverage.estimated is not None
    assert coverage.estimated >= 4
    assert m.ledger.estimated_size == coverage.estimated


def test_stopword_probe_decided_from_recorded_probes() -> None:
    m = manager(stopword_probes=("the", "a"))
    record(m, "the", [])
    assert m.words.stopwords_accepted is None  # "a" not answered yet
    record(m, "a", ["r1"])
    assert m.words.stopwords_accepted is True  # settled as the last probe is folded
    m = manager(stopword_probes=("the",))
    record(m, "the", [])
    assert m.words.stopwords_accepted is False
    assert "the" not in m.words.cold_start


@settings(max_examples=40, deadline=None)
@given(
    policy=st.sampled_from(["greedy", "random", "frequency"]),
    results=st.lists(st.sets(st.integers(0, 30), max_size=8), min_size=1, max_size=25),
)
def test_no_policy_ever_reissues_a_query(policy: str, results: list[set[int]]) -> None:
    m = manager(policy=policy, saturation_window=1000)
    m.words.record_stopword_probe(False)
    handed: list[str] = []
    for ids in results:
        query = m.next_word()
        if query is None:
            break
        handed.append(query.casefold())
        texts = {f"r{i}": f"{FREQUENT[i % 10]} {LETTERS[i]}{LETTERS[i % 7]}" for i in ids}
        record(m, query, [f"r{i}" for i in ids], texts)
    assert len(handed) == len(set(handed))


@pytest.mark.parametrize(("fraction", "queries_to_saturate"), [(0.0, 20), (0.05, 50)])
def test_saturation_evidence_grows_with_the_site(
    fraction: float, queries_to_saturate: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """10,000 records known; every query shows 10 of them and nothing new. Without scaling the
    window (20 queries, 200 results) saturates; with 0.05 of the site it takes 500 results."""
    monkeypatch.setattr(saturation, "SATURATION_RECORDS", 200)
    monkeypatch.setattr(saturation, "SATURATION_FRACTION", fraction)
    m = manager(policy="frequency", saturation_window=20)
    m.words.record_stopword_probe(False)
    known = [f"r{i}" for i in range(10_000)]
    m.facts.observe(known)
    for n in range(1, 60):
        record(m, f"q{n}", known[10 * n : 10 * n + 10])
        assert (m.words_stop is not None) is (n >= queries_to_saturate), n


def test_a_fruitless_window_of_empty_queries_saturates_at_any_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(saturation, "SATURATION_FRACTION", 0.05)
    m = manager(policy="frequency", saturation_window=3)
    m.words.record_stopword_probe(False)
    m.facts.observe(f"r{i}" for i in range(10_000))
    for n in range(3):
        assert m.words_stop is None
        record(m, f"q{n}", [])
    assert m.words_stop is StopReason.SATURATED


TITLES = (
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
)


def _saturated_titles(
    monkeypatch: pytest.MonkeyPatch, *, trial_queries: int, trial_share: float = 0.0
) -> QueryLoop:
    """Ten records, each caught twice (Chao's estimate: nothing missing), whose title words
    then re-find a known record until the title source is saturated; the next source gets a
    trial of ``trial_queries`` queries, or ``trial_share`` of those made if more."""
    monkeypatch.setattr(saturation, "SATURATION_RECORDS", None)
    monkeypatch.setattr(saturation, "SATURATION_FRACTION", 0.0)
    monkeypatch.setattr(schedule, "SOURCE_TRIAL_QUERIES", trial_queries)
    monkeypatch.setattr(schedule, "SOURCE_TRIAL_SHARE", trial_share)
    m = manager(saturation_window=5)
    m.words.record_stopword_probe(False)
    titles = {f"r{i}": word for i, word in enumerate(TITLES)}
    record(m, "seed", titles, titles)
    record(m, "again", titles)
    while (word := m.next_word()) is not None:
        assert word in TITLES
        record(m, word, {"r0"})
    assert m.words_stop is StopReason.SATURATED
    assert m.ledger.coverage().ratio == 1.0
    m.words.learn_record("messages words here")  # a fetched record page's own text: untried
    return m


def test_a_saturated_source_hands_over_to_an_untried_one_for_a_bounded_trial(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The estimate says nothing is missing, yet the record pages' words get five queries
    before the crawl is called saturated: one source's queries re-catch what it reaches."""
    m = _saturated_titles(monkeypatch, trial_queries=5)
    assert m.words_stop is None
    tried = []
    while (word := m.next_word()) is not None:
        tried.append(word)
        record(m, word, {"r1"})  # nothing new
    # the record pages' three words, then the frequent words, five queries in all
    assert [o.source for o in m.ledger.history[-5:]] == [WordSource.RECORDS] * 3 + [
        WordSource.FREQUENT
    ] * 2
    assert set(tried[:3]) == {"messages", "words", "here"}
    assert len(tried) == 5
    assert m.words_stop is StopReason.SATURATED


def test_a_trial_that_brings_nothing_ends_in_saturation(monkeypatch: pytest.MonkeyPatch) -> None:
    m = _saturated_titles(monkeypatch, trial_queries=2)
    for _ in range(2):
        word = m.next_word()
        assert word in {"messages", "words", "here"}
        record(m, word, {"r1"})
    assert m.words_stop is StopReason.SATURATED
    assert m.next_word() is None


def test_a_trial_that_brings_a_record_goes_on_under_the_saturation_window(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    m = _saturated_titles(monkeypatch, trial_queries=2)
    m.words.learn_record("more words for later queries")
    found = m.next_word()
    assert found is not None
    record(m, found, {"r1", "new"}, {"new": "fresh"})
    for _ in range(3):
        word = m.next_word()
        assert word is not None
        record(m, word, {"r1"})
    assert m.words_stop is None  # the window of five still holds the new record


def test_without_trials_a_saturated_source_ends_the_crawl_while_the_estimate_is_full(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    m = _saturated_titles(monkeypatch, trial_queries=0)
    assert m.words_stop is StopReason.SATURATED


def test_a_trial_keeps_the_lists_rules_waiting_until_its_queries_are_answered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    m = _saturated_titles(monkeypatch, trial_queries=2)
    # nothing left yet: the switch comes with the next query
    assert not on_trial(m.ledger)
    word = m.next_word()
    assert word is not None
    assert on_trial(m.ledger)
    record(m, word, {"r1"})
    assert on_trial(m.ledger)
    word = m.next_word()
    assert word is not None
    record(m, word, {"r1"})
    assert not on_trial(m.ledger)


def test_the_record_pages_template_words_are_no_query(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every issue page of a tracker says "History", "Author", "Date": the search indexes
    none of them, and the greedy policy would pick them first (they are on every page)."""
    m = _saturated_titles(monkeypatch, trial_queries=5)
    for i in range(24):
        m.words.learn_record(f"History Author Date message{i} words {'lighthouse' * (i % 2)}")
    sent = []
    while (word := m.next_word()) is not None:
        sent.append(word)
        record(m, word, {"r1"})
    # once, the template's words together (the search of a site's indexer matches them)
    assert sent[0] == "words author date history"
    assert m.words.source_of(sent[0]) is WordSource.FRAME
    assert {"history", "author", "date", "words"}.isdisjoint(sent[1:])
    assert sent[1] == "lighthouse"  # on half the pages: the commonest word of the records'


@pytest.mark.parametrize("accepted", [True, None])
def test_no_frame_query_where_the_site_takes_stop_words_or_before_it_says(
    accepted: bool | None,
) -> None:
    """A site that answers "the" has the query every record holds already."""
    m = manager(frame_query_terms=4)
    if accepted is not None:
        m.words.record_stopword_probe(accepted)
    for i in range(24):
        m.words.learn_record(f"History Author Date message{i}")
    assert m.words.frame_query() is None
    assert not m.words.frame_due


def test_the_frame_query_waits_for_twenty_record_pages_and_is_asked_once() -> None:
    m = manager(frame_query_terms=2)
    m.words.record_stopword_probe(False)
    own = [letter * 3 for letter in "abcdefghijklmnopqrst"]  # a word of each page's own
    for word in own[:19]:
        m.words.learn_record(f"Topic Plain Home {word}")
    assert m.words.frame_query() is None
    m.words.learn_record(f"Topic Plain Home {own[19]}")
    assert m.words.frame_due
    assert m.words.frame_query() == "home plain"  # the commonest first, ties alphabetical, two
    assert m.next_word() == "home plain"
    record(m, "home plain", set())
    assert m.words.frame_query() is None
    assert not m.words.frame_due


def test_the_frame_query_goes_before_the_examples_words_but_after_the_users() -> None:
    """A list of every record leaves the examples' words little to bring: it goes first, once
    due, after the words the user asked for."""
    m = QueryLoop(
        settings_of(frame_query_terms=2), seeds=["granite"], frequent=FREQUENT, stop_words=STOP
    )
    m.words.record_stopword_probe(False)
    assert m.words.add_examples(["The harbour lighthouse keeper kept a diary of storms."])
    for letter in "abcdefghijklmnopqrst":
        m.words.learn_record(f"Topic Plain Home {letter * 3}")
    assert not m.words.frame_due  # the user's word first
    assert m.next_word() == "granite"
    assert m.words.frame_due
    assert m.next_word() == "home plain"
    assert m.words.source_of(m.next_word() or "") is WordSource.EXAMPLE


def test_the_pages_a_query_is_expected_to_read_are_those_the_paging_rule_read() -> None:
    """Wagtail ranks in a fixed order and shows ten results a page with no count: the paging
    rule reads one page a query, so a word's list is worth what fits on one page."""
    m = manager(saturation_window=3, max_result_pages=50)
    m.words.record_stopword_probe(False)
    for i in range(2):
        record(m, f"w{i}", {f"r{i}-{j}" for j in range(10)}, cost=1)  # full pages, cut
    assert m.words.max_result_pages == 50  # not a window of queries yet
    record(m, "w2", {f"r2-{j}" for j in range(20)}, cost=2)
    assert m.words.max_result_pages == 2
    short = manager(saturation_window=3, max_result_pages=50)
    record(short, "long", {f"r{j}" for j in range(10)})
    for i in range(3):
        record(short, f"s{i}", {f"r{i}"})  # lists that ended on their page: no evidence
    assert short.words.max_result_pages == 50


def test_a_trial_grows_with_the_queries_made(monkeypatch: pytest.MonkeyPatch) -> None:
    m = _saturated_titles(monkeypatch, trial_queries=2, trial_share=0.5)
    made = len(m.ledger.history)
    for _ in range(math.ceil(made / 2) - 1):
        word = m.next_word()
        assert word is not None
        record(m, word, {"r1"})
        assert m.words_stop is None  # two queries are not half of those made
    word = m.next_word()
    assert word is not None
    record(m, word, {"r1"})
    assert m.words_stop is StopReason.SATURATED


def test_the_frame_of_the_result_pages_is_no_entry_text() -> None:
    """A footer holding the query word is counted as an entry at first sight; an answer that
    found nothing shows it alone, and its count is taken back. A block on two pages of one
    list is frame at once; a record's entry shown again for the next word stays counted."""
    m = manager()
    footer = "Visit the open source project at example.org"
    powered = "Powered by Tracker 1.6 by Acme Software"  # a number: it waits for the next query
    m.words.learn_entries("source", [footer, powered, "Open source bridge plans"])
    entries = m.words._terms[WordSource.ENTRIES]
    assert entries.term_df["visit"] == entries.term_df["plans"] == 1
    m.words.learn_entries("bridge", [footer, powered, "Open source bridge plans"])
    assert entries.term_df["visit"] == 1  # not yet told from an entry
    m.words.learn_entries("zyx", [footer, powered, "No results for zyx"], empty=True)
    assert entries.term_df["visit"] == entries.term_df["acme"] == 0  # the frame, shown alone
    assert entries.term_df["plans"] == 2  # an entry, counted for each word it holds
    m.words.learn_entries("gliders", [powered, "Powered gliders", "Powered gliders", powered])
    assert entries.term_df["acme"] == entries.term_df["gliders"] == 0  # on two pages: frame
    m.words.learn_entries("river", [footer, "A bridge over the river Wye"])
    assert entries.term_df["wye"] == 1
    assert entries.term_df["visit"] == 0
