"""Deepening: once the words are spent, which list already asked to read again.

A crawl of a large site runs out of words before it has read its lists: most were read one page
deep, as far as the paging control expected ``querying.paging_min_new`` unknown records a page.
The lists whose reported totals, less the fetched records holding the word (where the words
say nothing — a word too short to count, a word of every page — less every record the crawl
knows), lack the most records per request of a re-read (the form starts a list on its first
page, so the pages read before are paid again) are read again, the pages past those read
while each is expected to bring ``querying.deepen_min_new`` (:func:`deepen_value`,
:class:`Deepening`).
"""

from __future__ import annotations

import heapq
import itertools
from typing import TYPE_CHECKING

from deepcrawl.querying.totals import beyond_known, page_cap, records_total, unknown_left

if TYPE_CHECKING:
    from deepcrawl.querying.lists import ListRead
    from deepcrawl.querying.view import LedgerView
    from deepcrawl.settings import Settings

__all__ = ["DEEPEN_RULE", "Deepening", "deepen_value"]

#: The name of the rule that reads the lists again (:class:`~deepcrawl.querying.reading
#: .DeepenLists`), which other rules leave the deepening to.
DEEPEN_RULE = "deepen-lists"


def deepen_value(lst: ListRead, ledger: LedgerView, settings: Settings, *, cap: int) -> float:
    """Records a re-read of ``lst`` is expected to bring per request, its first pages read
    again included; 0 when it cannot bring any (no count, read to its end, or the page ``cap``
    reached: ``cap``, or the list's own by its total, :func:`~deepcrawl.querying.totals.page_cap`).
    Its records whose page was fetched since are no longer counted as unheld."""
    cap = min(cap, page_cap(ledger, settings, lst.total, lst.size))
    # the records among its total (the share of records among the list's entries)
    total = records_total(ledger, lst.total, lst.per_page) or 0
    left = unknown_left(ledger, lst.word, total, ledger.unheld(lst), lst.sample)
    if left is None:  # no count by the words: a total above every record known lacks the rest
        left = beyond_known(ledger, total)
    unread = min(total, cap * lst.size) - lst.shown
    if not left or lst.complete or lst.size <= 0 or unread <= 0 or lst.pages >= cap:
        return 0.0
    # the lacking records spread over the unread part of the list, the part past the page cap
    # out of reach; the order of the list does not matter while it is read to the end
    expected = left * unread / (total - lst.shown)
    return expected / (lst.pages + -(-unread // lst.size))


class Deepening:
    """The lists to read again, best first, re-valued lazily as record pages are fetched: the
    deepening rule's own state, built from the events (every list read so far when the
    deepening begins, each list read again since)."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, str]] = []
        self._order = itertools.count()

    def start(self, ledger: LedgerView) -> None:
        """Every list read so far becomes a candidate."""
        self._heap = [(-1.0, next(self._order), key) for key in ledger.lists]

    def push(self, key: str) -> None:
        """The list of ``key`` was read (again): a candidate anew."""
        heapq.heappush(self._heap, (-1.0, next(self._order), key))

    def next(
        self, ledger: LedgerView, settings: Settings, *, cap: int, threshold: float
    ) -> tuple[str, int] | None:
        """The list to re-read next and its pages read before, or None when no list is
        expected to bring ``threshold`` records per request (a re-read reaches no further than
        ``cap`` pages)."""
        while self._heap:
            _, _, key = heapq.heappop(self._heap)
            lst = ledger.lists[key]
            # values only fall as record pages are fetched (a list's own re-read is pushed
            # anew): re-value the best, take it if it still beats the next best's old value
            value = deepen_value(lst, ledger, settings, cap=cap)
            if value <= 0 or value < threshold:
                continue
            if self._heap and value < -self._heap[0][0]:
                heapq.heappush(self._heap, (-value, next(self._order), key))
                continue
            return lst.word, lst.pages
        return None
