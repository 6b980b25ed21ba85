"""The ledger: what a crawl learnt by querying, folded from its events, for the rules to read.

Every decision of the querying — which word next, whether to read a list's next page, when to
stop — is a rule over the facts kept here (:mod:`~deepcrawl.querying.rule`). The ledger decides
nothing and has one writer: :meth:`Ledger.apply`, which folds one event
(:mod:`~deepcrawl.querying.events`) into the facts. A live crawl, a resumed one reading its
events back and a simulation fold the same events, so none of them can know something the
others do not. A rule is tested on a ledger built from a few events, or on a view of its own.

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

from collections import deque
from typing import TYPE_CHECKING

from deepcrawl.keywords.estimate import CaptureRecapture, CoverageEstimate
from deepcrawl.keywords.outcome import LEAVABLE, QueryOutcome
from deepcrawl.querying import paging, runaway, schedule
from deepcrawl.querying.events import (
    ContentRepeated,
    DeepeningBegun,
    ListsDropped,
    QueryEvent,
    Reading,
    RecordRead,
    RecordsMerged,
    RecordsReached,
    SourceLeft,
    WordsExhausted,
)
from deepcrawl.querying.lists import ListRead, list_key
from deepcrawl.querying.order import ListOrder
from deepcrawl.querying.paging import ListReader
from deepcrawl.querying.runaway import ContentLedger
from deepcrawl.querying.schedule import SourceRecord
from deepcrawl.querying.texts import KnownTexts
from deepcrawl.search.results import PAGE_CAP_NOTE

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping

    from deepcrawl.querying.events import Event
    from deepcrawl.settings import Settings

__all__ = ["Ledger"]

#: Queries between two prunings of the lists' shown-but-unfetched records (memory only).
_PRUNE_EVERY = 500


class Ledger:
    """The facts of one crawl's querying; see the module docstring.

    Args:
        settings: the crawl's settings (the paging thresholds a list's pages are judged by,
            the estimator; default: the defaults).
        reads_on: whether the querying reads on the lists a page cap of their own loop cut
            short (the setup phase's, read by the normal phase): such lists are kept as
            unfinished, and the pages they showed before their first record are the lists'
            lead.
    """

    def __init__(self, settings: Settings | None = None, *, reads_on: bool = False) -> None:
        if settings is None:
            from deepcrawl.settings import Settings

            settings = Settings()
        keywords = settings.keywords
        self.settings = settings
        self.reads_on = reads_on
        self.history: list[QueryOutcome] = []
        """Every query recorded, in order, with what it brought."""
        self.asked = 0
        """Queries submitted: every one recorded, and those counted without an answer (an
        empty query that found nothing) — one a stored query, the count ``deepcrawl status``
        shows."""
        self.records: set[str] = set()
        """Records known: shown by a query, or reached otherwise (links, sitemaps, hubs)."""
        self.capture = CaptureRecapture(keywords.estimator)
        """Which queries caught which records (links and sitemaps catch none)."""
        self.cost = 0
        """Requests the recorded queries used."""
        self.page_size: int | None = None
        """Largest number of results one result page held so far."""
        self.lead = 0
        """Result pages the cut lists showed before their first record (read past, not taken
        for pages that brought nothing): the least of the largest few such leads."""
        self.leads: list[int] = []
        """The cut lists' leads, each a list's (see :attr:`lead`)."""
        self.errors_in_row = 0
        """Failed queries since the last that did not fail."""
        self.recent: deque[frozenset[str]] = deque(maxlen=max(1, schedule.IDENTICAL_WINDOW))
        """The latest answers (not failed): the records of each."""
        self.exhausted = False
        """Whether the words ran out: no source had a word left to give."""
        self.sources = SourceRecord()
        self.texts = KnownTexts(keywords.min_term_length)
        """The words of the record pages fetched."""
        self.content = ContentLedger(runaway.RUNAWAY_WINDOW)
        """The record pages fetched, by a fingerprint of their main text: which repeat one
        fetched before (:mod:`~deepcrawl.querying.runaway`)."""
        self.order = ListOrder()
        """Whether the search lists in a fixed order (:mod:`~deepcrawl.querying.order`)."""
        self.largest_total = 0
        """The largest result count a list reported."""
        self.empty_total = 0
        """The result count the empty query's unnarrowed list reported where its pages showed
        none of the records (a site-wide search listing other kinds first): no list is kept of
        it, and it is the list of everything, to be split."""
        self.checked: list[tuple[int, int]] = []
        """Per query with a usable total, oldest first: (its total, the records of it the crawl
        lacked)."""
        self.complete: dict[str, frozenset[str]] = {}
        """By list key, oldest first: the records of the lists read to their end."""
        self.entries: dict[str, int] = {}
        """Of the lists read to their end in one read from their first page, the distinct
        entries of every kind they showed (a record once, however many links it had; another
        kind's entry by its link): what their reported totals count."""
        self.first_shown: dict[str, frozenset[str]] = {}
        """Of the lists read to their end in one read, the records new to the crawl they
        showed (the others it had learnt otherwise: a second capture)."""
        self.lists: dict[str, ListRead] = {}
        """By list key: the lists with a total."""
        self.refutations = 0
        """Lists whose pages refuted the estimate from their total."""
        self.tested = 0
        """Lists whose pages put the estimate from their total to the test."""
        self.unfinished: dict[str, int] = {}
        """The lists a page cap cut short (the setup phase's), to read on: by word, the pages
        read."""
        self.resume_urls: dict[str, str] = {}
        """Of the unfinished lists, the URL of the page after the last one read, where the
        pager named it."""
        self.read_before: dict[str, frozenset[str]] = {}
        """By list key, of the lists cut short: the records their pages read so far showed (a
        list read on from the page after them is whole with them)."""
        self.fresh_before: dict[str, frozenset[str]] = {}
        """By list key, of the unfinished lists: the records their pages read before showed
        that were new to the crawl then (a list read on from there is one read for
        :attr:`first_shown`)."""
        self.open_lists: dict[str, tuple[str, int, str, frozenset[str]]] = {}
        """By list key, the lists without a total cut short: the word, its pages read, the URL
        of the page after them, and the records they showed."""
        self.completed = 0
        """Lists cut short read on to their end to complete the stop's evidence."""
        self.deepening = False
        """Whether the querying has gone over to reading again the lists already asked."""
        self.deepened = 0
        """Lists read again so far."""
        self.deepened_from = 0
        """The query the deepening started at."""
        self.deepened_for: tuple[str, float] | None = None
        """The totals' evidence the deepening was begun for, and the size it gives (None: it
        was begun because the words were spent)."""
        self.kept: str | None = None
        """The key of the list the latest query kept among :attr:`lists` (None: none, a list
        without a total)."""

    # -- the one writer --------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        """Fold one event into the facts: the only way the ledger changes."""
        match event:
            case QueryEvent():
                self._query(event)
            case RecordRead(record, text, terms):
                if record not in self.texts:
                    self.texts.add(record, text, terms)
                    self.content.add(text)
            case RecordsReached(records):
                self._observe(records)
            case RecordsMerged(same):
                self._merge(same)
            case ContentRepeated(same, text):
                self._merge(same)
                self.content.add(text)
            case SourceLeft():
                self._leave(event)
            case ListsDropped(dropped):
                for word, check in dropped:
                    self.unfinished.pop(word, None)
                    self.resume_urls.pop(word, None)
                    if check is not None:
                        self.checked.append(check)
            case WordsExhausted():
                self.exhausted = True
            case DeepeningBegun(reason, size):
                self.deepening = True
                self.deepened_from = len(self.history)
                if size is not None:
                    self.deepened_for = (reason, size)

    def replayed(self, events: Iterable[Event]) -> Ledger:
        """Fold ``events`` in order; returns the ledger."""
        for event in events:
            self.apply(event)
        return self

    def _query(self, event: QueryEvent) -> None:
        key = list_key(event.word, event.values)
        # cut by a page cap: the setup phase's, or any cutting the list of everything (whose
        # pages past the cut no other list holds)
        everything = not event.word and not event.values
        cut = (
            self.reads_on
            and (event.capped or everything)
            and (event.error or "").startswith(PAGE_CAP_NOTE)
        )
        before = self._before(event, key)
        self._keep(event, key, before)
        self.largest_total = max(self.largest_total, event.total or 0)
        texts = event.record_texts()
        if not event.word and not texts:  # the empty query found nothing: the search wants words
            self.asked += 1
            if event.results and not event.values:  # ... or it listed other kinds first
                self.empty_total = max(self.empty_total, event.total or 0)
            return
        reread = event.skip if event.first_page == 1 else 0
        sample = None
        if reread:  # the pages read before were sampled by the list's first read
            sample = {rid for _u, _t, rid, page in event.results if rid and page > reread}
        fresh = frozenset(texts) - self.records
        self._record(event, set(texts), sample)
        if cut:
            self.unfinished.pop(event.word, None)
            self.unfinished[event.word] = event.result_pages
            self.read_before[key] = frozenset(texts)
            self.fresh_before[key] = fresh
            if event.resume_url is not None:
                self.resume_urls[event.word] = event.resume_url
            if key not in self.lists and (lst := ListRead.stored(event, texts)) is not None:
                self.lists[key] = lst
            self._lead(event)
        elif self.reads_on and event.capped:
            self._lead(event)
        if event.reading is Reading.DEEPEN:
            self.deepened += 1
        if len(self.history) % _PRUNE_EVERY == 0:
            self.lists = {key: lst.pruned(self.texts) for key, lst in self.lists.items()}

    def _before(self, event: QueryEvent, key: str) -> frozenset[str]:
        """The records the list's pages read before showed, where it is read on (a list cut
        short is taken off the lists to read on: a new read of its word supersedes it)."""
        if event.reading is Reading.COMPLETE:
            self.completed += 1
            if (opened := self.open_lists.pop(key, None)) is not None:
                self.read_before[key] = opened[3]  # whole with them
        if not event.values:
            self.unfinished.pop(event.word, None)
            self.resume_urls.pop(event.word, None)
        return self.read_before.get(key, frozenset())

    def _keep(self, event: QueryEvent, key: str, before: frozenset[str]) -> None:
        """What the query's list showed, read page by page as its reader read it.

        A list read to its end (its last page showed no next one, or the paging asked for a
        page it did not have, under the loop's page cap) says exactly what the crawl lacked of
        it: its records and those new to the crawl — whatever its total counts; not a live list
        that stopped rendering short of its total (its total stays).
        """
        reader = ListReader.asked(self, event, before=before)
        for page in event.pages:
            reader.read(page)
        self.tested += reader.tested or reader.refuted
        self.refutations += reader.refuted
        self.order.observe([rid for rid, _ in reader.order], [text for _, text in reader.order])
        checked_at = None
        if reader.check is not None:
            checked_at = len(self.checked)
            self.checked.append(reader.check)
        pages = event.result_pages
        complete = event.outcome == "ok" and (reader.ended or (reader.more and pages < event.cap))
        # the setup phase's part of the list, new records then: this read goes on from it
        fresh_before = self.fresh_before.pop(key, None)
        if complete and reader.shown and not reader.cut_short():
            self.complete.pop(key, None)  # kept in the order read
            earlier = self.read_before.pop(key, frozenset())
            self.complete[key] = frozenset(reader.shown | earlier)
            if earlier or event.first_page > 1:  # its first pages' entries are not all here
                self.entries.pop(key, None)
            else:
                self.entries[key] = len({rid or url for url, _, rid, _ in event.results})
            if fresh_before is not None:  # read on from the setup phase's pages: one read
                self.first_shown[key] = fresh_before | reader.fresh_ids
            elif event.skip or earlier:  # what its first read brought the crawl is not known
                self.first_shown.pop(key, None)
            else:
                self.first_shown[key] = frozenset(reader.fresh_ids)
            checked = (len(reader.shown), sum(reader.fresh))
            if checked_at is None:
                self.checked.append(checked)
            else:
                self.checked[checked_at] = checked
        self.open_lists.pop(key, None)
        if not complete and reader.total is None and reader.next_url and not event.values:
            # cut short with no total: the list that may complete the stop's evidence
            shown = frozenset(reader.shown | reader.before)
            self.open_lists[key] = (event.word, reader.pages, reader.next_url, shown)
        self.kept = None
        if reader.total is None or not reader.size:
            return
        self.kept = key
        old = self.lists.get(key)
        self.lists[key] = ListRead(
            event.word,
            reader.total,
            reader.size,
            max(pages, reader.pages, old.pages if old else 0),
            max(len(reader.shown), old.shown if old else 0),
            frozenset(rid for rid in reader.shown if rid not in self.texts),
            complete=complete,
            sample=tuple(sorted(reader.shown)[: reader.size]),
            per_page=max(reader.per_page, old.per_page if old else 0),
        )

    def _record(
        self, event: QueryEvent, ids: Collection[str], sample: Collection[str] | None
    ) -> QueryOutcome:
        """What one query brought: its records (those of ``sample`` as the capture–recapture
        sample: a list read again passes those of its pages not read before), its cost."""
        self.asked += 1
        cost, error, source = event.cost, event.failed, event.source
        found = frozenset(ids)
        new = found - self.records
        self.records |= new
        self.capture.add(found if sample is None else frozenset(sample) & found)
        self.cost += cost
        if found:
            self.page_size = max(self.page_size or 0, -(-len(found) // cost))
        outcome = QueryOutcome(
            event.word, len(found), len(new), cost, event.total, error, len(self.records), source
        )
        self.history.append(outcome)
        self.errors_in_row = self.errors_in_row + 1 if error else 0
        if source is not None and not error:
            sources = self.sources
            sources.used[source] += 1
            sources.empty[source] += not found
            sources.empty_run[source] = 0 if found else sources.empty_run[source] + 1
            run = schedule.SOURCE_EMPTY_RUN
            if run and source in LEAVABLE and sources.empty_run[source] >= run:
                sources.left.add(source)  # its words are not what the search matches
        if not error:
            self.recent.append(found)
        return outcome

    def _lead(self, event: QueryEvent) -> None:
        """A cut list's lead: the result pages it showed before its first record."""
        results, pages = event.results, event.result_pages
        first = next((i for i, (_u, _t, rid, _p) in enumerate(results) if rid is not None), None)
        lead = min(paging.PAGING_LEAD_PAGES, first * pages // len(results)) if first else 0
        if lead and pages > 1:
            self.leads.append(lead)
        leads, need = sorted(self.leads), max(1, paging.PAGING_LEAD_LISTS)
        self.lead = leads[-need] if len(leads) >= need else 0

    def _observe(self, ids: Iterable[str]) -> frozenset[str]:
        """Records reached without a query count as known; the capture–recapture samples
        stay the queries' own."""
        new = frozenset(ids) - self.records
        self.records |= new
        return new

    def _merge(self, same: Mapping[str, str]) -> None:
        """Records found to be others under another id count as those: no repeated record is
        known, or estimated, twice."""
        same = {old: new for old, new in same.items() if old != new and old in self.records}
        if not same:
            return
        self.records = {same.get(record, record) for record in self.records}
        self.capture.merge(same)
        for key, ids in self.complete.items():
            if not ids.isdisjoint(same):
                self.complete[key] = frozenset(same.get(record, record) for record in ids)

    def _leave(self, switch: SourceLeft) -> None:
        """A source left: saturation judged afresh from the next query on, the trial begun."""
        sources = self.sources
        if switch.source is not None:
            sources.left.add(switch.source)
            sources.since = len(self.history)
        sources.trial = len(self.history) if switch.trial else None
        sources.trial_length = switch.trial_length
        sources.switched_at = len(self.history)

    # -- what the rules read ---------------------------------------------------------------

    def first_shown_figures(self, keys: Iterable[str]) -> tuple[list[int], list[int]]:
        """Per whole list of ``keys``: the records new to the crawl when it showed them (-1:
        not known, a list read in parts), and how many of those another query caught since."""
        counts = self.capture.counts
        shown: list[int] = []
        again: list[int] = []
        for key in keys:
            fresh = self.first_shown.get(key)
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

    def unheld(self, lst: ListRead) -> frozenset[str]:
        """The records ``lst`` showed whose page the crawl has not fetched."""
        return frozenset(rid for rid in lst.unheld if rid not in self.texts)
