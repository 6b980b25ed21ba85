"""What the fetch side learns, as events for the query loop: a record page's text, records
reached by links, one record under two ids.

The crawl's fetch workers learn these while a query may be out; an event that came meanwhile
waits until the query's own event is folded (:meth:`FetchFacts.hold`), so a list is read over
the ledger as it was when its query was sent — as a resumed crawl folds them back, in the same
order.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import TYPE_CHECKING

from deepcrawl.keywords.text import record_terms
from deepcrawl.querying.events import ContentRepeated, RecordRead, RecordsMerged, RecordsReached
from deepcrawl.querying.texts import main_text

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping

    from deepcrawl.querying.events import Event
    from deepcrawl.querying.fold import Fold

__all__ = ["FetchFacts"]

logger = logging.getLogger(__name__)


class FetchFacts:
    """The fetch side's facts, folded as events (see the module docstring).

    Args:
        fold: where an event goes.
        record_id: maps a URL to a record id (the ids a merge maps every record by anew).
        folded: called after a merge is folded (the loop's figures move; a record page's
            text or a link moves none of them).
    """

    def __init__(
        self,
        fold: Fold,
        record_id: Callable[[str], str | None],
        folded: Callable[[], None],
    ) -> None:
        self.fold = fold
        self.record_id = record_id
        self.folded = folded
        self.merges = 0
        """Merges so far: a query's ids are made again where one came while it was out."""
        self._held: list[Event] | None = None

    def observe(self, ids: Iterable[str], texts: Mapping[str, str] | None = None) -> int:
        """Records the crawl reached without a query; returns how many were new to it."""
        records = tuple(ids)
        new = len(frozenset(records) - self.fold.ledger.records)
        self._add(RecordsReached(records, dict(texts or {})))
        return new

    def merge(self, same: Mapping[str, str] | None = None) -> int:
        """Records known under two ids count once: ``same`` maps an id to the record's; None
        maps every record known by ``record_id`` anew (a parameter was learnt to be no part of
        a URL). Returns how many ids went."""
        known = self.fold.ledger.records
        if same is None:
            same = {old: new for old in known if (new := self.record_id(old)) is not None}
        same = {old: new for old, new in same.items() if old != new and old in known}
        if same:
            self.merges += 1
            logger.info("%d records known under another id count once", len(same))
            self._add(RecordsMerged(same))
        return len(same)

    def repeated(self, record_id: str, record: str, html: str | bytes) -> None:
        """A page fetched for ``record_id`` showed the record known as ``record``: one record,
        and a page whose content was fetched before (the runaway rules weigh such pages)."""
        target = self.record_id(record) or record  # the record's id as links name it now
        self.merges += 1
        self._add(ContentRepeated({record_id: target, record: target}, main_text(html)))

    def learn_text(self, record_id: str, text: str) -> None:
        """A fetched record page's main text (:func:`main_text` of its body): its words for
        the paging control and the word supply."""
        texts = self.fold.ledger.texts
        if record_id not in texts:
            terms = record_terms(text, min_length=texts.min_length)
            self._add(RecordRead(record_id, text, terms))

    @contextmanager
    def hold(self) -> Iterator[list[Event]]:
        """While a query is out: the events that come wait in the list yielded (the caller
        folds them after the query's own)."""
        held: list[Event] = []
        self._held = held
        try:
            yield held
        finally:
            self._held = None

    def _add(self, event: Event) -> None:
        if self._held is not None:
            self._held.append(event)
            return
        self.fold(event)
        if isinstance(event, RecordsMerged | ContentRepeated):
            self.folded()
