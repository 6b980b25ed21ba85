"""The paging control of one query: read a result list's next page only while it pays.

Every result page is a request, and the records it shows the crawl already has are worth
nothing, so a query's next page is read only while it is expected to bring at least
``keywords.paging_min_new`` records the crawl lacks (:class:`Paging`). Two estimates:

* *by the total*: the total the first page reports, less the fetched records whose main text
  holds the word (:meth:`KnownTexts.unknown_left
  <deepcrawl.keywords.known.KnownTexts.unknown_left>`), less the unknown records shown so far,
  spread over the pages left. Exact when the search matches what the page text shows, and
  indifferent to where in the list the unknown records sit;
* *by novelty*: the records new to the crawl on the pages read (or the latest
  ``keywords.paging_window`` of them; Ntoulas et al.'s independence assumption: the next page
  holds about the same share), the share of records the crawl lacks by its capture–recapture
  estimate counting as ``keywords.paging_prior_pages`` pages more: a search ranking in a fixed
  order shows the records the crawl knows on many words' first pages, and a page bringing
  none is weak evidence about the rest of the list while many records are lacking.

The total's estimate is checked against what the pages it had read bring: a search that
matches substrings or stems, or that counts other kinds of content in its total (a site-wide
search), makes the crawl's word counts say records are lacking that are not. Once
``keywords.paging_check_pages`` pages in a row brought less than ``keywords.paging_check_share``
of what it predicted, it is refuted and novelty decides; after
``keywords.paging_distrust_after`` refuted lists the crawl uses no total of that search again
(:meth:`QueryLoop.trusts_totals <deepcrawl.crawler.queries.QueryLoop.trusts_totals>`).

A list a page cap stopped (the setup phase's) is read on later from the page after its last
one read, where its pager links that page by number (:func:`resume_url`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from deepcrawl.keywords.estimate import chapman, lists_estimate
from deepcrawl.search.pagination import next_page, page_number_of
from deepcrawl.search.results import total_results

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Sequence

    from deepcrawl.crawler.context import CrawlContext
    from deepcrawl.keywords.manager import KeywordManager
    from deepcrawl.search.results import ResultPage
    from deepcrawl.settings import CrawlSettings
    from deepcrawl.storage.state import StoredQuery

__all__ = [
    "ListRead",
    "Paging",
    "PagingLoop",
    "lists_checked_out",
    "lists_complete_out",
    "resume_url",
]


class PagingLoop(Protocol):
    """What a query's paging control reads and updates in the query loop that owns it
    (:class:`~deepcrawl.crawler.queries.QueryLoop`)."""

    ctx: CrawlContext
    manager: KeywordManager
    record_id: Callable[[str], str | None]
    checked: list[tuple[int, int]]
    """Per query, oldest first: (records its list held by the total, records the crawl lacked)."""
    refutations: int
    """Queries whose pages refuted their total's estimate."""
    complete: dict[str, frozenset[str]]
    """By case-folded word: the records of the lists read to their end."""

    def unknown_left(
        self,
        word: str,
        total: int | None,
        shown: Collection[str],
        sample: Collection[str] | None = None,
        *,
        scaled: bool = True,
    ) -> int | None:
        """Records of ``word``'s list the crawl lacks and its pages have not shown (not
        ``scaled``: None rather than a count scaled by the list's match share)."""


def lists_checked_out(
    checked: Sequence[tuple[int, int]], *, need: int, share: float, lists: int = 1
) -> bool:
    """Whether the latest result lists, ``need`` records between them, lack under ``share``.

    Args:
        checked: per query, oldest first: (records its list held by the reported total,
            records of them the crawl lacked).
        need: records of evidence: the most recent lists are summed until they reach it.
        share: the share of lacking records under which the lists count as checked out.
        lists: lists of evidence at least, however many records fewer lists hold: the lists
            of words most records hold are nearly the same records, so two of them are not
            twice the evidence.

    Returns:
        False while the lists hold fewer than ``need`` records in all, or are fewer than
        ``lists``.
    """
    seen = missing = 0
    for count, (total, lacking) in enumerate(reversed(checked), 1):
        seen += total
        missing += lacking
        if seen >= need and count >= lists:
            return missing < share * seen
    return False


