"""The query loop of a crawl: keyword manager → form → stored query, resumable.

:func:`deepcrawl.search.exhaust` runs a keyword manager over a form to the end in one go; a crawl
needs the same loop one query at a time (the setup phase stops after a few queries for
labelling; the normal phase fetches wanted pages while it queries), with every query stored
before the next is chosen, and the manager rebuilt from the stored queries when a crawl resumes.

A query's *record ids* — what the manager counts as records for saturation and the
capture–recapture estimate — are the canonical URLs of its wanted result links once labels are
known (:attr:`QueryLoop.record_id`), the normalised result URLs before. Records the crawl reached
otherwise (links on fetched record pages) are known to the manager too (:meth:`QueryLoop.observe`).

A query's result pages are read while they pay (:meth:`QueryLoop.pager`, :mod:`.paging`): each
page is expected to bring ``keywords.paging_min_new`` records the crawl does not know yet, by
the list's total and the fetched texts while its pages bear that estimate out, else by the
novelty of its latest pages — and the long tail of a keyword crawl, where a query's pages bring
one new record in thirty, costs one page per query instead of all of them.

On a large site the words run out before the lists are read (:meth:`QueryLoop.next_deepening`):
once the manager's words are spent or bring nothing, the lists that still lack the most records
by their totals are read again, deeper, at a lower threshold (``keywords.deepen_min_new``).

Whatever the totals and the estimate say, a run of queries bringing no new record ends the
querying (:meth:`QueryLoop.fruitless`): a search that reports no total, or an estimate that never
reaches the count, would otherwise query on until killed.
"""

from __future__ import annotations

import heapq
import itertools
import logging
from typing import TYPE_CHECKING

from deepcrawl.crawler.paging import ListRead, Paging, lists_checked_out, resume_url
from deepcrawl.crawler.query_stops import QueryStops
from deepcrawl.crawler.runaway import ContentLedger, Verdict, runaway
from deepcrawl.errors import InvalidURLError
from deepcrawl.keywords import KeywordManager, StopReason, WordSource
from deepcrawl.keywords.known import KnownTexts, main_text
from deepcrawl.search.results import PAGE_CAP_NOTE
from deepcrawl.urls import normalise_url

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

    from deepcrawl.crawler.context import CrawlContext
    from deepcrawl.search.backend import QueryBackend
    from deepcrawl.search.results import QueryResult
    from deepcrawl.storage.state import StoredQuery
    from deepcrawl.storage.tables import QueryRead

__all__ = ["QueryLoop", "lists_checked_out", "normalised_id"]

logger = logging.getLogger(__name__)


def normalised_id(url: str) -> str | None:
    """The default record id: the URL's normal form (None when it cannot be normalised)."""
    try:
        return normalise_url(url)
    except InvalidURLError:
        return None


#: Why the manager stops that leaves the lists already asked worth deepening: its words ran
#: out or bring nothing new. Budgets, errors and a form ignoring its keyword end the crawl.
_DEEPEN_AFTER = frozenset({StopReason.SATURATED, StopReason.EXHAUSTED})
#: Queries between two prunings of the lists' shown-but-unfetched records (memory only).
_PRUNE_EVERY = 500


