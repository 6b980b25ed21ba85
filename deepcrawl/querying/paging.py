"""The paging control of one query: read a result list's next page only while it pays.

Every result page is a request, and the records it shows the crawl already has are worth
nothing, so a query's next page is read only while it is expected to bring at least
``querying.paging_min_new`` records the crawl lacks (:class:`ListReader`). Two estimates:

* *by the total*: the total the first page reports, less the fetched records whose main text
  holds the word (:func:`unknown_left`), less the unknown records shown so far, spread over the
  pages left. Exact when the search matches what the page text shows, and indifferent to where
  in the list the unknown records sit. A search listing other kinds of content beside the
  records counts them in its totals: the total is scaled to the records among it by the
  records a page of the list brings against the most a page of any list brought
  (:func:`records_total`);
* *by novelty*: the records new to the crawl on the pages read (or the latest
  :data:`PAGING_WINDOW` of them; Ntoulas et al.'s independence assumption: the next page
  holds about the same share), the share of records the crawl lacks by its capture–recapture
  estimate counting as :data:`PAGING_PRIOR_PAGES` pages more: a search ranking in a fixed
  order shows the records the crawl knows on many words' first pages, and a page bringing
  none is weak evidence about the rest of the list while many records are lacking.

The total's estimate is checked against what the pages it had read bring: a search that
matches substrings or stems, or that counts other kinds of content in its total (a site-wide
search), makes the crawl's word counts say records are lacking that are not. Once
:data:`PAGING_CHECK_PAGES` pages in a row brought less than :data:`PAGING_CHECK_SHARE` of what it
predicted, it is refuted and novelty decides; after
:data:`~deepcrawl.querying.totals.PAGING_DISTRUST_AFTER` refuted lists the crawl uses no total of
that search again (:func:`~deepcrawl.querying.totals.trusts_totals`).

A reader decides from the ledger and what its own pages showed, and writes nothing else. It
reads a list twice over: live, page by page as the search fetches them, to say whether the
next one pays; and again when the query's event is folded into the ledger
(:meth:`Ledger.apply <deepcrawl.querying.ledger.Ledger.apply>`), over the same pages, for what
the list showed. A list a page cap stopped (the setup phase's) is read on later
(:mod:`~deepcrawl.querying.reading`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from deepcrawl.querying import size, stops
from deepcrawl.querying.events import PageRead
from deepcrawl.querying.lists import list_key
from deepcrawl.querying.totals import beyond_known, page_cap, records_total, unknown_left
from deepcrawl.search.pagination import next_page
from deepcrawl.search.results import PAGE_CAP_NOTE, total_results

if TYPE_CHECKING:
    from collections.abc import Callable, Collection

    from deepcrawl.querying.events import Values
    from deepcrawl.querying.view import LedgerView
    from deepcrawl.search.results import QueryResult, ResultPage
    from deepcrawl.settings import Settings

__all__ = ["Asked", "ListReader", "page_read"]

#: Without a usable total, a query's next page is expected to bring the mean of the records new
#: to the crawl on its latest this-many pages (0: every page read since the total was refuted, or
#: since the first). Not from a paper.
PAGING_WINDOW = 0
#: Without a total, a list's next page is expected to bring at least the crawl's estimate of a
#: page's missing records, counted as this many pages beside the pages read (not for a list whose
#: total its pages refuted; 0: the pages read alone decide). Not from a paper.
PAGING_PRIOR_PAGES = 1.0
#: ``querying.paging_min_new`` for a list without a total holding
#: :data:`~deepcrawl.querying.size.STOP_COMPLETE_SHARE` of the records known or more: read to
#: its end, such a list is evidence for the stop of the lists read to their end. Not from a paper.
PAGING_MIN_NEW_WHOLE = 0.3
#: Result pages a list may show before its first wanted record and still be read on, when the
#: setup phase's lists showed that lead (:data:`PAGING_LEAD_LISTS` of them or more; the ledger
#: keeps it): a site-wide search lists the same help pages first for every word. 0: none.
PAGING_LEAD_PAGES = 3
#: Setup-phase lists that must show a lead before the records for it to be read past.
PAGING_LEAD_LISTS = 2
#: The estimate from a list's total is refuted for the list once this many pages read after it
#: brought less than :data:`PAGING_CHECK_SHARE` of what it predicted. 0: never tested.
PAGING_CHECK_PAGES = 1
#: The share of the predicted new records (0–1) under which the pages read refute the estimate.
PAGING_CHECK_SHARE = 0.5


class Asked(Protocol):
    """What a list's reader is told of its query: the word and how it is read."""

    @property
    def word(self) -> str: ...
    @property
    def skip(self) -> int: ...
    @property
    def threshold(self) -> float | None: ...
    @property
    def whole(self) -> bool: ...
    @property
    def values(self) -> Values: ...


