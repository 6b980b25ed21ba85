"""A normal form split into its parts (Hernández et al., "Tokeniser"): the scheme, the host,
the path segments and their tokens, the sorted query."""

from __future__ import annotations

import re
from dataclasses import dataclass

from deepcrawl.errors import InvalidURLError
from deepcrawl.urls._normal import normalise_url
from deepcrawl.urls._query import split_query

__all__ = ["URLTokens", "parse_normalised", "split_segment", "tokenise"]

_TOKEN_RE = re.compile(r"[0-9]+|[\-_.]|(?:%[0-9A-Fa-f]{2}|[^0-9\-_.%])+|%")


@dataclass(frozen=True, slots=True)
class URLTokens:
    """A normalised URL split into its parts.

    Attributes:
        scheme: lower-case scheme (``"https"``).
        host: lower-case authority: host, and the port when it is not the default one.
        segments: path segments; ``/a/b/`` gives ``("a", "b", "")``, ``/`` gives ``("",)``.
        query: ``(key, value)`` pairs in sorted order; ``value`` is None for a bare ``key``.
        separator: what the normal form joins its query's items by, ``&`` or ``;``
            (:func:`~deepcrawl.urls.split_query`).
    """

    scheme: str
    host: str
    segments: tuple[str, ...]
    query: tuple[tuple[str, str | None], ...]
    separator: str = "&"

    @property
    def origin(self) -> str:
        """``scheme://host``."""
        return f"{self.scheme}://{self.host}"

    @property
    def path(self) -> str:
        """The path, starting with ``/``."""
        return "/" + "/".join(self.segments)

    @property
    def query_keys(self) -> frozenset[str]:
        """The set of query keys."""
        return frozenset(key for key, _ in self.query)

    def segment_tokens(self) -> tuple[tuple[str, ...], ...]:
        """The tokens of every path segment (see :func:`split_segment`)."""
        return tuple(split_segment(segment) for segment in self.segments)

    def to_url(self) -> str:
        """Reassemble the normal form this was parsed from."""
        url = self.origin + self.path
        if self.query:
            url += "?" + self.separator.join(k if v is None else f"{k}={v}" for k, v in self.query)
        return url


def split_segment(segment: str) -> tuple[str, ...]:
    """Split a path segment into tokens at ``-``, ``_``, ``.`` and digit/letter boundaries.

    Separators are tokens of their own and percent-escapes stay inside word tokens, so
    ``"".join(split_segment(s)) == s``: ``"book-17.html"`` gives
    ``("book", "-", "17", ".", "html")``.
    """
    return tuple(_TOKEN_RE.findall(segment))


def parse_normalised(url: str) -> URLTokens:
    """Split a URL already in normal form into its parts, without checking it.

    Raises:
        InvalidURLError: the string is not an absolute URL at all.
    """
    scheme_end = url.find("://")
    if scheme_end < 0:
        raise InvalidURLError(url, "not an absolute URL")
    rest_start = scheme_end + 3
    path_start = url.find("/", rest_start)
    query_start = url.find("?", rest_start)
    if path_start < 0 or 0 <= query_start < path_start:
        path_start = query_start if query_start >= 0 else len(url)
    host = url[rest_start:path_start]
    if query_start >= 0:
        path, query = url[path_start + 1 : query_start], url[query_start + 1 :]
    else:
        path, query = url[path_start + 1 :], ""
    pairs: list[tuple[str, str | None]] = []
    if query:
        items, separator = split_query(query)
        for part in items:
            key, eq, value = part.partition("=")
            pairs.append((key, value if eq else None))
    else:
        separator = "&"
    return URLTokens(url[:scheme_end], host, tuple(path.split("/")), tuple(pairs), separator)


def tokenise(url: str, base: str | None = None) -> URLTokens:
    """Normalise ``url`` (resolved against ``base``) and split it into its parts.

    Raises:
        InvalidURLError: the URL cannot be parsed or normalised.
    """
    return parse_normalised(normalise_url(url, base))