def lists_complete_out(
    lists: Sequence[Collection[str]],
    known: int,
    settings: CrawlSettings,
    *,
    first_shown: Sequence[int] = (),
) -> tuple[float, int] | None:
    """Whether the result lists read to their end put the database at the records known.

    Args:
        lists: the records of each list read to its end, oldest first.
        known: the records the crawl knows (by queries and links).
        settings: ``stop_complete_coverage``, ``stop_complete_lists``, ``stop_complete_share``
            and ``stop_complete_overlap``.
        first_shown: per list, the records new to the crawl when it showed them (negative:
            unknown, a list read in parts). Where one list alone is large, the records the
            crawl learnt otherwise (other words, links, hub pages) are the second capture: a
            list of the words every record holds (the records' frame) holds all of them, and
            Chapman's estimate is the list.

    Returns:
        (the estimate, its recaptures) when ``known`` is within ``stop_complete_coverage`` of
        the estimate (either way: a crawl knowing more refutes it) from the lists holding
        ``stop_complete_share`` of the records known, ``stop_complete_lists`` of them at least
        (or one, and the records learnt otherwise) with ``stop_complete_overlap`` records held
        again; else None.
    """
    coverage = settings.stop_complete_coverage
    if coverage >= 1.0 or known <= 0:
        return None
    least = settings.stop_complete_share * known
    large = [i for i, ids in enumerate(lists) if len(ids) >= least]
    found: tuple[float, int] | None = None
    if len(large) >= max(2, settings.stop_complete_lists):
        found = lists_estimate([lists[i] for i in large])
    elif len(large) == 1 and large[0] < len(first_shown) and first_shown[large[0]] >= 0:
        held, fresh = len(lists[large[0]]), first_shown[large[0]]
        recaptured = held - fresh  # of the list, the records the crawl had learnt otherwise
        found = chapman(held, known - fresh, recaptured), recaptured
    if found is None:
        return None
    estimate, recaptured = found
    if recaptured < settings.stop_complete_overlap or estimate <= 0:
        return None
    return found if coverage * estimate <= known <= estimate / coverage else None


def resume_url(query: StoredQuery) -> str | None:
    """Where a stored query's list goes on: its pager link to the page after the last one it
    read, by the page number the link's URL carries (``page=11`` after ten pages read from
    ``page=1`` or none); None when no pager link names that page (offsets, scripted pagers).

    A list a page cap stopped (the setup phase's) is read on from there, not from its first
    page again: every page read again is a request that brings nothing.
    """
    row = query.row
    wanted = (page_number_of(row.submitted_url) or 1) + row.result_pages
    for url, _text, role in query.links:
        if role == "pager" and page_number_of(url) == wanted:
            return url
    return None


@dataclass(slots=True)
class ListRead:
    """What the crawl read of one query's result list, for deepening it later."""

    word: str
    total: int
    """The result count its first page reported."""
    size: int
    """Records a result page held at most."""
    pages: int
    """Result pages read, from the first: a re-read starts over, so these are read again."""
    shown: int
    """Records its pages showed."""
    unheld: set[str]
    """Records its pages showed whose page the crawl had not fetched when last looked at."""
    complete: bool = False
    """Read to its end: its last page read showed no next one."""
    sample: list[str] = field(default_factory=list)
    """Records it showed, a page's worth: which share of its matches the fetched words
    account for (:meth:`KnownTexts.match_share
    <deepcrawl.keywords.known.KnownTexts.match_share>`)."""


