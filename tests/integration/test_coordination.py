"""The query lock of a crawl shared on PostgreSQL, seen from two processes (two engines)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl.crawler.coordination import QueryLock
from deepcrawl.storage import Repository

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
