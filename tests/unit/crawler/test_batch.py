"""The fetch workers' batch of pages not stored yet: what it holds and when it is due."""

from __future__ import annotations

import time

from deepcrawl.crawler.batch import StoreBatch, Unsaved
from deepcrawl.page.fetched import FetchedPage
from deepcrawl.storage import PageWrite
from deepcrawl.storage.frontier import Lease

BASE = "http://shop.test"


def _unsaved(n: int, path: str, **write: str | None) -> Unsaved:
    url = BASE + path
    page = FetchedPage(url=url, final_url=url, status=200, content_type="text/html", body="")
    return Unsaved(Lease(n, url, 0.0, 0, 1), PageWrite(page, url=url, **write), None)


def test_the_batch_answers_for_the_pages_it_holds() -> None:
    batch = StoreBatch(size=10, max_age_s=60.0)
    assert not batch
    assert not batch.holds(BASE + "/a")
    batch.add(_unsaved(1, "/a", kind="record", canonical_url=BASE + "/item/a", fingerprint="fa"))
    batch.add(_unsaved(2, "/b?ref=x", kind="duplicate", canonical_url=BASE + "/a"))
    # the store's answers once stored: a page under its key, a record under its canonical URL
    assert batch.holds(BASE + "/a")
    assert batch.holds(BASE + "/item/a")
    assert batch.holds(BASE + "/b?ref=x")
    assert not batch.holds(BASE + "/c")
    # a record: by its key, its canonical URL or its text; a duplicate shows no record of its own
    assert batch.shows(BASE + "/a", None)
    assert batch.shows(BASE + "/item/a", None)
    assert batch.shows(None, "fa")
    assert not batch.shows(BASE + "/b?ref=x", None)
    assert not batch.shows(None, None)
    assert not batch.shows(BASE + "/c", "fc")
    assert [item.lease.id for item in batch.take()] == [1, 2]
    assert len(batch) == 0
    assert not batch.holds(BASE + "/a")
    assert not batch.shows(None, "fa")


def test_the_batch_is_ready_when_full_or_old() -> None:
    batch = StoreBatch(size=2, max_age_s=60.0)
    assert not batch.ready  # empty: never
    batch.add(_unsaved(1, "/a"))
    assert not batch.ready
    batch.add(_unsaved(2, "/b"))
    assert batch.ready
    batch.take()
    old = StoreBatch(size=100, max_age_s=0.01)
    old.add(_unsaved(1, "/a"))
    time.sleep(0.02)
    assert old.ready
    assert StoreBatch(size=0, max_age_s=1.0).size == 1
