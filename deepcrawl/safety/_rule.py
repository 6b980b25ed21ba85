"""The request rule: may the crawler ask for this URL, reached through this link text?

Every way deepcrawl issues a request — the link strategies, entry-point discovery, the
``--navigate`` phase, JS probing (the elements it clicks, the requests and popups a click
starts) — asks :meth:`SafetyRule.reason` first. A URL is judged by the words of its path, of
its query (keys and values) and of the text of the link or element that leads to it:

* text is split into words at punctuation, ``/-_.``, camelCase and letter/digit boundaries,
  case-folded and stripped of accents (``Log-Out`` → ``log out``, ``löschen`` → ``loschen``);
* each word is stemmed by a light stemmer per language that strips inflections only (plural,
  gender, infinitive endings), so ``carts`` is ``cart`` while ``cartography`` and ``removed``
  stay themselves — a list of removed books is a page, ``/remove`` is an action;
* an entry of :data:`~deepcrawl.safety._words.UNSAFE_ACTIONS` (or of the caller's extra words)
  matches as consecutive stemmed words of one language's list; ``/account/close`` is
  ``account close``.

Not judged: the host (the scope decides on hosts); the query keys that sort a list and their
values (``?order=asc``); the values of free-text keys (``?q=delete`` searches for the word);
phrases that name no action (``order by``).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import TYPE_CHECKING, Final, Literal
from urllib.parse import unquote, unquote_plus, urlsplit

from deepcrawl.safety._words import FREE_TEXT_KEYS, NOT_ACTIONS, SORT_KEYS, UNSAFE_ACTIONS

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence

__all__ = ["SafetyRule", "Sender", "words"]

#: Who sends a request, which decides how :meth:`SafetyRule.request_reason` judges it:
#:
#: * ``crawler`` — a URL the crawl chose to fetch (a link it follows, a sitemap, a sample);
#: * ``page`` — a page loading what it is made of, or a navigation the crawler started
#:   (rendering a URL, submitting a form the critic accepted, turning its result pages);
#: * ``script`` — a page's script asking on its own (fetch, XHR, beacon, event source, socket);
#: * ``probe`` — anything a page sends once JavaScript link probing has touched it (clicks and
#:   hovers of the crawler's making, and whatever they set off, however late).
Sender = Literal["crawler", "page", "script", "probe"]

_BOUNDARY = re.compile(r"(?<=[^\W\d_])(?=\d)|(?<=\d)(?=[^\W\d_])|(?<=[a-z])(?=[A-Z])")
_SPLIT = re.compile(r"[\W_]+")
#: Inflectional endings each stemmer strips (the first that fits, longest listed first).
_SUFFIXES: Final[dict[str, tuple[str, ...]]] = {
    "en": ("s",),
    "de": ("en", "e", "n", "s"),
    "fr": ("s", "x"),
    "es": ("es", "s"),
    "it": ("a", "e", "i", "o"),
    "pt": ("es", "s"),
    "nl": ("en", "s"),
}
#: Endings that look like a plural ``s`` but are not one (``business``, ``bus``, ``this``).
_NOT_PLURAL: Final = ("ss", "us", "is")
#: Shortest stem left; Italian's vowel endings need one more letter (``page`` is no ``paga``).
_MIN_STEM: Final[dict[str, int]] = {"it": 4}
_CACHE_SIZE = 65536


def words(text: str) -> list[str]:
    """The words of ``text``: split at punctuation, camelCase and digits, case-folded, accents
    stripped (``btnLogOut`` → ``["btn", "log", "out"]``)."""
    text = unicodedata.normalize("NFKD", _BOUNDARY.sub(" ", text).casefold())
    text = "".join(c for c in text if not unicodedata.combining(c))
    return [w for w in _SPLIT.split(text) if w]


@lru_cache(maxsize=65536)
def _stem(word: str, language: str) -> str:
    for suffix in _SUFFIXES[language]:
        if word.endswith(suffix) and len(word) - len(suffix) >= _MIN_STEM.get(language, 3):
            if suffix == "s" and word.endswith(_NOT_PLURAL):
                return word
            return word[: -len(suffix)]
    return word


def _phrase_spans(toks: Sequence[str], phrases: Iterable[tuple[str, ...]]) -> set[int]:
    """Positions of ``toks`` covered by one of ``phrases`` (exact words)."""
    covered: set[int] = set()
    for phrase in phrases:
        size = len(phrase)
        for start in range(len(toks) - size + 1):
            if tuple(toks[start : start + size]) == phrase:
                covered.update(range(start, start + size))
    return covered


_SEPARATORS = re.compile(r"[&;]")


def _params(query: str) -> list[tuple[str, str]]:
    """A query's parameters decoded, split at every ``;`` as at ``&``: a server may read ``;``
    as ``&`` (CGI does), so ``q=word;a=delete`` may ask for a deletion. Never less strict
    than the crawl's own reading (:func:`deepcrawl.urls.split_query`, one floor up: a ``;``
    that is part of a value there is one more parameter here)."""
    pairs = []
    for item in _SEPARATORS.split(query):
        if item:
            key, _eq, value = item.partition("=")
            pairs.append((unquote_plus(key), unquote_plus(value)))
    return pairs


class SafetyRule:
    """Judges requests before they are sent (see the module docstring).

    Args:
        extra_words: words and phrases refused on top of the built-in lists, matched in every
            language (``settings.forms.refused_words`` for forms, for instance).
        trusted: URLs exempt from the rule — the records of a kind the user labelled as wanted,
            whose path holds the record's title (``/2024/03/15/the-order-of-things``) and whose
            link text *is* the title. None: none.
    """

    def __init__(
        self, extra_words: Iterable[str] = (), *, trusted: Callable[[str], bool] | None = None
    ) -> None:
        self.extra_words = tuple(extra_words)
        self.trusted = trusted
        self._index: dict[str, dict[str, list[tuple[tuple[str, ...], str]]]] = {}
        for language, entries in UNSAFE_ACTIONS.items():
            index = self._index.setdefault(language, {})
            for entry in (*entries, *self.extra_words):
                stems = tuple(_stem(w, language) for w in words(entry))
                known = index.setdefault(stems[0], []) if stems else []
                if stems and all(stems != other for other, _ in known):
                    known.append((stems, entry))
        self._not_actions = tuple(tuple(words(p)) for p in NOT_ACTIONS)
        # The same paths, query pairs and link texts come back on every page of a site.
        self._first = lru_cache(maxsize=_CACHE_SIZE)(self._first_match)

    def with_trusted(self, trusted: Callable[[str], bool]) -> SafetyRule:
        """The same rule, exempting the URLs ``trusted`` accepts."""
        return SafetyRule(self.extra_words, trusted=trusted)

    def text_reason(self, text: str) -> str | None:
        """The first refused word or phrase ``text`` holds (as listed), or None."""
        return next(self._matches(words(text)), None)

    def text_matches(self, text: str) -> list[str]:
        """Every refused word or phrase ``text`` holds (as listed), in order, once each."""
        return list(dict.fromkeys(self._matches(words(text))))

    def url_reason(self, url: str) -> str | None:
        """The refused word or phrase in ``url``'s path or query (as listed), or None.

        A URL that does not parse gives None: it cannot be requested either. Its query is read
        at every ``;`` as at ``&`` (:func:`_params`).
        """
        try:
            parts = urlsplit(url)
        except ValueError:
            return None
        found = self._match(words(unquote(parts.path)))
        if found:
            return found
        for key, value in _params(parts.query):
            name = "".join(words(key))
            if key.casefold() in SORT_KEYS or name in SORT_KEYS:
                continue
            value_words = [] if key.casefold() in FREE_TEXT_KEYS else words(value)
            if found := self._match([*words(key), *value_words]):
                return found
        return None

    def reason(self, url: str, text: str = "") -> str | None:
        """Why the request for ``url`` (through a link or element reading ``text``) is refused:
        ``"reads as 'log out'"``; None when it may be sent."""
        if self.trusted is not None and self.trusted(url):
            return None
        if found := self.url_reason(url):
            return f"reads as {found!r}"
        if text and (found := self.text_reason(text)):
            return f"link text reads as {found!r}"
        return None

    def request_reason(self, url: str, *, method: str = "GET", sender: Sender) -> str | None:
        """Why a request ``sender`` sends for ``url`` with ``method`` is refused, None when it
        may go out.

        A probed page sends GETs only, each judged by its URL: a click may submit or post,
        and what it sets off may come after the probe. A script's request and a URL the crawl
        chose are judged by their URL, whatever the method (a script's POST may be the search
        itself). What a page loads, and a navigation the crawler started, are not judged here:
        the page is judged before it is asked for, a form before it is submitted.
        """
        if sender == "probe" and method != "GET":
            return f"a probed page sends no {method}"
        if sender == "page":
            return None
        return self.reason(url)

    def allows(self, url: str, text: str = "") -> bool:
        """True when the request for ``url`` (through ``text``) may be sent."""
        return self.reason(url, text) is None

    def _match(self, toks: Sequence[str]) -> str | None:
        return self._first(tuple(toks))

    def _first_match(self, toks: tuple[str, ...]) -> str | None:
        return next(self._matches(toks), None)

    def _matches(self, toks: Sequence[str]) -> Iterator[str]:
        if not toks:
            return
        masked: set[int] | None = None
        for language, index in self._index.items():
            stems = [_stem(t, language) for t in toks]
            for start, first in enumerate(stems):
                for phrase, entry in index.get(first, ()):
                    end = start + len(phrase)
                    if tuple(stems[start:end]) != phrase:
                        continue
                    if masked is None:
                        masked = _phrase_spans(toks, self._not_actions)
                    if masked.isdisjoint(range(start, end)):
                        yield entry
