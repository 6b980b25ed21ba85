"""Each rule of the querying on its own: a view built in a line or two, its decision; then the
loop that asks them: notes folded and the rule asked again, its firings counted."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, ClassVar, cast

import pytest

from deepcrawl.errors import ConfigError
from deepcrawl.keywords import StopReason, WordSource
from deepcrawl.querying import (
    KeywordManager,
    Ledger,
    QueryView,
    partition,
    runaway,
    saturation,
    schedule,
    stops,
)
from deepcrawl.querying.events import (
    DeepeningBegun,
    ListsDropped,
    QueryEvent,
    Reading,
    RecordRead,
    RecordsReached,
    SourceLeft,
    WordsExhausted,
)
from deepcrawl.querying.partition import Part
from deepcrawl.querying.reading import (
    CompleteCutList,
    DeepenLists,
    EmptyQuery,
    FrameFirst,
    NextWord,
    ReadOnCutLists,
    SplitCutLists,
    StopwordProbe,
)
from deepcrawl.querying.registry import RULES, make_rules
from deepcrawl.querying.rule import Ask, Rule
from deepcrawl.querying.runaway import Runaway
from deepcrawl.querying.schedule import SourceSchedule
from deepcrawl.querying.stops import (
    CoverageEstimate,
    FruitlessRun,
    ListOfEverything,
    NumberedKeys,
    TotalsCovered,
    WholeListsEstimate,
    WordsSpent,
)
from deepcrawl.querying.verdict import Verdict
from tests.unit.querying.answers import cut_event, list_event, page_url
from tests.unit.querying.fake_search import FakeSearch, fake_query_loop
from tests.unit.querying.sections import settings_of

if TYPE_CHECKING:
    from collections.abc import Sequence

    from deepcrawl.querying import Event
    from deepcrawl.querying.events import Note
    from deepcrawl.search.form_search import FormSearch
    from deepcrawl.settings import Settings

DEFAULT = settings_of(stopword_probes=())


def _view(
    *events: Event,
    settings: Settings = DEFAULT,
    seeds: Sequence[str] = (),
    frequent: Sequence[str] = (),
    **limits: object,
) -> QueryView:
    """The ledger of a normal phase that folded ``events``, its word supply (``seeds``, then
    ``frequent``), the loop's ``limits`` (``accepts_empty``, ``max_pages``, ``cap``)."""
    ledger = Ledger(settings, reads_on=True).replayed(events)
    words = KeywordManager(
        settings.keywords,
        ledger,
        querying=settings.querying,
        seeds=list(seeds),
        frequent=list(frequent),
        stop_words=("the", "a", "and"),
    )
    return QueryView(ledger, words, **limits)  # type: ignore[arg-type]


def _fold(view: QueryView, rule: Rule, event: Event) -> None:
    """Fold ``event`` into the view's ledger, and let ``rule`` observe it, as the loop does."""
    cast("Ledger", view.ledger).apply(event)
    rule.observe(event, view)


def _answers(*answers: set[str], source: WordSource | None = None) -> list[QueryEvent]:
    return [QueryEvent.of(f"w{n}", sorted(ids), source=source) for n, ids in enumerate(answers)]


# -- reading.py: which list next ----------------------------------------------------------------


def test_the_empty_query_is_asked_once_as_soon_as_the_search_takes_it() -> None:
    assert EmptyQuery().decide(_view(accepts_empty=True), DEFAULT) == Ask("", max_pages=None)
    assert EmptyQuery().decide(_view(accepts_empty=False), DEFAULT) is None
    # known to take it only after a query (a box searched as typed, its plain-HTTP path found)
    later = _view(QueryEvent.of("red", ["r1"]), accepts_empty=True)
    assert EmptyQuery().decide(later, DEFAULT) == Ask("", max_pages=None)
    later.words.mark_issued("")  # as the loop folds its event
    assert EmptyQuery().decide(later, DEFAULT) is None  # asked already


