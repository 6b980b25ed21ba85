"""Partitioning a list the search cuts short: the form's own fields split it into shorter lists.

Many searches show only the top of any list ("the first 1,000 results"), or a list is longer than
the crawl may read of it (``querying.max_list_pages``, the request budget). The records past the
cut are out of reach of that word, and often of every word: a search listing in a fixed order
cuts every word's list at the same keys. Madhavan et al. (VLDB 2008) query a form through its
*templates*: the text box together with the selects and radio groups beside it, whose values
each give a list of their own. The same word with one region, one category or one sort order is
a list of its own under the cut — or cut in turn, and split again by another field.

:class:`Partitioner` keeps the splits. A list is cut (:func:`cut_lists`) when the search cut
two lists or more at the same count short of their totals
(:func:`~deepcrawl.querying.size.capped_lists`), when the empty query's list — which every
record matches — ended short of its total and of the records the crawl knows (or showed none of
the records at all, its pages being of the other kinds a site-wide search lists), or when its total
fills more pages than its page cap allows (:func:`~deepcrawl.querying.totals.page_cap`). Each
cut list is split by each field the search offers (:attr:`QueryBackend.partitions
<deepcrawl.search.backend.QueryBackend.partitions>`; the safety gate already took out the
fields it refuses), one value a query; which field goes on is chosen by the records new to the
crawl a request its sub-lists brought — Madhavan's informativeness measured by what it pays —
and a field whose first :data:`PARTITION_TRIAL` sub-lists brought fewer than
``querying.partition_min_new`` records a request is left for that list.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from deepcrawl.querying.lists import list_key, value_pairs
from deepcrawl.querying.size import capped_lists
from deepcrawl.querying.totals import page_cap

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from deepcrawl.querying.events import QueryEvent, Values
    from deepcrawl.querying.view import LedgerView as Ledger
    from deepcrawl.settings import Settings

__all__ = ["Part", "Partitioner", "cut_lists"]

#: Sub-lists of one field read before ``querying.partition_min_new`` judges the field.
PARTITION_TRIAL = 3


@dataclass(frozen=True, slots=True)
class Part:
    """One sub-list to read: a word, with the field values that narrow its list."""

    word: str
    values: Values
    parent: str
    """The key of the list it splits."""
    field: str
    """The field it splits that list by."""

    @property
    def key(self) -> str:
        """Its own list's key (:func:`list_key`)."""
        return list_key(self.word, self.values)

    @classmethod
    def of(cls, event: QueryEvent) -> Part | None:
        """The sub-list ``event`` read, None for a list of its own."""
        if not event.part_of:
            return None
        return cls(event.word, event.values, event.part_of, event.split_by)


def cut_lists(ledger: Ledger, settings: Settings) -> list[str]:
    """The keys of the lists cut short, most matches unread first: capped by the search
    (:func:`~deepcrawl.querying.size.capped_lists`), the empty query's ended short of the
    records known, or stopped at their page cap with more matches reported than their pages
    showed."""
    capped = capped_lists(ledger)
    cut = []
    for key, read in ledger.lists.items():
        unread = read.total - read.shown
        if unread <= 0:
            continue
        at_cap = read.pages >= page_cap(ledger, settings, read.total, read.size)
        # every record matches the empty query: its list read to its end, short of its total
        # and of the records the crawl knows, was cut by the search, however few lists it cut
        short_of_known = not key and read.complete and read.shown < len(ledger.records)
        if key in capped or at_cap or short_of_known:
            cut.append((unread, key))
    # the empty query's list that showed none of the records (the ledger keeps no list of it)
    if "" not in ledger.lists and (unread := ledger.empty_total - len(ledger.records)) > 0:
        cut.append((unread, ""))
    return [key for _, key in sorted(cut, key=lambda item: -item[0])]


class Partitioner:
    """The sub-lists to read next, by the fields that pay best (see the module docstring): the
    splitting rule's own state, built from the queries' events (:meth:`remember`,
    :meth:`outcome`), so that a resumed crawl asks no sub-list twice.

    Args:
        settings: ``querying.partition_min_new``, the page caps.
        fields: the search's fields that split its lists, their values by name (None: not
            known yet, :meth:`offer`).
    """

    def __init__(
        self, settings: Settings, fields: Mapping[str, Sequence[str]] | None = None
    ) -> None:
        self.settings = settings
        self.fields: dict[str, list[str]] | None = None
        if fields is not None:
            self.offer(fields)
        self._pending: dict[tuple[str, str], list[Part]] = {}
        """Per (list, field): its sub-lists not read yet."""
        self._paid: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
        """Per (list, field): (records new, requests) of each sub-list read."""
        self._split: set[str] = set()
        self._words: dict[str, tuple[str, Values]] = {}
        """Each list's word and values, by key, for the lists split or to split."""
        self._asked: set[str] = set()
        """The keys of the sub-lists asked."""

    def offer(self, fields: Mapping[str, Sequence[str]]) -> None:
        """The search's fields that split its lists (the backend's, known at its first query)."""
        self.fields = {name: list(values) for name, values in fields.items() if values}

    def remember(self, word: str, values: Mapping[str, str] | Values = ()) -> None:
        """A list was read: ``word`` with ``values`` (what its key stands for). Narrowed by
        values, it is a sub-list asked, whoever asked it (the setup phase tries a few values)."""
        pairs = value_pairs(values)
        self._words.setdefault(list_key(word, pairs), (word, pairs))
        if pairs:
            self._asked.add(list_key(word, pairs))

    @property
    def asked(self) -> int:
        """Sub-lists asked."""
        return len(self._asked)

    def next(self, ledger: Ledger) -> Part | None:
        """The next sub-list to read, or None while no list is cut or every split is spent."""
        if not self.fields or self.settings.querying.partition_min_new <= 0:
            return None
        for key in cut_lists(ledger, self.settings):
            if key not in self._split and key in self._words:
                self._split.add(key)
                self._plan(key)
        while (best := max(self._pending, key=self._worth, default=None)) is not None:
            parts = self._pending[best]
            part = parts.pop(0)
            if not parts or not self._pays(best):
                del self._pending[best]
            if part.key not in self._asked:  # (a resumed crawl asked it before)
                return part
        return None

    def outcome(self, part: Part, new: int, requests: int) -> None:
        """What the sub-list ``part`` brought: ``new`` records in ``requests`` requests."""
        branch = (part.parent, part.field)
        self._asked.add(part.key)
        self._paid[branch].append((new, max(1, requests)))
        self.remember(part.word, part.values)
        if branch in self._pending and not self._pays(branch):
            del self._pending[branch]  # the field does not split this list usefully

    def _plan(self, key: str) -> None:
        word, values = self._words[key]
        used = {name for name, _ in values}
        for name, options in (self.fields or {}).items():
            if name in used:
                continue
            self._pending[(key, name)] = [
                Part(word, tuple(sorted((*values, (name, value)))), key, name) for value in options
            ]

    def _worth(self, branch: tuple[str, str]) -> float:
        """Records new a request its sub-lists brought; untried branches first, in order."""
        paid = self._paid.get(branch)
        if not paid:
            return float("inf")
        return sum(new for new, _ in paid) / sum(cost for _, cost in paid)

    def _pays(self, branch: tuple[str, str]) -> bool:
        paid = self._paid.get(branch, [])
        if len(paid) < max(1, PARTITION_TRIAL):
            return True
        return self._worth(branch) >= self.settings.querying.partition_min_new
