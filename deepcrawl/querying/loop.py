"""The query loop: pick a word → query → record in the ledger → ask the rules.

One loop serves every querying of a crawl — the setup phase's few queries, the normal phase's
to the end, a benchmark's — one :meth:`QueryLoop.step` at a time, every query stored (through
its :class:`QueryStore`) before the next is chosen, and the ledger rebuilt from the stored
queries when a crawl resumes (:meth:`QueryLoop.replay`).

Each step asks, in this order: the empty query first (a search answering it lists every
record); the stop-word probe; the switch to the next source of words when the current one is
spent (:mod:`~deepcrawl.querying.schedule`); the stop rules (:mod:`~deepcrawl.querying.stops`):
a fruitless run, the lists read to their end, — the lists a page cap cut short are read on
first — the coverage estimate, the lists' totals; then the keyword manager's next word
(:mod:`~deepcrawl.querying.words`), and once its words are spent or saturated the lists already
asked, read again deeper (:mod:`~deepcrawl.querying.deepening`). A query's result pages are read
while they pay (:class:`~deepcrawl.querying.paging.ListReader`).

A query's *record ids* — what the ledger counts as records for saturation and the
capture–recapture estimate — are the canonical URLs of its wanted result links once labels are
known (``record_id``), the normalised result URLs before. Records the crawl reached otherwise
(links on fetched record pages, sitemaps, hubs) are known to the ledger too
(:meth:`QueryLoop.observe`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from deepcrawl.keywords.outcome import StopReason, WordSource
from deepcrawl.querying.deepening import Deepening, prune_unheld
from deepcrawl.querying.ledger import Ledger, Values, list_key
from deepcrawl.querying.paging import ListReader, keep_list, lead_pages
from deepcrawl.querying.partition import Part, Partitioner
from deepcrawl.querying.resume import completing_list, next_unfinished, resume_url, stored_list
from deepcrawl.querying.runaway import runaway
from deepcrawl.querying.schedule import apply_switch, empty_source, next_switch
from deepcrawl.querying.size import size_estimate
from deepcrawl.querying.stops import (
    BUDGETS,
    DEEPEN_AFTER,
    checked_out,
    complete_out,
    covered,
    fruitless,
    gap,
    keys_complete,
    whole_listed,
    words_stop,
)
from deepcrawl.querying.texts import main_text
from deepcrawl.querying.verdict import Verdict
from deepcrawl.querying.words import KeywordManager
from deepcrawl.search.results import PAGE_CAP_NOTE
from deepcrawl.urls import normalise_or_none

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

    from deepcrawl.keywords.outcome import QueryOutcome
    from deepcrawl.search.backend import QueryBackend
    from deepcrawl.search.results import QueryResult
    from deepcrawl.settings import Settings
    from deepcrawl.storage.state import StoredQuery

__all__ = ["QueryFigures", "QueryLoop", "QueryStore"]

logger = logging.getLogger(__name__)

#: Queries between two prunings of the lists' shown-but-unfetched records (memory only).
_PRUNE_EVERY = 500


class QueryStore(Protocol):
    """Where the loop stores each query as it came back (a crawl's state)."""

    def save(self, result: QueryResult, *, new_records: int) -> None:
        """Store one query, every link of its result pages, and how many of its records were
        new to the crawl."""
        ...


@dataclass
class QueryFigures:
    """The figures the loop keeps up to date (a crawl passes its running figures)."""

    queries: int = 0
    """Queries recorded (stored ones of earlier runs included)."""
    records_reached: int = 0
    """Distinct records the result pages showed or the crawl reached otherwise."""
    records_estimated: float | None = None
    """Capture–recapture estimate of the records the form can surface, plus those reached
    otherwise."""
    stop_reason: str | None = None
    """Why the querying stopped, or why the words would."""
    pages_delivered: int = 0
    """Pages delivered (kept by the crawl: the runaway rule weighs them)."""


class _Figures(Protocol):
    queries: int
    records_reached: int
    records_estimated: float | None
    stop_reason: str | None
    pages_delivered: int


@dataclass(frozen=True, slots=True)
class _Ask:
    """The next query: its word, and how far to read it."""

    word: str
    max_pages: int | None
    skip: int = 0
    resume: tuple[str, int] | None = None
    threshold: float | None = None
    whole: bool = False
    part: Part | None = None
    """The sub-list of a cut list it reads (:mod:`~deepcrawl.querying.partition`)."""

    @property
    def values(self) -> Values:
        """The field values that narrow its list."""
        return self.part.values if self.part is not None else ()


class QueryLoop:
    """Submits the keywords the rules let through, one :meth:`step` at a time.

    Args:
        settings: the crawl's settings.
        record_id: maps a result URL to a record id, or None when it is no record.
        seeds: keywords to try first (``--keywords`` comes through the settings).
        examples: texts of the ``--like`` pages, whose xCrawl queries follow the user's words.
        max_pages: result pages read per query at most (default: as far as each list's total
            says, :func:`~deepcrawl.querying.paging.page_cap`).
        frequent: the cold-start word list (default: the bundled one of the language).
        stop_words: the stop words (default: the bundled ones of the language).
        store: where each query is stored (None: nowhere).
        figures: the figures to keep up to date (default: the loop's own).
        on_change: called whenever the figures moved.
        on_result: called with each query's result before its links are counted (the crawl
            learns from them which parameters carry a session).
    """

    def __init__(
        self,
        settings: Settings,
        *,
        record_id: Callable[[str], str | None] = normalise_or_none,
        seeds: Iterable[str] = (),
        examples: Sequence[str] = (),
        max_pages: int | None = None,
        frequent: Sequence[str] | None = None,
        stop_words: Collection[str] | None = None,
        store: QueryStore | None = None,
        figures: _Figures | None = None,
        on_change: Callable[[], None] | None = None,
        on_result: Callable[[QueryResult], object] | None = None,
    ) -> None:
        self.settings = settings
        self.record_id = record_id
        self.max_pages = max_pages
        self.store = store
        self.figures: _Figures = figures if figures is not None else QueryFigures()
        self._on_change = on_change
        self._on_result = on_result
        self.ledger = Ledger.for_settings(settings)
        self.words = KeywordManager(
            settings.keywords,
            self.ledger,
            querying=settings.querying,
            seeds=list(seeds),
            frequent=frequent,
            stop_words=stop_words,
        )
        if examples:
            self.words.add_examples(examples)
        self.verdict: Verdict | None = None
        """Why the querying stopped (None while it goes on)."""
        self.runaway: Verdict | None = None
        """Why the crawl ran away, once it did (:meth:`ran_away`)."""
        self._probes = {w.casefold() for w in settings.keywords.stopword_probes}
        self._deepening = Deepening(self.ledger, settings, cap=self._cap)
        self._partitions = Partitioner(self.ledger, settings)

    @property
    def _cap(self) -> int:
        """Result pages a backend reads of one list at most: the loop's own cap (the setup
        phase's), else ``querying.max_list_pages`` — each list's reader stops it sooner, by
        its reported total (:func:`~deepcrawl.querying.paging.page_cap`)."""
        return self.max_pages or self.settings.querying.max_list_pages

    @property
    def judged_complete(self) -> bool:
        """Whether the querying ended on the evidence that the crawl knows every record."""
        return self.verdict is not None and self.verdict.complete

    @property
    def words_stop(self) -> StopReason | None:
        """Why the words stop (:func:`~deepcrawl.querying.stops.words_stop`), None while they
        go on."""
        return words_stop(self.ledger, self.words, self.settings)

    @property
    def budget_spent(self) -> bool:
        """Whether a query or request budget stops the words: run again with a larger one, the
        querying goes on."""
        return words_stop(self.ledger, self.words, self.settings) in BUDGETS

    # -- facts from elsewhere --------------------------------------------------------------

    def _ids(self, links: Iterable[tuple[str, str]]) -> dict[str, str]:
        texts: dict[str, str] = {}
        for url, text in links:
            rid = self.record_id(url)
            if rid is not None and (text or rid not in texts):
                texts.setdefault(rid, text)
        return texts

    def replay(self, stored: Iterable[StoredQuery]) -> int:
        """Record stored queries as if they had just been submitted; returns how many.

        A list a page cap stopped (the setup phase's) is kept to be read on, from the page
        after its last one read where its pager names that page (:func:`resume_url`), with the
        total its first page reported: a list whose total says it lacks too little is not read
        on (:func:`~deepcrawl.querying.resume.reads_on`).
        """
        ledger = self.ledger
        stored = list(stored)
        count = 0
        unfinished: dict[str, int] = {}
        ledger.resume_urls = {}
        ledger.read_before = {}
        ledger.fresh_before = {}
        for query in stored:
            row = query.row
            unfinished.pop(row.keyword, None)
            ledger.resume_urls.pop(row.keyword, None)
            ledger.read_before.pop(row.keyword.casefold(), None)
            ledger.fresh_before.pop(row.keyword.casefold(), None)
            ledger.lists.pop(list_key(row.keyword), None)
            ledger.largest_total = max(ledger.largest_total, row.results_reported or 0)
            texts = self._ids(query.result_links())
            if (row.error or "").startswith(PAGE_CAP_NOTE) and self.max_pages is None:
                unfinished[row.keyword] = row.result_pages
                ledger.read_before[row.keyword.casefold()] = set(texts)
                if (url := resume_url(query)) is not None:
                    ledger.resume_urls[row.keyword] = url
                if (lst := stored_list(query, texts)) is not None:  # what it lacks, by its total
                    ledger.lists[list_key(row.keyword)] = lst
            if not row.keyword and not texts:  # as :meth:`step` left it
                self.words.mark_issued(row.keyword)
                self.ledger.skip()
                continue
            fresh = frozenset(texts) - ledger.records  # replayed in order: new then as now
            self.record(
                row.keyword,
                set(texts),
                texts,
                cost=max(1, row.result_pages),
                total_results=row.results_reported,
                error=row.error if row.outcome == "error" else None,
            )
            if row.keyword in unfinished:
                ledger.fresh_before[row.keyword.casefold()] = fresh
            elif row.outcome == "ok" and 0 < (row.results_reported or 0) <= len(texts):
                # it showed every match it reported: read to its end, as when it was asked
                ledger.complete.pop(row.keyword.casefold(), None)  # kept in the order read
                ledger.complete[row.keyword.casefold()] = frozenset(texts)
            count += 1
        ledger.unfinished = list(unfinished.items())
        ledger.lead = lead_pages(stored, self.record_id, self.settings)
        self.settle_probe()
        self._refresh()
        return count

    def observe(self, ids: Iterable[str], texts: Mapping[str, str] | None = None) -> int:
        """Records the crawl reached without a query; returns how many were new to it.

        Later queries do not call them new, so saturation comes when the form brings nothing
        the links did not; their texts feed the term statistics as result snippets do.
        """
        new = self.ledger.observe(ids)
        self.words.learn_texts(new, texts or {})
        return len(new)

    def merge(self, same: Mapping[str, str] | None = None) -> int:
        """Records known under two ids count once (:meth:`Ledger.merge
        <deepcrawl.querying.ledger.Ledger.merge>`): ``same`` maps an id to the record's; None
        maps every record known by ``record_id`` anew (a parameter was learnt to be no part
        of a URL). Returns how many ids went."""
        if same is None:
            same = {
                old: new
                for old in self.ledger.records
                if (new := self.record_id(old)) is not None and new != old
            }
        merged = self.ledger.merge(same)
        if merged:
            logger.info("%d records known under another id count once", merged)
            self._refresh()
            self._changed()
        return merged

    def repeated(self, record_id: str, record: str, html: str | bytes) -> None:
        """A page fetched for ``record_id`` showed the record known as ``record``: one record
        (:meth:`merge`), and a page whose content was fetched before (the runaway rules weigh
        such pages: a trap may name one record under ever new URLs)."""
        target = self.record_id(record) or record  # the record's id as links name it now
        self.merge({record_id: target, record: target})
        self.ledger.content.add(main_text(html))

    def learn_text(self, record_id: str, text: str) -> None:
        """Index the words of a fetched record page's main text (:func:`main_text` of its
        body) for the paging control and the keyword manager."""
        if record_id in self.ledger.texts:
            return
        terms = self.ledger.texts.add(record_id, text)
        self.ledger.content.add(text)
        same = self.ledger.texts.min_length == self.words.settings.min_term_length
        self.words.learn_record(text, terms if same else None)  # its words counted once

    def ran_away(self) -> Verdict | None:
        """Whether the crawl ran away (:func:`~deepcrawl.querying.runaway.runaway`): its
        querying and its link following stop, the verdict its stop reason. Once found, it
        stays."""
        if self.runaway is None:
            found = runaway(
                self.ledger, self.settings.querying, delivered=self.figures.pages_delivered
            )
            if found is not None:
                self.runaway, self.figures.stop_reason = found, found.reason
                logger.warning("%s: querying and link following stop", found.reason)
        return self.runaway

    # -- the loop --------------------------------------------------------------------------

    async def step(self, search: QueryBackend) -> QueryResult | None:
        """Submit the next keyword and store the query; None when the rules say stop (the
        reason in :attr:`verdict` and the figures' ``stop_reason``)."""
        if (verdict := self.ran_away()) is not None:
            self._end(verdict)
            return None
        if self._partitions.fields is None:
            self._partitions.offer(search.partitions)
        ask = self._next(search.accepts_empty)
        if isinstance(ask, Verdict):
            self._end(ask)
            return None
        return await self._submit(search, ask)

    async def read_on(
        self, search: QueryBackend, word: str, *, skip: int, url: str | None, pages: int
    ) -> QueryResult:
        """Read the list of ``word`` on past its ``skip`` pages read, from ``url`` (the page
        after them; None: from the first again), ``pages`` more whatever they bring, and store
        the query: the setup phase's list that repeats the lists before first, its records
        further down."""
        resume = (url, skip + 1) if url is not None else None
        ask = _Ask(word, max_pages=skip + pages, skip=skip, resume=resume, threshold=0.0)
        return await self._submit(search, ask)

    async def _submit(self, search: QueryBackend, ask: _Ask) -> QueryResult:
        word, skip = ask.word, ask.skip
        reader = self.reader(
            word, skip=skip, threshold=ask.threshold, whole=ask.whole, values=ask.values
        )
        result = await self._query(search, ask, reader)
        # the pages read before, read again (not where the backend resumed past them)
        reread = skip if result.first_page == 1 else 0
        logger.info(
            "query %r%s: %s, %d result pages, %d result links, %s results reported",
            word, f" (from page {skip + 1})" if skip else "", result.outcome,
            result.pages, len(result.result_links),
            "no count of" if result.total_results is None else result.total_results,
        )  # fmt: skip
        if result.error:
            logger.debug("query %r: %s", word, result.error)
        self._keep(reader, result)
        self.ledger.largest_total = max(self.ledger.largest_total, result.total_results or 0)
        if self._on_result is not None:  # before its links are counted
            self._on_result(result)
        self.words.learn_entries(word, reader.blocks, empty=result.outcome == "no_results")
        texts = self._ids((link.url, link.text) for link in result.result_links)
        new = 0
        if word or texts:
            new = self.record(
                word,
                set(texts),
                texts,
                cost=max(1, result.pages),
                total_results=result.total_results,
                error=result.error if result.outcome == "error" else None,
                # the pages read before were sampled by the list's first read
                sample=self._ids(
                    (li.url, li.text) for li in result.result_links if li.page > reread
                )
                if reread
                else None,
            ).new
        else:
            # the empty query found nothing: the search wants words
            self.words.mark_issued(word)
            self.ledger.skip()
        if ask.part is not None:
            self._partitions.outcome(ask.part, new, result.pages)
        else:
            self._partitions.remember(word)
        if self.store is not None:
            self.store.save(result, new_records=new)
        if word.casefold() in self._probes:
            self.settle_probe()
        self._refresh()
        figures = self.figures
        logger.debug(
            "query %r brought %d new records: %d reached, estimate %s",
            word, new, figures.records_reached, figures.records_estimated,
        )  # fmt: skip
        if self.ledger.deepening:
            figures.stop_reason = None
        self._changed()
        return result

    def reader(
        self,
        word: str,
        *,
        skip: int = 0,
        threshold: float | None = None,
        whole: bool = False,
        values: Values = (),
    ) -> ListReader:
        """The paging control of one query (:class:`~deepcrawl.querying.paging.ListReader`):
        read the next result page only while it is expected to bring at least
        ``querying.paging_min_new`` records the crawl does not know (``threshold`` if given:
        a list read again), the first ``skip`` pages whatever they bring; ``whole``: the word
        is expected to list every record; ``values``: the field values narrowing its list."""
        test = threshold is None
        return ListReader(
            self.ledger,
            self.settings,
            self.record_id,
            word,
            skip=skip,
            threshold=self.settings.querying.paging_min_new if threshold is None else threshold,
            test=test,
            before=self.ledger.read_before.get(word.casefold(), ()),
            whole=whole,
            values=values,
        )

    async def _query(self, search: QueryBackend, ask: _Ask, reader: ListReader) -> QueryResult:
        # each request the query sends takes its rate slot, and is counted, where it is sent:
        # the gate of the backend's fetcher or pages (deepcrawl.fetch.gate)
        cap = ask.max_pages or self.settings.querying.max_list_pages
        values = dict(ask.values) or None
        return await search.query(ask.word, values, max_pages=cap, more=reader, resume=ask.resume)

    def _next(self, accepts_empty: bool) -> _Ask | Verdict:
        """The next query, or why the querying stops: the rules in their one order."""
        ledger, words, settings = self.ledger, self.words, self.settings
        if accepts_empty and not ledger.history and "" not in words.issued:
            # first of all, the empty query: read while its pages bring new records (a list of
            # everything is read past the setup phase's few pages)
            return _Ask("", max_pages=None)
        if probes := words.stopword_probe_queries():
            return _Ask(probes[0], max_pages=self.max_pages)
        # a source just left, or the deepening about to begin, starts the fruitless run afresh
        if (
            not self._switch()
            and (verdict := fruitless(ledger, settings))
            and not self._deepening_next()
        ):
            return verdict
        # before the unfinished lists
        if verdict := complete_out(ledger, settings) or whole_listed(ledger, settings):
            return verdict
        if ledger.unfinished and not ledger.deepening and words.frame_due:
            # a list of every record first: the unfinished lists' pages bring nothing after it
            self.settle_probe()
            if (frame := self.next_word()) is not None:
                whole = words.source_of(frame) is WordSource.FRAME
                return _Ask(frame, max_pages=None if whole else self.max_pages, whole=whole)
        if not ledger.deepening and (completing := completing_list(ledger, settings)):
            cut, skip, url = completing  # read to its end: the evidence of the stop
            logger.info("query %r read on to its end: the stop's evidence lacks one list", cut)
            resume = (url, skip + 1) if url is not None else None
            return _Ask(cut, max_pages=self.max_pages, skip=skip, resume=resume, threshold=0.0)
        if (unfinished := next_unfinished(ledger, settings)) is not None:
            cut, skip, url = unfinished
            resume = (url, skip + 1) if url is not None else None
            return _Ask(cut, max_pages=self.max_pages, skip=skip, resume=resume)
        if (part := self._partitions.next()) is not None:
            # a list the search cut short, split by a field of the form: read to its end
            return _Ask(part.word, max_pages=self.max_pages, threshold=0.0, part=part)
        if verdict := (
            covered(ledger, settings)
            or checked_out(ledger, settings)
            or keys_complete(ledger, settings)
        ):
            return verdict
        word: str | None = None
        if not ledger.deepening:
            self.settle_probe()
            word = self.next_word()
            if word is not None and words.source_of(word) is WordSource.FRAME:
                return _Ask(word, max_pages=None, whole=True)  # a list of every record
        reason = words_stop(ledger, words, settings)
        if word is None and (ledger.deepening or reason in DEEPEN_AFTER):
            if reason is not None and reason not in DEEPEN_AFTER:
                return Verdict(str(reason))  # a budget or errors end the deepening too
            chosen = self._next_deepening()
            threshold = settings.querying.deepen_min_new
            if chosen is None:
                return Verdict(
                    f"{StopReason.SATURATED}; no result list read again ({ledger.deepened} "
                    f"were) is expected to bring {threshold} records a request"
                )
            ledger.deepened += 1
            return _Ask(chosen[0], max_pages=self.max_pages, skip=chosen[1], threshold=threshold)
        if word is None:
            return Verdict(str(reason) if reason is not None else str(StopReason.EXHAUSTED))
        return _Ask(word, max_pages=self.max_pages)

    def _switch(self) -> bool:
        """Leave the current source of words if it is spent while saturation waits; returns
        whether it was left."""
        switch = next_switch(
            self.ledger, self.words, self.settings.querying, stopped=self.ledger.exhausted
        )
        if switch is None:
            return False
        logger.info("words from %s saturated: on to the next source", switch.source)
        apply_switch(self.ledger, switch)
        return True

    def next_word(self) -> str | None:
        """The keyword manager's next word, None when the words stop (saturated, a budget,
        errors: :attr:`words_stop`); a manager with no word left marks the words exhausted.

        :meth:`step` asks it where the rules leave the choice to the words; a caller that
        queries by itself (a simulation) drives the words with it and :meth:`record`.
        """
        self._switch()
        if words_stop(self.ledger, self.words, self.settings) is not None:
            return None
        word = self.words.next_query()
        if word is None:
            self.ledger.exhausted = True
        return word

    def _deepening_next(self) -> bool:
        """Whether the words are spent or saturated and the deepening of the lists is about to
        begin (the fruitless run starts afresh there)."""
        return (
            not self.ledger.deepening
            and words_stop(self.ledger, self.words, self.settings) in DEEPEN_AFTER
            and self.settings.querying.deepen_min_new > 0
        )

    def _next_deepening(self) -> tuple[str, int] | None:
        """The list to read again next and its pages read before (:mod:`.deepening`)."""
        threshold = self.settings.querying.deepen_min_new
        if threshold <= 0:
            return None
        ledger = self.ledger
        if not ledger.deepening:
            ledger.deepening = True
            ledger.deepened_from = len(ledger.history)
            self._deepening.start()
        self._deepening.cap = self._cap  # a re-read reaches no further than a query reads
        return self._deepening.next(threshold)

    def _keep(self, reader: ListReader, result: QueryResult) -> None:
        """What the query's list showed, into the ledger (before its outcome is recorded)."""
        key = keep_list(self.ledger, reader, result, cap=self._cap)
        if key is None:
            return
        if self.ledger.deepening:
            self._deepening.push(key)
        if len(self.ledger.history) % _PRUNE_EVERY == 0:
            prune_unheld(self.ledger)

    def record(
        self,
        word: str,
        ids: Collection[str],
        texts: Mapping[str, str] | None = None,
        *,
        cost: int = 1,
        total_results: int | None = None,
        error: str | None = None,
        sample: Collection[str] | None = None,
    ) -> QueryOutcome:
        """Record what one query of ``word`` brought (the records ``ids``, with the texts known
        of them, ``cost`` requests; see :meth:`Ledger.record
        <deepcrawl.querying.ledger.Ledger.record>`) and teach the words its texts; a source
        whose words keep coming back empty is left."""
        self.words.mark_issued(word)
        source = self.words.source_of(word)
        outcome = self.ledger.record(
            word,
            ids,
            cost,
            total_results=total_results,
            error=error,
            sample=sample,
            source=source,
        )
        self.words.learn_texts(frozenset(ids), texts or {})
        if not error and (left := empty_source(self.ledger, source, self.settings.querying)):
            self.ledger.sources.left.add(left)  # its words are not what the search matches
            logger.info(
                "words from %s left: %d queries in a row found nothing",
                left, self.settings.querying.source_empty_run,
            )  # fmt: skip
        return outcome

    def settle_probe(self) -> bool | None:
        """Once the stop-word probes are answered, tell the words: the site accepts stop words
        if any of them found a record. Returns whether it does (None: not answered yet)."""
        words = self.words
        if words.stopwords_accepted is None and not words.stopword_probe_queries():
            answered = (o for o in self.ledger.history if o.query.casefold() in self._probes)
            words.record_stopword_probe(any(o.results for o in answered))
        return words.stopwords_accepted

    def _end(self, verdict: Verdict) -> None:
        """End the querying; a stop that does not judge the records complete says what the
        estimate sees missing (not a crawl that ran away: its estimate is what it outgrew)."""
        self._refresh()
        self.verdict = verdict
        quiet = verdict.complete or verdict is self.runaway
        gone = "" if quiet else gap(self.ledger, self.settings.querying)
        self.figures.stop_reason = verdict.reason + gone
        logger.info("querying stops: %s", self.figures.stop_reason)

    def _refresh(self) -> None:
        figures, ledger = self.figures, self.ledger
        figures.queries = ledger.asked  # every stored query, as ``deepcrawl status`` counts
        reached = ledger.capture.reached
        size = size_estimate(ledger, self.settings.querying)
        # the records the crawl holds: those the result lists showed and those it reached
        # otherwise (links, sitemaps, hubs), which no list's estimate counts
        otherwise = max(0, len(ledger.records) - reached)
        figures.records_reached = reached + otherwise
        figures.records_estimated = None if size.value is None else size.value + otherwise
        reason = words_stop(ledger, self.words, self.settings)
        figures.stop_reason = str(reason) if reason is not None else None

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()