def test_the_stopword_probes_go_before_any_word_until_answered() -> None:
    settings = settings_of(stopword_probes=("the", "a"))
    view = _view(settings=settings, seeds=["red"], max_pages=3)
    rule = StopwordProbe()
    assert rule.decide(view, settings) == Ask("the", max_pages=3)
    view.words.mark_issued("the")
    assert rule.decide(view, settings) == Ask("a", max_pages=3)
    view.words.record_stopword_probe(False)
    assert rule.decide(view, settings) is None


def _framed(view: QueryView) -> None:
    """Twenty fetched record pages of one template ("home plain"), stop words refused."""
    view.words.record_stopword_probe(False)
    for i in range(20):
        view.words.learn_record(f"Home Plain {'abcdefghijklmnopqrst'[i] * 3}")


def test_the_frame_words_list_goes_before_the_cut_lists() -> None:
    cut = cut_event("like", [f"n{i}" for i in range(30)], 3)
    view = _view(cut, seeds=["mine"], max_pages=3)
    _framed(view)
    rule = FrameFirst()
    assert rule.decide(view, DEFAULT) is None  # the user's word first
    view.words.mark_issued("mine")
    assert rule.decide(view, DEFAULT) == Ask("home plain", max_pages=None, whole=True)
    uncut = _view()
    _framed(uncut)
    assert rule.decide(uncut, DEFAULT) is None  # no list to read on: the words decide
    deepening = _view(cut, DeepeningBegun())
    _framed(deepening)
    assert rule.decide(deepening, DEFAULT) is None


def _texts(view: QueryView, word: str, ids: Sequence[str]) -> None:
    for n, rid in enumerate(ids):
        cast("Ledger", view.ledger).apply(RecordRead(rid, f"{word} own{'abcdefghij'[n % 10]}"))


def test_a_cut_list_most_records_hold_completes_the_whole_lists_evidence() -> None:
    """No total: "a" was read to its end, "the" stopped after five pages. The fetched records
    all hold "the": read on to its end, it is the second whole list."""
    ids = [f"r{i}" for i in range(100)]
    view = _view(list_event("a", ids[:90]), list_event("the", ids[:50], ended=False), max_pages=3)
    _texts(view, "the", ids[:20])
    asked = CompleteCutList().decide(view, DEFAULT)
    assert asked == Ask(
        "the",
        max_pages=3,
        reading=Reading.COMPLETE,
        skip=5,
        resume=(page_url("the", 6), 6),
        threshold=0.0,
        before=frozenset(ids[:50]),
    )
    # once such a list was read on, no other is
    _fold(view, CompleteCutList(), list_event("the", ids[50:], first=6, reading=Reading.COMPLETE))
    assert view.ledger.completed == 1
    assert CompleteCutList().decide(view, DEFAULT) is None
    # without a whole list to pair it with, it waits
    alone = _view(list_event("the", ids[:50], ended=False))
    _texts(alone, "the", ids[:20])
    assert CompleteCutList().decide(alone, DEFAULT) is None


def test_a_cut_list_is_read_on_where_its_total_leaves_records_to_find() -> None:
    ids = [f"r{i}" for i in range(60)]
    view = _view(cut_event("red", ids, 3), max_pages=None)  # no total: its pages decide
    assert ReadOnCutLists().decide(view, DEFAULT) == Ask(
        "red",
        max_pages=None,
        reading=Reading.READ_ON,
        skip=3,
        resume=(page_url("red", 4), 4),
        before=frozenset(ids[:30]),
    )


def test_cut_lists_lacking_nothing_by_their_totals_are_dropped_with_their_evidence() -> None:
    ids = [f"r{i}" for i in range(60)]
    blue = [f"b{i}" for i in range(40)]  # a word on every page would be no evidence
    view = _view(cut_event("red", ids, 3, total=60), cut_event("green", ids[:10], 1))
    cast("Ledger", view.ledger).apply(RecordsReached(tuple(ids + blue)))
    _texts(view, "red", ids)
    _texts(view, "blue", blue)
    rule = ReadOnCutLists()
    dropped = rule.decide(view, DEFAULT)
    assert dropped == ListsDropped((("red", (60, 0)),))  # written down before "green" is read
    _fold(view, rule, dropped)
    asked = rule.decide(view, DEFAULT)
    assert isinstance(asked, Ask)
    assert (asked.word, asked.reading) == ("green", Reading.READ_ON)
    # a whole list holding every record known: no cut list brings anything
    everything = _view(cut_event("red", ids, 3), list_event("", ids))
    assert rule.decide(everything, DEFAULT) == ListsDropped((("red", None),))