class QueryLoop(QueryStops):
    """Submits the keywords a :class:`KeywordManager` chooses, one :meth:`step` at a time.

    Args:
        ctx: the crawl's context (storage, limiter, figures).
        form_id: the stored form the queries go to.
        record_id: maps a result URL to a record id, or None when it is no record.
        seeds: keywords to try first (``--keywords`` comes through the settings).
        examples: texts of the ``--like`` pages, whose xCrawl queries follow the user's words.
        max_pages: result pages read per query at most (default ``keywords.max_result_pages``).
    """

    def __init__(
        self,
        ctx: CrawlContext,
        form_id: int | None,
        *,
        record_id: Callable[[str], str | None] = normalised_id,
        seeds: Iterable[str] = (),
        examples: Sequence[str] = (),
        max_pages: int | None = None,
    ) -> None:
        self.ctx = ctx
        self.form_id = form_id
        self.record_id = record_id
        self.max_pages = max_pages
        self.manager = KeywordManager(ctx.settings.keywords, seeds=list(seeds))
        if examples:
            self.manager.add_examples(examples)
        self.texts = KnownTexts(ctx.settings.keywords.min_term_length)
        """The words of the record pages fetched, for the paging control."""
        self.checked: list[tuple[int, int]] = []
        """Per query with a usable total: (its total, the records of it the crawl lacked)."""
        self.unfinished: list[tuple[str, int]] = []
        """Keywords whose paging a page cap stopped (the setup phase's), with the pages read:
        asked again first, the paging control deciding how far past them to read this time —
        from the next page's URL where the backend loads pages by URL, else from the first,
        those pages read again."""
        self.resume_urls: dict[str, str] = {}
        """Of the unfinished keywords, the URL of the page after the last one read, where the
        pager named it (:func:`resume_url`)."""
        self.complete: dict[str, frozenset[str]] = {}
        """By case-folded word, oldest first: the records of the lists read to their end."""
        self.judged_complete = False
        """Whether the querying ended on the evidence that the crawl knows every record."""
        self.first_shown: dict[str, int] = {}
        """Of the lists read to their end in one read, the records new to the crawl they
        showed (the others it had learnt otherwise: a second capture)."""
        self._read_before: dict[str, set[str]] = {}
        """Of the unfinished keywords, the records their pages read before showed: a list
        read on from the page after them is whole with them."""
        self.refutations = 0
        """Lists whose pages refuted the estimate from their total (:mod:`.paging`)."""
        self.tested = 0
        """Lists whose pages put the estimate from their total to the test."""
        self._probes = {w.casefold() for w in ctx.settings.keywords.stopword_probes}
        self._paging: Paging | None = None  # the latest query's
        self._lists: dict[str, ListRead] = {}  # by case-folded word: the lists with a total
        self._heap: list[tuple[float, int, str]] = []  # deepening candidates, lazily re-valued
        self._order = itertools.count()
        self.deepening = False
        """Whether the loop has gone over to deepening the lists already asked
        (:meth:`next_deepening`)."""
        self.deepened = 0
        """Lists re-read so far."""
        self._deepened_from = 0  # the query the deepening started at
        self.content = ContentLedger(ctx.settings.crawl.runaway_window)
        """The main texts of the record pages fetched, by fingerprint (:mod:`.runaway`)."""
        self.largest_total = 0
        """The largest result count a list reported."""
        self.runaway: Verdict | None = None
        """Why the crawl ran away, once it did (:meth:`ran_away`)."""

    def _ids(self, links: Iterable[tuple[str, str]]) -> dict[str, str]:
        texts: dict[str, str] = {}
        for url, text in links:
            rid = self.record_id(url)
            if rid is not None and (text or rid not in texts):
                texts.setdefault(rid, text)
        return texts

    def replay(self, stored: Iterable[StoredQuery]) -> int:
        """Feed stored queries to the manager as if they had just been submitted.

        Returns:
            How many queries were replayed.
        """
        count = 0
        unfinished: dict[str, int] = {}
        self.resume_urls = {}
        self._read_before = {}
        for query in stored:
            row = query.row
            unfinished.pop(row.keyword, None)
            self.resume_urls.pop(row.keyword, None)
            self._read_before.pop(row.keyword.casefold(), None)
            texts = self._ids(query.result_links())
            if (row.error or "").startswith(PAGE_CAP_NOTE) and self.max_pages is None:
                unfinished[row.keyword] = row.result_pages
                self._read_before[row.keyword.casefold()] = set(texts)
                if (url := resume_url(query)) is not None:
                    self.resume_urls[row.keyword] = url
            if not row.keyword and not texts:  # as :meth:`step` left it
                self.manager.skip(row.keyword)
                continue
            self.manager.record(
                row.keyword,
                set(texts),
                texts,
                cost=max(1, row.result_pages),
                error=row.error if row.outcome == "error" else None,
            )
            count += 1
        self.unfinished = list(unfinished.items())
        self._settle_probe()
        self._refresh()
        return count

    def observe(self, ids: Iterable[str], texts: Mapping[str, str] | None = None) -> int:
        """Records the crawl reached without a query; returns how many were new to it."""
        return self.manager.observe(set(ids), texts)

    def learn_text(self, record_id: str, html: str | bytes) -> None:
        """Index the words of a fetched record page (its main text) for the paging control and
        the keyword manager."""
        if record_id in self.texts:
            return
        text = main_text(html)
        self.texts.add(record_id, text)
        self.manager.learn_record(text)
        self.content.add(text)

    def ran_away(self) -> Verdict | None:
        """Whether the crawl ran away (:func:`~deepcrawl.crawler.runaway.runaway`): its querying
        and its link following stop, the verdict its stop reason. Once found, it stays."""
        if self.runaway is None:
            stats = self.ctx.stats
            found = runaway(self.content, stats.pages_delivered, stats.records_estimated,
                            self.largest_total, self.ctx.settings.crawl)  # fmt: skip
            if found is not None:
                self.runaway, stats.stop_reason = found, found.reason
                logger.warning("%s: querying and link following stop", found.reason)
        return self.runaway

    def trusts_totals(self) -> bool:
        """Whether the result totals of this search measure what the crawl lacks.

        Not once ``keywords.paging_distrust_after`` lists, and half the lists put to the test
        or more, had their estimate refuted by their own pages: the search matches or counts
        otherwise than the fetched pages' words say (substrings, stems, other kinds of
        content in its total).
        """
        after = self.ctx.settings.keywords.paging_distrust_after
        return not (after > 0 and self.refutations >= max(after, self.tested / 2))

    def unknown_left(
        self,
        word: str,
        total: int | None,
        shown: Collection[str],
        sample: Collection[str] | None = None,
        *,
        scaled: bool = True,
    ) -> int | None:
        """Records of ``word``'s list the crawl lacks and its pages have not shown, by the
        total and the fetched texts (:meth:`KnownTexts.unknown_left
        <deepcrawl.keywords.known.KnownTexts.unknown_left>`); None when the search's totals
        are not trusted (:meth:`trusts_totals`), or, not ``scaled``, when only a count scaled
        by the list's match share would say it."""
        if not self.trusts_totals():
            return None
        return self.texts.unknown_left(word, total, shown, sample, scaled=scaled)

    def pager(
        self, word: str, *, skip: int = 0, threshold: float | None = None, whole: bool = False
    ) -> Paging:
        """The paging control of one query: read the next result page only while it is expected
        to bring at least ``keywords.paging_min_new`` records the crawl does not know.

        With the total the first page reports and the words of the fetched records, the records
        left to find are counted (:meth:`unknown_left`) and spread over the pages left, while
        the pages read bear the count out; else the records new to the crawl on its latest
        pages are the estimate (:class:`~deepcrawl.crawler.paging.Paging`).

        Args:
            word: the query.
            skip: pages read whatever they bring (a re-read list's pages read before: the
                form has no way to start a list on a later page).
            threshold: records a further page must be expected to bring (default
                ``keywords.paging_min_new``).
            whole: the word is expected to list every record (the record pages' frame):
                read to its end if its total says so.
        """
        paging = Paging(
            self,
            word,
            skip,
            self.ctx.settings.keywords.paging_min_new if threshold is None else threshold,
            test=threshold is None,
            before=self._read_before.get(word.casefold(), ()),
            whole=whole,
        )
        self._paging = paging
        return paging

    def _settle_probe(self) -> None:
        if self.manager.stopwords_accepted is None and not self.manager.stopword_probe_queries():
            self.manager.record_stopword_probe()

    def _refresh(self) -> None:
        stats = self.ctx.stats
        stats.queries = len(self.manager.history)
        coverage = self.manager.coverage()
        stats.records_reached = coverage.reached
        stats.records_estimated = coverage.estimated
        reason = self.manager.stop_reason
        stats.stop_reason = str(reason) if reason is not None else None

    @property
    def done(self) -> bool:
        """True once the manager says stop (saturation, budget, identical results, errors) and
        no list is worth deepening (:meth:`next_deepening`), or the coverage estimate says stop
        (:meth:`covered`, :meth:`checked_out`)."""
        if self.manager.stopword_probe_queries():
            return False
        if (self.fruitless() and not self._deepening_next()) or self.covered():
            return True
        if self.checked_out() or self.complete_out():
            return True
        reason = self.manager.stop_reason
        if reason is None and not self.deepening:
            return False
        threshold = self.ctx.settings.keywords.deepen_min_new
        if threshold <= 0 or (reason is not None and reason not in _DEEPEN_AFTER):
            return reason is not None
        return all(self._deepen_value(lst) < threshold for lst in self._lists.values())

    def _deepening_next(self) -> bool:
        """Whether the manager's words are spent or saturated and the deepening of the lists
        is about to begin (the fruitless run starts afresh there)."""
        reason = self.manager.stop_reason
        return (
            not self.deepening
            and reason in _DEEPEN_AFTER
            and self.ctx.settings.keywords.deepen_min_new > 0
        )

    def _deepen_value(self, lst: ListRead) -> float:
        """Records a re-read of ``lst`` is expected to bring per request, its first pages read
        again included; 0 when it cannot bring any (no count, read to its end or page cap)."""
        cap = self.max_pages or self.ctx.settings.keywords.max_result_pages
        lst.unheld = {rid for rid in lst.unheld if rid not in self.texts}
        left = self.unknown_left(lst.word, lst.total, lst.unheld, lst.sample)
        unread = min(lst.total, cap * lst.size) - lst.shown
        if not left or lst.complete or lst.size <= 0 or unread <= 0 or lst.pages >= cap:
            return 0.0
        # the lacking records spread over the unread part of the list, the part past the page
        # cap out of reach; the order of the list does not matter while it is read to the end
        expected = left * unread / (lst.total - lst.shown)
        return expected / (lst.pages + -(-unread // lst.size))

    def next_deepening(self) -> tuple[str, int] | None:
        """The list to re-read next once the words are spent, and its pages read before.

        A crawl of a large site runs out of words before it has read its lists: most were read
        one page deep, as far as the paging control expected ``keywords.paging_min_new``
        unknown records a page. The lists whose reported totals, less the fetched records
        holding the word, lack the most records per request of a re-read (the form starts a
        list on its first page, so the pages read before are paid again) are read again, the
        pages past those read while each is expected to bring ``keywords.deepen_min_new``.

        Returns:
            (word, pages read before), or None when no list is expected to bring
            ``keywords.deepen_min_new`` records per request.
        """
        threshold = self.ctx.settings.keywords.deepen_min_new
        if threshold <= 0:
            return None
        if not self.deepening:
            self.deepening = True
            self._deepened_from = len(self.manager.history)
            self._heap = [(-1.0, next(self._order), key) for key in self._lists]
        while self._heap:
            _, _, key = heapq.heappop(self._heap)
            lst = self._lists[key]
            # values only fall as record pages are fetched (a list's own re-read is pushed
            # anew): re-value the best, take it if it still beats the next best's old value
            value = self._deepen_value(lst)
            if value <= 0 or value < threshold:
                continue
            if self._heap and value < -self._heap[0][0]:
                heapq.heappush(self._heap, (-value, next(self._order), key))
                continue
            return lst.word, lst.pages
        return None

    def _keep_list(self, word: str, result: QueryResult) -> None:
        paging, self._paging = self._paging, None
        if paging is None or paging.word != word:
            return
        self.tested += paging.tested or paging.refuted
        cap = self.max_pages or self.ctx.settings.keywords.max_result_pages
        pages = result.pages
        # its last page read shows no next one, or the paging asked for a page it did not have
        complete = result.outcome == "ok" and (paging.ended or (paging.more and pages < cap))
        if complete and paging.shown and not paging.cut_short():
            # read to its end, the list says exactly what the crawl lacked of it: its records,
            # and those new to the crawl — whatever its total counts (other kinds of content);
            # not a live list that stopped rendering short of its total (its total stays)
            key = word.casefold()
            self.complete.pop(key, None)  # kept in the order read
            earlier = self._read_before.pop(key, set())
            self.complete[key] = frozenset(paging.shown | earlier)
            if paging.skip or earlier:  # what its first read brought the crawl is not known
                self.first_shown.pop(key, None)
            else:
                self.first_shown[key] = sum(paging.fresh)
            checked = (len(paging.shown), sum(paging.fresh))
            if paging.checked_at is None:
                self.checked.append(checked)
            else:
                self.checked[paging.checked_at] = checked
        if paging.total is None or not paging.size:
            return
        key = word.casefold()
        before = self._lists.get(key)
        self._lists[key] = ListRead(
            word,
            paging.total,
            paging.size,
            max(pages, paging.pages, before.pages if before else 0),
            max(len(paging.shown), before.shown if before else 0),
            {rid for rid in paging.shown if rid not in self.texts},
            complete=complete,
            sample=sorted(paging.shown)[: paging.size],
        )
        if self.deepening:
            heapq.heappush(self._heap, (-1.0, next(self._order), key))
        if len(self.manager.history) % _PRUNE_EVERY == 0:
            for lst in self._lists.values():
                lst.unheld = {rid for rid in lst.unheld if rid not in self.texts}

    def _stop(self, reason: str, *, gap: bool = True) -> None:
        """End the querying for ``reason``; with ``gap``, say what the estimate sees missing
        (not after the rules that judge the records complete by their own evidence)."""
        self._refresh()
        self.judged_complete = not gap
        self.ctx.stats.stop_reason = reason + (self.gap() if gap else "")
        logger.info("querying stops: %s", self.ctx.stats.stop_reason)

    def gap(self) -> str:
        """What the stop leaves behind by the estimate, and the word sources tried (for the
        stop reason): empty while the estimate says nothing is missing."""
        coverage = self.manager.coverage()
        if coverage.estimated is None or coverage.estimated - coverage.reached < 1:
            return ""
        sources = ", ".join(
            f"{name} {used} ({empty} empty)"
            for name, (used, empty) in self.manager.source_summary().items()
        )
        return (
            f"; the estimate says ~{round(coverage.estimated - coverage.reached)} of "
            f"~{round(coverage.estimated)} records are missing (word sources tried: "
            f"{sources or 'none'})"
        )

    async def step(self, search: QueryBackend) -> tuple[QueryResult, QueryRead] | None:
        """Submit the next keyword, store the query; None when the loop says stop.

        Once the manager's words are spent or bring nothing (saturated), the lists already
        asked are deepened (:meth:`next_deepening`) until none is worth a re-read, the
        result-list rule (:meth:`checked_out`) or a budget says stop.
        """
        if (verdict := self.ran_away()) is not None:
            self._stop(verdict.reason, gap=False)
            return None
        probes = self.manager.stopword_probe_queries()
        skip = 0
        resume: tuple[str, int] | None = None
        threshold: float | None = None
        max_pages = self.max_pages
        whole = False
        if search.accepts_empty and not self.manager.history and "" not in self.manager.issued:
            # first of all, the empty query: read while its pages bring new records (a list of
            # everything is read past the setup phase's few pages)
            word: str | None = ""
            max_pages = None
        elif probes:
            word = probes[0]
        elif (
            not self.manager.switch_if_saturated()
            and self.fruitless()
            and not self._deepening_next()
        ):
            self._stop(
                f"{self.ctx.settings.crawl.stop_fruitless_queries} or more queries in a row "
                "brought no new record"
            )
            return None
        elif self.complete_out():  # before the unfinished lists: nothing is left to find
            self._stop(
                "the result lists read to their end put the records at those the crawl knows",
                gap=False,
            )
            return None
        elif self.unfinished:
            word, skip = self.unfinished.pop(0)
            if (url := self.resume_urls.pop(word, None)) is not None:
                resume = (url, skip + 1)
        elif self.covered():
            self._stop("the coverage estimate says every record is reached", gap=False)
            return None
        elif self.checked_out():
            self._stop(
                "the latest result lists, by their totals, hold no record the crawl lacks",
                gap=False,
            )
            return None
        else:
            if not self.deepening:
                self._settle_probe()
                word = self.manager.next_query()
                if word is not None and self.manager.source_of(word) is WordSource.FRAME:
                    whole, max_pages = True, None  # a list of every record, like the empty one
            else:
                word = None
            reason = self.manager.stop_reason
            if word is None and (self.deepening or reason in _DEEPEN_AFTER):
                if reason is not None and reason not in _DEEPEN_AFTER:
                    self._stop(str(reason))  # a budget or errors end the deepening too
                    return None
                chosen = self.next_deepening()
                if chosen is None:
                    self._stop(
                        f"{StopReason.SATURATED}; no result list read again ({self.deepened} "
                        "were) is expected to bring "
                        f"{self.ctx.settings.keywords.deepen_min_new} records a request"
                    )
                    return None
                word, skip = chosen
                threshold = self.ctx.settings.keywords.deepen_min_new
                self.deepened += 1
        if word is None:
            self._refresh()
            self._stop(self.ctx.stats.stop_reason or str(StopReason.EXHAUSTED))
            return None
        more = self.pager(word, skip=skip, threshold=threshold, whole=whole)
        async with self.ctx.limiter.slot(self.ctx.start_url):
            result = await search.query(word, max_pages=max_pages, more=more, resume=resume)
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
        self._keep_list(word, result)
        self.largest_total = max(self.largest_total, result.total_results or 0)
        self.ctx.sessions.observe_result(result.links)  # before its links are counted
        self.manager.learn_entries(word, more.blocks)
        texts = self._ids((link.url, link.text) for link in result.result_links)
        new = 0
        if word or texts:
            new = self.manager.record(
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
            self.manager.skip(word)  # the empty query found nothing: the search wants words
        row = self.ctx.state.save_query(
            result.to_query_row(new_records=new), result.links, form_id=self.form_id
        )
        if word.casefold() in self._probes:
            self._settle_probe()
        self.ctx.stats.requests += max(result.requests, result.pages)
        self._refresh()
        stats = self.ctx.stats
        logger.debug(
            "query %r brought %d new records: %d reached, estimate %s",
            word, new, stats.records_reached, stats.records_estimated,
        )  # fmt: skip
        if self.deepening:
            self.ctx.stats.stop_reason = None
        self.ctx.changed()
        return result, row
