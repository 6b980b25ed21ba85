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
from typing import TYPE_CHECKING, Any

from deepcrawl.errors import InvalidURLError
from deepcrawl.prototypes._matcher import PrototypeMatcher
from deepcrawl.prototypes._model import Prototype
from deepcrawl.prototypes._partial import Record, escape
from deepcrawl.prototypes._tree import mark_parts
from deepcrawl.urls import URLNormaliser, split_query

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["Prototyper"]


class Prototyper:
    """Learns regex prototypes from a set of URLs and assigns URLs to them.

    The paper gives no numeric thresholds; the defaults were tuned on the fixture sites and the
    synthetic benchmark (``benchmarks/prototypes_bench.py``).

    Args:
        literal_threshold: a token seen at a position in at least this share of the URLs below
            its tree node stays literal; rarer tokens merge into a typed wildcard
            (``markParts``; 0–1).
        min_support: a literal needs at least this many URLs behind it.
        numeric_literals: let frequent path values holding digits stay literal (off: ids,
            years, page numbers and ``section-2`` are variable unless they belong to a closed
            vocabulary).
        max_query_literals: a query key whose values may split prototypes (``condition=new``
            / ``condition=used``, as in the paper's Table 1) has at most this many distinct
            values; a key with more is variable.
        query_split_max_values: an optional query key with at most this many literal values
            splits a prototype, one per value: a mode (``view=print``) or an action on a page
            (``do=edit|revisions``), each another kind of page. 0: optional keys never split.
        split_required_query_keys: let a key present in every URL split on its frequent values
            (``max_query_literals`` at most), as the paper's Table 1 splits
            ``condition=new|used``; off, such keys are variants of one kind
            (``/export?format=json|csv``).
        closed_vocabulary_share: when the distinct values at a path position number at most
            this share of the URLs there (a small closed vocabulary: site sections), every value
            stays literal, however rare (0–1).
        closed_vocabulary_max: at most this many distinct values make a closed vocabulary whose
            every value (given ``min_support`` URLs) stays literal: the heads of a position's
            ids (``issue17``, ``user3``) and the values of a query key (``do=edit|revisions``).
        twin_share: an optional query key splits a prototype when at least this share of the
            URLs holding it are twins of URLs without it (``title=X&oldid=7`` beside
            ``title=X``), each URL having at most ``closed_vocabulary_max`` twins (0–1).
        nested_folders: ``/admin/``, ``/admin/a-1/`` and ``/admin/a-1/a-2/`` fall in one
            prototype when the deeper URLs are chains of one repeated variable segment (at
            least two deep somewhere).
        fold_trailing_slash: ``/book/17/`` and ``/book/17`` fall in one prototype (a trailing
            slash is optional).
        merge_min_siblings: refinement: at least this many literal siblings (below the first
            path segment) whose subtrees have the same shape are merged back into one wildcard
            (categories, languages).
        max_examples: sample URLs kept per prototype.

    Attributes (after :meth:`fit`):
        prototypes_: the prototypes, largest first.
        matcher_: a :class:`PrototypeMatcher` over them.
        n_urls_: distinct valid URLs the prototypes were learnt from.
        invalid_: the URLs that could not be normalised, with their errors (at most 1,000 kept).
        n_invalid_: how many URLs could not be normalised.
    """

    def __init__(
        self,
        *,
        literal_threshold: float = 0.1,
        min_support: int = 3,
        numeric_literals: bool = False,
        max_query_literals: int = 4,
        query_split_max_values: int = 12,
        split_required_query_keys: bool = False,
        closed_vocabulary_share: float = 0.1,
        closed_vocabulary_max: int = 12,
        twin_share: float = 0.5,
        nested_folders: bool = True,
        fold_trailing_slash: bool = True,
        merge_min_siblings: int = 5,
        max_examples: int = 5,
    ) -> None:
        self.literal_threshold = literal_threshold
        self.min_support = min_support
        self.numeric_literals = numeric_literals
        self.max_query_literals = max_query_literals
        self.query_split_max_values = query_split_max_values
        self.split_required_query_keys = split_required_query_keys
        self.closed_vocabulary_share = closed_vocabulary_share
        self.closed_vocabulary_max = closed_vocabulary_max
        self.twin_share = twin_share
        self.nested_folders = nested_folders
        self.fold_trailing_slash = fold_trailing_slash
        self.merge_min_siblings = merge_min_siblings
        self.max_examples = max_examples

    def get_params(self) -> dict[str, Any]:
        """The parameters given to ``__init__`` (scikit-learn's name), e.g. to fit a variant:
        ``Prototyper(**{**p.get_params(), "min_support": 1})``."""
        return {name: getattr(self, name) for name in _PARAMS}

    def fit(self, urls: Iterable[str], base: str | None = None) -> Prototyper:
        """Learn prototypes from raw URLs (relative ones resolved against ``base``).

        Returns:
            self.
        """
        normaliser = URLNormaliser()
        seen: set[str] = set()
        invalid: list[InvalidURLError] = []
        n_invalid = 0
        by_origin: dict[str, list[Record]] = defaultdict(list)
        fold = self.fold_trailing_slash
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
            pairs = tuple(map(_pair, split_query(query)[0])) if query else ()
            segments = tuple(path[1:].split("/"))
            depth = len(segments)
            if fold and depth > 1 and not segments[-1]:
                depth -= 1
            by_origin[origin].append((segments, pairs, normal, depth))
        total = len(seen)
        del seen
        drafts: list[tuple[Prototype, list[Record]]] = []
        for origin in sorted(by_origin):
            for partial in mark_parts(by_origin[origin], self):
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
        members = _members(drafts, PrototypeMatcher([d for d, _ in drafts], normaliser))
        prototypes = [
            Prototype(
                regex=d.regex,
                count=len(members[d.id]),
                coverage=len(members[d.id]) / total,
                examples=tuple(_spread(members[d.id], self.max_examples)),
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
        self.matcher_ = PrototypeMatcher(self.prototypes_, normaliser)
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


#: The names of :class:`Prototyper`'s parameters.
_PARAMS = (
    "literal_threshold", "min_support", "numeric_literals", "max_query_literals",
    "query_split_max_values", "split_required_query_keys", "closed_vocabulary_share",
    "closed_vocabulary_max", "twin_share", "nested_folders", "fold_trailing_slash",
    "merge_min_siblings", "max_examples",
)  # fmt: skip


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