def test_a_list_cut_at_its_page_cap_is_split_by_the_forms_fields_while_they_pay(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(partition, "PARTITION_TRIAL", 1)
    settings = settings_of(max_list_pages=3)
    ids = [f"r{i}" for i in range(30)]
    listed = list_event("red", ids, total=100, ended=False)  # three pages of 100 matches
    view = _view(settings=settings, max_pages=None)
    rule = SplitCutLists(settings, {"cat": ["a", "b", "c"]})
    assert rule.decide(view, settings) is None  # nothing cut yet
    _fold(view, rule, listed)
    first = Part("red", (("cat", "a"),), "red", "cat")
    assert rule.decide(view, settings) == Ask(
        "red", max_pages=None, reading=Reading.PART, threshold=0.0, part=first
    )
    # the sub-list brought nothing new: after its trial the field is left for that list
    sub = list_event("red", ids[:5], values=first.values, part_of="red", split_by="cat")
    _fold(view, rule, sub)
    assert view.ledger.history[-1].new == 0
    assert rule.decide(view, settings) is None
    unsplit = SplitCutLists(settings)  # the search's fields not known yet: nothing to split
    _fold(view, unsplit, listed)
    assert unsplit.decide(view, settings) is None


def test_the_next_word_is_the_word_supplys_until_it_has_none() -> None:
    view = _view(seeds=["red"], max_pages=3)
    rule = NextWord()
    assert rule.decide(view, DEFAULT) == Ask("red", max_pages=3)
    assert rule.decide(view, DEFAULT) == WordsExhausted()  # handed out once: none left
    stopped = _view(WordsExhausted(), seeds=["blue"])
    assert rule.decide(stopped, DEFAULT) is None  # the words stop: another rule decides
    deepening = _view(DeepeningBegun(), seeds=["blue"])
    assert rule.decide(deepening, DEFAULT) is None
    frame = _view()
    _framed(frame)
    assert rule.decide(frame, DEFAULT) == Ask("home plain", max_pages=None, whole=True)


def test_once_the_words_are_spent_the_list_lacking_the_most_is_read_again() -> None:
    settings = settings_of(stopword_probes=(), deepen_min_new=0.2)
    listed = list_event("red", [f"r{i}" for i in range(10)], total=100, ended=False)
    rule = DeepenLists()
    going = _view(listed, settings=settings, seeds=["blue"])
    assert rule.decide(going, settings) is None  # the words go on
    view = _view(listed, WordsExhausted(), settings=settings, cap=50)
    assert rule.decide(view, settings) == DeepeningBegun()
    _fold(view, rule, DeepeningBegun())
    assert rule.decide(view, settings) == Ask(
        "red", max_pages=None, reading=Reading.DEEPEN, skip=1, threshold=0.2
    )
    # read again to its end: no list is worth another read
    _fold(view, rule, list_event("red", [f"r{i}" for i in range(100)], total=100, skip=1))
    verdict = rule.decide(view, settings)
    assert isinstance(verdict, Verdict)
    assert verdict.reason.startswith("saturated; no result list read again (0 were)")
    budget = settings_of(stopword_probes=(), max_queries=1)
    spent = _view(listed, settings=budget)
    assert rule.decide(spent, budget) is None  # a budget is no reason to deepen
    assert DeepenLists().decide(_view(listed, DeepeningBegun(), settings=budget), budget) == (
        Verdict(str(StopReason.QUERY_BUDGET))
    )
    off = settings_of(stopword_probes=(), deepen_min_new=0.0)
    verdict = DeepenLists().decide(_view(listed, WordsExhausted(), settings=off), off)
    assert isinstance(verdict, Verdict)  # deepening off: the words' stop is the querying's


# -- schedule.py: when a source of words is spent ------------------------------------------------

SCHEDULE = settings_of(stopword_probes=(), saturation_window=3)


@pytest.fixture
def short_trials(monkeypatch: pytest.MonkeyPatch) -> None:
    """No saturation counted in results; a trial of two queries."""
    monkeypatch.setattr(saturation, "SATURATION_RECORDS", None)
    monkeypatch.setattr(schedule, "SOURCE_TRIAL_QUERIES", 2)


@pytest.mark.usefixtures("short_trials")
def test_a_spent_source_is_left_once_and_the_next_put_on_trial() -> None:
    view = _view(*_answers({"a", "b"}, {"a"}, {"a"}, {"a"}, source=WordSource.RESULTS))
    rule = SourceSchedule()
    assert rule.decide(view, SCHEDULE) is None  # no other source: saturation, no switch
    view.words.learn_record("fresh words")  # the record pages' words: untried
    left = rule.decide(view, SCHEDULE)
    assert left == SourceLeft(WordSource.RESULTS, trial=True, trial_length=2)
    _fold(view, rule, left)
    assert rule.decide(view, SCHEDULE) is None  # judged afresh over the next source's words
    answers = _answers({"a", "b"}, {"a"}, {"a"}, {"a"}, source=WordSource.RESULTS)
    ran_out = _view(*answers, WordsExhausted())
    ran_out.words.learn_record("fresh words")
    assert rule.decide(ran_out, SCHEDULE) is None  # the words ran out: nothing is switched


@pytest.mark.usefixtures("short_trials")
def test_a_switch_with_no_source_to_leave_is_noted_once_a_query() -> None:
    """The queries so far had no source (the setup phase's lists, a probe): the switch leaves
    nothing, and saturation stays; it is noted once, not again until the next query."""
    view = _view(*_answers({"a"}, {"a"}, {"a"}, {"a"}), seeds=["mine"])  # saturated
    rule = SourceSchedule()
    left = rule.decide(view, SCHEDULE)
    assert left == SourceLeft(None, trial=True, trial_length=2)
    _fold(view, rule, left)
    assert rule.decide(view, SCHEDULE) is None
    cast("Ledger", view.ledger).apply(QueryEvent.of("x", ["a"]))
    assert rule.decide(view, SCHEDULE) == left


# -- stops.py: when the querying stops ----------------------------------------------------------


def test_a_fruitless_run_stops_unless_a_source_was_just_left_or_the_deepening_begins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stops, "STOP_FRUITLESS_SHARE", 0.0)
    settings = settings_of(stopword_probes=(), stop_fruitless_queries=3)
    fruitless = _answers({"a"}, {"a"}, {"a"}, {"a"})
    verdict = FruitlessRun().decide(_view(*fruitless, seeds=["more"]), settings)
    assert verdict == Verdict("3 or more queries in a row brought no new record")
    left = SourceLeft(WordSource.RESULTS, trial=False, trial_length=0)
    assert FruitlessRun().decide(_view(*fruitless, left, seeds=["more"]), settings) is None
    spent = settings_of(stopword_probes=(), stop_fruitless_queries=3, deepen_min_new=0.2)
    ended = _view(*fruitless, WordsExhausted())  # the words ran out: the lists are read again
    assert FruitlessRun().decide(ended, spent) is None
    assert FruitlessRun().decide(_view(*fruitless[:3], seeds=["more"]), settings) is None


