"""What a list's reported total says: how many of its entries are records, how many of them
the crawl lacks, how far the list may be read, and whether this search's totals are believed.

The measures the paging, the deepening, the reading on of cut lists and the stop by the totals
share (:mod:`~deepcrawl.querying.paging`, :mod:`~deepcrawl.querying.deepening`,
:mod:`~deepcrawl.querying.resume`, :mod:`~deepcrawl.querying.stops`), each a pure function of
the ledger.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from deepcrawl.querying.view import LedgerView
    from deepcrawl.settings import Settings

__all__ = [
    "beyond_known",
    "lists_checked_out",
    "page_cap",
    "records_total",
    "trusts_totals",
    "unknown_left",
]

#: Once this many lists, and half of those tested or more, refuted their total's estimate
#: (:mod:`~deepcrawl.querying.paging`), the search's totals are no longer used (it matches
#: substrings or stems, or counts other content). 0: totals always used.
PAGING_DISTRUST_AFTER = 3


def trusts_totals(ledger: LedgerView) -> bool:
    """Whether the result totals of this search measure what the crawl lacks.

    Not once :data:`PAGING_DISTRUST_AFTER` lists, and half the lists put to the test
    or more, had their estimate refuted by their own pages: the search matches or counts
    otherwise than the fetched pages' words say (substrings, stems, other kinds of content in
    its total). Always where the search lists in a fixed order
    (:attr:`Ledger.order <deepcrawl.querying.ledger.Ledger.order>`): a list's first pages
    show the records the crawl read first, and refute nothing of the rest.
    """
    if ledger.order.fixed:  # the refuting pages were a fixed order's first: known records
        return True
    after = PAGING_DISTRUST_AFTER
    return not (after > 0 and ledger.refutations >= max(after, ledger.tested / 2))


def beyond_known(ledger: LedgerView, total: int, shown: Collection[str] = ()) -> int:
    """Records a list of ``total`` records holds that the crawl lacks at least, whatever its
    word: those past every record it knows, less those its pages read so far showed. The
    measure of a list whose word the fetched words do not count (too short, on every page)."""
    unknown_shown = sum(1 for rid in shown if rid not in ledger.records)
    return max(0, total - len(ledger.records) - unknown_shown)


def records_total(ledger: LedgerView, total: int | None, per_page: int) -> int | None:
    """The records among a list's reported ``total`` matches: the share of one kind among a
    list's entries.

    A reported total counts a list's entries of every kind the search lists; a page holds as
    many entries as any other, so where another list's page brought more records than this
    list's pages did (``per_page`` at most), the rest of this list's entries are of other
    kinds, and its total is scaled by that share. The total itself where no page brought more,
    or where the most a page brought covers the whole list (its pages need not be full).
    """
    if total is None or per_page <= 0:
        return total
    most = max((lst.per_page for lst in ledger.lists.values()), default=0)
    if most <= per_page or total <= most:
        return total
    return round(total * per_page / most)


def page_cap(ledger: LedgerView, settings: Settings, total: int | None, size: int) -> int:
    """Result pages a list is read to at most: ``querying.max_result_pages``, or twice as many
    as its reported ``total`` fills at ``size`` results a page if more, never past
    ``querying.max_list_pages`` nor the querying's request budget left (``querying.max_cost``).
    Twice: ``size`` counts the links a page shows beside its results (facets, sort orders)
    that the crawl cannot tell from them before it learnt the records' URLs.

    A constant cap cuts every long list at the same depth: on a site listing its records in
    a fixed order (by key, by date) that is the same records for every query, and the rest of
    the database out of reach of any word.
    """
    querying = settings.querying
    cap = querying.max_result_pages
    if total is not None and size > 0:
        cap = max(cap, -(-2 * total // size))
    cap = min(cap, querying.max_list_pages)
    if querying.max_cost is not None:
        cap = min(cap, max(1, querying.max_cost - ledger.cost))
    return cap


def unknown_left(
    ledger: LedgerView,
    word: str,
    total: int | None,
    shown: Collection[str],
    sample: Collection[str] | None = None,
    *,
    scaled: bool = True,
) -> int | None:
    """Records of ``word``'s list the crawl lacks and its pages have not shown, by the total
    and the fetched texts (:meth:`KnownTexts.unknown_left
    <deepcrawl.querying.texts.KnownTexts.unknown_left>`); None when the search's totals are not
    trusted (:func:`trusts_totals`), or, not ``scaled``, when only a count scaled by the list's
    match share would say it."""
    if not trusts_totals(ledger):
        return None
    return ledger.texts.unknown_left(word, total, shown, sample, scaled=scaled)


def lists_checked_out(
    checked: Sequence[tuple[int, int]], *, need: int, share: float, lists: int = 1
) -> tuple[int, int] | None:
    """The latest result lists, ``need`` records between them, if they lack under ``share``.

    Args:
        checked: per query, oldest first: (records its list held by the reported total,
            records of them the crawl lacked).
        need: records of evidence: the most recent lists are summed until they reach it.
        share: the share of lacking records under which the lists count as checked out.
        lists: lists of evidence at least, however many records fewer lists hold: the lists
            of words most records hold are nearly the same records, so two of them are not
            twice the evidence.

    Returns:
        (records the lists held by their totals, records of them the crawl lacked) once they
        count as checked out; None while the lists hold fewer than ``need`` records in all,
        are fewer than ``lists``, or lack ``share`` or more.
    """
    seen = missing = 0
    for count, (total, lacking) in enumerate(reversed(checked), 1):
        seen += total
        missing += lacking
        if seen >= need and count >= lists:
            return (seen, missing) if missing < share * seen else None
    return None
