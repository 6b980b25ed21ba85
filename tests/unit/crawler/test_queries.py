"""The stored queries a phase's event log lacks come back as events: a crawl killed between a
query's store and its event resumes knowing the query (its words tried, its records shown)."""

from __future__ import annotations

from datetime import UTC, datetime

from deepcrawl.crawler.queries import unlogged
from deepcrawl.querying.events import QueryEvent, RecordRead
from deepcrawl.storage import tables as t
from deepcrawl.storage.state import StoredQuery


def _stored(n: int, word: str, urls: list[str]) -> StoredQuery:
    row = t.QueryRead(
        id=n, site_id=1, form_id=1, submitted_at=datetime.now(UTC), keyword=word,
        result_count=len(urls), result_pages=1, results_reported=len(urls),
    )  # fmt: skip
    return StoredQuery(row, tuple((url, url[-2:], "result") for url in urls))


def _event(word: str, urls: list[str]) -> QueryEvent:
    return QueryEvent(word, results=tuple((u, "", u, 1) for u in urls), result_pages=1)


def test_the_stored_queries_past_those_logged_come_back_as_events() -> None:
    red, blue = ["http://s/r1", "http://s/r2"], ["http://s/b1"]
    stored = [_stored(1, "red", red), _stored(2, "blue", blue)]
    log = [_event("red", red), RecordRead("http://s/r1", "red one", ())]
    (missing,) = unlogged(log, stored, lambda url: url)
    assert isinstance(missing, QueryEvent)
    assert (missing.word, missing.total) == ("blue", 1)
    assert missing.record_texts() == {"http://s/b1": "b1"}


def test_a_log_holding_every_stored_query_lacks_none() -> None:
    red = ["http://s/r1"]
    assert unlogged([_event("red", red)], [_stored(1, "red", red)], lambda url: url) == []