def test_two_whole_lists_putting_the_size_at_the_records_known_stop() -> None:
    records = [f"r{i}" for i in range(240)]
    the = list_event("the", records[:218])
    verdict = WholeListsEstimate().decide(
        _view(the, list_event("a", records[:208] + records[218:238])), DEFAULT
    )
    assert verdict is not None
    assert not verdict.complete  # an estimate of the size, not a proof
    assert verdict.size == pytest.approx(239, abs=1)
    assert WholeListsEstimate().decide(_view(the), DEFAULT) is None


def test_a_list_of_everything_stops_once_the_lists_since_showed_none_outside_it() -> None:
    settings = settings_of(stopword_probes=(), stop_whole_lists=2)
    everything = [f"r{i}" for i in range(50)]
    whole = list_event("", everything, total=50)
    since = [QueryEvent.of(w, everything[:20], total=30) for w in ("red", "blue")]
    assert ListOfEverything().decide(_view(whole, since[0]), settings) is None  # one since
    verdict = ListOfEverything().decide(_view(whole, *since), settings)
    assert verdict is not None
    assert verdict.complete
    outside = _view(whole, *since, RecordsReached(("r999",)))
    assert ListOfEverything().decide(outside, settings) is None


def test_the_coverage_estimate_stops_a_patient_tail_where_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    caught = _answers(*[{"a", "b", "c"}] * 6)
    assert CoverageEstimate().decide(_view(*caught), DEFAULT) is None  # off by default
    monkeypatch.setattr(stops, "STOP_COVERAGE", 0.9)
    monkeypatch.setattr(stops, "STOP_PATIENCE", 2)
    verdict = CoverageEstimate().decide(_view(*caught), DEFAULT)
    assert verdict == Verdict("the coverage estimate says every record is reached", size=3.0)


