"""Session ids in a URL: which parameters carry one, and a normal form without them."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import unquote_plus

from deepcrawl.urls._query import split_query

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["SESSION_PARAMS", "SESSION_VALUE_MIN_LENGTH", "SessionParams", "drop_session_params"]

#: Names (any case) of session id parameters, path (``;jsessionid=``) or query, dropped from
#: the normal form when their value looks like an id (``?sid=17`` stays). Those a site carries
#: under other names are learnt by the crawl (:mod:`deepcrawl.crawler.session_params`).
SESSION_PARAMS = (
    "jsessionid", "phpsessid", "aspsessionid", "sid", "sessid", "sessionid", "session_id",
)  # fmt: skip
#: The shortest value of a :data:`SESSION_PARAMS` parameter taken for a session id (not a
#: number): ids are long, page numbers and short codes are not.
SESSION_VALUE_MIN_LENGTH = 8


class SessionParams:
    """Which parameters of a URL carry a session id: a name of ``names`` (any case) and a value
    of ``min_length`` characters or more that is not a number (``sid=17`` is an id).

    ``anyway`` names parameters that are no part of a page's identity whatever their value
    (those learnt to echo the submitted query, or that canonical links drop).

    Args:
        names: the parameter names (``jsessionid``, ``PHPSESSID`` …).
        min_length: the shortest value taken for a session id.
        anyway: the names dropped whatever their value.
    """

    def __init__(
        self,
        names: Iterable[str],
        *,
        min_length: int = SESSION_VALUE_MIN_LENGTH,
        anyway: Iterable[str] = (),
    ) -> None:
        self.names = frozenset(name.lower() for name in names)
        self.min_length = min_length
        self.anyway = frozenset(name.lower() for name in anyway)

    def __bool__(self) -> bool:
        return bool(self.names or self.anyway)

    def carries(self, name: str, value: str) -> bool:
        """Whether the parameter ``name=value`` (decoded or not) carries a session id (or is
        dropped whatever its value)."""
        if "%" in name or "+" in name:
            name = unquote_plus(name)
        name = name.lower()
        if name in self.anyway:
            return True
        return name in self.names and len(value) >= self.min_length and not value.isdigit()

    def drop_from_items(self, items: list[str]) -> list[str]:
        """Query items (``key\0value``, as :meth:`URLNormaliser.parts` splits them) without
        those that carry a session id."""
        return [
            item
            for item in items
            if "\0" not in item or not self.carries(*item.partition("\0")[::2])
        ]

    def drop_from_path(self, path: str) -> str:
        """A path without the path parameters (``;name=value`` in a segment) that carry a
        session id."""
        segments = path.split("/")
        for n, segment in enumerate(segments):
            if ";" not in segment:
                continue
            head, *params = segment.split(";")
            kept = [p for p in params if not self.carries(*p.partition("=")[::2])]
            segments[n] = ";".join([head, *kept])
        return "/".join(segments)


def drop_session_params(url: str, sessions: SessionParams) -> str:
    """A normal form without the path parameters and query items that carry a session id by
    ``sessions`` (the kept items as they were: the result is a normal form too)."""
    if not sessions:
        return url
    head, mark, query = url.partition("?")
    if ";" in head:
        start = head.find("/", head.find("://") + 3)
        if start > 0:
            head = head[:start] + sessions.drop_from_path(head[start:])
    if not mark:
        return head
    split, separator = split_query(query)
    items = sessions.drop_from_items([item.replace("=", "\0") for item in split])
    return f"{head}?{separator.join(items).replace(chr(0), '=')}" if items else head