def page_read(page: ResultPage, number: int, record_id: Callable[[str], str | None]) -> PageRead:
    """Result page ``number`` as its list's reader takes it in: its links with their records
    (``record_id``), its total (the first page's), its way on, its text blocks."""
    turn = None if page.scrolls else next_page(page, number, ())
    return PageRead(
        number,
        tuple((link.url, link.text, record_id(link.url)) for link in page.links),
        total=total_results(page) if number == 1 else None,
        ended=not page.scrolls and turn is None,
        next_url=turn.url if turn is not None and turn.kind == "link" else None,
        scrolls=page.scrolls,
        blocks=tuple(page.blocks),
    )


class ListReader:
    """One query's paging control, given each result page in turn (:meth:`read`): whether the
    next page is worth reading. What its pages showed stays with it, for the ledger to keep.

    Args:
        ledger: what the querying learnt (read only).
        settings: the crawl's settings.
        word: the query.
        skip: pages read whatever they bring (a re-read list's pages read before: the form has
            no way to start a list on a later page).
        threshold: records a further page must be expected to bring.
        test: put the total's estimate to the test (not when deepening a list: its re-read is
            chosen for the records the total says lie further on, wherever they sit).
        before: the records its pages read before showed (a list read on from the page after
            them).
        whole: the word is expected to list every record (the record pages' frame words): a
            first page reporting as many results as the crawl knows records makes the list
            read to its end, as the empty query's is.
        values: the form's field values that narrow the word's list (a sub-list of a cut list,
            :mod:`~deepcrawl.querying.partition`): its total is not the word's, and the fetched
            records' words say nothing of what it lacks.
    """

    def __init__(
        self,
        ledger: LedgerView,
        settings: Settings,
        word: str,
        *,
        skip: int = 0,
        threshold: float,
        test: bool = True,
        before: Collection[str] = (),
        whole: bool = False,
        values: Values = (),
    ) -> None:
        self.ledger = ledger
        self.values = values
        self.settings = settings
        self.whole = whole
        self.word = word
        self.skip = skip
        self.threshold = threshold
        self.test = test
        self.before = frozenset(before)
        self.shown: set[str] = set()
        self.order: list[tuple[str, str]] = []
        """Its records (id, link text) in list order, each once."""
        self.fresh: list[int] = []
        """Records new to the crawl on each page read past ``skip``."""
        self.fresh_ids: set[str] = set()
        """The records new to the crawl on the pages read past ``skip``."""
        self.total: int | None = None
        self.size = 0
        self.per_page = 0
        """Records new to the list a page brought at most (:attr:`ListRead.per_page
        <deepcrawl.querying.ledger.ListRead.per_page>`)."""
        self.pages = 0
        self.blocks: list[str] = []
        """The short texts of its result pages (the keyword manager learns from them)."""
        self.more = False
        """The latest answer: whether the next page was asked for."""
        self.ended = False
        """Whether the latest page read is the list's last (it shows no way to a next one)."""
        self.next_url: str | None = None
        """The URL of the page after the latest one read, where a link leads there."""
        self.scrolls = False
        """Whether the list is a live one that renders more as it is scrolled (its end is only
        that scrolling brought nothing new)."""
        self.refuted = False
        """Whether the pages read refuted the total's estimate."""
        self.tested = False
        """Whether the pages read put the total's estimate to the test."""
        self.check: tuple[int, int] | None = None
        """Its first page's (total, records of it the crawl lacked), where the total and the
        fetched records' words say it: the evidence of the stop by the lists' totals."""
        self._predicted: tuple[int, float] | None = None  # (pages past skip, records a page)
        self._led = False  # whether pages of other kinds, listed first, were read past

    @classmethod
    def asked(cls, ledger: LedgerView, asked: Asked, *, before: Collection[str] = ()) -> ListReader:
        """The reader of the list ``asked`` names (an :class:`~deepcrawl.querying.rule.Ask`,
        or the :class:`~deepcrawl.querying.events.QueryEvent` it became: its word, values,
        re-read pages and threshold), over ``ledger`` as it is when the query is sent;
        ``before``: the records its pages read before showed."""
        settings = ledger.settings
        threshold = asked.threshold
        return cls(
            ledger,
            settings,
            asked.word,
            skip=asked.skip,
            threshold=settings.querying.paging_min_new if threshold is None else threshold,
            test=threshold is None,
            before=before,
            whole=asked.whole,
            values=asked.values,
        )

    def read(self, page: PageRead) -> bool:
        """Take in result page ``page``; whether the next one is worth reading."""
        ledger = self.ledger
        number = page.number
        self.blocks += page.blocks
        listed: dict[str, str] = {}  # in list order, each record once
        for _url, text, rid in page.links:
            if rid is not None:
                listed.setdefault(rid, text)
        ids = set(listed)
        self.pages = max(self.pages, number)
        if number == 1:
            self.total = page.total
            if self.whole and (self.total or 0) >= max(1, len(ledger.records)):
                self.threshold = 0.0  # as many results as records known: every record's list
        if not ids and not self.shown and self.skip < number <= ledger.lead:
            # other kinds listed first, as the stored lists showed: the records come after them
            self.more = number < self.cap
            self._led = True
            return self.more
        self.size = max(self.size, len(ids))
        self.per_page = max(self.per_page, len(ids - self.shown))
        if number == 1 or (self._led and not self.shown):
            # its first page of records (past the other kinds listed first, if so) is the sample
            # of how the search matches the word: the fetched records among it
            total = self._records_total()
            lacking = None
            if not self.values:
                scaled = stops.STOP_CHECKED_SCALED  # a scaled count as the stop's evidence?
                lacking = unknown_left(ledger, self.word, total, (), ids, scaled=scaled)
            if lacking is not None and total is not None:
                self.check = (total, lacking)
        # a typed list goes on as it is scrolled: only asking for more and not getting it ends it
        self.scrolls = page.scrolls
        self.ended = page.ended
        self.next_url = page.next_url
        ids -= self.shown
        self.order += [(rid, text) for rid, text in listed.items() if rid in ids]
        self.shown.update(ids)
        if number > self.skip:
            fresh = ids - ledger.records
            self.fresh.append(len(fresh))
            self.fresh_ids |= fresh
        self.more = number < self.cap and self._worth_reading(number)
        return self.more

    @property
    def at_cap(self) -> bool:
        """Whether its reading stopped at its page cap (:attr:`cap`) with its list going on."""
        return not self.more and not self.ended and 0 < self.cap <= self.pages

    def note_cap(self, result: QueryResult) -> None:
        """Note on ``result`` that this reader stopped its list at its page cap, as the search
        notes its own cap: a list cut short all the same, to read on where that pays."""
        if result.outcome == "ok" and result.error is None and self.at_cap:
            result.error = f"{PAGE_CAP_NOTE} ({self.pages} result pages)"

    @property
    def key(self) -> str:
        """Its list's key in the ledger (:func:`~deepcrawl.querying.partition.list_key`)."""
        return list_key(self.word, self.values)

    @property
    def cap(self) -> int:
        """Result pages this list is read to at most: its pages read before (``skip``: a list
        read on, or read again) and as many as its total allows (:func:`page_cap`) past them."""
        return self.skip + page_cap(self.ledger, self.settings, self.total, self.size)

    def _unknown_left(
        self, shown: Collection[str], sample: Collection[str] | None = None, *, scaled: bool = True
    ) -> int | None:
        return unknown_left(self.ledger, self.word, self.total, shown, sample, scaled=scaled)

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
        # a fixed order's first pages show the records read first: they test nothing
        if expected is not None and self.test and not self.ledger.order.fixed:
            if self._predicted is None:
                self._predicted = (len(self.fresh), expected)
            elif self._refutes():
                self.refuted = True
                expected = None
            elif len(self.fresh) > self._predicted[0]:
                self.tested = True
        if expected is None:
            expected = self._by_novelty()
        return expected >= self._threshold()

    def _threshold(self) -> float:
        """Records the next page must be expected to bring: ``threshold``, or
        :data:`PAGING_MIN_NEW_WHOLE` if less for a list without a total that holds
        ``size.STOP_COMPLETE_SHARE`` of the records known or more, the others such read to
        their end one short of ``size.STOP_COMPLETE_LISTS`` or more — read to its end, it
        completes the evidence of the stop of the lists read to their end
        (:func:`~deepcrawl.querying.stops.lists_complete_out`), where a search that reports no
        total has no other; its pages past the records' worth buy the tail of fruitless queries
        off."""
        if self.total is not None or self.threshold <= PAGING_MIN_NEW_WHOLE:
            return self.threshold
        if size.STOP_COMPLETE_COVERAGE >= 1.0:
            return self.threshold
        least = size.STOP_COMPLETE_SHARE * len(self.ledger.records)
        if not least or len(self.shown | self.before) < least:
            return self.threshold
        key = self.word.casefold()
        others = sum(len(ids) >= least for word, ids in self.ledger.complete.items() if word != key)
        enough = others + 1 >= max(2, size.STOP_COMPLETE_LISTS)
        return PAGING_MIN_NEW_WHOLE if enough else self.threshold

    def _reread_pays(self, number: int) -> bool:
        """Whether the records the total says lie past the pages read before are worth the
        pages still to read again to reach them (each a request); yes without a total."""
        left = self._unknown_left(self.shown)
        if left is None or self.total is None or not self.size:
            return True
        beyond = -(-max(0, self.total - self.skip * self.size) // self.size)
        requests = self.skip - number + beyond
        return requests > 0 and left / requests >= self.threshold

    def _records_total(self) -> int | None:
        """The records among the list's total (:func:`records_total`); the total itself for a
        live list, whose pages are what it rendered so far, not one page each."""
        if self.scrolls:
            return self.total
        return records_total(self.ledger, self.total, self.per_page)

    def _by_total(self) -> float | None:
        """Unknown records a page left holds by the total and the fetched texts, or None."""
        if self.values:
            return None
        total = self._records_total()
        left = unknown_left(self.ledger, self.word, total, self.shown)
        if left is None and not self.test and total is not None:
            # a list read again for what its total says it lacks, though the words say nothing
            left = beyond_known(self.ledger, total, self.shown)
        if left is None or total is None or not self.size:
            return None
        pages_left = -(-(total - len(self.shown)) // self.size)
        return left / pages_left if pages_left > 0 else 0.0

    def _by_novelty(self) -> float:
        """Records new to the crawl a page brought, over the pages read past ``skip`` (since the
        total's prediction, once refuted; the latest :data:`PAGING_WINDOW` if set); where the
        search reports no total and the crawl's estimate of what a page lacks (:meth:`_prior`)
        is more, it counts as :data:`PAGING_PRIOR_PAGES` pages more."""
        since = self._predicted[0] if self.refuted and self._predicted else 0
        recent = self.fresh[since:] or self.fresh
        if PAGING_WINDOW > 0:
            recent = recent[-PAGING_WINDOW:]
        seen = sum(recent) / max(1, len(recent))
        # not for a list whose total its pages refuted or the crawl distrusts: its pages and
        # the search's own lists are then the evidence that it holds fewer than it says
        prior = self._prior() if self.total is None else None
        weight = max(0.0, PAGING_PRIOR_PAGES)
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
        ledger = self.ledger
        estimated = ledger.estimated_size
        if estimated is None or not self.size or estimated <= 0:
            return None
        if not any(count > 1 for count in ledger.capture.counts.values()):
            return None
        return self.size * max(0.0, 1.0 - len(ledger.records) / estimated)

    def _refutes(self) -> bool:
        """Whether the pages read since the total's prediction brought less than
        :data:`PAGING_CHECK_SHARE` of it, over :data:`PAGING_CHECK_PAGES` pages."""
        assert self._predicted is not None
        at, per_page = self._predicted
        since = self.fresh[at:]
        if PAGING_CHECK_PAGES <= 0 or len(since) < PAGING_CHECK_PAGES:
            return False
        return sum(since) < PAGING_CHECK_SHARE * per_page * len(since)
