"""The schedule of the sources of words: when the querying leaves one and tries the next.

A source is *spent* once the queries since the last source was left show saturation
(:mod:`~deepcrawl.querying.saturation`), or once the source on trial answered its queries with no
new record. Saturation is then *deferred* — the querying goes on with the next source — while a
word of the user's is left, or a source is untried and either the estimate says most records are
missing (:data:`SATURATION_MAX_MISSING`) or untried sources get a trial
(:data:`SOURCE_TRIAL_QUERIES`): Chao's estimate under-counts what one source's words never reach,
since their queries re-catch the same records. A source whose last :data:`SOURCE_EMPTY_RUN`
queries all came back empty is left at once: its words are not what the search matches.

Every function reads the ledger and the word supply and decides; :class:`SourceSchedule` is
the rule: the switch it finds is a note (:class:`~deepcrawl.querying.events.SourceLeft`) the
loop folds into the ledger before the other rules read it. A source whose words keep coming
back empty is left by the fold itself (:meth:`Ledger.apply
<deepcrawl.querying.ledger.Ledger.apply>`): that is a fact of its answers, not a choice.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from deepcrawl.keywords.outcome import StopReason
from deepcrawl.querying import saturation
from deepcrawl.querying.events import SourceLeft
from deepcrawl.querying.rule import Rule
from deepcrawl.querying.saturation import records_saturated, window_saturated

if TYPE_CHECKING:
    from deepcrawl.keywords.outcome import WordSource
    from deepcrawl.querying.rule import QueryView
    from deepcrawl.querying.view import LedgerView as Ledger
    from deepcrawl.querying.words import KeywordManager
    from deepcrawl.settings import QuerySettings, Settings

__all__ = [
    "BUDGETS",
    "DEEPEN_AFTER",
    "SourceRecord",
    "SourceSchedule",
    "current_source",
    "deferred",
    "most_missing",
    "next_switch",
    "on_trial",
    "saturated",
    "spent",
    "trial_failed",
    "words_stop",
]

logger = logging.getLogger(__name__)

#: Why the words stop that leaves the lists already asked worth deepening: the words ran out or
#: bring nothing new. Budgets, errors and a form ignoring its keyword end the querying.
DEEPEN_AFTER = frozenset({StopReason.SATURATED, StopReason.EXHAUSTED})
#: Reasons that end this run's querying only: run again with a larger budget, it goes on.
BUDGETS = frozenset({StopReason.QUERY_BUDGET, StopReason.COST_BUDGET})
#: This many successive queries returning the same non-empty results end the crawl (the form
#: ignores its keyword); the ledger keeps that many latest answers.
IDENTICAL_WINDOW = 5
#: This many successive failed queries (error page, timeout) end the crawl.
MAX_CONSECUTIVE_ERRORS = 5

#: Saturation is not declared while the capture–recapture estimate says more than this share of
#: the records is missing and a source of words is untried: the saturated source is left instead
#: (0–1; 1: off). Not from a paper.
SATURATION_MAX_MISSING = 0.5
#: A source of words (the examples', the result texts', the record pages') is left once this many
#: of its queries in a row found nothing (the fold leaves it: :class:`SourceRecord`). 0: never.
#: Not from a paper.
SOURCE_EMPTY_RUN = 5
#: A saturated source of words is left for the next untried one, which gets this many queries to
#: bring a new record; saturation is declared once every untried source failed its trial. 0: off
#: (switch only while most records are missing). Not from a paper.
SOURCE_TRIAL_QUERIES = 5
#: A source's trial is this share of the queries made, where that is more than
#: :data:`SOURCE_TRIAL_QUERIES` (0–1; 0: off). Not from a paper.
SOURCE_TRIAL_SHARE = 0.0


@dataclass(slots=True)
class SourceRecord:
    """What the sources of words did: queries answered, empty answers, and the schedule's
    marks (sources left, the source on trial)."""

    used: Counter[WordSource] = field(default_factory=Counter)
    """Queries answered (not failed), by source."""
    empty: Counter[WordSource] = field(default_factory=Counter)
    """Of those, the empty answers."""
    empty_run: Counter[WordSource] = field(default_factory=Counter)
    """Empty answers in a row, by source."""
    left: set[WordSource] = field(default_factory=set)
    """Sources left for good: their words kept coming back empty, or they saturated."""
    since: int = 0
    """Saturation is judged over the queries from this one on (the last source left)."""
    trial: int | None = None
    """The first query of the source on trial, if one is."""
    trial_length: int = 0
    """Queries the source on trial is given."""
    switched_at: int | None = None
    """The number of queries recorded when a source was last left (the fruitless run starts
    afresh there)."""


def current_source(ledger: Ledger) -> WordSource | None:
    """The source of the latest query handed out by the word supply."""
    for outcome in reversed(ledger.history):
        if outcome.source is not None:
            return outcome.source
    return None


def saturated(ledger: Ledger, settings: QuerySettings) -> bool:
    """Whether the queries since the last source was left show saturation."""
    history, known = ledger.history[ledger.sources.since :], len(ledger.records)
    return window_saturated(history, settings, known) or records_saturated(history, known)


def trial_failed(ledger: Ledger) -> bool:
    """Whether the source on trial answered its queries with fewer than
    :data:`~deepcrawl.querying.saturation.SATURATION_MIN_NEW` new records between them."""
    sources = ledger.sources
    if sources.trial is None:
        return False
    trial = ledger.history[sources.trial : sources.trial + sources.trial_length]
    return (
        len(trial) >= sources.trial_length
        and sum(outcome.new for outcome in trial) < saturation.SATURATION_MIN_NEW
    )


def spent(ledger: Ledger, settings: QuerySettings) -> bool:
    """Whether the current source is done: saturated, or its trial failed."""
    return saturated(ledger, settings) or trial_failed(ledger)


def on_trial(ledger: Ledger) -> bool:
    """Whether a source of words is on trial and has queries of it left: the evidence of the
    lists asked before, from another source's words, does not speak for what its words reach."""
    sources = ledger.sources
    if sources.trial is None or trial_failed(ledger):
        return False
    trial = ledger.history[sources.trial : sources.trial + sources.trial_length]
    return len(trial) < sources.trial_length


