"""A lease names the process holding it, and a process judged dead gives its leases back at
once (issue 25, item 3), on a SQLite file and a real PostgreSQL server."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from deepcrawl.storage import Repository
from deepcrawl.storage import tables as t
from deepcrawl.storage.coordination import SILENT_BEATS, record_heartbeat, register_worker
from deepcrawl.storage.frontier import NewURL, SqlFrontier

HEARTBEAT_S = 5.0


def _silence(repo: Repository, worker: int, beats: float) -> None:
    """Make a process's last heartbeat ``beats`` heartbeats old."""
    when = datetime.now(UTC) - timedelta(seconds=beats * HEARTBEAT_S)
    with repo.engine.begin() as conn:
        conn.execute(sa.update(t.Worker).where(t.Worker.id == worker).values(seen_at=when))  # type: ignore[arg-type]


def test_the_leases_of_a_silent_process_come_back_at_once(db_url: str) -> None:
    with Repository.open(db_url) as repo:
        site = repo.site("http://example.test/")
        gone = register_worker(repo.engine, site.id, name="elsewhere:1", role="worker")
        alive = register_worker(repo.engine, site.id, name="elsewhere:2", role="worker")

        def frontier(holder: int) -> SqlFrontier:
            return SqlFrontier(repo.engine, site.id, holder=holder, heartbeat_s=HEARTBEAT_S)

        frontier(gone).add([NewURL(f"http://example.test/{n}") for n in range(3)])
        held = frontier(gone).lease(2, lease_s=900)
        with repo.engine.connect() as conn:
            holders = conn.execute(sa.text("SELECT holder FROM frontier WHERE state = 'leased'"))
            assert set(holders.scalars()) == {gone}
        # silent, but not yet for three heartbeats: its leases stay its own
        _silence(repo, gone, SILENT_BEATS - 1)
        assert [lease.url for lease in frontier(alive).lease(3, lease_s=900)] == [
            "http://example.test/2"
        ]
        _silence(repo, gone, SILENT_BEATS + 1)
        again = frontier(alive).lease(3, lease_s=900)
        assert {lease.url for lease in again} == {lease.url for lease in held}
        assert all(lease.attempts == 2 for lease in again)
        # a frontier that judges no one (no heartbeat) leaves live leases to expire
        record_heartbeat(repo.engine, alive, state="running", pages=0, errors=0, figures={})
        _silence(repo, alive, SILENT_BEATS + 1)
        assert SqlFrontier(repo.engine, site.id).lease(3, lease_s=900) == []
        # a process never judges itself dead (a stalled heartbeat of its own)
        assert frontier(alive).lease(3, lease_s=900) == []
        assert len(frontier(gone).lease(3, lease_s=900)) == 3


def test_the_leases_of_a_process_that_ended_come_back(db_url: str) -> None:
    with Repository.open(db_url) as repo:
        site = repo.site("http://example.test/")
        ended = register_worker(repo.engine, site.id, name="elsewhere:1", role="worker")
        other = register_worker(repo.engine, site.id, name="elsewhere:2", role="worker")
        mine = SqlFrontier(repo.engine, site.id, holder=ended, heartbeat_s=HEARTBEAT_S)
        mine.add([NewURL("http://example.test/a")])
        assert len(mine.lease(1, lease_s=900)) == 1
        record_heartbeat(repo.engine, ended, state="stopped", pages=0, errors=0, figures={})
        theirs = SqlFrontier(repo.engine, site.id, holder=other, heartbeat_s=HEARTBEAT_S)
        assert [lease.url for lease in theirs.lease(1, lease_s=900)] == ["http://example.test/a"]
