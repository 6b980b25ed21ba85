"""Folding one event: the ledger, the word supply and the rules learn it; the log keeps it.

The one path every event takes, live or read back from a log: what a resumed crawl's querying
knows is what the interrupted one's knew.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl.querying.events import ExamplesGiven, QueryEvent, RecordRead, RecordsReached
from deepcrawl.querying.rule import QueryView

if TYPE_CHECKING:
    from collections.abc import Sequence

    from deepcrawl.querying.events import Event
    from deepcrawl.querying.figures import EventLog
    from deepcrawl.querying.ledger import Ledger
    from deepcrawl.querying.rule import Rule
    from deepcrawl.querying.words import KeywordManager

__all__ = ["Fold"]


class Fold:
    """What one event changes (see the module docstring).

    Args:
        ledger: the facts.
        words: the word supply, which learns words from the queries' texts and the records'.
        rules: the rules, which keep state of their own from the events.
        log: where each event is kept (None: nowhere).
        probes: the stop-word probes (case-folded): once all are answered, the words are told
            whether the site accepts stop words.
    """

    def __init__(
        self,
        ledger: Ledger,
        words: KeywordManager,
        rules: Sequence[Rule],
        log: EventLog | None,
        probes: frozenset[str],
    ) -> None:
        self.ledger = ledger
        self.words = words
        self.rules = rules
        self.log = log
        self.probes = probes
        self.view = QueryView(ledger, words)
        """What the rules read as they observe an event (the loop's own limits aside)."""

    def __call__(self, event: Event, *, keep: bool = True) -> None:
        """Fold ``event``; ``keep``: the log keeps it (not one read back from it)."""
        ledger, words = self.ledger, self.words
        if isinstance(event, QueryEvent):
            # the text its pages showed, before the ledger has its answer: the word supply
            # tells an entry from an echo of the query by the answer before it
            blocks = [block for page in event.pages for block in page.blocks]
            words.learn_entries(event.word, blocks, empty=event.outcome == "no_results")
            words.mark_issued(event.word, event.source)
            ledger.apply(event)
            texts = event.record_texts()
            if event.word or texts:
                words.learn_texts(frozenset(texts), texts)
            if event.word.casefold() in self.probes:
                self.settle_probe()
        elif isinstance(event, RecordRead):
            if event.record in ledger.texts:
                return
            same = ledger.texts.min_length == words.settings.min_term_length
            ledger.apply(event)
            words.learn_record(event.text, event.terms if same else None)
        elif isinstance(event, RecordsReached):
            new = frozenset(event.records) - ledger.records
            ledger.apply(event)
            words.learn_texts(new, event.texts)
        elif isinstance(event, ExamplesGiven):
            words.add_examples(event.texts)
        else:
            ledger.apply(event)
        for rule in self.rules:
            rule.observe(event, self.view)
        if keep and self.log is not None:
            self.log.append(event)

    def settle_probe(self) -> None:
        """Once the stop-word probes are answered, tell the words: the site accepts stop words
        if any of them found a record."""
        words = self.words
        if words.stopwords_accepted is None and not words.stopword_probe_queries():
            answered = (o for o in self.ledger.history if o.query.casefold() in self.probes)
            words.record_stopword_probe(any(o.results for o in answered))
