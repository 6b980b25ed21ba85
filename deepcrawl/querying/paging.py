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
  ``querying.paging_window`` of them; Ntoulas et al.'s independence assumption: the next page
  holds about the same share), the share of records the crawl lacks by its capture–recapture
  estimate counting as ``querying.paging_prior_pages`` pages more: a search ranking in a fixed
  order shows the records the crawl knows on many words' first pages, and a page bringing
  none is weak evidence about the rest of the list while many records are lacking.

The total's estimate is checked against what the pages it had read bring: a search that
matches substrings or stems, or that counts other kinds of content in its total (a site-wide
search), makes the crawl's word counts say records are lacking that are not. Once
``querying.paging_check_pages`` pages in a row brought less than ``querying.paging_check_share``
of what it predicted, it is refuted and novelty decides; after
``querying.paging_distrust_after`` refuted lists the crawl uses no total of that search again
(:func:`trusts_totals`).

A reader decides from the ledger and what its own pages showed, and writes nothing else: once
the query is over, :func:`keep_list` writes what the list showed into the ledger. A list a page
cap stopped (the setup phase's) is read on later (:mod:`~deepcrawl.querying.resume`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl.querying.ledger import ListRead, Values, list_key
from deepcrawl.search.pagination import next_page
from deepcrawl.search.results import total_results

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Sequence

    from deepcrawl.querying.ledger import Ledger
    from deepcrawl.search.results import QueryResult, ResultPage
    from deepcrawl.settings import Settings
    from deepcrawl.storage.state import StoredQuery

__all__ = [
    "ListReader",
    "beyond_known",
    "keep_list",
    "lead_pages",
    "page_cap",
    "records_total",
    "trusts_totals",
    "unknown_left",
]


def trusts_totals(ledger: Ledger, settings: Settings) -> bool:
    """Whether the result totals of this search measure what the crawl lacks.

    Not once ``querying.paging_distrust_after`` lists, and half the lists put to the test
    or more, had their estimate refuted by their own pages: the search matches or counts
    otherwise than the fetched pages' words say (substrings, stems, other kinds of content in
    its total). Always where the search lists in a fixed order
    (:attr:`Ledger.order <deepcrawl.querying.ledger.Ledger.order>`): a list's first pages
    show the records the crawl read first, and refute nothing of the rest.
    """
    if ledger.order.fixed:  # the refuting pages were a fixed order's first: known records
        return True
    after = settings.querying.paging_distrust_after
    return not (after > 0 and ledger.refutations >= max(after, ledger.tested / 2))


def beyond_known(ledger: Ledger, total: int, shown: Collection[str] = ()) -> int:
    """Records a list of ``total`` records holds that the crawl lacks at least, whatever its
    word: those past every record it knows, less those its pages read so far showed. The
    measure of a list whose word the fetched words do not count (too short, on every page)."""
    unknown_shown = sum(1 for rid in shown if rid not in ledger.records)
    return max(0, total - len(ledger.records) - unknown_shown)


def records_total(ledger: Ledger, total: int | None, per_page: int) -> int | None:
    """The records among a list's reported ``total`` matches, where the search lists other
    kinds of content beside them (a site-wide search: tickets beside wiki pages and changesets).

    A list whose pages brought ``per_page`` records at most, where another list's page brought
    more, shows other entries beside its records: its total is scaled by the share of its
    pages' records against the most a page brought. The total itself where no page brought
    more, or where the most a page brought covers the whole list (its pages need not be full).
    """
    if total is None or per_page <= 0:
        return total
    most = max((lst.per_page for lst in ledger.lists.values()), default=0)
    if most <= per_page or total <= most:
        return total
    return round(total * per_page / most)


def page_cap(ledger: Ledger, settings: Settings, total: int | None, size: int) -> int:
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
    ledger: Ledger,
    settings: Settings,
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
    if not trusts_totals(ledger, settings):
        return None
    return ledger.texts.unknown_left(word, total, shown, sample, scaled=scaled)


def lead_pages(
    stored: Sequence[StoredQuery], record_id: Callable[[str], str | None], settings: Settings
) -> int:
    """Result pages the stored lists showed before their first wanted record (the ledger's
    ``lead``): the least of the ``querying.paging_lead_lists`` largest such leads, at most
    ``querying.paging_lead_pages`` (0 when fewer lists showed one)."""
    querying = settings.querying
    leads = []
    for query in stored:
        links = query.result_links()
        pages = query.row.result_pages
        first = next((i for i, (url, _t) in enumerate(links) if record_id(url) is not None), None)
        if first is not None and pages > 1 and links:
            leads.append(min(querying.paging_lead_pages, first * pages // len(links)))
    leads = sorted(lead for lead in leads if lead > 0)
    need = max(1, querying.paging_lead_lists)
    return leads[-need] if len(leads) >= need else 0


class ListReader:
    """One query's paging control, called by the search after each result page with its
    number: whether the next page is worth reading. What its pages showed stays with it, for
    :func:`keep_list`.

    Args:
        ledger: what the querying learnt (read only).
        settings: the crawl's settings.
        record_id: maps a result URL to a record id, or None when it is no record.
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
        ledger: Ledger,
        settings: Settings,
        record_id: Callable[[str], str | None],
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
        self.record_id = record_id
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

    def __call__(self, page: ResultPage, number: int) -> bool:
        ledger = self.ledger
        self.blocks += page.blocks
        listed: dict[str, str] = {}  # in list order, each record once
        for link in page.links:
            if (rid := self.record_id(link.url)) is not None:
                listed.setdefault(rid, link.text)
        ids = set(listed)
        self.pages = max(self.pages, number)
        if number == 1:
            self.total = total_results(page)
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
            # of how the search matches the word: the fetched records among it;
            # a count scaled by that share is stop evidence only if ``stop_checked_scaled``
            scaled = self.settings.querying.stop_checked_scaled
            total = self._records_total()
            lacking = None
            if not self.values:
                lacking = unknown_left(
                    ledger, self.settings, self.word, total, (), ids, scaled=scaled
                )
            if lacking is not None and total is not None:
                self.check = (total, lacking)
        # a typed list goes on as it is scrolled: only asking for more and not getting it ends it
        self.scrolls = page.scrolls
        turn = None if page.scrolls else next_page(page, number, ())
        self.ended = not page.scrolls and turn is None
        self.next_url = turn.url if turn is not None and turn.kind == "link" else None
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
    def key(self) -> str:
        """Its list's key in the ledger (:func:`~deepcrawl.querying.partition.list_key`)."""
        return list_key(self.word, self.values)

    @property
    def cap(self) -> int:
        """Result pages this list is read to at most, by its total (:func:`page_cap`)."""
        return page_cap(self.ledger, self.settings, self.total, self.size)

    def _unknown_left(
        self, shown: Collection[str], sample: Collection[str] | None = None, *, scaled: bool = True
    ) -> int | None:
        return unknown_left(
            self.ledger, self.settings, self.word, self.total, shown, sample, scaled=scaled
        )

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
        ``querying.paging_min_new_whole`` if less for a list without a total that holds
        ``querying.stop_complete_share`` of the records known or more, the others such read to
        their end one short of ``querying.stop_complete_lists`` or more — read to its end, it
        completes the evidence of the stop of the lists read to their end
        (:func:`~deepcrawl.querying.stops.lists_complete_out`), where a search that reports no
        total has no other; its pages past the records' worth buy the tail of fruitless queries
        off."""
        settings = self.settings
        whole = settings.querying.paging_min_new_whole
        if self.total is not None or whole >= self.threshold:
            return self.threshold
        if settings.querying.stop_complete_coverage >= 1.0:
            return self.threshold
        least = settings.querying.stop_complete_share * len(self.ledger.records)
        if not least or len(self.shown | self.before) < least:
            return self.threshold
        key = self.word.casefold()
        others = sum(len(ids) >= least for word, ids in self.ledger.complete.items() if word != key)
        enough = others + 1 >= max(2, settings.querying.stop_complete_lists)
        return whole if enough else self.threshold

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
        left = unknown_left(self.ledger, self.settings, self.word, total, self.shown)
        if left is None and not self.test and total is not None:
            # a list read again for what its total says it lacks, though the words say nothing
            left = beyond_known(self.ledger, total, self.shown)
        if left is None or total is None or not self.size:
            return None
        pages_left = -(-(total - len(self.shown)) // self.size)
        return left / pages_left if pages_left > 0 else 0.0

    def _by_novelty(self) -> float:
        """Records new to the crawl a page brought, over the pages read past ``skip`` (since the
        total's prediction, once refuted; the latest ``querying.paging_window`` if set); where
        the search reports no total and the crawl's estimate of what a page lacks
        (:meth:`_prior`) is more, it counts as ``querying.paging_prior_pages`` pages more."""
        settings = self.settings.querying
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
        ledger = self.ledger
        estimated = ledger.estimated_size
        if estimated is None or not self.size or estimated <= 0:
            return None
        if not any(count > 1 for count in ledger.capture.counts.values()):
            return None
        return self.size * max(0.0, 1.0 - len(ledger.records) / estimated)

    def _refutes(self) -> bool:
        """Whether the pages read since the total's prediction brought less than
        ``querying.paging_check_share`` of it, over ``querying.paging_check_pages`` pages."""
        assert self._predicted is not None
        settings = self.settings.querying
        at, per_page = self._predicted
        since = self.fresh[at:]
        if settings.paging_check_pages <= 0 or len(since) < settings.paging_check_pages:
            return False
        return sum(since) < settings.paging_check_share * per_page * len(since)


def keep_list(ledger: Ledger, reader: ListReader, result: QueryResult, *, cap: int) -> str | None:
    """Write what one query's list showed into the ledger, after the query and before its
    outcome is recorded; returns the case-folded word of a list with a total (a candidate to
    read again), else None.

    A list read to its end (its last page showed no next one, or the paging asked for a page
    it did not have, under the page ``cap``) says exactly what the crawl lacked of it: its
    records and those new to the crawl — whatever its total counts (other kinds of content);
    not a live list that stopped rendering short of its total (its total stays).
    """
    ledger.tested += reader.tested or reader.refuted
    ledger.refutations += reader.refuted
    ledger.order.observe([rid for rid, _ in reader.order], [text for _, text in reader.order])
    checked_at = None
    if reader.check is not None:
        checked_at = len(ledger.checked)
        ledger.checked.append(reader.check)
    pages = result.pages
    complete = result.outcome == "ok" and (reader.ended or (reader.more and pages < cap))
    key = reader.key
    # the setup phase's part of the list, new records then: this read goes on from it (a read
    # between them would leave its own part uncounted)
    fresh_before = ledger.fresh_before.pop(key, None)
    if complete and reader.shown and not reader.cut_short():
        ledger.complete.pop(key, None)  # kept in the order read
        earlier = ledger.read_before.pop(key, set())
        ledger.complete[key] = frozenset(reader.shown | earlier)
        if fresh_before is not None:  # read on from the setup phase's pages: one read in parts
            ledger.first_shown[key] = fresh_before | reader.fresh_ids
        elif reader.skip or earlier:  # what its first read brought the crawl is not known
            ledger.first_shown.pop(key, None)
        else:
            ledger.first_shown[key] = frozenset(reader.fresh_ids)
        checked = (len(reader.shown), sum(reader.fresh))
        if checked_at is None:
            ledger.checked.append(checked)
        else:
            ledger.checked[checked_at] = checked
    ledger.open_lists.pop(key, None)
    if not complete and reader.total is None and reader.next_url and not reader.values:
        # cut short with no total: the list that may complete the stop's evidence
        # (:func:`~deepcrawl.querying.resume.completing_list`)
        shown = frozenset(reader.shown | reader.before)
        ledger.open_lists[key] = (reader.word, reader.pages, reader.next_url, shown)
    if reader.total is None or not reader.size:
        return None
    before = ledger.lists.get(key)
    ledger.lists[key] = ListRead(
        reader.word,
        reader.total,
        reader.size,
        max(pages, reader.pages, before.pages if before else 0),
        max(len(reader.shown), before.shown if before else 0),
        {rid for rid in reader.shown if rid not in ledger.texts},
        complete=complete,
        sample=sorted(reader.shown)[: reader.size],
        per_page=max(reader.per_page, before.per_page if before else 0),
    )
    return key
