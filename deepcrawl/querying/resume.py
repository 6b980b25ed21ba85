"""The lists a page cap cut short: whether, and from where, they are read on.

The setup phase reads a few pages of each of its queries
(:func:`~deepcrawl.crawler.setup.setup_pages`), whatever the lists hold; the normal phase's
ledger keeps those lists as unfinished (:attr:`Ledger.unfinished
<deepcrawl.querying.ledger.Ledger.unfinished>`) and its rules read them on first
(:mod:`~deepcrawl.querying.reading`). A list goes on from the page after its last one read where
its pager says which link leads there (:func:`resume_url`) — every page read again is a request
that brings nothing — and only where the total its first page reported, less the fetched
records holding the word, leaves records to find (:func:`reads_on`); one that does not is the
stop's evidence all the same (:func:`list_check`). A search that reports no totals has one
kind of evidence that nothing is missing: lists read to their end; where that evidence lacks a
single list, the cut list most records hold is read to its end (:func:`completing_list`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl.querying import size, stops
from deepcrawl.querying.lists import list_key
from deepcrawl.querying.totals import records_total, unknown_left
from deepcrawl.search.pagination import NEXT_TEXT, page_number_of

if TYPE_CHECKING:
    from deepcrawl.querying.view import LedgerView
    from deepcrawl.search.results import QueryResult
    from deepcrawl.settings import Settings

__all__ = ["CutList", "completing_list", "list_check", "reads_on", "resume_url"]

#: A list cut short to read on: its word, the pages read, the URL of the page after them (None:
#: from the first again), and the records its pages read showed.
CutList = tuple[str, int, str | None, frozenset[str]]


def completing_list(ledger: LedgerView) -> CutList | None:
    """The list cut short, without a total, to read on to its end where it completes the
    evidence of the stop of the lists read to their end
    (:func:`~deepcrawl.querying.stops.complete_out`); None where no list does, or one was
    read on so before.

    Once all but one of the :data:`~deepcrawl.querying.size.STOP_COMPLETE_LISTS` lists holding
    :data:`~deepcrawl.querying.size.STOP_COMPLETE_SHARE` of the records known are read whole, the
    rest of the list cut short whose word the fetched records say most records hold buys the
    stop, where word after word of one page each would look for the last few records for as
    long as the fruitless run takes. The setup phase's cut lists are candidates beside the
    normal phase's.
    """
    if ledger.completed or size.STOP_COMPLETE_COVERAGE >= 1.0:
        return None
    least = size.STOP_COMPLETE_SHARE * len(ledger.records)
    whole = sum(len(ids) >= least for ids in ledger.complete.values())
    if not least or whole + 1 != max(2, size.STOP_COMPLETE_LISTS):
        return None
    cut: dict[str, CutList] = {
        key: (word, pages, url, shown)
        for key, (word, pages, url, shown) in ledger.open_lists.items()
    }
    for word, pages in ledger.unfinished.items():
        key = list_key(word)
        if key not in ledger.lists:  # without a total: its own end is the evidence
            shown = ledger.read_before.get(key, frozenset())
            cut.setdefault(key, (word, pages, ledger.resume_urls.get(word), shown))
    shares = {
        key: share
        for key, (word, _, _, _) in cut.items()
        if key not in ledger.complete
        and (share := ledger.texts.share_holding(word)) is not None
        and share * len(ledger.records) >= least
    }
    if not shares:
        return None
    return cut[max(shares, key=shares.__getitem__)]


def reads_on(ledger: LedgerView, settings: Settings, word: str, *, resumed: bool) -> bool:
    """Whether a list a page cap cut short (the setup phase's) is worth reading on: the records
    its total says it lacks (:func:`unknown_left`) are ``querying.paging_min_new`` a request of
    the pages still to read — and of its pages read before, read again where it cannot be
    ``resumed`` on the page after them. Yes where the search reports no total for it, or the
    crawl distrusts its totals: its own pages are then the only evidence.
    """
    lst = ledger.lists.get(list_key(word))
    if lst is None or lst.size <= 0:
        return True
    total = records_total(ledger, lst.total, lst.per_page)
    left = unknown_left(ledger, lst.word, total, ledger.unheld(lst), lst.sample)
    if left is None or total is None:
        return True
    pages_left = -(-(total - lst.shown) // lst.size)
    if left <= 0 or pages_left <= 0:
        return False
    requests = pages_left + (0 if resumed else lst.pages)
    return left / requests >= settings.querying.paging_min_new


def list_check(ledger: LedgerView, word: str) -> tuple[int, int] | None:
    """The evidence of the stop by the lists' totals a list read before gives without a request
    (:attr:`ListReader.check <deepcrawl.querying.paging.ListReader.check>`): (the records among
    its total, those of them the crawl lacks by the fetched records' words); None where the
    ledger holds no total for it or the words say nothing."""
    lst = ledger.lists.get(list_key(word))
    if lst is None:
        return None
    total = records_total(ledger, lst.total, lst.per_page)
    scaled = stops.STOP_CHECKED_SCALED
    lacking = unknown_left(ledger, lst.word, total, (), lst.sample, scaled=scaled)
    return None if total is None or lacking is None else (total, lacking)


def resume_url(result: QueryResult) -> str | None:
    """Where a query's list goes on: its pager link to the page after the last one it read, by
    the page number the link's URL carries (``page=11`` after ten pages read from ``page=1`` or
    none), else the "next" link of its last page read, where each page read showed one of its
    own (``/page/4/``, "Older posts"); None when neither says it (offsets, scripted pagers).
    """
    first = result.submitted[0] if result.submitted else ""
    wanted = (page_number_of(first) or 1) + result.pages
    pagers = [(link.url, link.text) for link in result.links if link.role == "pager"]
    for url, _text in pagers:
        if page_number_of(url) == wanted:
            return url
    # a pager naming its pages in the path (``/page/4/``) or not at all: each page read showed
    # its own "next" link, in reading order, so the last of them is the last page's
    nexts = [url for url, text in pagers if NEXT_TEXT.match(" ".join(text.split()))]
    return nexts[-1] if result.pages > 0 and len(nexts) == result.pages else None
