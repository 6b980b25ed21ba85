"""A site's querying events, in order: the log a resumed crawl folds back into its ledger.

The querying (``deepcrawl.querying``) changes its ledger only by folding events; the crawl
stores each event as it is folded, and a resumed crawl reads them back in the same order. This
module keeps them as plain JSON values (``deepcrawl.querying.events.event_to_dict`` makes them),
compressed, one row an event, one log per phase of the crawl. It knows nothing of what an event
means.
"""

from __future__ import annotations

import json
import zlib
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from deepcrawl.storage import tables as t
from deepcrawl.storage.guard import StorageGuard

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

    from sqlalchemy.engine import Engine

__all__ = ["EventStore"]

_EVENT: sa.Table = t.QueryingEvent.__table__  # type: ignore[attr-defined]
_INSERT = sa.insert(_EVENT)
#: Rows read back at a time (a long crawl's log holds an event a record page).
_READ_BATCH = 2000


class EventStore:
    """The event logs of one site.

    Args:
        engine: the crawl's database.
        site_id: the site.
    """

    def __init__(self, engine: Engine, site_id: int) -> None:
        self.engine = engine
        self.site_id = site_id

    def append(self, phase: str, events: Sequence[Mapping[str, Any]]) -> None:
        """Add ``events`` (each a JSON object with its ``kind``) to the end of ``phase``'s log,
        in one transaction."""
        if not events:
            return
        rows = [
            {
                "site_id": self.site_id,
                "phase": phase,
                "kind": str(event.get("kind", ""))[:32],
                "body": zlib.compress(json.dumps(event, separators=(",", ":")).encode(), 3),
            }
            for event in events
        ]
        with (
            StorageGuard(f"store {len(rows)} querying events", self.engine),
            self.engine.begin() as conn,
        ):
            conn.execute(_INSERT, rows)

    def read(self, phase: str) -> Iterator[dict[str, Any]]:
        """The events of ``phase``'s log, oldest first."""
        stmt = (
            sa.select(_EVENT.c.id, _EVENT.c.body)
            .where(_EVENT.c.site_id == self.site_id, _EVENT.c.phase == phase)
            .order_by(_EVENT.c.id)
        )
        last = 0
        while True:
            with (
                StorageGuard("read the querying events", self.engine),
                self.engine.connect() as conn,
            ):
                rows = conn.execute(stmt.where(_EVENT.c.id > last).limit(_READ_BATCH)).all()
            for row_id, body in rows:
                last = row_id
                yield json.loads(zlib.decompress(body))
            if len(rows) < _READ_BATCH:
                return

    def clear(self, phase: str) -> None:
        """Forget ``phase``'s log (the querying starts that phase afresh)."""
        stmt = sa.delete(_EVENT).where(_EVENT.c.site_id == self.site_id, _EVENT.c.phase == phase)
        with StorageGuard("clear the querying events", self.engine), self.engine.begin() as conn:
            conn.execute(stmt)

    def count(self, phase: str) -> int:
        """Events in ``phase``'s log."""
        stmt = (
            sa.select(sa.func.count())
            .select_from(_EVENT)
            .where(_EVENT.c.site_id == self.site_id, _EVENT.c.phase == phase)
        )
        with StorageGuard("count the querying events", self.engine), self.engine.connect() as conn:
            return int(conn.execute(stmt).scalar_one())
