"""Assigning URLs to prototypes fast: dispatch by origin, depth and first segment, then one regex.

A crawl classifies every link it sees, so matching must be cheap. Prototypes built by the
prototyper know their origin, their number of path segments and (often) their literal first
segment; a URL is sent straight to the bucket of prototypes sharing those three, whose regexes are
joined into one alternation with a named group each (one C-level ``fullmatch`` per URL). Literal
buckets are tried before the wildcard-head bucket, so the most specific prototype wins; prototypes
without that information (loaded from elsewhere) are tried last.
"""

from __future__ import annotations

import fnmatch
import re
from collections import defaultdict
from typing import TYPE_CHECKING

from deepcrawl.errors import InvalidURLError
from deepcrawl.urls import URLNormaliser, with_ampersands

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from deepcrawl.prototypes._model import Prototype

__all__ = ["VARIANT_PARAMS", "PrototypeMatcher", "variant_param"]

#: Query keys (globs, any case) that never split a prototype and never stay literal: tracking,
#: session, paging and sorting parameters give variants of one kind of page.
VARIANT_PARAMS = (
    "utm_*", "sid", "sessionid", "session_id", "jsessionid", "phpsessid", "sessid", "fbclid",
    "gclid", "ref", "ref_", "referrer", "source", "page", "p", "pg", "offset", "start",
    "limit", "per_page", "sort", "order", "orderby", "dir",
)  # fmt: skip
#: Whether a query key is one of :data:`VARIANT_PARAMS` (a full, case-blind match of a glob).
variant_param = re.compile(
    "|".join(fnmatch.translate(g) for g in VARIANT_PARAMS), re.IGNORECASE
).fullmatch

_Bucket = tuple[re.Pattern[str], tuple[str, ...]]


def _compile(prototypes: Sequence[Prototype]) -> _Bucket:
    alternation = "|".join(f"(?P<p{i}>{p.regex})" for i, p in enumerate(prototypes))
    return re.compile(alternation), tuple(p.id for p in prototypes)


def _key(url: str) -> tuple[str, int, str]:
    start = url.find("/", url.find("://") + 3)
    if start < 0:
        return url, 1, ""
    end = url.find("?", start)
    path = url[start + 1 :] if end < 0 else url[start + 1 : end]
    if path.endswith("/"):  # a trailing slash does not count as a segment (see Prototype.depth)
        path = path[:-1]
    return url[:start], path.count("/") + 1, path.partition("/")[0]


class PrototypeMatcher:
    """Finds the prototype a URL belongs to.

    Args:
        prototypes: the prototypes, most specific first where they may overlap.
        normaliser: how raw URLs are normalised in :meth:`predict`.
    """

    def __init__(
        self,
        prototypes: Iterable[Prototype],
        normaliser: URLNormaliser | None = None,
    ) -> None:
        self.prototypes = tuple(prototypes)
        self.normaliser = normaliser or URLNormaliser()
        self._variant = variant_param
        self._known = frozenset(k for p in self.prototypes for k in p.keys)
        literal: dict[tuple[str, int, str], list[Prototype]] = defaultdict(list)
        variable: dict[tuple[str, int], list[Prototype]] = defaultdict(list)
        loose: list[Prototype] = []
        for p in self.prototypes:
            if p.origin is None or p.depth is None:
                loose.append(p)
            elif p.head is not None:
                literal[(p.origin, p.depth, p.head)].append(p)
            else:
                variable[(p.origin, p.depth)].append(p)
        self._literal = {k: _compile(v) for k, v in literal.items()}
        self._variable = {k: _compile(v) for k, v in variable.items()}
        self._loose = _compile(loose) if loose else None

    def match(self, normal_url: str) -> str | None:
        """The id of the prototype that fullmatches a *normalised* URL, or None.

        A URL that matches nothing is tried once more without the tracking, session and paging
        keys (``variant_params``) that no prototype knows: an unseen ``utm_campaign`` does not
        change what a page is. A query that separates its parameters by ``;`` is matched as if
        by ``&`` (:func:`~deepcrawl.urls.with_ampersands`): prototypes are written so.
        """
        normal_url = with_ampersands(normal_url)
        found = self._match(normal_url)
        if found is None and "?" in normal_url:
            base, _, query = normal_url.partition("?")
            items = query.split("&")
            kept = [i for i in items if self._keep(i.partition("=")[0])]
            if len(kept) < len(items):
                found = self._match(f"{base}?{'&'.join(kept)}" if kept else base)
        return found

    def _keep(self, key: str) -> bool:
        return key in self._known or self._variant(key) is None

    def _match(self, normal_url: str) -> str | None:
        origin, depth, head = _key(normal_url)
        for bucket in (
            self._literal.get((origin, depth, head)),
            self._variable.get((origin, depth)),
        ):
            if bucket is not None:
                m = bucket[0].fullmatch(normal_url)
                if m is not None:
                    return bucket[1][int(m.lastgroup[1:])]  # type: ignore[index]
        if self._loose is not None:
            m = self._loose[0].fullmatch(normal_url)
            if m is not None:
                return self._loose[1][int(m.lastgroup[1:])]  # type: ignore[index]
        return None

    def match_many(self, normal_urls: Iterable[str]) -> list[str | None]:
        """:meth:`match` over many normalised URLs."""
        return [self.match(url) for url in normal_urls]

    def predict(self, urls: Iterable[str], base: str | None = None) -> list[str | None]:
        """Normalise raw URLs and match them; None for a URL that is invalid or matches nothing."""
        out: list[str | None] = []
        for url in urls:
            try:
                out.append(self.match(self.normaliser(url, base)))
            except InvalidURLError:
                out.append(None)
        return out
