"""Who may crawl a site: the query lock of a crawl shared on PostgreSQL, seen from two processes
(two engines), and the claim that keeps a second crawl process off a SQLite site."""

from __future__ import annotations

import socket
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

import pytest
import sqlalchemy as sa

from deepcrawl.crawler.context import CrawlStats
from deepcrawl.crawler.coordination import Heartbeat, process_alive, process_name
from deepcrawl.errors import ConfigError
from deepcrawl.storage import Repository
from deepcrawl.storage import tables as t
from deepcrawl.storage.claims import claim_site
from deepcrawl.storage.coordination import QueryLock, workers

if TYPE_CHECKING:
    from collections.abc import Callable


def test_the_query_lock_is_watched_without_being_taken(make_db: Callable[[str], str]) -> None:
    db = make_db("postgres")
    with Repository.open(db) as crawl, Repository.open(db) as worker:
        site = crawl.site("http://shop.test/")
        held, watched = QueryLock(crawl.engine, site.id), QueryLock(worker.engine, site.id)
        other_site = QueryLock(worker.engine, site.id + 1)
        assert not watched.held_elsewhere()
        assert held.acquire()
        assert watched.held_elsewhere()
        assert not other_site.held_elsewhere()
        assert not held.held_elsewhere()  # its own lock
        for _ in range(3):  # watching never takes it: the holder's rival still cannot
            watched.held_elsewhere()
        assert not watched.acquire()
        held.release()
        assert not watched.held_elsewhere()
        assert watched.acquire()  # a crawl taking over
        assert not held.acquire()
        watched.release()


def test_one_crawl_process_claims_a_sqlite_site_until_it_ends_or_dies(
    make_db: Callable[[str], str],
) -> None:
    db = make_db("sqlite")
    with Repository.open(db) as first, Repository.open(db) as second:
        site = first.site("http://shop.test/")
        stats = CrawlStats()
        holder = Heartbeat(first.engine, site.id, "crawl", stats, every_s=5.0)
        holder.register(exclusive=True)
        rival = Heartbeat(second.engine, site.id, "crawl", stats, every_s=5.0)
        with pytest.raises(ConfigError, match=rf"another process \({process_name()}"):
            rival.register(exclusive=True)  # this very process holds it, and it is alive
        holder.stop("done")
        rival.register(exclusive=True)  # ended: free
        assert rival.id is not None

        # a holder whose process is gone, or whose heartbeat is old, is taken over
        recent = datetime.now(UTC) - timedelta(seconds=15)

        def claim(name: str, alive: Callable[[t.WorkerRead], bool]) -> int | None:
            got = claim_site(
                second.engine, site.id, name=name, role="crawl", stale_before=recent, alive=alive
            )
            return got.worker_id

        assert claim("vm:1", lambda row: row.name == "vm:1") is not None  # the rival died
        assert claim("vm:2", lambda row: True) is None  # vm:1 lives
        with first.engine.begin() as conn:  # vm:1's heartbeat stops
            conn.execute(sa.update(t.Worker).values(seen_at=datetime.now(UTC) - timedelta(hours=1)))
        assert claim("vm:2", lambda row: True) is not None
        running = [w.name for w in workers(first.engine, site.id) if w.state == "running"]
        assert running == ["vm:2"]


def test_a_process_is_alive_only_while_its_pid_names_the_process_that_wrote_the_row() -> None:
    now = datetime.now(UTC)
    me = t.WorkerRead(id=1, site_id=1, name=process_name(), started_at=now, seen_at=now)
    assert process_alive(me)
    reused = me.model_copy(update={"started_at": now - timedelta(days=400)})
    assert not process_alive(reused)  # this pid was another process's
    gone = me.model_copy(update={"name": f"{socket.gethostname()}:{2**22 + 1}"})
    assert not process_alive(gone)
    elsewhere = me.model_copy(update={"name": "another-host.example:1"})
    assert process_alive(elsewhere)  # only its heartbeat can tell
