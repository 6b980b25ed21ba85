"""Session parameters learnt from the responses: names nobody listed whose value changes on
every response.

The URL normal form drops the session parameters everybody knows (``jsessionid``, ``PHPSESSID``
…: :data:`~deepcrawl.urls.SESSION_PARAMS`). A site may carry its session under any name, and
then links one record under a new URL on every page: the crawl would fetch and deliver it again
and again.
:class:`LearntSessions` watches the links of each response — a result page, a record page — for
a parameter that

* has one id-like value (:data:`~deepcrawl.urls.SESSION_VALUE_MIN_LENGTH` characters or more,
  not a number) in every link of the page that carries it: a session, not a page number or a sort
  order, whose values differ from link to link (such a name is never learnt); and
* links the same URL (the link without it) under another value on another response,
  :data:`SESSION_LEARN_LINKS` links over.

The parameters whose value echoes the submitted query are learnt beside them, from each query's
result entries (:class:`~deepcrawl.records.echoes.QueryEchoes`), and dropped whatever their
value; so are those the record pages' canonical links drop (:meth:`LearntSessions.learn`).

Such a name is learnt for the rest of the crawl: stored (a resumed crawl and the workers know
it), and dropped from every URL before the classifier sees it and the frontier keys it
(:meth:`LearntSessions.drop`); the links judged before are judged again (the listeners: a link
of a kind not wanted under its old spelling may be wanted now), and a URL queued under its old
key is fetched under the new one.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from typing import TYPE_CHECKING, Protocol
from urllib.parse import unquote_plus

from deepcrawl.errors import InvalidURLError
from deepcrawl.records.echoes import QueryEchoes
from deepcrawl.urls import SessionParams, URLNormaliser, drop_session_params, split_query

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

__all__ = ["ECHO_LEARN_LINKS", "SESSION_LEARN_LINKS", "LearntSessions", "PagedLink", "url_params"]

#: Links seen under two values of a parameter before it is learnt as a session's: one link could
#: be a coincidence (a record linked with two sort orders).
SESSION_LEARN_LINKS = 2
#: Result links carrying their query's words in a parameter (to two records or more, one listed
#: by two queries) before it is learnt to echo the query: no part of a record's URL.
ECHO_LEARN_LINKS = 3

logger = logging.getLogger(__name__)

#: (name, link) pairs remembered at most (their values and responses); then forgotten, oldest
#: first: a session shows on the links of every page, and is learnt long before.
_REMEMBERED = 200_000


class PagedLink(Protocol):
    """A link of a result list and the result page it was on (a ``search.results.ResultLink``)."""

    @property
    def url(self) -> str: ...

    @property
    def page(self) -> int: ...

    @property
    def role(self) -> str: ...


def url_params(url: str) -> Iterator[tuple[str, str, str]]:
    """The parameters of a normal form: ``(name in lower case, value, the URL without it)``,
    for its query items and its path parameters (``;name=value`` in a segment)."""
    head, mark, query = url.partition("?")
    if mark:
        items, separator = split_query(query)
        for n, item in enumerate(items):
            name, eq, value = item.partition("=")
            if eq:
                rest = separator.join(items[:n] + items[n + 1 :])
                yield name.lower(), value, head + ("?" + rest if rest else "")
    if ";" not in head:
        return
    start = head.find("/", head.find("://") + 3)
    for at in (n for n, char in enumerate(head) if char == ";" and n > start > 0):
        end = min((i for i in (head.find(";", at + 1), head.find("/", at + 1)) if i > 0),
                  default=len(head))  # fmt: skip
        name, eq, value = head[at + 1 : end].partition("=")
        if eq:
            yield name.lower(), value, head[:at] + head[end:] + mark + query


def _decoded_params(url: str) -> Iterator[tuple[str, str, str]]:
    """:func:`url_params` with each name decoded (``s%5b%5d`` -> ``s[]``), as stored."""
    for name, value, rest in url_params(url):
        yield (unquote_plus(name) if "%" in name or "+" in name else name), value, rest


class LearntSessions:
    """The session parameters a crawl learnt (see the module docstring).

    Args:
        names: the names learnt before (stored by an earlier run or another process).
        anyway: the names learnt before to be dropped whatever their value.
        store: called with the names learnt from a response and whether they are dropped
            whatever their value (``anyway``), to keep them.
        learn: learn names at all (off: only ``names`` and ``anyway`` are dropped).
    """

    def __init__(
        self,
        names: Iterable[str] = (),
        *,
        anyway: Iterable[str] = (),
        store: Callable[..., None] | None = None,
        learn: bool = True,
    ) -> None:
        self.enabled = learn
        self.min_links = SESSION_LEARN_LINKS
        self.sessions = SessionParams(names, anyway=anyway)
        self.echoes = QueryEchoes(_decoded_params, min_links=ECHO_LEARN_LINKS)
        self.store = store
        self.listeners: list[Callable[[set[str]], None]] = []
        """Called with the names learnt from a response, after ``store``: what the crawl
        decided before under them is to be decided again."""
        self._normalise = URLNormaliser()
        self._varied: set[str] = set()  # names with two values on one response: no session
        self._last: dict[tuple[str, str], tuple[int, str]] = {}  # (name, link) -> (response, value)
        self._evidence: defaultdict[str, set[str]] = defaultdict(set)
        self._responses = 0

    @property
    def names(self) -> frozenset[str]:
        """The names learnt (lower case), both kinds."""
        return self.sessions.names | self.sessions.anyway

    def know(self, names: Iterable[str], *, anyway: Iterable[str] = ()) -> None:
        """Take names learnt elsewhere (another process of the crawl)."""
        if added := {name.lower() for name in names} - self.sessions.names:
            self.sessions.names = self.sessions.names | added
        if added := {name.lower() for name in anyway} - self.sessions.anyway:
            self.sessions.anyway = self.sessions.anyway | added

    def drop(self, url: str) -> str:
        """``url`` (a normal form) without the learnt session parameters."""
        return drop_session_params(url, self.sessions) if self.sessions else url

    def learn(self, names: set[str], why: str) -> set[str]:
        """Learn ``names`` to be no part of a URL whatever their value (``why``: the evidence,
        logged); returns those new to the crawl. Stored, and the listeners told."""
        names = {name.lower() for name in names} - self.sessions.anyway
        if not names or not self.enabled:
            return set()
        self.know((), anyway=names)
        logger.info("learnt parameters that are no part of a URL: %s (%s)",
                    ", ".join(sorted(names)), why)  # fmt: skip
        if self.store is not None:
            self.store(names, anyway=True)
        for listener in self.listeners:
            listener(names)
        return names

    def observe(self, links: Iterable[str]) -> set[str]:
        """Learn from the links of one response (any spelling); returns the names learnt."""
        if not self.enabled:
            return set()
        self._responses += 1
        seen: list[tuple[str, str, str]] = []
        values: defaultdict[str, set[str]] = defaultdict(set)
        for link in links:
            if "?" not in link and ";" not in link:  # nearly every link: nothing to learn
                continue
            try:
                normal = self._normalise(link)
            except InvalidURLError:
                continue
            for name, value, rest in _decoded_params(normal):
                if name in self._varied or name in self.names:
                    continue
                if self.sessions.min_length <= len(value) and not value.isdigit():
                    values[name].add(value)
                    seen.append((name, rest, value))
                else:
                    values[name].add("")  # an id's or a page number's value: no session
        self._varied |= {name for name, found in values.items() if len(found) > 1}
        return self._weigh(seen)

    def observe_result(
        self, links: Iterable[PagedLink], keyword: str = "", submitted: Iterable[str] = ()
    ) -> set[str]:
        """Learn from a query's result links, each result page one response, and from its
        result entries the parameters that echo ``keyword`` (none of those of the result
        pages' own URLs, ``submitted``: the search's fields)."""
        pages: defaultdict[int, list[str]] = defaultdict(list)
        entries: list[str] = []
        for link in links:
            pages[link.page].append(link.url)
            if link.role == "result":
                entries.append(link.url)
        learnt = {name for page in sorted(pages) for name in self.observe(pages[page])}
        if self.enabled and keyword and entries:
            echoes = self.echoes.observe(keyword, self._normal(entries), self._normal(submitted))
            learnt |= self.learn(echoes, "their value echoes the query")
        return learnt

    def _normal(self, urls: Iterable[str]) -> Iterator[str]:
        for url in urls:
            try:
                yield self.drop(self._normalise(url))
            except InvalidURLError:
                continue

    def _weigh(self, seen: list[tuple[str, str, str]]) -> set[str]:
        if len(self._last) > _REMEMBERED:
            self._last.clear()
        for name, rest, value in seen:
            if name in self._varied:
                continue
            before = self._last.get((name, rest))
            if before is not None and before[0] != self._responses and before[1] != value:
                self._evidence[name].add(rest)
            self._last[(name, rest)] = (self._responses, value)
        learnt = {
            name
            for name, links in self._evidence.items()
            if len(links) >= self.min_links and name not in self._varied
        }
        if learnt:
            for name in learnt:
                del self._evidence[name]
            self.know(learnt)
            logger.info("learnt session parameters: %s (a new value on every response)",
                        ", ".join(sorted(learnt)))  # fmt: skip
            if self.store is not None:
                self.store(learnt)
            for listener in self.listeners:
                listener(learnt)
        return learnt
