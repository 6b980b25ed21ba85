"""A query's parameters, whatever their separator.

A form-encoded query separates its parameters by ``&``; CGI and the HTML 4 recommendation
(§B.2.2) accept ``;`` too, and some sites write every URL so (``?p=proj;a=commit;h=abc``). A
literal ``;`` is read as a separator where the query uses it so: where every piece between
separators is a ``name=value`` parameter. Elsewhere (``q=a;b&page=2``) it is part of a value and
stays; an escaped one (``%3B``) is never a separator, and the normal form keeps it escaped.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import unquote_plus

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["join_query", "query_pairs", "query_separator", "split_query", "with_ampersands"]

_BOTH = re.compile(r"[&;]")


def _semicolons_separate(query: str) -> bool:
    """Whether the query's literal ``;`` separate parameters: each piece between ``&`` and
    ``;`` is empty or a parameter with a name and an ``=``."""
    return all(not piece or piece.find("=") > 0 for piece in _BOTH.split(query))


def query_separator(query: str) -> str:
    """The separator a raw query is joined by: ``;`` where it separates its parameters by
    ``;`` alone, ``&`` otherwise (a query that mixes the two is joined by ``&``)."""
    if ";" in query and "&" not in query and _semicolons_separate(query):
        return ";"
    return "&"


def split_query(query: str) -> tuple[list[str], str]:
    """A raw query's items (``name=value``, empty ones kept) and the separator to join them
    by (:func:`query_separator`): split at ``;`` as at ``&`` where the query uses ``;`` so."""
    if ";" in query and _semicolons_separate(query):
        return _BOTH.split(query), ("&" if "&" in query else ";")
    return query.split("&"), "&"


def join_query(items: Iterable[str], separator: str) -> str:
    """Items joined into a query by ``separator`` (as :func:`split_query` gave it)."""
    return separator.join(items)


def query_pairs(query: str, *, keep_blank_values: bool = True) -> list[tuple[str, str]]:
    """A raw query's parameters decoded, as :func:`urllib.parse.parse_qsl` reads them, split
    at ``;`` where the query uses it as a separator."""
    pairs = []
    for item in split_query(query)[0]:
        if not item:
            continue
        name, eq, value = item.partition("=")
        if not eq and not keep_blank_values:
            continue
        if value or keep_blank_values:
            pairs.append((unquote_plus(name), unquote_plus(value)))
    return pairs


def with_ampersands(url: str) -> str:
    """``url`` with the ``;`` that separate its query's parameters written ``&``: the one
    spelling prototypes are matched against, whatever the site's separator."""
    head, mark, query = url.partition("?")
    if not mark or ";" not in query:
        return url
    if not _semicolons_separate(query):
        return url
    return f"{head}?{query.replace(';', '&')}"
