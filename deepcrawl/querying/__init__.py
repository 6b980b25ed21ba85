"""Querying a search form to its end: what the crawl learnt, and the rules that decide.

The loop is pick a word → query → record in the ledger → ask the rules; every rule reads the
ledger and decides, and nothing but the loop writes it:

* :mod:`~deepcrawl.querying.ledger` — :class:`Ledger`, the facts: queries and their answers,
  records known and which queries caught them, the lists read and how far, the fetched
  records' words (:mod:`~deepcrawl.querying.texts`);
* :mod:`~deepcrawl.querying.words` — :class:`KeywordManager`, which word next, from the sources
  of words in order;
* :mod:`~deepcrawl.querying.schedule` — when a source of words is spent and the next is tried
  (:mod:`~deepcrawl.querying.saturation`: the evidence of saturation);
* :mod:`~deepcrawl.querying.paging` — :class:`ListReader`, read a list's next page?;
  :mod:`~deepcrawl.querying.resume` — read on a list the setup phase cut short, and from where;
* :mod:`~deepcrawl.querying.deepening` — which list to read again once the words are spent;
* :mod:`~deepcrawl.querying.stops` — when the querying stops, each rule a pure function
  returning a :class:`Verdict`; :mod:`~deepcrawl.querying.runaway` — when a crawl caught in a
  trap stops whatever a record's identity says (pages repeating content fetched before,
  deliveries far past the estimate);
* :mod:`~deepcrawl.querying.loop` — :class:`QueryLoop`, the one loop that asks them in order.
"""

from deepcrawl.querying.ledger import Ledger, ListRead, SourceRecord
from deepcrawl.querying.loop import QueryFigures, QueryLoop, QueryStore
from deepcrawl.querying.paging import ListReader
from deepcrawl.querying.resume import resume_url
from deepcrawl.querying.stops import Verdict
from deepcrawl.querying.texts import KnownTexts, main_text
from deepcrawl.querying.words import KeywordManager, make_policy

__all__ = [
    "KeywordManager",
    "KnownTexts",
    "Ledger",
    "ListRead",
    "ListReader",
    "QueryFigures",
    "QueryLoop",
    "QueryStore",
    "SourceRecord",
    "Verdict",
    "main_text",
    "make_policy",
    "resume_url",
]
