"""Querying a search form to its end: what the crawl learnt, and the rules that decide.

The flow, one round after every query::

    rules (querying.rules, in order) ──► Ask: word, how far, why
        ▲                                 │  search backend: submit, read pages while they pay
        │                                 ▼                  (paging.ListReader)
    view (read only) ◄── ledger ◄── QueryEvent (+ the fetch side's events: texts, links)
                                      │
                                      └──► event log (a resumed crawl folds it back)

* :mod:`~deepcrawl.querying.events` — what is learnt, as events; :mod:`~deepcrawl.querying.ledger`
  — :class:`Ledger`, the facts, folded from them (:meth:`Ledger.apply`, its one writer);
  :mod:`~deepcrawl.querying.view` — the ledger as the rules read it;
* :mod:`~deepcrawl.querying.rule` — the rule contract (:class:`Rule`: ``decide(view, settings)``
  → an :class:`Ask`, a :class:`Verdict`, a note or None); :mod:`~deepcrawl.querying.registry` —
  the rules by name; the rules themselves: :mod:`~deepcrawl.querying.reading` (which list to
  read next), :mod:`~deepcrawl.querying.stops` (when to stop), :mod:`~deepcrawl.querying.schedule`
  (when a source of words is spent), :mod:`~deepcrawl.querying.runaway` (a crawl in a trap);
* :mod:`~deepcrawl.querying.paging` — :class:`ListReader`, read a list's next page?;
  :mod:`~deepcrawl.querying.words` — :class:`KeywordManager`, the word supply;
  :mod:`~deepcrawl.querying.size` — the size the crawl reports;
* :mod:`~deepcrawl.querying.loop` — :class:`QueryLoop`, the one loop.
"""

from deepcrawl.querying.events import Event, QueryEvent, event_from_dict, event_to_dict
from deepcrawl.querying.figures import EventLog, QueryFigures, QueryStore
from deepcrawl.querying.ledger import Ledger
from deepcrawl.querying.lists import ListRead
from deepcrawl.querying.loop import QueryLoop
from deepcrawl.querying.paging import ListReader
from deepcrawl.querying.resume import resume_url
from deepcrawl.querying.rule import Ask, QueryView, Rule
from deepcrawl.querying.schedule import SourceRecord
from deepcrawl.querying.texts import KnownTexts, main_text
from deepcrawl.querying.verdict import Verdict
from deepcrawl.querying.view import LedgerView
from deepcrawl.querying.words import KeywordManager, make_policy

__all__ = [
    "Ask",
    "Event",
    "EventLog",
    "KeywordManager",
    "KnownTexts",
    "Ledger",
    "LedgerView",
    "ListRead",
    "ListReader",
    "QueryEvent",
    "QueryFigures",
    "QueryLoop",
    "QueryStore",
    "QueryView",
    "Rule",
    "SourceRecord",
    "Verdict",
    "event_from_dict",
    "event_to_dict",
    "main_text",
    "make_policy",
    "resume_url",
]
