"""The lists a page cap cut short (the setup phase's): whether, and from where, they are read on.

The setup phase reads a few pages of each of its queries
(:func:`~deepcrawl.crawler.setup.setup_pages`), whatever the lists hold; the normal phase reads
them on first (:meth:`QueryLoop.replay <deepcrawl.querying.loop.QueryLoop.replay>` keeps them,
:func:`next_unfinished` hands them out).
A list goes on from the page after its last one read where its pager says which link leads
there (:func:`resume_url`) — every page read again is a request that brings nothing — and only
where the total its first page reported, less the fetched records holding the word, leaves
records to find (:func:`reads_on`); one that does not is the stop's evidence all the same
(:func:`list_check`). A list without a total cut short is read on to its end where it completes
the evidence of the stop that whole lists give (:func:`completing_list`), before the others.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from deepcrawl.querying.ledger import ListRead, list_key
from deepcrawl.querying.paging import records_total, unknown_left
from deepcrawl.search.pagination import NEXT_TEXT, page_number_of

if TYPE_CHECKING:
    from collections.abc import Collection

    from deepcrawl.querying.ledger import Ledger
    from deepcrawl.settings import Settings
    from deepcrawl.storage.state import StoredQuery

__all__ = [
    "completing_list",
    "list_check",
    "next_unfinished",
    "reads_on",
    "resume_url",
    "stored_list",
]

logger = logging.getLogger(__name__)


def next_unfinished(ledger: Ledger, settings: Settings) -> tuple[str, int, str | None] | None:
    """The next list cut short worth reading on (:func:`reads_on`), taken off the ledger's:
    its word, the pages read before, and the URL of the page after them (None: read again from
    the first). Those not worth it are dropped, their totals kept as the stop's evidence; all
    of them once a list read to its end holds every record known (the records' frame words'):
    their rest holds records the crawl knows."""
    listed = any(ids >= ledger.records for ids in ledger.complete.values())
    while ledger.unfinished:
        word, skip = ledger.unfinished.pop(0)
        url = ledger.resume_urls.pop(word, None)
        if not listed and reads_on(ledger, settings, word, resumed=url is not None):
            return word, skip, url
        why = "a whole list holds every record known" if listed else "its total leaves too little"
        logger.debug("list of %r not read on: %s", word, why)
        if (check := list_check(ledger, settings, word)) is not None:
            ledger.checked.append(check)  # as its first page read again would say
    return None


def completing_list(ledger: Ledger, settings: Settings) -> tuple[str, int, str | None] | None:
    """The list without a total to read on to its end where it completes the evidence of the
    stop of the lists read to their end (:func:`~deepcrawl.querying.stops.complete_out`): its
    word, its pages read, and the URL of the page after them (None: read again from the
    first); None where no list does, or one was read on so before.

    A search that reports no total has no other evidence than whole lists: once all but one of
    the ``querying.stop_complete_lists`` lists holding ``querying.stop_complete_share`` of the
    records known are read, the rest of a list cut short whose word the fetched records say
    holds that share — the largest such — buys the stop, where word after word of one page each
    would look for the last few records for as long as the fruitless run takes. Once only.

    The lists the setup phase cut short are candidates beside those the normal phase cut: the
    query loop asks for the completing list before it reads them on, since reading each of them
    a few pages further looks for the same last records the completing list's end brings, and
    the stop waits for that list all the same.
    """
    querying = settings.querying
    if ledger.completing or querying.stop_complete_coverage >= 1.0:
        return None
    least = querying.stop_complete_share * len(ledger.records)
    whole = sum(len(ids) >= least for ids in ledger.complete.values())
    if not least or whole + 1 != max(2, querying.stop_complete_lists):
        return None
    # by case-folded word: the word, its pages read, the URL of the page after them
    cut: dict[str, tuple[str, int, str | None]] = {
        key: (word, pages, url) for key, (word, pages, url, _) in ledger.open_lists.items()
    }
    for word, pages in ledger.unfinished:
        if list_key(word) not in ledger.lists:  # without a total: its own end is the evidence
            cut.setdefault(word.casefold(), (word, pages, ledger.resume_urls.get(word)))
    shares = {
        key: share
        for key, (word, _, _) in cut.items()
        if key not in ledger.complete
        and (share := ledger.texts.share_holding(word)) is not None
        and share * len(ledger.records) >= least
    }
    if not shares:
        return None
    ledger.completing = True
    key = max(shares, key=shares.__getitem__)
    word, pages, url = cut[key]
    if key in ledger.open_lists:
        ledger.read_before[key] = set(ledger.open_lists.pop(key)[3])  # whole with them
    else:  # the setup phase's: its records read before are kept (:attr:`Ledger.read_before`)
        ledger.unfinished = [(w, p) for w, p in ledger.unfinished if w.casefold() != key]
        ledger.resume_urls.pop(word, None)
    return word, pages, url


def reads_on(ledger: Ledger, settings: Settings, word: str, *, resumed: bool) -> bool:
    """Whether a list a page cap cut short (the setup phase's) is worth reading on: the records
    its total says it lacks (:func:`unknown_left`) are ``querying.paging_min_new`` a request of
    the pages still to read — and of its pages read before, read again where it cannot be
    ``resumed`` on the page after them. Yes where the search reports no total for it, or the
    crawl distrusts its totals: its own pages are then the only evidence.

    The setup phase cuts its lists at a few pages whatever they hold; the queries after it
    often fetched the records the rest of a list shows, and a list read on costs a request
    before its first page can say so.
    """
    lst = ledger.lists.get(list_key(word))
    if lst is None or lst.size <= 0:
        return True
    lst.unheld = {rid for rid in lst.unheld if rid not in ledger.texts}
    total = records_total(ledger, lst.total, lst.per_page)
    left = unknown_left(ledger, settings, lst.word, total, lst.unheld, lst.sample)
    if left is None or total is None:
        return True
    pages_left = -(-(total - lst.shown) // lst.size)
    if left <= 0 or pages_left <= 0:
        return False
    requests = pages_left + (0 if resumed else lst.pages)
    return left / requests >= settings.querying.paging_min_new


def stored_list(query: StoredQuery, ids: Collection[str]) -> ListRead | None:
    """What a stored query's list showed (its records ``ids``), as the ledger keeps it, where
    its first page reported a total; None where it did not. A page's size is the records its
    pages showed on average (the stored links say no more)."""
    row = query.row
    if row.results_reported is None or not ids or row.result_pages <= 0:
        return None
    size = -(-len(ids) // row.result_pages)
    return ListRead(
        row.keyword,
        row.results_reported,
        size,
        (page_number_of(row.submitted_url) or 1) - 1 + row.result_pages,
        len(ids),
        set(ids),
        sample=sorted(ids)[:size],
        per_page=size,
    )


def list_check(ledger: Ledger, settings: Settings, word: str) -> tuple[int, int] | None:
    """The evidence of the stop by the lists' totals a list read before gives without a request
    (:attr:`ListReader.check`): (the records among its total, those of them the crawl lacks by
    the fetched records' words); None where the ledger holds no total for it or the words say
    nothing."""
    lst = ledger.lists.get(list_key(word))
    if lst is None:
        return None
    total = records_total(ledger, lst.total, lst.per_page)
    scaled = settings.querying.stop_checked_scaled
    lacking = unknown_left(ledger, settings, lst.word, total, (), lst.sample, scaled=scaled)
    return None if total is None or lacking is None else (total, lacking)


def resume_url(query: StoredQuery) -> str | None:
    """Where a stored query's list goes on: its pager link to the page after the last one it
    read, by the page number the link's URL carries (``page=11`` after ten pages read from
    ``page=1`` or none), else the "next" link of its last page read, where each page read
    showed one of its own (``/page/4/``, "Older posts"); None when neither says it (offsets,
    scripted pagers).

    A list a page cap stopped (the setup phase's) is read on from there, not from its first
    page again: every page read again is a request that brings nothing.
    """
    row = query.row
    wanted = (page_number_of(row.submitted_url) or 1) + row.result_pages
    pagers = [(url, text) for url, text, role in query.links if role == "pager"]
    for url, _text in pagers:
        if page_number_of(url) == wanted:
            return url
    # a pager naming its pages in the path (``/page/4/``) or not at all: each page read showed
    # its own "next" link, in reading order, so the last of them is the last page's
    nexts = [url for url, text in pagers if NEXT_TEXT.match(" ".join(text.split()))]
    return nexts[-1] if row.result_pages > 0 and len(nexts) == row.result_pages else None
