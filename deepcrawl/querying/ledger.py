"""The ledger: what a crawl learnt by querying, as facts, for the rules to read.

Every decision of the querying — which word next, whether to read a list's next page, when to
stop — is a rule over the facts kept here (:mod:`~deepcrawl.querying.stops`,
:mod:`~deepcrawl.querying.schedule`, :mod:`~deepcrawl.querying.paging`). The ledger itself decides
nothing: the query loop writes what each query brought, the records reached otherwise and the
fetched records' words; the rules read them. A rule is tested on a ledger built in a line or
two, with no crawl around it.

The facts:

* the queries and their answers (:class:`~deepcrawl.keywords.outcome.QueryOutcome`, in order),
  the records known (by queries and links) and which queries caught them
  (:class:`~deepcrawl.keywords.estimate.CaptureRecapture`), the requests spent;
* per source of words, the queries answered and those that came back empty
  (:class:`SourceRecord`), and which sources were left or put on trial;
* per result list, what the crawl read of it (:class:`ListRead`): its total, its pages, the
  records it showed, whether it was read to its end; the lists whose total was checked against
  the fetched records (``checked``) and how often the pages refuted such a check;
* the words of the record pages fetched (:class:`~deepcrawl.querying.texts.KnownTexts`), and
  which of them repeat the content of one fetched before;
* the lists a page cap cut short (the setup phase's), to be read on, and the deepening of the
  lists once the words are spent.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from deepcrawl.keywords.estimate import CaptureRecapture, CoverageEstimate
from deepcrawl.keywords.outcome import QueryOutcome
from deepcrawl.querying.order import ListOrder
from deepcrawl.querying.runaway import ContentLedger
from deepcrawl.querying.texts import KnownTexts

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable

    from deepcrawl.keywords.estimate import Estimator
    from deepcrawl.keywords.outcome import WordSource
    from deepcrawl.settings import Settings

__all__ = ["Ledger", "ListRead", "SourceRecord", "Values", "list_key", "value_pairs"]


@dataclass(slots=True)
class ListRead:
    """What the crawl read of one query's result list (one with a reported total)."""

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
    <deepcrawl.querying.texts.KnownTexts.match_share>`)."""
    per_page: int = 0
    """Records new to the list a page brought at most (a "load more" page shows those before
    it again): against other lists', the share of its entries that are records
    (:func:`~deepcrawl.querying.paging.records_total`)."""


Values = tuple[tuple[str, str], ...]


def value_pairs(values: Mapping[str, str] | Values) -> Values:
    """Field values as the ledger keeps them: (name, value) pairs in name order."""
    return tuple(sorted(values.items() if isinstance(values, Mapping) else values))


def list_key(word: str, values: Mapping[str, str] | Values = ()) -> str:
    """The ledger's key of a list: its case-folded word, and the field values that narrowed
    it (``water [region=Tuscany]``)."""
    pairs = value_pairs(values)
    key = word.casefold()
    return f"{key} [{', '.join(f'{n}={v}' for n, v in pairs)}]" if pairs else key


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


class Ledger:
    """The facts of one crawl's querying; see the module docstring.

    Args:
        estimator: the capture–recapture estimator of the database's size.
        identical_window: answers kept to tell a form that answers every word alike.
        min_term_length: shorter words of the fetched records are not counted.
        content_window: the latest fetched pages whose repeats of earlier content are counted.
    """

    def __init__(
        self,
        *,
        estimator: Estimator = "chao1",
        identical_window: int = 5,
        min_term_length: int = 2,
        content_window: int = 40,
        order: ListOrder | None = None,
    ) -> None:
        self.history: list[QueryOutcome] = []
        """Every query recorded, in order, with what it brought."""
        self.asked = 0
        """Queries submitted: every one recorded, and those counted without an answer
        (:meth:`skip`) — one a stored query, the count ``deepcrawl status`` shows."""
        self.records: set[str] = set()
        """Records known: shown by a query, or reached otherwise (links, sitemaps, hubs)."""
        self.capture = CaptureRecapture(estimator)
        """Which queries caught which records (links and sitemaps catch none)."""
        self.cost = 0
        """Requests the recorded queries used."""
        self.page_size: int | None = None
        """Largest number of results one result page held so far."""
        self.lead = 0
        """Result pages a list shows before its first wanted record, as the stored lists showed
        it (:meth:`~deepcrawl.querying.loop.QueryLoop.replay`): read past, not taken for pages
        that brought nothing."""
        self.errors_in_row = 0
        """Failed queries since the last that did not fail."""
        self.recent: deque[frozenset[str]] = deque(maxlen=max(1, identical_window))
        """The latest answers (not failed): the records of each."""
        self.exhausted = False
        """Whether the words ran out: no source had a word left to give."""
        self.sources = SourceRecord()
        self.texts = KnownTexts(min_term_length)
        """The words of the record pages fetched."""
        self.content = ContentLedger(content_window)
        """The record pages fetched, by a fingerprint of their main text: which repeat one
        fetched before (:mod:`~deepcrawl.querying.runaway`)."""
        self.order = order if order is not None else ListOrder()
        """Whether the search lists in a fixed order (:mod:`~deepcrawl.querying.order`)."""
        self.largest_total = 0
        """The largest result count a list reported."""
        self.checked: list[tuple[int, int]] = []
        """Per query with a usable total, oldest first: (its total, the records of it the crawl
        lacked)."""
        self.complete: dict[str, frozenset[str]] = {}
        """By case-folded word, oldest first: the records of the lists read to their end."""
        self.first_shown: dict[str, frozenset[str]] = {}
        """Of the lists read to their end in one read, the records new to the crawl they
        showed (the others it had learnt otherwise: a second capture)."""
        self.lists: dict[str, ListRead] = {}
        """By case-folded word: the lists with a total, for deepening."""
        self.refutations = 0
        """Lists whose pages refuted the estimate from their total."""
        self.tested = 0
        """Lists whose pages put the estimate from their total to the test."""
        self.unfinished: list[tuple[str, int]] = []
        """Keywords whose paging a page cap stopped (the setup phase's), with the pages read."""
        self.resume_urls: dict[str, str] = {}
        """Of the unfinished keywords, the URL of the page after the last one read, where the
        pager named it."""
        self.read_before: dict[str, set[str]] = {}
        """By case-folded word, of the unfinished keywords: the records their pages read
        before showed (a list read on from the page after them is whole with them)."""
        self.fresh_before: dict[str, frozenset[str]] = {}
        """By case-folded word, of the unfinished keywords: the records their pages read before
        showed that were new to the crawl then (a list read on from there is one read for
        :attr:`first_shown`)."""
        self.open_lists: dict[str, tuple[str, int, str, frozenset[str]]] = {}
        """By case-folded word, the lists without a total cut short: the word, its pages read,
        the URL of the page after them, and the records they showed."""
        self.completing = False
        """Whether a list was read on to complete the stop's evidence
        (:func:`~deepcrawl.querying.resume.completing_list`)."""
        self.deepening = False
        """Whether the querying has gone over to reading again the lists already asked."""
        self.deepened = 0
        """Lists read again so far."""
        self.deepened_from = 0
        """The query the deepening started at."""

    @classmethod
    def for_settings(cls, settings: Settings) -> Ledger:
        """An empty ledger for the querying ``settings`` describe."""
        return cls(
            estimator=settings.keywords.estimator,
            identical_window=settings.querying.identical_window,
            min_term_length=settings.keywords.min_term_length,
            content_window=settings.querying.runaway_window,
            order=ListOrder(
                share=settings.querying.fixed_order_share,
                lists=settings.querying.fixed_order_lists,
            ),
        )

    # -- what the queries brought ----------------------------------------------------------

    def record(
        self,
        query: str,
        result_ids: Collection[str],
        cost: int = 1,
        *,
        total_results: int | None = None,
        error: str | None = None,
        sample: Collection[str] | None = None,
        source: WordSource | None = None,
    ) -> QueryOutcome:
        """Record what one submitted query brought.

        Args:
            query: the keyword submitted.
            result_ids: ids of the records in all its result pages.
            cost: requests used: the submission plus every further result page (>= 1).
            total_results: the result count the site reported, if it shows one.
            error: why the query failed (error page, timeout); its results are then empty.
            sample: the results that count as a capture–recapture sample (default: all). A
                list read again passes those of its pages not read before: the first read
                sampled the others, and counting them again would call them recaptured.
            source: where its word came from (None: not handed out by the word supply).

        Returns:
            The query's outcome, also appended to :attr:`history`.
        """
        self.asked += 1
        ids = frozenset(result_ids)
        new = ids - self.records
        self.records |= new
        self.capture.add(ids if sample is None else frozenset(sample) & ids)
        self.cost += max(cost, 1)
        if ids and cost >= 1:
            self.page_size = max(self.page_size or 0, -(-len(ids) // cost))
        outcome = QueryOutcome(
            query,
            len(ids),
            len(new),
            max(cost, 1),
            total_results,
            error,
            len(self.records),
            source,
        )
        self.history.append(outcome)
        self.errors_in_row = self.errors_in_row + 1 if error else 0
        if source is not None and not error:
            self.sources.used[source] += 1
            self.sources.empty[source] += not ids
            self.sources.empty_run[source] = 0 if ids else self.sources.empty_run[source] + 1
        if not error:
            self.recent.append(ids)
        return outcome

    def skip(self) -> None:
        """Count a query submitted whose answer is no evidence (an empty query that found
        nothing says only that the search wants words): not in :attr:`history`, which the stop
        rules read, but in :attr:`asked` and so in the query budget."""
        self.asked += 1

    def observe(self, ids: Iterable[str]) -> frozenset[str]:
        """Count records reached without a query (links, sitemaps, hubs) as known; returns
        those not known before. The capture–recapture samples stay the queries' own."""
        new = frozenset(ids) - self.records
        self.records |= new
        return new

    def merge(self, same: Mapping[str, str]) -> int:
        """Records found to be others under another id (``old id -> id``: a parameter learnt
        to be no part of a URL, a page showing a record stored before) count as those: no
        repeated record is known, or estimated, twice. Returns how many ids went."""
        same = {old: new for old, new in same.items() if old != new and old in self.records}
        if not same:
            return 0
        self.records = {same.get(record, record) for record in self.records}
        self.capture.merge(same)
        for word, ids in self.complete.items():
            if not ids.isdisjoint(same):
                self.complete[word] = frozenset(same.get(record, record) for record in ids)
        return len(same)

    def first_shown_figures(self, words: Iterable[str]) -> tuple[list[int], list[int]]:
        """Per whole list of ``words`` (case-folded): the records new to the crawl when it
        showed them (-1: not known, a list read in parts), and how many of those another query
        caught since (a list read again counts the pages it read before once)."""
        counts = self.capture.counts
        shown: list[int] = []
        again: list[int] = []
        for word in words:
            fresh = self.first_shown.get(word)
            shown.append(-1 if fresh is None else len(fresh))
            again.append(sum(counts[record] > 1 for record in fresh or ()))
        return shown, again

    def coverage(self) -> CoverageEstimate:
        """Records reached against the estimated database size (capture–recapture)."""
        return self.capture.estimate()

    @property
    def estimated_size(self) -> float | None:
        """The capture–recapture estimate of the database size, None while unknown."""
        return self.capture.estimate().estimated

    def queries_since(self, start: int) -> list[QueryOutcome]:
        """The queries recorded from number ``start`` on (0: all of them)."""
        return self.history[start:]
