"""The form filler on the fixture sites: queries to exhaust each search form, and what they cost.

For each site (default size) the crawl's query loop (:class:`deepcrawl.querying.QueryLoop`)
queries the site's search form to its end — through Chromium, switching to the URL template
where the check passes — and the run reports queries, submissions by path, requests the server
saw, result pages, records reached against the records the search can surface (ground truth),
and wall time. The
books site runs twice: with URL templates and browser only, so the template path's speed-up is
a ratio measured in the same run.

Run: ``PYTHONPATH=.:fixtures .venv/bin/python benchmarks/filler_sites.py [--sites books,shop]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from typing import Any

from deepcrawl_fixtures import FixtureServer
from deepcrawl_fixtures.data import STOP_WORDS

from deepcrawl.browser import BrowserPool
from deepcrawl.querying import QueryLoop
from deepcrawl.search import FormSearch, QueryResult, find_search_form
from deepcrawl.settings import Settings


def searchable(server: FixtureServer) -> set[str]:
    """Records the search form can surface: those with at least one searchable word."""
    from deepcrawl_fixtures import build_site

    site = build_site(server.name, records=server.records, seed=server.seed)
    drop = STOP_WORDS if server.name == "books" else frozenset()
    found: set[int] = set()
    for word, ids in site.corpus.index.items():
        if word not in drop:
            found.update(ids)
    return {site.detail_path(site.corpus.records[i - 1]) for i in found}


async def run(name: str, *, templates: bool, max_queries: int) -> dict[str, Any]:
    settings = Settings().with_overrides(
        querying={"max_queries": max_queries},
    )
    with FixtureServer(name) as server:
        truth = server.truth()
        wanted = searchable(server)
        started = time.monotonic()
        async with BrowserPool(settings, ["127.0.0.1"]) as pool:
            form, verdict = await find_search_form(server.url + "/", settings, pool)
            server.reset_stats()
            loop = QueryLoop(settings, record_id=truth.record_of)
            results: list[QueryResult] = []
            async with FormSearch(pool, form, verdict, settings, templates=templates) as search:
                while (result := await loop.step(search)) is not None:
                    results.append(result)
        elapsed = time.monotonic() - started
        stats = server.stats()
    reached = loop.ledger.records & wanted
    coverage = loop.ledger.coverage()
    return {
        "site": name,
        "templates": templates,
        "queries": len(results),
        "browser_submissions": sum(r.via == "browser" for r in results),
        "http_queries": sum(r.via == "http" for r in results),
        "result_pages": sum(r.pages for r in results),
        "server_requests": stats["requests"],
        "outcomes": {
            o: sum(r.outcome == o for r in results) for o in ("ok", "no_results", "error")
        },
        "records_reached": len(reached),
        "records_searchable": len(wanted),
        "recall": round(len(reached) / len(wanted), 4),
        "estimated_size": coverage.estimated,
        "stop_reason": loop.figures.stop_reason,
        "seconds": round(elapsed, 1),
        "seconds_per_query": round(elapsed / max(1, len(results)), 3),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sites", default="books,shop,news")
    parser.add_argument("--max-queries", type=int, default=300)
    args = parser.parse_args()
    rows = []
    for name in args.sites.split(","):
        rows.append(await run(name, templates=True, max_queries=args.max_queries))
        print(json.dumps(rows[-1]), flush=True)
        if name == "books":
            rows.append(await run(name, templates=False, max_queries=args.max_queries))
            print(json.dumps(rows[-1]), flush=True)
    books = [r for r in rows if r["site"] == "books"]
    if len(books) == 2:
        fast, slow = books
        ratio = slow["seconds_per_query"] / max(fast["seconds_per_query"], 1e-9)
        print(f"books: browser-only / with URL templates, seconds per query = {ratio:.1f}x")


if __name__ == "__main__":
    asyncio.run(main())
