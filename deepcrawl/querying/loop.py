"""The query loop: ask the rules → query → one event → the ledger folds it.

One loop serves every querying of a crawl — the setup phase's few queries, the normal phase's
to the end, a simulation's — one :meth:`QueryLoop.step` at a time. A step asks the rules in
their order (:mod:`~deepcrawl.querying.registry`): the first to decide names the next list to
read, stops the querying, or writes down a note and is asked again. The query's pages are
read while its list's reader says they pay (:class:`~deepcrawl.querying.paging.ListReader`);
what came back is one :class:`~deepcrawl.querying.events.QueryEvent`, which the ledger folds,
the word supply learns from, the rules observe and the event log keeps. What the fetch side
learns (record pages' texts, records reached otherwise, one record under two ids) is an event
too, folded between queries; a resumed crawl folds the stored events back in the same order.

A query's *record ids* — what the ledger counts as records — are what ``record_id`` makes of
its links: the canonical URLs of its wanted result links once labels are known, the normalised
result URLs before.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from deepcrawl.querying.events import ExamplesGiven, QueryEvent, WordsExhausted
from deepcrawl.querying.facts import FetchFacts
from deepcrawl.querying.figures import QueryFigures, refresh
from deepcrawl.querying.fold import Fold
from deepcrawl.querying.ledger import Ledger
from deepcrawl.querying.paging import ListReader, page_read
from deepcrawl.querying.reading import SplitCutLists, take_word
from deepcrawl.querying.registry import make_rules
from deepcrawl.querying.resume import resume_url
from deepcrawl.querying.rule import Ask, QueryView
from deepcrawl.querying.runaway import Runaway
from deepcrawl.querying.schedule import BUDGETS, SourceSchedule, words_stop
from deepcrawl.querying.size import gap
from deepcrawl.querying.stops import proves
from deepcrawl.querying.verdict import Verdict
from deepcrawl.querying.words import KeywordManager
from deepcrawl.urls import normalise_or_none

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Sequence

    from deepcrawl.keywords.outcome import StopReason
    from deepcrawl.querying.events import Event, PageRead
    from deepcrawl.querying.figures import EventLog, Figures, QueryStore
    from deepcrawl.search.backend import QueryBackend
    from deepcrawl.search.results import QueryResult, ResultPage
    from deepcrawl.settings import Settings

__all__ = ["QueryLoop"]

logger = logging.getLogger(__name__)

#: Notes one rule may write down in one round before it must decide (a rule that keeps
#: noting what it already noted is a bug, not a crawl).
_MAX_NOTES = 64


class QueryLoop:
    """Submits the keywords the rules let through, one :meth:`step` at a time.

    Args:
        settings: the crawl's settings (``querying.rules``: the rules, in order).
        record_id: maps a result URL to a record id, or None when it is no record.
        seeds: keywords to try first (``--keywords`` comes through the settings).
        examples: texts of the ``--like`` pages, whose xCrawl queries follow the user's words.
        max_pages: result pages read per query at most (the setup phase's; default: as far as
            each list's total says, :func:`~deepcrawl.querying.totals.page_cap`).
        frequent: the cold-start word list (default: the bundled one of the language).
        stop_words: the stop words (default: the bundled ones of the language).
        store: where each query is stored (None: nowhere).
        log: where each event folded is kept (None: nowhere).
        events: events of an earlier run, folded first (a resumed crawl's log).
        figures: the figures to keep up to date (default: the loop's own).
        on_change: called whenever the figures moved.
        on_result: called with each query's result before its event is made (the crawl
            learns from it which parameters carry a session).
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
        log: EventLog | None = None,
        events: Iterable[Event] = (),
        figures: Figures | None = None,
        on_change: Callable[[], None] | None = None,
        on_result: Callable[[QueryResult], object] | None = None,
    ) -> None:
        self.settings = settings
        self.record_id = record_id
        self.max_pages = max_pages
        self.store = store
        self.log = log
        self.figures: Figures = figures if figures is not None else QueryFigures()
        self._on_change = on_change
        self._on_result = on_result
        self.ledger = Ledger(settings, reads_on=max_pages is None)
        self.words = KeywordManager(
            settings.keywords,
            self.ledger,
            querying=settings.querying,
            seeds=list(seeds),
            frequent=frequent,
            stop_words=stop_words,
        )
        self.rules = make_rules(settings)
        self.fired = {rule.name: [0, 0] for rule in self.rules}
        """By rule: the times it was asked, the times it decided."""
        self.verdict: Verdict | None = None
        """Why the querying stopped (None while it goes on)."""
        probes = frozenset(w.casefold() for w in settings.keywords.stopword_probes)
        self._fold = Fold(self.ledger, self.words, self.rules, log, probes)
        self.facts = FetchFacts(self._fold, record_id, self._moved)
        """What the fetch side learns (record pages' texts, records reached by links, one
        record under two ids), folded as events."""
        self._accepts_empty = False
        earlier = tuple(events)
        for event in earlier:
            self._fold(event, keep=False)
        if examples and not any(isinstance(e, ExamplesGiven) for e in earlier):
            # logged: a resumed crawl has no examples of its own where it picked the kind
            self._fold(ExamplesGiven(tuple(examples)))
        self._refresh()

    @property
    def cap(self) -> int:
        """Result pages a list is read to at most: the loop's own cap (the setup phase's),
        else ``querying.max_list_pages`` (each list's reader stops it sooner, by its total)."""
        return self.max_pages or self.settings.querying.max_list_pages

    @property
    def view(self) -> QueryView:
        """What the rules read now."""
        delivered = self.figures.pages_delivered
        return QueryView(
            self.ledger, self.words, self._accepts_empty, self.max_pages, self.cap, delivered
        )

    @property
    def judged_complete(self) -> bool:
        """Whether the querying ended on evidence that proves the crawl knows every record
        (what the crawl's claim to hold every record rests on)."""
        return self.verdict is not None and self.verdict.complete

    @property
    def judged_sized(self) -> bool:
        """Whether the querying ended on evidence of the database's size, a proof or an
        estimate of the rule's own (:attr:`Verdict.sized
        <deepcrawl.querying.verdict.Verdict.sized>`): the records left, if any, are ones no
        list shows."""
        return self.verdict is not None and self.verdict.sized

    @property
    def words_stop(self) -> StopReason | None:
        """Why the words stop, None while they go on."""
        return words_stop(self.ledger, self.words, self.settings)

    @property
    def budget_spent(self) -> bool:
        """Whether a query or request budget stops the words: run again with a larger one, the
        querying goes on."""
        return self.words_stop in BUDGETS

    def ran_away(self) -> Verdict | None:
        """Whether the crawl ran away (the ``runaway`` rule): its querying and its link
        following stop, the verdict its stop reason. Once found, it stays."""
        rule = next((r for r in self.rules if isinstance(r, Runaway)), None)
        if rule is None or rule.found is not None:  # none, or found before
            return rule.found if rule is not None else None
        if (found := rule.decide(self.view, self.settings)) is not None:
            self.figures.stop_reason = found.reason
            logger.warning("%s: querying and link following stop", found.reason)
        return found

    async def step(self, search: QueryBackend) -> QueryResult | None:
        """Submit the next query the rules ask for and store it; None when they say stop (the
        reason in :attr:`verdict` and the figures' ``stop_reason``)."""
        self._accepts_empty = search.accepts_empty
        for rule in (r for r in self.rules if isinstance(r, SplitCutLists)):
            rule.offer(search.partitions)
        self.ran_away()  # said once, as soon as it holds
        ask = self._next()
        if isinstance(ask, Verdict):
            self._end(ask)
            return None
        return await self._submit(search, ask)

    async def read_on(
        self, search: QueryBackend, word: str, *, skip: int, url: str | None, pages: int
    ) -> QueryResult:
        """Read the list of ``word`` on past its ``skip`` pages read, from ``url`` (the page
        after them; None: from the first again), ``pages`` more whatever they bring, and store
        the query: the setup phase's list that repeats the lists before first."""
        resume = (url, skip + 1) if url is not None else None
        ask = Ask(word, skip + pages, skip=skip, resume=resume, threshold=0.0)
        return await self._submit(search, ask)

    def _next(self) -> Ask | Verdict:
        """The first rule's decision, notes written down as they come."""
        self._fold.settle_probe()
        view = self.view
        for rule in self.rules:
            for _ in range(_MAX_NOTES):
                self.fired[rule.name][0] += 1
                decided = rule.decide(view, self.settings)
                if decided is None:
                    break
                self.fired[rule.name][1] += 1
                if isinstance(decided, Verdict):
                    self.figures.querying["verdict"] = {
                        "rule": rule.name, "reason": decided.reason,
                        "complete": decided.complete, "size": decided.size,
                    }  # fmt: skip
                    return decided
                if isinstance(decided, Ask):
                    return decided
                self._fold(decided)  # a note: asked again over the ledger it changed
            else:
                raise RuntimeError(f"the querying rule {rule.name!r} noted without end")
        return Verdict("no rule asked for a query")

    async def _submit(self, search: QueryBackend, ask: Ask) -> QueryResult:
        reader = ListReader.asked(self.ledger, ask, before=ask.before)
        pages: list[PageRead] = []

        def more(page: ResultPage, number: int) -> bool:
            pages.append(page_read(page, number, self.record_id))
            return reader.read(pages[-1])

        merges = self.facts.merges
        # no page cap of its own (the empty query, a frame word): read past the loop's cap
        cap = ask.max_pages or self.settings.querying.max_list_pages
        with (
            self.facts.hold() as held
        ):  # a request takes its rate slot, and is counted, at its gate
            result = await search.query(
                ask.word, dict(ask.values) or None, max_pages=cap, more=more, resume=ask.resume
            )
        logger.info(
            "query %r%s: %s, %d result pages, %d result links, %s results reported",
            ask.word, f" (from page {ask.skip + 1})" if ask.skip else "", result.outcome,
            result.pages, len(result.result_links),
            "no count of" if result.total_results is None else result.total_results,
        )  # fmt: skip
        reader.note_cap(result)
        if self._on_result is not None:  # before its links are counted
            self._on_result(result)
        event = QueryEvent.answered(
            ask, result, pages, self.record_id, source=self.words.source_of(ask.word),
            cap=self.cap, capped=self.max_pages is not None, resume_url=resume_url(result),
        )  # fmt: skip
        if self.facts.merges != merges:  # an id learnt meanwhile: the links' records anew
            event = event.rekeyed(self.record_id)
        if self.store is not None:
            # stored before its event is logged: a crawl killed between the two finds the
            # query's links stored (and folds the query from its row), never a logged query
            # whose links no frontier received (its records known, and never fetched)
            new = len(frozenset(event.record_texts()) - self.ledger.records)
            self.store.save(result, new_records=new)
        self._fold(event)
        for waiting in held:
            self._fold(waiting)
        self._moved()
        return result

    def apply(self, event: Event) -> None:
        """Fold one event as if it had just come (a caller querying by itself)."""
        self._fold(event)
        self._refresh()

    def next_word(self) -> str | None:
        """The word supply's next word, None when the words stop; a spent source of words is
        left first, as the rules leave it in :meth:`step` (a caller querying by itself drives
        the words with it and :meth:`apply`)."""
        for rule in self.rules:
            if isinstance(rule, SourceSchedule) and (left := rule.decide(self.view, self.settings)):
                self._fold(left)
        asked = take_word(self.view, self.settings)
        if isinstance(asked, WordsExhausted):
            self._fold(asked)
            return None
        return None if asked is None else asked.word

    def _moved(self) -> None:
        """The ledger moved (a query, a merge): so do the figures."""
        self._refresh()
        if self.ledger.deepening:
            self.figures.stop_reason = None
        if self._on_change is not None:
            self._on_change()

    def _end(self, verdict: Verdict) -> None:
        """End the querying; a stop that does not judge the records complete says what the
        estimate sees missing (not a crawl that ran away: its estimate is what it outgrew)."""
        self.verdict = verdict
        self._refresh()
        quiet = verdict.complete or verdict.rule in {"outgrown", "repeating"}
        gone = "" if quiet else gap(self.ledger, size=verdict.size)
        self.figures.stop_reason = verdict.reason + gone
        logger.info("querying stops: %s", self.figures.stop_reason)
        if self.log is not None:
            self.log.flush()

    def _refresh(self) -> None:
        done = self.verdict  # its own evidence of the size first, else a rule's that has some
        settled = done if done and done.sized else proves(self.rules, self.view, self.settings)
        refresh(self.figures, self.ledger, stop=self.words_stop, settled=settled, fired=self.fired)
