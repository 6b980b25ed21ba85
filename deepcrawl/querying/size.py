"""The database's size as the crawl reports it: the estimate its best evidence gives.

The stop rules read the ledger's running capture–recapture estimate (Chao's, over every
capture). What the crawl *reports* — ``records_estimated`` in ``stats.json``, the final line, the
gap a stop names — is told from the best evidence the ledger holds, in this order (where a
stop's evidence proves the records complete, it reports the records it knows:
:func:`~deepcrawl.querying.figures.refresh`):

0. **A list of everything read to its end**: a list that showed as many distinct records as
   it reported, the largest total any list reported, every record known among them — the
   database, as the search counts it (:func:`everything_listed`).
1. **Lists read to their end** (:func:`~deepcrawl.keywords.estimate.lists_estimate`): a whole
   list holds every record matching its word, whatever order the search ranks them in — a
   sample no ranking biases. Used where such lists hold :data:`STOP_COMPLETE_SHARE` of the
   records known each (the words most records hold, which occur nearly independently),
   :data:`STOP_COMPLETE_LISTS` of them at least (or one, against the records the crawl
   learnt otherwise), :data:`STOP_COMPLETE_OVERLAP` records held again between them —
   the evidence the stop of the lists read to their end rests on. A list that ended short of
   the total it reported is no whole list: the search showed only its top.
2. **A search that caps its lists**: where lists end short of the matches they report, the
   records shown are the top of each ranking, not a sample, and capture–recapture over them
   says little. Where the crawl holds the text of the records it fetched, each list's total is
   set against how many of those hold its word (scaled by the share of its shown records that
   hold the word itself, for a search that matches stems): the fetched records hold that share
   of the database — the ratio estimate, the evidence the stop by the lists' totals rests on.
   Without texts, Lu's correction ("Ranking bias in deep web size estimation using capture
   recapture method", Data & Knowledge Engineering 69(8), 2010): the unranked model's
   estimate (Schnabel's, over the records shown) times the *overflow rate*, the matches the
   lists reported over the records they showed — close where one fixed ranking puts the same
   records first for every word, far too high where the ranking is by relevance (each word's
   top is then a fresh sample). Either is never below the largest total a list reported.
3. **Otherwise** the ledger's own estimate (``keywords.estimator``, Chao's by default).

Each is floored at the records the captures reached; the records reached otherwise (links,
sitemaps, hubs) are added by the caller.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from deepcrawl.keywords.estimate import chapman, lists_estimate
from deepcrawl.querying.totals import records_total

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from deepcrawl.querying.view import LedgerView as Ledger

__all__ = [
    "SizeEstimate",
    "capped_lists",
    "everything_listed",
    "gap",
    "lists_complete_out",
    "overflow_rate",
    "records_share",
    "size_estimate",
    "totals_estimate",
    "unread_matches",
    "whole_lists_estimate",
]

#: Stop querying (:class:`~deepcrawl.querying.stops.WholeListsEstimate`) once the records known
#: reach this share of the database's size as estimated from the lists read to their end
#: (:func:`~deepcrawl.keywords.estimate.lists_estimate`) and exceed it by no more than that
#: share. 1.0 or more: off. Not from a paper.
STOP_COMPLETE_COVERAGE = 0.99
#: Result lists read to their end that :data:`STOP_COMPLETE_COVERAGE` needs at least.
STOP_COMPLETE_LISTS = 2
#: The share of the records known (0–1) a list read to its end must hold to count for
#: :data:`STOP_COMPLETE_COVERAGE`: only the words most records hold occur nearly independently.
STOP_COMPLETE_SHARE = 0.5
#: Records the lists counting for :data:`STOP_COMPLETE_COVERAGE` hold again (the recaptures) at
#: least: the estimate's relative error is about 1/√recaptures.
STOP_COMPLETE_OVERLAP = 50

#: Fetched records' texts the ratio estimate needs at least.
_MIN_TEXTS = 20
#: A word's match share is not taken below this (a share of nothing says the texts miss it).
_MIN_MATCH_SHARE = 0.2
#: Lists ending at one count short of their totals that show a search caps its lists.
_CAPPED_LISTS = 2
#: A list reporting more than this many times the records it showed overflows (less: a total
#: counting a few pages of other kinds, or records gone since).
_OVERFLOWING = 1.05


@dataclass(frozen=True, slots=True)
class SizeEstimate:
    """The database's size by one estimator.

    Attributes:
        value: the estimate (never below the records the captures reached), None while no
            estimator has the evidence it needs.
        method: which evidence it rests on: ``whole lists``, ``capped lists, by the fetched
            texts``, ``capped lists, by the overflow rate``, or the ledger's estimator's name.
    """

    value: float | None
    method: str


def size_estimate(ledger: Ledger) -> SizeEstimate:
    """The size of the database the ledger's queries sampled, by the best evidence it holds
    (see the module docstring)."""
    reached = ledger.capture.reached
    if (everything := everything_listed(ledger)) is not None:
        return SizeEstimate(max(everything, float(reached)), "a list of everything")
    capped = capped_lists(ledger)
    whole = _whole_lists(ledger, capped)
    if whole is not None:
        return SizeEstimate(max(whole, float(reached)), "whole lists")
    # the most records a list's total counts (a site-wide search's totals count other kinds)
    largest = max(
        (records_total(ledger, lst.total, lst.per_page) or 0 for lst in ledger.lists.values()),
        default=0,
    )
    floor = max(float(largest), float(reached))
    if capped and (ratio := totals_estimate(ledger)) is not None:
        return SizeEstimate(max(ratio, floor), "capped lists, by the fetched texts")
    rate = overflow_rate(ledger)
    unranked = ledger.capture.value("schnabel")
    if capped and rate is not None and rate >= _OVERFLOWING and unranked is not None:
        return SizeEstimate(max(unranked * rate, floor), "capped lists, by the overflow rate")
    coverage = ledger.coverage()
    return SizeEstimate(coverage.estimated, coverage.method)


def everything_listed(ledger: Ledger) -> float | None:
    """The records of a list read to its end that showed as many distinct records as it
    reported (its total), the largest total any list reported, and every record the crawl
    knows; None where no list did."""
    for key, ids in ledger.complete.items():
        lst = ledger.lists.get(key)
        if lst is None or not ids or not ids >= ledger.records:
            continue
        if 0 < lst.total <= len(ids) and lst.total >= ledger.largest_total:
            return float(len(ids))
    return None


def capped_lists(ledger: Ledger) -> set[str]:
    """The (case-folded) words whose list the search cut at its cap: lists that ended short of
    the total they reported, all at the same number of entries — the most any list showed —
    and two of them at least. A list ending short of its total at a count of its own is not
    capped: its total counts what the list does not show (sections of a page, other kinds of
    content, records gone since). Entries of every kind where the ledger counted them
    (:attr:`~deepcrawl.querying.ledger.Ledger.entries`): a site-wide search caps its lists of
    every kind, and the records among a capped list's entries vary from list to list."""
    shown = {key: ledger.entries.get(key, read.shown) for key, read in ledger.lists.items()}
    short = {
        key: shown[key]
        for key, read in ledger.lists.items()
        if read.complete and read.total > _OVERFLOWING * shown[key]
    }
    if len(short) < _CAPPED_LISTS:
        return set()
    cap = max(shown.values())
    capped = {key for key, shown in short.items() if shown == cap}
    return capped if len(capped) >= _CAPPED_LISTS else set()