def test_the_latest_totals_lacking_almost_nothing_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stops, "STOP_CHECKED_LISTS", 2)
    settings = settings_of(stopword_probes=(), stop_checked_records=100)
    checks = ListsDropped((("w", (60, 0)), ("v", (60, 0))))
    verdict = TotalsCovered().decide(_view(*_answers({"a"}), checks), settings)
    assert verdict is not None
    assert verdict.complete
    trial = SourceLeft(WordSource.RESULTS, trial=True, trial_length=5)
    assert TotalsCovered().decide(_view(*_answers({"a"}), checks, trial), settings) is None
    assert TotalsCovered().decide(_view(*_answers({"a"})), settings) is None


def test_consecutive_keys_listed_highest_first_stop_once_the_lists_show_none_above() -> None:
    keyed = [f"http://site/ticket/{key}" for key in range(1, 41)]
    falling = [list_event(w, keyed[::-3]) for w in ("f0", "f1")]  # 40, 37 … 1: the highest first
    rule = NumberedKeys(lists=3)
    assert rule.decide(_view(RecordsReached(tuple(keyed)), *falling), DEFAULT) is None  # two
    since = QueryEvent.of("w", keyed[-2:])
    verdict = rule.decide(_view(RecordsReached(tuple(keyed)), *falling, since), DEFAULT)
    assert verdict is not None
    assert verdict.complete
    rising = [list_event(w, keyed[::3]) for w in ("r0", "r1")]
    assert rule.decide(_view(RecordsReached(tuple(keyed)), *rising, since), DEFAULT) is None


def test_the_last_rule_stops_with_the_words_reason() -> None:
    spent = WordsSpent()
    assert spent.decide(_view(WordsExhausted()), DEFAULT) == Verdict(str(StopReason.EXHAUSTED))
    budget = settings_of(stopword_probes=(), max_queries=1)
    assert spent.decide(_view(*_answers({"a"}), settings=budget), budget) == Verdict(
        str(StopReason.QUERY_BUDGET)
    )
    # reached with the words going on (a rule before it said nothing): they are spent
    assert spent.decide(_view(seeds=["red"]), DEFAULT) == Verdict(str(StopReason.EXHAUSTED))


# -- the registry and the loop -------------------------------------------------------------------


def test_the_rules_are_made_in_the_settings_order_and_a_name_no_rule_has_is_refused() -> None:
    assert [rule.name for rule in make_rules(DEFAULT)] == list(DEFAULT.querying.rules)
    assert set(DEFAULT.querying.rules) == set(RULES)  # every rule, in the default order
    short = settings_of(rules=("next-word", "runaway"))
    assert [type(rule) for rule in make_rules(short)] == [NextWord, Runaway]
    # made afresh for each loop: no rule's state is shared
    assert all(a is not b for a, b in zip(make_rules(DEFAULT), make_rules(DEFAULT), strict=True))
    with pytest.raises(ConfigError, match="no rule is named 'keys'"):
        make_rules(settings_of(rules=("runaway", "keys")))


