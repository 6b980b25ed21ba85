"""The result lists as the ledger keeps them: a list's key, and what the crawl read of it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Collection, Container

    from deepcrawl.querying.events import QueryEvent, Values

__all__ = ["ListRead", "list_key", "value_pairs"]


def value_pairs(values: Mapping[str, str] | Values) -> Values:
    """Field values as the ledger keeps them: (name, value) pairs in name order."""
    return tuple(sorted(values.items() if isinstance(values, Mapping) else values))


def list_key(word: str, values: Mapping[str, str] | Values = ()) -> str:
    """The ledger's key of a list: its case-folded word, and the field values that narrowed
    it (``water [region=Tuscany]``)."""
    pairs = value_pairs(values)
    key = word.casefold()
    return f"{key} [{', '.join(f'{n}={v}' for n, v in pairs)}]" if pairs else key


@dataclass(frozen=True, slots=True)
class ListRead:
    """What the crawl read of one query's result list (one with a reported total)."""

    word: str
    total: int
    """The result count its first page reported."""
    size: int
    """Records a result page held at most."""
    pages: int
    """Result pages read, from the first: a re-read starts over, so these are read again."""
    shown: int
    """Records its pages showed."""
    unheld: frozenset[str]
    """Records its pages showed whose page the crawl had not fetched when last looked at."""
    complete: bool = False
    """Read to its end: its last page read showed no next one."""
    sample: tuple[str, ...] = ()
    """Records it showed, a page's worth: which share of its matches the fetched words
    account for (:meth:`KnownTexts.match_share
    <deepcrawl.querying.texts.KnownTexts.match_share>`)."""
    per_page: int = 0
    """Records new to the list a page brought at most (a "load more" page shows those before
    it again): against other lists', the share of its entries that are records
    (:func:`~deepcrawl.querying.totals.records_total`)."""

    @classmethod
    def stored(cls, event: QueryEvent, ids: Collection[str]) -> ListRead | None:
        """What a query's list showed by its answer alone (its records ``ids``, its total, its
        pages), where its reader saw none of its pages; None where it reported no total. A
        page's size is the records its pages showed on average."""
        if event.total is None or not ids or event.result_pages <= 0:
            return None
        size = -(-len(ids) // event.result_pages)
        return cls(
            event.word,
            event.total,
            size,
            event.first_page - 1 + event.result_pages,
            len(ids),
            frozenset(ids),
            sample=tuple(sorted(ids)[:size]),
            per_page=size,
        )

    def pruned(self, fetched: Container[str]) -> ListRead:
        """The list without the records of :attr:`unheld` whose page was ``fetched`` since."""
        return replace(self, unheld=frozenset(r for r in self.unheld if r not in fetched))