class Paging:
    """One query's paging control (:meth:`QueryLoop.pager
    <deepcrawl.crawler.queries.QueryLoop.pager>`), called after each result page with its
    number; what it saw stays for the list's record.

    Args:
        loop: the query loop (record ids, fetched texts, the records known).
        word: the query.
        skip: pages read whatever they bring (a re-read list's pages read before).
        threshold: records a further page must be expected to bring.
        test: put the total's estimate to the test (not when deepening a list: its re-read is
            chosen for the records the total says lie further on, wherever they sit).
        before: the records its pages read before showed (a list read on from the page after
            them).
        whole: the word is expected to list every record (the record pages' frame words): a
            first page reporting as many results as the crawl knows records makes the list
            read to its end, as the empty query's is.
    """

    def __init__(
        self,
        loop: PagingLoop,
        word: str,
        skip: int,
        threshold: float,
        *,
        test: bool = True,
        before: Collection[str] = (),
        whole: bool = False,
    ) -> None:
        self.loop = loop
        self.whole = whole
        self.word = word
        self.skip = skip
        self.threshold = threshold
        self.test = test
        self.before = frozenset(before)
        self.shown: set[str] = set()
        self.fresh: list[int] = []
        """Records new to the crawl on each page read past ``skip``."""
        self.total: int | None = None
        self.size = 0
        self.pages = 0
        self.blocks: list[str] = []
        """The short texts of its result pages (the keyword manager learns from them)."""
        self.more = False
        """The latest answer: whether the next page was asked for."""
        self.ended = False
        """Whether the latest page read is the list's last (it shows no way to a next one)."""
        self.scrolls = False
        """Whether the list is a live one that renders more as it is scrolled (its end is only
        that scrolling brought nothing new)."""
        self.refuted = False
        """Whether the pages read refuted the total's estimate."""
        self.tested = False
        """Whether the pages read put the total's estimate to the test."""
        self._predicted: tuple[int, float] | None = None  # (pages past skip, records a page)
        self.checked_at: int | None = None
        """Where its first page's (total, lacking) went in the loop's ``checked``."""

    def __call__(self, page: ResultPage, number: int) -> bool:
        loop = self.loop
        self.blocks += page.blocks
        ids = {rid for link in page.links if (rid := loop.record_id(link.url)) is not None}
        self.size = max(self.size, len(ids))
        self.pages = max(self.pages, number)
        if number == 1:
            self.total = total_results(page)
            if self.whole and (self.total or 0) >= max(1, len(loop.manager.records)):
                self.threshold = 0.0  # as many results as records known: every record's list
            # the page's records that the crawl fetched say how the search matches the word;
            # a count scaled by that share is stop evidence only if ``stop_checked_scaled``
            scaled = loop.ctx.settings.crawl.stop_checked_scaled
            lacking = loop.unknown_left(self.word, self.total, (), ids, scaled=scaled)
            if lacking is not None and self.total is not None:
                self.checked_at = len(loop.checked)
                loop.checked.append((self.total, lacking))
        # a typed list goes on as it is scrolled: only asking for more and not getting it ends it
        self.scrolls = page.scrolls
        self.ended = not page.scrolls and next_page(page, number, ()) is None
        ids -= self.shown
        self.shown.update(ids)
        if number > self.skip:
            self.fresh.append(len(ids - loop.manager.records))
        self.more = self._worth_reading(number)
        return self.more

    def cut_short(self) -> bool:
        """Whether a live list's reading ended short of its total: scrolling on that brings
        nothing new ends it, but a list that showed fewer records than its first page reports
        was not rendered to its end (its script renders no more, or not on this scroll), and its
        pages say nothing of the records it did not show. A list whose way on is a next link,
        or a live one without a total, is read to its end when it shows no way on."""
        return self.scrolls and self.total is not None and len(self.shown) < self.total

    def _worth_reading(self, number: int) -> bool:
        """Whether the page after page ``number`` is expected to bring ``threshold`` records."""
        if self.threshold <= 0:
            return True
        if number <= self.skip:
            return self._reread_pays(number)
        expected = None if self.refuted else self._by_total()
        if expected is not None and self.test:
            if self._predicted is None:
                self._predicted = (len(self.fresh), expected)
            elif self._refutes():
                self.refuted = True
                self.loop.refutations += 1
                expected = None
            elif len(self.fresh) > self._predicted[0]:
                self.tested = True
        if expected is None:
            expected = self._by_novelty()
        return expected >= self._threshold()

    def _threshold(self) -> float:
        """Records the next page must be expected to bring: ``threshold``, or
        ``keywords.paging_min_new_whole`` if less for a list without a total that holds
        ``crawl.stop_complete_share`` of the records known or more, the others such read to
        their end one short of ``crawl.stop_complete_lists`` or more — read to its end, it
        completes the evidence of the stop of the lists read to their end
        (:func:`lists_complete_out`), where a search that reports no total has no other; its
        pages past the records' worth buy the tail of fruitless queries off."""
        settings = self.loop.ctx.settings
        whole = settings.keywords.paging_min_new_whole
        if self.total is not None or whole >= self.threshold:
            return self.threshold
        if settings.crawl.stop_complete_coverage >= 1.0:
            return self.threshold
        least = settings.crawl.stop_complete_share * len(self.loop.manager.records)
        if not least or len(self.shown | self.before) < least:
            return self.threshold
        key = self.word.casefold()
        others = sum(len(ids) >= least for word, ids in self.loop.complete.items() if word != key)
        enough = others + 1 >= max(2, settings.crawl.stop_complete_lists)
        return whole if enough else self.threshold

    def _reread_pays(self, number: int) -> bool:
        """Whether the records the total says lie past the pages read before are worth the
        pages still to read again to reach them (each a request); yes without a total."""
        left = self.loop.unknown_left(self.word, self.total, self.shown)
        if left is None or self.total is None or not self.size:
            return True
        beyond = -(-max(0, self.total - self.skip * self.size) // self.size)
        requests = self.skip - number + beyond
        return requests > 0 and left / requests >= self.threshold

    def _by_total(self) -> float | None:
        """Unknown records a page left holds by the total and the fetched texts, or None."""
        left = self.loop.unknown_left(self.word, self.total, self.shown)
        if left is None or self.total is None or not self.size:
            return None
        pages_left = -(-(self.total - len(self.shown)) // self.size)
        return left / pages_left if pages_left > 0 else 0.0

    def _by_novelty(self) -> float:
        """Records new to the crawl a page brought, over the pages read past ``skip`` (since the
        total's prediction, once refuted; the latest ``keywords.paging_window`` if set); where
        the search reports no total and the crawl's estimate of what a page lacks
        (:meth:`_prior`) is more, it counts as ``keywords.paging_prior_pages`` pages more."""
        settings = self.loop.ctx.settings.keywords
        since = self._predicted[0] if self.refuted and self._predicted else 0
        recent = self.fresh[since:] or self.fresh
        if settings.paging_window > 0:
            recent = recent[-settings.paging_window :]
        seen = sum(recent) / max(1, len(recent))
        # not for a list whose total its pages refuted or the crawl distrusts: its pages and
        # the search's own lists are then the evidence that it holds fewer than it says
        prior = self._prior() if self.total is None else None
        weight = max(0.0, settings.paging_prior_pages)
        if prior is None or not weight or prior <= seen:
            return seen
        # only ever for reading on: pages that brought more than the estimate are the list's own
        # evidence (a search whose lists hold what the crawl lacks unevenly)
        return (sum(recent) + weight * prior) / (len(recent) + weight)

    def _prior(self) -> float | None:
        """Records new to the crawl a page of ``size`` results holds if it is a sample of the
        site's records like any other: the page size times the share of records the crawl
        lacks (those it knows, by queries and links, against the capture–recapture estimate);
        None while there is no estimate, or no record was caught twice (without a recapture
        the estimate is a guess, and a wild one).

        A search ranking in a fixed order shows the same records on the first pages of many
        words, and those the crawl lacks lie deeper in its lists, spread through them: one
        page bringing nothing is then weak evidence that the next brings nothing.
        """
        manager = self.loop.manager
        estimated = manager.estimated_size
        if estimated is None or not self.size or estimated <= 0:
            return None
        if not any(count > 1 for count in manager.capture.counts.values()):
            return None
        return self.size * max(0.0, 1.0 - len(manager.records) / estimated)

    def _refutes(self) -> bool:
        """Whether the pages read since the total's prediction brought less than
        ``keywords.paging_check_share`` of it, over ``keywords.paging_check_pages`` pages."""
        assert self._predicted is not None
        settings = self.loop.ctx.settings.keywords
        at, per_page = self._predicted
        since = self.fresh[at:]
        if settings.paging_check_pages <= 0 or len(since) < settings.paging_check_pages:
            return False
        return sum(since) < settings.paging_check_share * per_page * len(since)
