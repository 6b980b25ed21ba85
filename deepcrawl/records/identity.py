"""A record's identity from the evidence of its page, not only from its URL.

The frontier keys a wanted URL by its normal form, without the parameters listed or learnt to be
no part of it (sessions, tracking, the query's echo: :mod:`deepcrawl.records.session_params`).
What a URL cannot say, the fetched page can:

1. its canonical URL — ``<link rel="canonical">`` in the page's head, else the HTTP ``Link``
   header's ``rel="canonical"`` (RFC 6596) — believed only in the crawl's scope, and only where
   it names the same page (the page's URL less some query items: a site naming its home page
   as every page's canonical is not believed), or a stored record whose text it shares;
2. the fingerprint of its main text (:func:`~deepcrawl.querying.main_text`, the words
   case-folded and hashed), the final check: a page with the words of a record stored before
   is that record.

A page found to be a record stored before is stored as a ``duplicate`` (so it is neither fetched
nor delivered again) and its URL and the record's are a pair of evidence for the rewrite rules
of Koppula et al. (*Learning URL patterns for webpage de-duplication*, WSDM 2010): a query
parameter that the duplicates' URLs carry and the record's lacks, under several values and never
otherwise, is learnt to be no part of any URL (:class:`DroppedParams`), and later links are
judged without it before any download.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol
from urllib.parse import unquote_plus

from deepcrawl.page.html import join_url
from deepcrawl.urls import split_query

if TYPE_CHECKING:
    from collections.abc import Callable

    from lxml.html import HtmlElement

    from deepcrawl.page.fetched import FetchedPage

__all__ = [
    "CANONICAL_LEARN_VALUES",
    "FINGERPRINT_MIN_WORDS",
    "DroppedParams",
    "Identities",
    "Identity",
    "RecordContext",
    "canonical_link",
    "extra_items",
    "fingerprint",
    "query_items",
]

#: Words a page's main text needs before its fingerprint may say it shows a record stored before
#: under another URL: a stub (an error page, a login wall) says too little.
FINGERPRINT_MIN_WORDS = 20
#: Values of a query parameter seen added to a record's own URL (its canonical link, or a record
#: stored before) before the parameter is learnt to be no part of any URL.
CANONICAL_LEARN_VALUES = 3

#: ``<url>; rel="canonical"`` in a ``Link`` header (RFC 8288), one of its comma-separated links.
_LINK = re.compile(r"<([^>]*)>\s*((?:;\s*[^;,]*)*)")
_REL_CANONICAL = re.compile(r"""(?:^|;)\s*rel\s*=\s*"?(?:[^";,]*\s)?canonical[\s";]""", re.I)


def canonical_link(page: FetchedPage) -> str | None:
    """The URL the page names as its canonical one (absolute, as written), or None."""
    if page.is_html and "canonical" in page.body.lower():  # most pages name none: no walk
        root = page.root()
        if root is not None:
            for link in root.iterfind(".//link[@rel][@href]"):
                rel = link.get("rel", "").lower().split()
                href = (link.get("href") or "").strip()
                if "canonical" in rel and href:
                    return join_url(page.final_url or page.url, href)
    header = page.headers.get("link", "")
    for match in _LINK.finditer(header):
        if _REL_CANONICAL.search(match.group(2) + ";") and match.group(1).strip():
            return join_url(page.final_url or page.url, match.group(1).strip())
    return None


def fingerprint(text: str, *, min_words: int) -> str | None:
    """The fingerprint of a main text: its words case-folded, hashed; None for a text of fewer
    than ``min_words`` words (a stub says too little to tell two records apart)."""
    words = text.casefold().split()
    if len(words) < max(1, min_words):
        return None
    return hashlib.blake2b(" ".join(words).encode(), digest_size=16).hexdigest()


def query_items(url: str) -> tuple[str, list[str]]:
    """A normal form's head (scheme, host, path) and its query items (``name=value``)."""
    head, _mark, query = url.partition("?")
    return head, [item for item in split_query(query)[0] if item]


def extra_items(url: str, record: str) -> list[str] | None:
    """The query items ``url`` carries beyond those of ``record`` when it is ``record`` with
    items added (same head, every item of ``record`` kept); None otherwise."""
    head, items = query_items(url)
    record_head, record_items = query_items(record)
    if head != record_head:
        return None
    extra = list(items)
    for item in record_items:
        if item not in extra:
            return None
        extra.remove(item)
    return extra


@dataclass(frozen=True)
class Identity:
    """What a fetched page says of the record it shows.

    Attributes:
        canonical: its canonical URL (the crawl's key of it), when believed and not the
            page's own key.
        fingerprint: its main text's fingerprint (None for a stub).
        text: its main text, the fingerprint's source (empty for a page that is not HTML):
            the query loop indexes the same words, and a page's text is computed once.
    """

    canonical: str | None
    fingerprint: str | None
    text: str = ""


