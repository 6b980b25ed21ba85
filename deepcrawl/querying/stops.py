"""When the querying stops: each stop a rule object over a pure function of the ledger.

Each function reads the ledger (:class:`~deepcrawl.querying.view.LedgerView`; for the words'
own reasons, the word supply too) and returns a :class:`Verdict` — the reason, and whether its
evidence proves every record known or, short of that, the database's size it estimates — or
None while the querying should go on;
each rule (:class:`~deepcrawl.querying.rule.Rule`) asks one of them in the loop's order. Each is
a property of a search, not of a site:

* :class:`FruitlessRun` (:func:`fruitless`) — a run of queries bringing no new record: a
  search whose lists report no total, or whose estimate never reaches the count, would
  otherwise be queried until killed;
* :class:`WholeListsEstimate` (:func:`complete_out`) — lists read to their end are samples no
  ranking biases: where their overlaps put the database's size at the records known, almost
  nothing is missing (capture–recapture over whole lists: the evidence of a search that
  reports no total; an estimate, never a proof);
* :class:`ListOfEverything` (:func:`whole_listed`) — a list read to its end whose reported total
  equals its distinct records (or its distinct entries, where other kinds are listed beside
  them), holding every record known, and no list since showing one outside it: the search
  answers every word from the records that list holds;
* :class:`NumberedKeys` (:func:`keys_complete`) — a search listing in a fixed order of the
  records' numbering key, the highest first, heads each word's list with the highest key it
  matches: once the keys known are consecutive from the first number, a record the crawl
  lacks could only be numbered above them, and would head the lists of its words;
* :class:`TotalsCovered` (:func:`checked_out`) — a list's reported total, less the fetched
  records holding its word, is what it lacks: the latest lists, by their totals, lack almost
  nothing (a proof where they lack nothing; where they lack a few, the lists asked are read
  deeper first, and the share they lack estimates the missing only once the deepening is off);
* :class:`CoverageEstimate` (:func:`covered`) — the capture–recapture estimate (Chao's) is
  reached and the last queries brought nothing (off by default; an estimate);
* :class:`WordsSpent` (:func:`~deepcrawl.querying.schedule.words_stop`) — the words ran out,
  the form keeps failing or answers every word alike, they are saturated, a budget
  is spent.
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING

from deepcrawl.keywords.outcome import StopReason, WordSource
from deepcrawl.querying.deepening import DEEPEN_RULE
from deepcrawl.querying.events import DeepeningBegun
from deepcrawl.querying.order import record_key
from deepcrawl.querying.rule import Rule
from deepcrawl.querying.schedule import DEEPEN_AFTER, on_trial, words_stop
from deepcrawl.querying.size import lists_complete_out
from deepcrawl.querying.totals import lists_checked_out
from deepcrawl.querying.verdict import Verdict

if TYPE_CHECKING:
    from collections.abc import Iterable

    from deepcrawl.querying.rule import QueryView
    from deepcrawl.querying.view import LedgerView as Ledger
    from deepcrawl.settings import Settings

__all__ = [
    "CoverageEstimate",
    "FruitlessRun",
    "ListOfEverything",
    "NumberedKeys",
    "TotalsCovered",
    "Verdict",
    "WholeListsEstimate",
    "WordsSpent",
    "checked_need",
    "checked_out",
    "complete_out",
    "covered",
    "fruitless",
    "keys_complete",
    "proves",
    "whole_listed",
]

logger = logging.getLogger(__name__)

#: The run of fruitless queries that ends querying is at least this share of the queries made
#: (0–1): a long crawl's tail meets twenty fruitless queries by chance.
STOP_FRUITLESS_SHARE = 0.1
#: The records :func:`checked_out` asks for at least, as a share of the records known (by
#: queries and links, 0–1): over a long tail a small window meets a lucky run of lists sooner or
#: later. Not from a paper.
STOP_CHECKED_FRACTION = 0.2
#: The lists :func:`checked_out` asks for at least, however many records fewer lists hold: the
#: lists of the commonest words hold nearly the same records. Not from a paper.
STOP_CHECKED_LISTS = 5
#: The share of missing records (0–1) under which :func:`checked_out` stops the crawl: an
#: estimate of the share of the site's records missed.
STOP_CHECKED_SHARE = 0.01
#: Whether a list's count scaled by its match share (a search matching stems or substrings:
#: :meth:`~deepcrawl.querying.texts.KnownTexts.match_share`) is evidence for :func:`checked_out`;
#: off, such lists are none.
STOP_CHECKED_SCALED = True
#: Stop querying once the capture–recapture estimate says this share of the wanted records is
#: reached and the last :data:`STOP_PATIENCE` queries brought none new (1.0 or more: never; the
#: estimate underrates the rare-word records of the tail).
STOP_COVERAGE = 1.0
#: Queries in a row without a new wanted record before :data:`STOP_COVERAGE` may stop the crawl.
STOP_PATIENCE = 5
#: Lists in a row, each showing records and none new, the numbered-keys stop asks for.
KEYS_LISTS = 5


def fruitless(ledger: Ledger, settings: Settings) -> Verdict | None:
    """A run of queries bringing no new record, long enough to stop querying.

    The run is ``querying.stop_fruitless_queries`` queries, or :data:`STOP_FRUITLESS_SHARE` of the
    queries made if more; errors count as fruitless. Unlike saturation it waits for no
    total, no estimate and no source of words: it always ends the querying. It starts afresh
    where saturation hands over — to a source of words untried while most records are missing,
    or to the deepening of the lists — each once at most.
    """
    querying = settings.querying
    if querying.stop_fruitless_queries <= 0:
        return None
    history = ledger.history
    need = max(
        querying.stop_fruitless_queries, math.ceil(max(0.0, STOP_FRUITLESS_SHARE) * len(history))
    )
    if len(history) - max(ledger.sources.since, ledger.deepened_from) < need:
        return None
    if any(outcome.new for outcome in history[-need:]):
        return None
    return Verdict(
        f"{querying.stop_fruitless_queries} or more queries in a row brought no new record"
    )


def checked_need(ledger: Ledger, settings: Settings) -> int:
    """Records of evidence :func:`checked_out` needs (0: the rule is off).

    ``querying.stop_checked_records``, or :data:`STOP_CHECKED_FRACTION` of the records the crawl
    knows if more. The rule is tested after every query: the longer the tail, the likelier a
    small window of lists happens to lack almost nothing while a share above the threshold is
    still missing.
    """
    querying = settings.querying
    if not querying.stop_checked_records:
        return 0
    scaled = math.ceil(max(0.0, STOP_CHECKED_FRACTION) * len(ledger.records))
    return max(querying.stop_checked_records, scaled)


def checked_out(ledger: Ledger, settings: Settings) -> Verdict | None:
    """The latest queries' whole result lists hold nothing the crawl lacks.

    Each query's first page reports its total; the fetched records' words say how many of them
    the crawl holds, so the difference is what its results lack — for the whole list, not only
    the page read. Once the most recent queries' lists held :func:`checked_need` records between
    them and lacked fewer than :data:`STOP_CHECKED_SHARE` of them, querying stops: the
    saturation window's evidence, counted in records checked rather than queries, and an
    estimate of the share missed. Not while a source of words is on trial: the lists so far
    were asked with another source's words, and say nothing of what the new words reach.
    """
    need = checked_need(ledger, settings)
    if on_trial(ledger):  # the lists so far are another source's words'
        return None
    if not need:
        return None
    found = lists_checked_out(
        ledger.checked, need=need, share=STOP_CHECKED_SHARE, lists=STOP_CHECKED_LISTS
    )
    if found is None:
        return None
    logger.debug("checked out: (total, lacking) of the latest lists %s", ledger.checked[-8:])
    seen, missing = found
    if not missing:
        return Verdict(
            "the latest result lists, by their totals, hold no record the crawl lacks",
            complete=True,
        )
    # the lists are a sample of the database: it lacks the share they lacked
    known = len(ledger.records)
    return Verdict(
        f"the latest result lists, by their totals, lack {missing} of their {seen} records",
        size=known / (1.0 - missing / seen),
    )


def complete_out(ledger: Ledger) -> Verdict | None:
    """The records known are the database's size by the lists read to their end
    (:func:`lists_complete_out`, :data:`~deepcrawl.querying.size.STOP_COMPLETE_COVERAGE`): the stop
    evidence of a search that reports no total, where :func:`checked_out` has none."""
    keys = list(ledger.complete)
    shown, again = ledger.first_shown_figures(keys)
    found = lists_complete_out(
        [ledger.complete[key] for key in keys], len(ledger.records), first_shown=shown, again=again
    )
    if found is None:
        return None
    logger.debug("lists read to their end: ~%.0f records, %d held again", *found)
    return Verdict(
        "the result lists read to their end put the records at those the crawl knows",
        size=found[0],
    )


def whole_listed(ledger: Ledger, settings: Settings) -> Verdict | None:
    """A list of every record was read to its end.

    The list — the empty query's, or a frame word's (one every record holds) — showed every
    match its first page reported, the largest total any list reported: its records were at
    least its total, or its entries were its total exactly (a search listing other kinds beside
    the records counts them all; an entry is a record once, whatever links it has, or another
    kind's link, and a total met exactly is no page's links counted twice); it holds every
    record the crawl knows, by any query, link, sitemap or hub; and
    the latest ``querying.stop_whole_lists`` lists asked after it showed records, none outside
    it. The search answers every word from the records it listed, and a record it did not list
    would be one no word finds. The stop of a search whose empty query lists everything in a
    fixed order, read whole, where the keyword lists' first pages show only records known.
    """
    need = settings.querying.stop_whole_lists
    if need <= 0 or not ledger.records:
        return None
    history = ledger.history
    for key, ids in ledger.complete.items():
        if not ids >= ledger.records:
            continue
        # a list narrowed by field values has a key no query's word alone spells
        asked = [i for i, outcome in enumerate(history) if outcome.query.casefold() == key]
        # the empty query's, or a word every record holds: a rare word's list may hold the
        # few records known so far (the example's own words each list the example)
        if key and not any(history[i].source is WordSource.FRAME for i in asked):
            continue
        total = max((history[i].total_results or 0 for i in asked), default=0)
        shown = total <= len(ids) or total == ledger.entries.get(key)
        if total <= 0 or not shown or total < ledger.largest_total:
            continue
        since = [o for o in history[asked[-1] + 1 :] if o.results and not o.error]
        if len(since) >= need:
            return Verdict(
                f"a result list read to its end showed all {total} matches it reported, every "
                f"record known, and the {len(since)} lists since showed none outside it",
                complete=True,
            )
    return None


def keys_complete(ledger: Ledger, *, lists: int = KEYS_LISTS) -> Verdict | None:
    """The records' numbering says every record is known.

    Each record's URL carries a key (:func:`~deepcrawl.querying.order.record_key`), one per
    record, and those known are consecutive from the first number (1, or 0) to the highest:
    the numbering lacks none below the highest. The search lists in a fixed order of those
    keys, the highest first (:attr:`ListOrder.falling
    <deepcrawl.querying.order.ListOrder.falling>`), so a record numbered above the highest
    would head the list of every word it holds; the latest ``lists`` lists showed records,
    none of them new (a word nothing matched shows no list).
    """
    if lists <= 0 or not ledger.order.falling:
        return None
    # a word nothing matched shows no list: it says nothing of a key above the highest
    latest = [outcome for outcome in ledger.history if outcome.results][-lists:]
    if len(latest) < lists or any(outcome.new for outcome in latest):
        return None
    keys = {key for record in ledger.records if (key := record_key(record)) is not None}
    if not keys or len(keys) != len(ledger.records):  # a record without a key, or two alike
        return None
    low, high = min(keys), max(keys)
    if low > 1 or high - low + 1 != len(keys):
        return None
    return Verdict(
        f"the records' keys run from {low} to {high} with none missing, and no list shows a "
        "higher one",
        complete=True,
    )


def covered(ledger: Ledger, settings: Settings) -> Verdict | None:
    """The estimate says the wanted records are all but reached.

    :data:`STOP_COVERAGE` of the capture–recapture estimate is reached, and the last
    :data:`STOP_PATIENCE` queries brought no new record: the tail of a keyword crawl is where
    its requests go for the fewest records, and the estimate tells when the tail is empty
    sooner than a fixed window of fruitless queries.
    """
    history = ledger.history
    patience = max(1, STOP_PATIENCE)
    probes = {w.casefold() for w in settings.keywords.stopword_probes}
    if len(history) < patience + len(probes) or STOP_COVERAGE >= 1.0:
        return None
    if on_trial(ledger):  # the estimate is the saturated source's
        return None
    if any(o.new for o in history[-patience:]):
        return None
    ratio = ledger.coverage().ratio
    if ratio is None or ratio < STOP_COVERAGE:
        return None
    otherwise = max(0, len(ledger.records) - ledger.capture.reached)
    estimated = ledger.coverage().estimated
    return Verdict(
        "the coverage estimate says every record is reached",
        size=None if estimated is None else estimated + otherwise,
    )


def proves(rules: Iterable[Rule], view: QueryView, settings: Settings) -> Verdict | None:
    """The verdict a rule that rests on evidence of the database's size (:attr:`Rule.proves
    <deepcrawl.querying.rule.Rule.proves>`) would now give — a proof that every record is
    known, or an estimate of its own — the first in the rules' order; None while none would."""
    for rule in rules:
        if (
            rule.proves
            and isinstance(found := rule.decide(view, settings), Verdict)
            and found.sized
        ):
            return found
    return None


def deepening_next(view: QueryView, settings: Settings) -> bool:
    """Whether the words are spent or saturated and the deepening of the lists is about to
    begin (the fruitless run starts afresh there)."""
    return (
        not view.ledger.deepening
        and words_stop(view.ledger, view.words, settings) in DEEPEN_AFTER
        and settings.querying.deepen_min_new > 0
    )


class FruitlessRun(Rule):
    """A run of queries bringing no new record ends the querying (:func:`fruitless`); the run
    starts afresh where a source of words was just left, or the deepening is about to begin."""

    name = "fruitless-run"

    def decide(self, view: QueryView, settings: Settings) -> Verdict | None:
        ledger = view.ledger
        if ledger.sources.switched_at == len(ledger.history) or deepening_next(view, settings):
            return None
        return fruitless(ledger, settings)


class WholeListsEstimate(Rule):
    """The lists read to their end put the database's size at the records known
    (:func:`complete_out`)."""

    name = "whole-lists"
    proves = True

    def decide(self, view: QueryView, settings: Settings) -> Verdict | None:
        return complete_out(view.ledger)


class ListOfEverything(Rule):
    """A list read to its end showed all it reported and every record known, and no list since
    showed one outside it (:func:`whole_listed`)."""

    name = "list-of-everything"
    proves = True

    def decide(self, view: QueryView, settings: Settings) -> Verdict | None:
        return whole_listed(view.ledger, settings)


class CoverageEstimate(Rule):
    """The capture–recapture estimate is reached (:func:`covered`)."""

    name = "coverage-estimate"
    proves = True

    def decide(self, view: QueryView, settings: Settings) -> Verdict | None:
        return covered(view.ledger, settings)


class NumberedKeys(Rule):
    """The records' keys are consecutive from the first number and the lists, highest key
    first, show none above them (:func:`keys_complete`).

    Args:
        lists: the lists in a row, each showing records and none new, it asks for.
    """

    name = "numbered-keys"
    proves = True

    def __init__(self, lists: int = KEYS_LISTS) -> None:
        self.lists = lists

    def decide(self, view: QueryView, settings: Settings) -> Verdict | None:
        return keys_complete(view.ledger, lists=self.lists)


class TotalsCovered(Rule):
    """The latest lists, by their reported totals, lack almost nothing (:func:`checked_out`).

    Where they lack nothing, the querying stops. Where they still lack a few records, those
    records are in lists already asked, past the pages read: the lists are read again deeper
    first (:class:`~deepcrawl.querying.events.DeepeningBegun`, the deepening's own rule ending
    it), unless the deepening is off — a list's reported total is the evidence, and the share
    it lacks is no estimate of the site's while that list can still be read on.
    """

    name = "totals-covered"
    proves = True

    def decide(self, view: QueryView, settings: Settings) -> Verdict | DeepeningBegun | None:
        verdict = checked_out(view.ledger, settings)
        if verdict is None or verdict.complete:
            return verdict
        querying = settings.querying
        if querying.deepen_min_new <= 0 or DEEPEN_RULE not in querying.rules:
            return verdict
        if view.ledger.deepening:
            return None
        return DeepeningBegun(verdict.reason, verdict.size)


class WordsSpent(Rule):
    """The last rule: the words stop (:func:`words_stop`), or ran out."""

    name = "words-spent"

    def decide(self, view: QueryView, settings: Settings) -> Verdict:
        reason = words_stop(view.ledger, view.words, settings)
        return Verdict(str(reason) if reason is not None else str(StopReason.EXHAUSTED))
