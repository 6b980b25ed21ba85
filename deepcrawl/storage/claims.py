"""One process at a time on a site's crawl, where the database has no session locks (SQLite).

On PostgreSQL the process running a site's query loop holds an advisory lock that dies with its
connection (:class:`deepcrawl.storage.coordination.QueryLock`). SQLite has nothing of the kind, so
the claim is a row: the process's ``crawl_worker`` row (``hostname:pid``, a heartbeat in
``seen_at``), inserted by :func:`claim_site` only when no live process of the same role holds
the site. A holder is dead — and its claim taken over — once its final state is written (it
ended), once its heartbeat is older than ``stale_before`` (it crashed, maybe on another host),
or at once when the caller's ``alive`` check says its process is gone (SIGKILL, on this host).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlmodel import Session, col, select

from deepcrawl.storage import tables as t
from deepcrawl.storage.guard import StorageGuard

if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import datetime

    from sqlalchemy.engine import Engine

__all__ = ["Claim", "claim_site"]


@dataclass(frozen=True, slots=True)
class Claim:
    """The outcome of :func:`claim_site`: this process's new row, or the live holder's."""

    worker_id: int | None
    """This process's ``crawl_worker`` row (None: refused)."""
    holder: t.WorkerRead | None
    """The process holding the site (None: claimed)."""


def claim_site(
    engine: Engine,
    site_id: int,
    *,
    name: str,
    role: str,
    stale_before: datetime,
    alive: Callable[[t.WorkerRead], bool],
) -> Claim:
    """Insert this process's running row unless a live process of ``role`` holds the site.

    One write transaction: its first statement takes SQLite's write lock, so two processes
    starting at once claim one after the other, and the second sees the first's row.

    Args:
        engine: the crawl's engine.
        site_id: the site.
        name: ``hostname:pid`` of this process.
        role: the role claimed (``crawl``).
        stale_before: a running row last seen before this is a crashed process's.
        alive: whether the process of a running row still lives (False: taken over).

    Raises:
        StorageError: the database fails.
    """
    w = t.Worker
    mine = (col(w.site_id) == site_id, col(w.role) == role, col(w.state) == "running")
    with (
        StorageGuard.of(engine, f"claim the crawl of site {site_id}"),
        Session(engine, expire_on_commit=False) as s,
    ):
        # a write first: the transaction holds the write lock from here to its commit
        s.execute(sa.update(w).where(*mine, col(w.seen_at) < stale_before).values(state="stopped"))
        for row in s.exec(select(w).where(*mine).order_by(col(w.id))).all():
            holder = t.WorkerRead.model_validate(row)
            if alive(holder):
                s.rollback()
                return Claim(None, holder)
            row.state = "stopped"
        row = w(site_id=site_id, name=name, role=role)
        s.add(row)
        s.commit()
        assert row.id is not None
        return Claim(row.id, None)
