"""Whether a search lists its results in a fixed order — by key or by name, not by relevance.

A search ranking by relevance puts each word's best matches first, different records for
different words, and the records a crawl knows are spread through its lists. A search listing
in a fixed order (the database's key, a date, a name) shows every word's matches in that order:
the records a crawl read first — the lowest keys, say — head many lists, and those it lacks lie
deeper in them. The novelty of such a list's first pages then says nothing of the rest; only its
reported total does (:mod:`~deepcrawl.querying.paging`).

A list is in a fixed order when its records' keys (the last number in each record's URL) or,
without keys, their link texts run one way down the list: :data:`FIXED_ORDER_SHARE` of the
steps between neighbours at least. Relevance orders them at random, about half each way.
:class:`ListOrder` counts the lists of either kind; the search is judged to list in a fixed
order once :data:`FIXED_ORDER_LISTS` lists were, and more than were not.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["ListOrder", "one_way_share", "record_key"]

#: A result list is in a fixed order (by key or name, not relevance) when this share of the steps
#: between neighbouring records go one way (0.5–1): its first pages do not test its total. Not
#: from a paper.
FIXED_ORDER_SHARE = 0.9
#: Lists in a fixed order that make the search's order fixed (and more than in none; 0: never
#: judged fixed).
FIXED_ORDER_LISTS = 2

_Value = TypeVar("_Value", int, str)
_NUMBER = re.compile(r"\d+")
_MIN_STEPS = 8
"""Steps between neighbours a list needs for its order to be judged: fewer are chance."""


def record_key(record_id: str) -> int | None:
    """The key a record's URL carries: the last number of its path and query (``/listings/17``
    → 17), else None."""
    parts = urlsplit(record_id)
    found = _NUMBER.findall(f"{parts.path}?{parts.query}")
    return int(found[-1]) if found else None


def one_way_share(values: Sequence[_Value], min_steps: int = _MIN_STEPS) -> float | None:
    """The share of steps between neighbours that go the list's main way (up or down), ties
    aside; None when the list has fewer than ``min_steps`` steps."""
    up = down = 0
    for a, b in itertools.pairwise(values):
        up += a < b
        down += a > b
    steps = up + down
    return max(up, down) / steps if steps >= min_steps else None


@dataclass
class ListOrder:
    """The lists judged in a fixed order and in none, and the verdict from them.

    Args:
        share: the share of a list's steps that must go one way (:data:`FIXED_ORDER_SHARE`).
        lists: fixed lists the verdict needs (:data:`FIXED_ORDER_LISTS`; 0: never fixed).
    """

    share: float = field(default_factory=lambda: FIXED_ORDER_SHARE)
    lists: int = field(default_factory=lambda: FIXED_ORDER_LISTS)
    fixed_lists: int = 0
    """Lists whose records ran one way."""
    ranked_lists: int = 0
    """Lists whose records did not."""
    falling_lists: int = 0
    """Fixed lists whose records' keys ran down: the highest key first."""

    def observe(self, ids: Sequence[str], texts: Sequence[str] = ()) -> bool | None:
        """Judge one list by its records' ids in list order (and their link texts, where the
        ids carry no keys); returns whether it was in a fixed order (None: too short)."""
        keys = [key for rid in ids if (key := record_key(rid)) is not None]
        keyed = len(keys) == len(ids)
        found = one_way_share(keys) if keyed else None
        if found is None:
            keyed = False
            found = one_way_share([t.casefold() for t in texts if t.strip()])
        if found is None:
            return None
        fixed = found >= self.share
        self.fixed_lists += fixed
        self.ranked_lists += not fixed
        self.falling_lists += fixed and keyed and keys[0] > keys[-1]
        return fixed

    @property
    def falling(self) -> bool:
        """Whether the search lists in a fixed order of falling keys (the highest first):
        most fixed lists ran down."""
        return self.fixed and 2 * self.falling_lists > self.fixed_lists

    @property
    def fixed(self) -> bool:
        """Whether the search lists in a fixed order, by the lists judged so far."""
        return 0 < self.lists <= self.fixed_lists and self.fixed_lists > self.ranked_lists
