"""The prototyper as a scikit-learn-shaped estimator: ``Prototyper().fit(urls).prototypes_``.

Steps (Hernández et al., "The String Prototyper"): normalise and deduplicate the URLs
(:mod:`deepcrawl.urls`), group them by origin, run ``markParts`` (:mod:`._tree`) to get one regex
per kind, then count each prototype's URLs *by matching* — so counts, coverage and examples are
exactly what the matcher will later do with the same URLs — and drop prototypes that match
nothing.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import TYPE_CHECKING

from deepcrawl.errors import InvalidURLError
from deepcrawl.prototypes._matcher import PrototypeMatcher
from deepcrawl.prototypes._model import Prototype
from deepcrawl.prototypes._partial import Record, escape
from deepcrawl.prototypes._tree import mark_parts
from deepcrawl.settings import PrototypeSettings
from deepcrawl.urls import URLNormaliser

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["Prototyper"]


class Prototyper:
    """Learns regex prototypes from a set of URLs and assigns URLs to them.

    Args:
        settings: thresholds of ``markParts`` and of the tokeniser; defaults when None.

    Attributes (after :meth:`fit`):
        prototypes_: the prototypes, largest first.
        matcher_: a :class:`PrototypeMatcher` over them.
        n_urls_: distinct valid URLs the prototypes were learnt from.
        invalid_: the URLs that could not be normalised, with their errors (at most 1,000 kept).
        n_invalid_: how many URLs could not be normalised.
    """

    def __init__(self, settings: PrototypeSettings | None = None) -> None:
        self.settings = settings

    def fit(self, urls: Iterable[str], base: str | None = None) -> Prototyper:
        """Learn prototypes from raw URLs (relative ones resolved against ``base``).

        Returns:
            self.
        """
        settings = self.settings or PrototypeSettings()
        normaliser = URLNormaliser(settings)
        seen: set[str] = set()
        invalid: list[InvalidURLError] = []
        n_invalid = 0
        by_origin: dict[str, list[Record]] = defaultdict(list)
        fold = settings.fold_trailing_slash
        for url in urls:
            try:
                origin, path, query = normaliser.parts(url, base)
            except InvalidURLError as exc:
                n_invalid += 1
                if len(invalid) < 1000:
                    invalid.append(exc)
                continue
            normal = f"{origin}{path}?{query}" if query else origin + path
            if normal in seen:
                continue
            seen.add(normal)
            pairs = tuple(map(_pair, query.split("&"))) if query else ()
            segments = tuple(path[1:].split("/"))
            depth = len(segments)
            if fold and depth > 1 and not segments[-1]:
                depth -= 1
            by_origin[origin].append((segments, pairs, normal, depth))
        total = len(seen)
        del seen
        drafts: list[tuple[Prototype, list[Record]]] = []
        for origin in sorted(by_origin):
            for partial in mark_parts(by_origin[origin], settings):
                regex = escape(origin) + "/" + "/".join(partial.path) + partial.query
                draft = Prototype(
                    regex=regex,
                    how="; ".join(partial.how) or "one URL shape",
                    origin=origin,
                    depth=None if partial.nested else _depth(partial.path, fold=fold),
                    head=partial.heads[0] if partial.heads else None,
                    keys=partial.keys,
                )
                drafts.append((draft, partial.records))
        members = _members(drafts, PrototypeMatcher([d for d, _ in drafts], normaliser, settings))
        prototypes = [
            Prototype(
                regex=d.regex,
                count=len(members[d.id]),
                coverage=len(members[d.id]) / total,
                examples=tuple(_spread(members[d.id], settings.max_examples)),
                how=d.how,
                origin=d.origin,
                depth=d.depth,
                head=d.head,
                keys=d.keys,
            )
            for d, _ in drafts
            if members.get(d.id)
        ]
        prototypes.sort(key=lambda p: (-p.count, p.regex))
        self.prototypes_ = tuple(prototypes)
        self.matcher_ = PrototypeMatcher(self.prototypes_, normaliser, settings)
        self.n_urls_ = total
        self.invalid_ = invalid
        self.n_invalid_ = n_invalid
        return self

    def predict(self, urls: Iterable[str], base: str | None = None) -> list[str | None]:
        """The id of each URL's prototype; None when it is invalid or matches none."""
        return self.matcher_.predict(urls, base)

    def fit_predict(self, urls: Iterable[str], base: str | None = None) -> list[str | None]:
        """:meth:`fit` then :meth:`predict` on the same URLs."""
        urls = list(urls)
        return self.fit(urls, base).predict(urls, base)

    def prototype(self, prototype_id: str) -> Prototype:
        """The fitted prototype with this id.

        Raises:
            KeyError: no such prototype.
        """
        for p in self.prototypes_:
            if p.id == prototype_id:
                return p
        raise KeyError(prototype_id)


def _pair(item: str) -> tuple[str, str | None]:
    key, eq, value = item.partition("=")
    return key, (value if eq else None)


def _members(
    drafts: list[tuple[Prototype, list[Record]]], matcher: PrototypeMatcher, check: int = 200
) -> dict[str, list[str]]:
    """The normal URLs of each prototype.

    ``markParts`` already partitioned the URLs; the matcher is the authority, so a sample of each
    part is checked against it, and only if one URL is assigned elsewhere are all URLs matched
    again (slower, exact).
    """
    members = {d.id: [r[2] for r in records] for d, records in drafts}
    for d, records in drafts:
        step = max(1, len(records) // check)
        if any(matcher.match(r[2]) != d.id for r in records[::step]):
            break
    else:
        return members
    exact: dict[str, list[str]] = defaultdict(list)
    for urls in members.values():
        for url in urls:
            pid = matcher.match(url)
            if pid is not None:
                exact[pid].append(url)
    return exact


def _spread(items: list[str], k: int) -> list[str]:
    """Up to ``k`` items spread evenly over a list (varied examples, deterministic)."""
    if len(items) <= k:
        return items
    step = len(items) / k
    return [items[int(i * step)] for i in range(k)]


def _depth(path: tuple[str, ...], *, fold: bool) -> int | None:
    """Path segments, a trailing empty one (a trailing slash) not counted; None if unsure.

    With trailing slashes folded, the path holds no trailing empty segment (the optional slash
    is part of the query regex), so its length is the depth.
    """
    if fold:
        return len(path)
    if len(path) > 1 and re.fullmatch(path[-1], ""):
        # the last segment may be empty: a fixed depth only if it is always empty
        return len(path) - 1 if path[-1] == "" else None
    return len(path)
