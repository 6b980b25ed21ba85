"""Which list to read next: the rules that ask (each answering an :class:`~.rule.Ask`).

In the loop's order (``querying.rules``), each a property of a search:

* :class:`EmptyQuery` — a search that answers the empty query lists every record: asked first;
* :class:`StopwordProbe` — whether the search refuses stop words, asked before any word;
* :class:`FrameFirst` — a list of every record (the words every record holds) before the cut
  lists are read on: their pages bring nothing after it;
* :class:`CompleteCutList` — where the whole-lists evidence lacks one list, the cut list most
  records hold is read to its end (:func:`~deepcrawl.querying.resume.completing_list`);
* :class:`ReadOnCutLists` — a list a page cap cut short is read on where its total leaves
  records to find (:func:`~deepcrawl.querying.resume.reads_on`);
* :class:`SplitCutLists` — a list the search cuts short is split by the form's own fields
  (:mod:`~deepcrawl.querying.partition`, Madhavan et al.'s query templates);
* :class:`NextWord` — the word supply's next word (:mod:`~deepcrawl.querying.words`);
* :class:`DeepenLists` — once the words are spent, the list whose total says it lacks the most
  records a request is read again deeper (:mod:`~deepcrawl.querying.deepening`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from deepcrawl.keywords.outcome import StopReason, WordSource
from deepcrawl.querying.deepening import DEEPEN_RULE, Deepening
from deepcrawl.querying.events import (
    DeepeningBegun,
    ListsDropped,
    QueryEvent,
    Reading,
    WordsExhausted,
)
from deepcrawl.querying.lists import list_key
from deepcrawl.querying.partition import Part, Partitioner
from deepcrawl.querying.resume import completing_list, list_check, reads_on
from deepcrawl.querying.rule import Ask, Rule
from deepcrawl.querying.schedule import DEEPEN_AFTER, words_stop
from deepcrawl.querying.stops import checked_out
from deepcrawl.querying.verdict import Verdict

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from deepcrawl.querying.events import Event
    from deepcrawl.querying.rule import QueryView
    from deepcrawl.settings import Settings

__all__ = [
    "CompleteCutList",
    "DeepenLists",
    "EmptyQuery",
    "FrameFirst",
    "NextWord",
    "ReadOnCutLists",
    "SplitCutLists",
    "StopwordProbe",
    "take_word",
]

logger = logging.getLogger(__name__)


def take_word(view: QueryView, settings: Settings) -> Ask | WordsExhausted | None:
    """The word supply's next word as an ask (a frame word's list is read to its end), a note
    that no source has a word left, or None while the words stop
    (:func:`~deepcrawl.querying.schedule.words_stop`)."""
    words = view.words
    if words_stop(view.ledger, words, settings) is not None:
        return None
    word = words.next_query()
    if word is None:
        return WordsExhausted()
    whole = words.source_of(word) is WordSource.FRAME
    return Ask(word, max_pages=None if whole else view.max_pages, whole=whole)


class EmptyQuery(Rule):
    """A search that answers the empty query lists every record: it is asked once, as soon as
    the search is known to take it (first, for a form that does from the start; later, for a
    box searched as one types, once a plain-HTTP path to its lists is known), and read while
    its pages bring new records (a list of everything is read past the setup's pages)."""

    name = "empty-query"

    def decide(self, view: QueryView, settings: Settings) -> Ask | None:
        if view.accepts_empty and "" not in view.words.issued:
            return Ask("", max_pages=None)
        return None


class StopwordProbe(Rule):
    """Whether the search answers stop words, asked before any other word: a search that
    refuses them gets none."""

    name = "stopword-probe"

    def decide(self, view: QueryView, settings: Settings) -> Ask | None:
        if probes := view.words.stopword_probe_queries():
            return Ask(probes[0], max_pages=view.max_pages)
        return None


class FrameFirst(Rule):
    """A list of every record (the words every record page holds, as one query) is read before
    the lists cut short: their pages bring nothing after it."""

    name = "frame-first"

    def decide(self, view: QueryView, settings: Settings) -> Ask | WordsExhausted | None:
        ledger = view.ledger
        if not ledger.unfinished or ledger.deepening or not view.words.frame_due:
            return None
        return take_word(view, settings)


class CompleteCutList(Rule):
    """A list read to its end is a whole list: where the evidence of the lists read whole lacks
    one list, the cut list most records hold is read on to its end
    (:func:`~deepcrawl.querying.resume.completing_list`)."""

    name = "complete-a-list"

    def decide(self, view: QueryView, settings: Settings) -> Ask | None:
        if view.ledger.deepening or (cut := completing_list(view.ledger)) is None:
            return None
        word, skip, url, before = cut
        logger.info("query %r read on to its end: the stop's evidence lacks one list", word)
        resume = (url, skip + 1) if url is not None else None
        return Ask(
            word,
            max_pages=view.max_pages,
            reading=Reading.COMPLETE,
            skip=skip,
            resume=resume,
            threshold=0.0,
            before=before,
        )


class ReadOnCutLists(Rule):
    """A list a page cap cut short (the setup phase's) is read on where its total leaves
    records to find (:func:`~deepcrawl.querying.resume.reads_on`), from the page after those
    read where its pager names it; the others are dropped, their totals kept as the stop's
    evidence — all of them once a list read to its end holds every record known."""

    name = "read-on-cut-lists"

    def decide(self, view: QueryView, settings: Settings) -> Ask | ListsDropped | None:
        ledger = view.ledger
        listed = any(ids >= ledger.records for ids in ledger.complete.values())
        dropped: list[tuple[str, tuple[int, int] | None]] = []
        for word, skip in ledger.unfinished.items():
            url = ledger.resume_urls.get(word)
            if not listed and reads_on(ledger, settings, word, resumed=url is not None):
                if dropped:  # written down first: the read-on comes next
                    break
                resume = (url, skip + 1) if url is not None else None
                return Ask(
                    word,
                    max_pages=view.max_pages,
                    reading=Reading.READ_ON,
                    skip=skip,
                    resume=resume,
                    before=ledger.read_before.get(list_key(word), frozenset()),
                )
            why = (
                "a whole list holds every record known" if listed else "its total leaves too little"
            )
            logger.debug("list of %r not read on: %s", word, why)
            dropped.append((word, list_check(ledger, word)))
        return ListsDropped(tuple(dropped)) if dropped else None


class SplitCutLists(Rule):
    """A list the search cuts short is split by the form's own fields, one value a query,
    while its sub-lists pay (:mod:`~deepcrawl.querying.partition`).

    Args:
        settings: ``querying.partition_min_new``, the page caps.
        fields: the search's fields that split its lists (None: offered at the first round).
    """

    name = "split-cut-lists"

    def __init__(
        self, settings: Settings, fields: Mapping[str, Sequence[str]] | None = None
    ) -> None:
        self.partitioner = Partitioner(settings, fields)

    def offer(self, fields: Mapping[str, Sequence[str]]) -> None:
        """The search's fields, known once it is queried."""
        if self.partitioner.fields is None:
            self.partitioner.offer(fields)

    def decide(self, view: QueryView, settings: Settings) -> Ask | None:
        part = self.partitioner.next(view.ledger)
        if part is None:
            return None
        return Ask(
            part.word, max_pages=view.max_pages, reading=Reading.PART, threshold=0.0, part=part
        )

    def observe(self, event: Event, view: QueryView) -> None:
        if not isinstance(event, QueryEvent):
            return
        if (part := Part.of(event)) is not None:
            history = view.ledger.history
            new = history[-1].new if history and history[-1].query == event.word else 0
            self.partitioner.outcome(part, new, event.result_pages)
        else:
            self.partitioner.remember(event.word, event.values)


class NextWord(Rule):
    """The word supply's next word (:func:`take_word`), while the lists are not read again."""

    name = "next-word"

    def decide(self, view: QueryView, settings: Settings) -> Ask | WordsExhausted | None:
        return None if view.ledger.deepening else take_word(view, settings)


class DeepenLists(Rule):
    """Once the words are spent or saturated, the list whose total says it lacks the most
    records a request of a re-read is read again, past its pages read, while it is expected to
    bring ``querying.deepen_min_new`` (:mod:`~deepcrawl.querying.deepening`); a budget or
    errors end the deepening too."""

    name = DEEPEN_RULE

    def __init__(self) -> None:
        self.lists = Deepening()

    def decide(self, view: QueryView, settings: Settings) -> Ask | Verdict | DeepeningBegun | None:
        ledger = view.ledger
        reason = words_stop(ledger, view.words, settings)
        if not (ledger.deepening or reason in DEEPEN_AFTER):
            return None
        if reason is not None and reason not in DEEPEN_AFTER:
            return Verdict(str(reason))
        threshold = settings.querying.deepen_min_new
        chosen = None
        if threshold > 0:
            if not ledger.deepening:
                return DeepeningBegun()
            chosen = self.lists.next(ledger, settings, cap=view.cap, threshold=threshold)
        if chosen is None:
            # where the deepening was begun for the totals' few records lacking, their share is
            # the size's evidence, as their own rule gives it (it left the lists to this one)
            totals = checked_out(ledger, settings)
            evidence = (
                (totals.reason, totals.size)
                if totals is not None and totals.size is not None
                else ledger.deepened_for
            )
            return Verdict(
                f"{StopReason.SATURATED}; no result list read again ({ledger.deepened} were) is "
                f"expected to bring {threshold} records a request"
                + (f"; {evidence[0]}" if evidence else ""),
                size=evidence[1] if evidence else None,
            )
        word, skip = chosen
        return Ask(
            word, max_pages=view.max_pages, reading=Reading.DEEPEN, skip=skip, threshold=threshold
        )

    def observe(self, event: Event, view: QueryView) -> None:
        if isinstance(event, DeepeningBegun):
            self.lists.start(view.ledger)
        elif isinstance(event, QueryEvent) and view.ledger.deepening and view.ledger.kept:
            self.lists.push(view.ledger.kept)
