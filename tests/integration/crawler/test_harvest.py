"""What keeps a crawl's requests on records: links on record pages, paging control, the stop.

The books site links every book to three "related books" of its category; the crawl follows
the ones its labelled prototype matches (never the print and export links beside them), counts
them as known to the keyword manager, and queries only while the frontier is empty, so the form
is asked for what the links did not bring. Small sites keep it fast; the 500-record figures are
in BENCHMARKS.md.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

from deepcrawl.crawler import CallbackSink, Crawl
from deepcrawl.settings import load_settings

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from deepcrawl_fixtures import FixtureServer

    ServerFactory = Callable[..., FixtureServer]

pytestmark = pytest.mark.browser

RECORDS = 60
#: The kinds of request a crawl of the books site makes without hubs.
TRAIL = frozenset({"robots", "home", "results", "detail", "unknown"})


async def crawl_books(
    fixture_server: ServerFactory,
    tmp_path: Path,
    *,
    hubs: bool = False,
    keywords: dict[str, Any] | None = None,
    records: int = RECORDS,
    **crawl: Any,
) -> tuple[set[str], dict[str, Any], list[tuple[str, str]]]:
    """Crawl the books site; return the records reached, the server's counts, the frontier.

    ``hubs``: category pages (linked from every book) may be read as hubs; off, the crawl reads
    result lists and record pages only. ``keywords``: settings of the keyword manager."""
    tmp_path.mkdir(parents=True, exist_ok=True)  # the database's folder is not made for it
    server = fixture_server("books", records=records, seed=5)
    server.reset_stats()
    truth = server.truth()
    settings = load_settings(
        storage={"url": f"sqlite:///{tmp_path / 'crawl.db'}", "bodies_dir": tmp_path / "bodies"},
        politeness={"requests_per_second": 0.0, "concurrency_per_host": 4},
        links={} if hubs else {"hub_max_kinds": 0},
        keywords=keywords or {},
        crawl=crawl,
    )
    records: list[dict[str, Any]] = []
    async with Crawl(server.url + "/", settings=settings, like=[truth.detail_paths[0]]) as run:
        report = await run.run(CallbackSink(records.append))
    assert report.status == "done"
    reached = set()
    for record in records:
        parts = urlsplit(record["url"])
        found = truth.record_of(parts.path + ("?" + parts.query if parts.query else ""))
        if found is not None:
            reached.add(found)
    with sqlite3.connect(tmp_path / "crawl.db") as db:
        frontier = [(str(u), str(s)) for u, s in db.execute("select url, source from frontier")]
    return reached, server.stats(), frontier


async def test_related_links_are_followed_and_spare_result_pages(
    fixture_server: ServerFactory, tmp_path: Path
) -> None:
    reached, stats, frontier = await crawl_books(fixture_server, tmp_path / "links")
    kinds = stats["by_kind"]
    assert len(reached) >= 0.95 * RECORDS
    by_link = [url for url, source in frontier if source.startswith("link on ")]
    assert len(by_link) >= RECORDS // 4, "related books were not followed"
    # only the labelled kind: no print or export page, no category listing (the one unknown
    # request is the /sitemap.xml this site does not have)
    assert set(kinds) <= {"robots", "home", "results", "detail", "unknown"}, kinds
    assert [e["path"] for e in stats["log"] if e["kind"] == "unknown"] == ["/sitemap.xml"]
    assert all("?" not in url for url in by_link)  # ?ref=related dropped before the frontier

    reached_q, stats_q, frontier_q = await crawl_books(
        fixture_server, tmp_path / "queries", follow_record_links=False
    )
    assert not [s for _u, s in frontier_q if s.startswith("link on ")]
    assert len(reached_q) >= 0.9 * RECORDS
    # the links spared result pages (on a site this small the stop rules' evidence costs most)
    assert stats_q["by_kind"]["results"] > kinds["results"], (stats_q["by_kind"], kinds)


async def test_hub_trials_cost_a_request_a_kind_when_they_bring_nothing(
    fixture_server: ServerFactory, tmp_path: Path
) -> None:
    # Every book links its category page, which lists the ten newest books of it, and the
    # log-in page: two kinds worth a trial. The searches and the related-books links have shown
    # those ten by then, so each kind is tried once and dropped (a paying kind is read on: the
    # unit tests, and ht://Dig's topic pages in the real-site bench).
    reached, stats, frontier = await crawl_books(fixture_server, tmp_path, hubs=True)
    assert len(reached) >= 0.95 * RECORDS
    trials = [e["path"] for e in stats["log"] if e["kind"] not in TRAIL]
    assert len(trials) == 2, trials  # links.hub_max_kinds
    assert any(path.startswith("/category/") for path in trials), trials  # a family first
    assert not [u for u, s in frontier if s.startswith("hub ")]  # they brought no new book