def totals_estimate(ledger: Ledger) -> float | None:
    """The database's size by the lists' totals and the fetched records' words: the fetched
    records over the share of them each word's list matched, summed over the lists (a ratio
    estimate); None while too few records' texts are known or no list's word is held.

    A site-wide search's totals count its other kinds too: each total counts records by the
    share of one kind among the entries the lists read whole showed (:func:`records_share`),
    else as :func:`~deepcrawl.querying.totals.records_total` scales it."""
    texted = len(ledger.texts)
    if texted < _MIN_TEXTS:
        return None
    kind = records_share(ledger)
    matched = held = 0.0
    for read in ledger.lists.values():
        holding = ledger.texts.holding(read.word)
        if not holding:
            continue
        share = ledger.texts.match_share(read.word, read.sample) or 1.0
        scaled = (
            read.total * kind
            if kind is not None
            else records_total(ledger, read.total, read.per_page)
        )
        matched += scaled or 0
        held += holding / max(share, _MIN_MATCH_SHARE)
    return texted * matched / held if held else None


def records_share(ledger: Ledger) -> float | None:
    """The records among the entries of every kind the lists read to their end showed (what
    their totals count): 1.0 where the search lists the records alone; None where no such
    list's entries were counted."""
    shown = entries = 0
    for key, counted in ledger.entries.items():
        if counted and (read := ledger.lists.get(key)) is not None:
            shown += read.shown
            entries += counted
    return min(1.0, shown / entries) if entries else None


def overflow_rate(ledger: Ledger) -> float | None:
    """The matches the lists reported over the entries they showed (Lu's overflow rate), over
    the lists with a total; None where none has one. Entries of every kind where the ledger
    counted them (a site-wide search's totals count its other kinds too), else records."""
    matched = shown = 0
    for key, read in ledger.lists.items():
        if read.shown:
            entries = ledger.entries.get(key, read.shown)
            matched += max(read.total, entries)
            shown += entries
    return matched / shown if shown else None


