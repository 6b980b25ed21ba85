"""Parameters whose value echoes the submitted query: no part of a record's identity.

Many searches link each result with the words that found it (``page?id=topic&s[]=word``,
``?highlight=word``), so that the record page can mark them: every query then names the same
records under new URLs, and each would be fetched, delivered and counted again. Such a parameter
is learnt across queries, from the result entries alone (a pager's or a menu's links may carry
the query for good reason: the next page of the list *is* another page): a name is learnt when

* on the result entries of queries, its value is made of the query's words, on
  ``min_links`` links at least (a record listed by two queries counts twice);
* the links without it name two records at least (it rides on the records' own identity, it
  is none — a list of tags, ``/tag?name=word``, is one URL a query);
* one record at least was listed by two queries, each time under its query's words — the
  value changes with the query while the record does not;
* it never held a value that is not the query's words (``id=start`` found by the word
  "start" is no echo: the other ids are not);
* and it is none of the search's own fields: a link carrying the query in the field the form
  submits it in (``?_search=word&_sort=name``) is another search, not a record's highlight.

Koppula et al., *Learning URL patterns for webpage de-duplication* (WSDM 2010), learn such
rewrite rules from clusters of duplicates; the queries give the clusters here for free.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import TYPE_CHECKING
from urllib.parse import unquote_plus

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

__all__ = ["QueryEchoes"]

_WORD = re.compile(r"\w+")

#: Records remembered a name at most (their echoed values); a name is learnt long before.
_REMEMBERED = 50_000


def words_of(text: str) -> frozenset[str]:
    """The words of ``text`` (case-folded)."""
    return frozenset(_WORD.findall(text.casefold()))


class QueryEchoes:
    """Learn the parameters that echo the query (see the module docstring).

    Args:
        params: splits a normal form into ``(name, value, the URL without it)`` triples.
        min_links: result links carrying their query's words before a name is learnt.
    """

    def __init__(
        self, params: Callable[[str], Iterator[tuple[str, str, str]]], *, min_links: int = 2
    ) -> None:
        self.params = params
        self.min_links = max(1, min_links)
        self.refuted: set[str] = set()
        """Names seen with a value that is not the query's words: never learnt."""
        self._values: defaultdict[str, dict[str, set[frozenset[str]]]] = defaultdict(dict)

    def observe(self, keyword: str, urls: Iterable[str], searched: Iterable[str] = ()) -> set[str]:
        """Learn from the result entries (normal forms) of the query ``keyword``, submitted as
        the URLs ``searched`` (its result pages' URLs); returns the names learnt now."""
        query = words_of(keyword)
        if not query:
            return set()
        for url in searched:  # the search's own fields carry the query: no echo
            for name, value, _rest in self.params(url):
                if words_of(unquote_plus(value)) & query:
                    self.refuted.add(name)
                    self._values.pop(name, None)
        learnt: set[str] = set()
        for url in urls:
            for name, value, rest in self.params(url):
                if name in self.refuted:
                    continue
                echoed = words_of(unquote_plus(value))
                if not echoed or not echoed <= query:
                    self.refuted.add(name)
                    self._values.pop(name, None)
                    continue
                records = self._values[name]
                if len(records) < _REMEMBERED or rest in records:
                    records.setdefault(rest, set()).add(query)
        for name, records in self._values.items():
            if name in self.refuted or len(records) < 2:
                continue
            links = sum(len(queries) for queries in records.values())
            if links >= self.min_links and any(len(q) > 1 for q in records.values()):
                learnt.add(name)
        for name in learnt:
            del self._values[name]
            self.refuted.add(name)  # learnt once
        return learnt