def test_a_note_is_folded_and_the_same_rule_asked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The setup phase cut "red" and "green"; "red" lacks nothing by its total. The read-on
    rule writes down that "red" is dropped — into the ledger and the event log — and, asked
    again over the ledger it changed, reads "green" on."""
    ids = [f"r{i}" for i in range(60)]
    blue = [f"b{i}" for i in range(40)]
    setup = [cut_event("red", ids, 3, total=60), cut_event("green", ids[:10], 1)]
    monkeypatch.setattr(runaway, "RUNAWAY_WINDOW", 0)
    settings = DEFAULT
    kept: list[Event] = []

    class Log:
        def append(self, event: Event) -> None:
            kept.append(event)

        def flush(self) -> None:
            pass

    loop = fake_query_loop(settings, seeds=["blue"], events=setup, log=Log())
    loop.facts.observe(ids + blue)
    for n, rid in enumerate(ids + blue):
        loop.facts.learn_text(rid, f"{'red' if rid in ids else 'blue'} own{n}")
    fetched = len(kept)  # the fetch side's events so far (the setup's are the store's)
    assert all(isinstance(e, RecordsReached | RecordRead) for e in kept)
    search = FakeSearch({"red": ids, "green": ids[:10]})
    asyncio.run(loop.step(cast("FormSearch", search)))
    assert search.read == [("green", 1)]
    assert loop.fired["read-on-cut-lists"] == [2, 2]  # asked twice, decided twice
    note, query = kept[fetched:]
    assert note == ListsDropped((("red", (60, 0)),))
    assert isinstance(query, QueryEvent)
    assert (query.word, query.reading) == ("green", Reading.READ_ON)
    assert loop.ledger.unfinished == {}
    assert (60, 0) in loop.ledger.checked


def test_a_rule_that_notes_without_end_is_a_bug_not_a_crawl() -> None:
    class Noting(Rule):
        name: ClassVar[str] = "noting"

        def decide(self, view: QueryView, settings: Settings) -> Note:
            return WordsExhausted()

    loop = fake_query_loop(DEFAULT, seeds=["red"])
    loop.rules = (Noting(),)
    loop.fired = {"noting": [0, 0]}
    with pytest.raises(RuntimeError, match="'noting' noted without end"):
        asyncio.run(loop.step(cast("FormSearch", FakeSearch({}))))


def test_the_figures_count_each_rules_asks_and_decisions_and_the_verdict() -> None:
    """Two words, each a list read to its end, then none: three rounds. Each rule up to the
    next word is asked once a round; the next word decides twice, notes that the words ran out,
    and is asked again; the deepening has no list worth reading again, and stops."""
    settings = settings_of(stopword_probes=(), stop_checked_records=0, deepen_min_new=0.0)
    loop = fake_query_loop(settings, seeds=["red", "blue"])
    search = FakeSearch({"red": ["r1", "r2"], "blue": ["b1", "b2"]})

    async def crawl() -> None:
        while await loop.step(cast("FormSearch", search)) is not None:
            pass

    asyncio.run(crawl())
    rules = loop.figures.querying["rules"]
    assert list(rules) == list(settings.querying.rules)
    before = settings.querying.rules[: settings.querying.rules.index("next-word")]
    assert all(rules[name] == {"asked": 3, "decided": 0} for name in before)
    assert rules["next-word"] == {"asked": 4, "decided": 3}
    assert rules["deepen-lists"] == {"asked": 1, "decided": 1}
    assert rules["words-spent"] == {"asked": 0, "decided": 0}
    assert loop.figures.querying["verdict"] == {
        "rule": "deepen-lists",
        "reason": loop.verdict.reason if loop.verdict else None,
        "complete": False,
        "size": None,
    }
    assert loop.verdict is not None
    assert loop.verdict.reason.startswith("saturated; no result list read again")