def whole_lists_estimate(
    lists: Sequence[Collection[str]],
    known: int,
    *,
    first_shown: Sequence[int] = (),
    again: Sequence[int] = (),
) -> tuple[float, int] | None:
    """The database's size by the result lists read to their end, and its recaptures.

    Args:
        lists: the records of each list read to its end, oldest first.
        known: the records the crawl knows (by queries and links).
        first_shown: per list, the records new to the crawl when it showed them (negative:
            unknown, a list read in parts). Where one list alone is large, the records the
            crawl learnt otherwise (other words, links, hub pages) are the second capture: a
            list of the words every record holds (the records' frame) holds all of them, and
            Chapman's estimate is the list.
        again: per list, of the records new to the crawl when it showed them, those another
            query caught since: they are learnt otherwise as well (the list is whole, and
            which records the queries before it happened to catch does not bias it).

    Returns:
        (the estimate, its recaptures) from the lists holding :data:`STOP_COMPLETE_SHARE` of the
        records known, :data:`STOP_COMPLETE_LISTS` of them at least (or one, and the records
        learnt otherwise) with :data:`STOP_COMPLETE_OVERLAP` records held again; else None.
    """
    if known <= 0:
        return None
    least = STOP_COMPLETE_SHARE * known
    large = [i for i, ids in enumerate(lists) if len(ids) >= least]
    found: tuple[float, int] | None = None
    if len(large) >= max(2, STOP_COMPLETE_LISTS):
        found = lists_estimate([lists[i] for i in large])
    elif len(large) == 1 and large[0] < len(first_shown) and first_shown[large[0]] >= 0:
        i = large[0]
        held, fresh = len(lists[i]), first_shown[i]
        # of the list, the records the crawl learnt otherwise: before it, or by a later query
        recaptured = held - fresh + (again[i] if i < len(again) else 0)
        found = chapman(held, known - held + recaptured, recaptured), recaptured
    if found is None:
        return None
    estimate, recaptured = found
    if recaptured < STOP_COMPLETE_OVERLAP or estimate <= 0:
        return None
    return found


def _whole_lists(ledger: Ledger, capped: set[str]) -> float | None:
    """:func:`whole_lists_estimate` over the ledger's lists read to their end, less the capped
    ones (None where it has none)."""
    words = [word for word in ledger.complete if word not in capped]
    shown, again = ledger.first_shown_figures(words)
    found = whole_lists_estimate(
        [ledger.complete[word] for word in words],
        len(ledger.records),
        first_shown=shown,
        again=again,
    )
    return None if found is None else found[0]


def gap(ledger: Ledger, *, size: float | None = None) -> str:
    """What a stop leaves behind, for the stop reason: the records missing by the reported
    estimate (``size``, the stop's own estimate of every record, where it has one; else
    :func:`size_estimate`) with the word sources tried, and the matches the result lists
    reported that the crawl did not read; empty when neither."""
    parts: list[str] = []
    if size is not None:
        estimated: float | None = size
        reached = len(ledger.records)
    else:
        estimated, reached = size_estimate(ledger).value, ledger.capture.reached
    if estimated is not None and estimated - reached >= 1:
        record = ledger.sources
        tried = ", ".join(f"{s} {record.used[s]} ({record.empty[s]} empty)" for s in record.used)
        parts.append(
            f"the estimate says ~{round(estimated - reached)} of ~{round(estimated)} records "
            f"are missing (word sources tried: {tried or 'none'})"
        )
    if unread := unread_matches(ledger):
        parts.append(f"the result lists reported {unread} matches it did not read")
    return "".join(f"; {part}" for part in parts)


def unread_matches(ledger: Ledger) -> int:
    """The matches the result lists reported beyond the records the crawl read of them (a list
    read again counts once, as read the furthest)."""
    return sum(max(0, read.total - read.shown) for read in ledger.lists.values())


def lists_complete_out(
    lists: Sequence[Collection[str]],
    known: int,
    *,
    first_shown: Sequence[int] = (),
    again: Sequence[int] = (),
) -> tuple[float, int] | None:
    """Whether the result lists read to their end put the database at the records known.

    The estimate and its arguments are :func:`whole_lists_estimate`'s.

    Returns:
        (the estimate, its recaptures) when ``known`` is within :data:`STOP_COMPLETE_COVERAGE`
        of the estimate (either way: a crawl knowing more refutes it); else None.
    """
    coverage = STOP_COMPLETE_COVERAGE
    if coverage >= 1.0:
        return None
    found = whole_lists_estimate(lists, known, first_shown=first_shown, again=again)
    if found is None:
        return None
    estimate, _ = found
    return found if coverage * estimate <= known <= estimate / coverage else None