def most_missing(ledger: Ledger) -> bool:
    """Whether the estimate says more than :data:`SATURATION_MAX_MISSING` of the records are
    missing.

    The captures' estimate counts the records the queries reach; the records the crawl
    learnt otherwise (links, hubs) and no query showed yet are found all the same, and count
    on both sides, as the crawl's reported estimate counts them: a site whose links bring
    every record early leaves its queries' estimate far short of them.
    """
    coverage = ledger.coverage()
    if coverage.estimated is None:
        return False
    otherwise = max(0, len(ledger.records) - coverage.reached)
    known = min(1.0, (coverage.reached + otherwise) / (coverage.estimated + otherwise))
    return 1.0 - known > SATURATION_MAX_MISSING


def deferred(ledger: Ledger, words: KeywordManager) -> bool:
    """Whether saturation waits: a word of the user's is left, or a source of words is left
    untried and either the estimate says most records are missing or untried sources get a
    trial."""
    if words.user_words_left:
        return True
    if not words.untried():
        return False
    return most_missing(ledger) or SOURCE_TRIAL_QUERIES > 0


def next_switch(
    ledger: Ledger, words: KeywordManager, settings: QuerySettings, *, stopped: bool = False
) -> SourceLeft | None:
    """The switch to the next source, if the current one is spent while saturation waits
    (``stopped``: the words ran out, and nothing is switched).

    The next source is on trial for :data:`SOURCE_TRIAL_QUERIES` queries, or
    :data:`SOURCE_TRIAL_SHARE` of the queries made if more, unless the estimate says most records
    are missing (it then gets the whole saturation window).
    """
    if stopped or not spent(ledger, settings) or not deferred(ledger, words):
        return None
    return SourceLeft(
        current_source(ledger),
        trial=SOURCE_TRIAL_QUERIES > 0 and not most_missing(ledger),
        trial_length=max(
            SOURCE_TRIAL_QUERIES, math.ceil(max(0.0, SOURCE_TRIAL_SHARE) * len(ledger.history))
        ),
    )


class SourceSchedule(Rule):
    """The current source of words is spent while saturation waits: leave it, and judge
    saturation afresh over the next source's words (:func:`next_switch`)."""

    name = "source-schedule"

    def decide(self, view: QueryView, settings: Settings) -> SourceLeft | None:
        ledger = view.ledger
        if ledger.sources.switched_at == len(ledger.history):
            return None  # noted since the latest query (a switch leaving no source stays spent)
        switch = next_switch(ledger, view.words, settings.querying, stopped=ledger.exhausted)
        if switch is not None:
            logger.info("words from %s saturated: on to the next source", switch.source)
        return switch


def words_stop(ledger: Ledger, words: KeywordManager, settings: Settings) -> StopReason | None:
    """Why the words should stop, None while they should go on: the words ran out, the form
    keeps failing (:data:`MAX_CONSECUTIVE_ERRORS` in a row), it answers the last
    :data:`IDENTICAL_WINDOW` words with the same records (a full result page at least),
    the current source is saturated while no other waits (:mod:`~deepcrawl.querying.schedule`),
    or the query or request budget is spent."""
    s = settings.querying
    if ledger.exhausted:
        return StopReason.EXHAUSTED
    if ledger.errors_in_row >= MAX_CONSECUTIVE_ERRORS:
        return StopReason.ERRORS
    recent = ledger.recent
    if (
        len(recent) == recent.maxlen
        and recent[0]
        # a full result page at least: the title words of one rare record, queried in turn by
        # the greedy policy, all return that one record (a small, real result set)
        and len(recent[0]) >= max(2, ledger.page_size or 0)
        and all(ids == recent[0] for ids in recent)
    ):
        return StopReason.IDENTICAL
    if spent(ledger, s) and not deferred(ledger, words):
        return StopReason.SATURATED
    if ledger.asked >= s.max_queries:
        return StopReason.QUERY_BUDGET
    if s.max_cost is not None and ledger.cost >= s.max_cost:
        return StopReason.COST_BUDGET
    return None