class DroppedParams:
    """Learn the query parameters duplicates carry and their records lack (see the module
    docstring).

    Args:
        min_values: distinct values a name is seen dropped under before it is learnt.
    """

    def __init__(self, *, min_values: int = 3) -> None:
        self.min_values = max(1, min_values)
        self.refuted: set[str] = set()
        """Names a record's own URL kept, or a page under them had no better URL: never
        learnt."""
        self._values: defaultdict[str, set[str]] = defaultdict(set)

    def refute(self, url: str, name: Callable[[str], str]) -> None:
        """A page under ``url`` is a record of its own: its parameters are part of it."""
        for item in query_items(url)[1]:
            key = name(item.partition("=")[0])
            self.refuted.add(key)
            self._values.pop(key, None)

    def observe(self, url: str, record: str, name: Callable[[str], str]) -> set[str]:
        """``url`` showed the record stored under ``record``; returns the names learnt now
        (``name`` spells a query item's name as stored)."""
        extra = extra_items(url, record)
        if extra is None:
            return set()
        learnt: set[str] = set()
        for item in extra:
            key, _eq, value = item.partition("=")
            key = name(key)
            if key in self.refuted:
                continue
            self._values[key].add(value)
            if len(self._values[key]) >= self.min_values:
                learnt.add(key)
                del self._values[key]
                self.refuted.add(key)  # learnt once
        return learnt


class StoredRecords(Protocol):
    """The records a crawl stored, looked up by the evidence of a page."""

    def stored_record(self, canonical_url: str | None, fingerprint: str | None) -> str | None:
        """The key of a record stored under ``canonical_url`` or with ``fingerprint``."""
        ...


class ParamLearner(Protocol):
    """Where the crawl learns the query parameters that are no part of a URL."""

    def learn(self, names: set[str], why: str) -> set[str]:
        """Learn ``names`` (``why``: the evidence); returns those new to the crawl."""
        ...


class RecordContext(Protocol):
    """What a record's identity asks of its crawl: its scope, the records it stored, and where
    the parameters learnt to be no part of a URL go (a crawl's context is one)."""

    @property
    def state(self) -> StoredRecords:
        """The crawl's stored records."""
        ...

    @property
    def sessions(self) -> ParamLearner:
        """The parameters the crawl learnt to be no part of a URL."""
        ...

    def in_scope(self, url: str) -> bool:
        """Whether ``url`` is in the crawl's scope."""
        ...


class Identities:
    """The record identity of the crawl's fetched pages (see the module docstring).

    Args:
        ctx: the crawl's context (its scope, its stored records, its learnt parameters).
        key: the frontier's key of a URL (its normal form less the parameters that are no
            part of it), None when it cannot be read.
        main_text: the main text of a parsed page (:meth:`FetchedPage.root
            <deepcrawl.page.fetched.FetchedPage.root>`; None: no text).
    """

    def __init__(
        self,
        ctx: RecordContext,
        key: Callable[[str], str | None],
        main_text: Callable[[HtmlElement | None], str],
    ) -> None:
        self.ctx = ctx
        self.key = key
        self.main_text = main_text
        self.min_words = FINGERPRINT_MIN_WORDS
        self.rules = DroppedParams(min_values=CANONICAL_LEARN_VALUES)

    def of(self, url: str, page: FetchedPage) -> Identity:
        """What ``page``, fetched for the key ``url``, says of its record."""
        canonical = None
        if (link := canonical_link(page)) is not None and self.ctx.in_scope(link):
            key = self.key(link)
            if key is not None and key != url and extra_items(url, key) is not None:
                canonical = key
        text = self.main_text(page.root())
        return Identity(canonical, fingerprint(text, min_words=self.min_words), text)

    def stored(self, url: str, identity: Identity) -> str | None:
        """The key of the record stored before that the page under ``url`` shows, or None."""
        found = self.ctx.state.stored_record(identity.canonical, identity.fingerprint)
        return None if found == url else found

    def judge(
        self, url: str, page: FetchedPage, identity: Identity | None = None
    ) -> tuple[Identity, str | None]:
        """What ``page``, fetched for the key ``url``, says of its record (``identity``, when
        read already with :meth:`of`), and the key of the record stored before that it shows
        (None: a record of its own); learnt from."""
        if identity is None:
            identity = self.of(url, page)
        record = self.stored(url, identity)
        self.learn(url, identity, record)
        return identity, record

    def learn(self, url: str, identity: Identity, record: str | None) -> set[str]:
        """Learn from the page under ``url``: its record's own URL (its canonical URL, else
        the key of the record stored before, else ``url``) keeps its parameters; those ``url``
        adds to it are evidence (:class:`DroppedParams`). Returns the names learnt."""
        own = identity.canonical or record or url
        if own != url and extra_items(url, own) is None:
            return set()  # the same text under an unrelated URL: no rule in it
        self.rules.refute(own, _stored_name)
        if own == url:
            return set()
        names = self.rules.observe(url, own, _stored_name)
        return self.ctx.sessions.learn(names, "the record's own URL lacks them") if names else set()


def _stored_name(name: str) -> str:
    """A query item's name as the learnt parameters are stored: decoded, lower case."""
    return (unquote_plus(name) if "%" in name or "+" in name else name).lower()
