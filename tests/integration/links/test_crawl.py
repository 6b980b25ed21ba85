"""The link-learning strategies against real servers, real fetchers and the real form critic.

* ACHE finds a search form two clicks deep behind unrelated sections, rendering pages in
  Chromium and asking deepcrawl's form critic (trained on formasaurus's corpus) about every
  form — sooner than breadth-first, thanks to paths learnt on another site;
* every strategy crawls the "books" fixture site over plain HTTP within its request budget as
  the *server* counts it, and reaches records;
* entry-point discovery reports the page holding the search form, as ``deepcrawl discover``
  will print it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from deepcrawl.browser import BrowserFetcher, BrowserPool, HttpFetcher
from deepcrawl.browser.testing import LocalSite, Reply
from deepcrawl.errors import ConfigError
from deepcrawl.links import (
    STRATEGIES,
    AcheCrawler,
    ApprenticeCrawler,
    XCrawler,
    form_target,
    pattern_target,
)
from deepcrawl.links.context import LinkContext
from deepcrawl.links.discover import discover_forms
from deepcrawl.settings import Settings

if TYPE_CHECKING:
    from collections.abc import Callable

    from deepcrawl_fixtures import FixtureServer

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.page.fetched import FetchedPage

SETTINGS = Settings().with_overrides(
    browser={"page_timeout_s": 10.0},
    politeness={"requests_per_second": 0.0, "concurrency_per_host": 2},
)

LOGIN = (
    "<form action='/login' method='post'><label>User <input name='user'></label>"
    "<label>Password <input type='password' name='password'></label>"
    "<input type='submit' value='Log in'></form>"
)


def _frame(body: str) -> Reply:
    nav = " ".join(f"<a href='/{s}'>{s.title()}</a>" for s in ("news", "events", "library"))
    return Reply(
        f"<html><body><header><a href='/'>Home</a> {nav}{LOGIN}</header><main>{body}</main>"
        "</body></html>"
    )


def _routes() -> dict[str, Any]:
    routes: dict[str, Any] = {"/": _frame("<p>Welcome to the archive.</p>")}
    for section in ("news", "events"):
        routes[f"/{section}"] = _frame(
            "".join(f"<p><a href='/{section}/{k}'>{section} story {k}</a></p>" for k in range(4))
        )
        for k in range(4):
            routes[f"/{section}/{k}"] = _frame(f"<p>Story {k}.</p>")
    routes["/library"] = _frame(
        "".join(f"<p><a href='/library/guide-{k}'>Reading guide {k}</a></p>" for k in range(3))
        + "<p><a href='/library/advanced-search'>Advanced search</a></p>"
    )
    for k in range(3):
        routes[f"/library/guide-{k}"] = _frame(f"<p>Guide {k}.</p>")
    routes["/library/advanced-search"] = _frame(
        "<h2>Search the archive</h2><form action='/find' method='get'><label>Keywords "
        "<input type='text' name='q'></label><input type='submit' value='Search'></form>"
    )
    return routes


def _prior() -> list[tuple[LinkContext, int]]:
    """Paths learnt on another site: where its search form was, and what led nowhere."""
    other = "http://elsewhere.test/"

    def ctx(path: str, anchor: str) -> LinkContext:
        return LinkContext(url=other + path, source=other, anchor=anchor)

    return [
        (ctx("catalogue/advanced-search", "Advanced search"), 1),
        (ctx("holdings/search", "Search our holdings"), 1),
        (ctx("catalogue", "Catalogue"), 2),
        (ctx("press/2", "press story"), 4),
        (ctx("blog/7", "blog story"), 4),
        (ctx("about", "About us"), 4),
    ]


async def _crawl(
    strategy: Any, url: str, fetcher: Fetcher, stop: Callable[[FetchedPage], bool]
) -> list[FetchedPage]:
    pages = []
    async with fetcher:
        async for page in strategy.crawl(url + "/", fetcher=fetcher, max_requests=80):
            pages.append(page)
            if stop(page):
                break
    return pages


@pytest.mark.browser
async def test_ache_finds_the_search_form_in_chromium_with_the_critic() -> None:
    is_form = form_target(SETTINGS)
    with LocalSite(_routes()) as site:
        async with BrowserPool(SETTINGS, {"127.0.0.1"}) as pool:
            bfs_pages = await _crawl(
                STRATEGIES["bfs"](SETTINGS), site.url, BrowserFetcher(SETTINGS, pool=pool), is_form
            )
            bfs_requests = len(site.log)
            site.log.clear()
            ache = AcheCrawler(SETTINGS, is_target=is_form, prior=_prior())
            ache_pages = await _crawl(ache, site.url, BrowserFetcher(SETTINGS, pool=pool), is_form)
            ache_requests = len(site.log)
    assert bfs_pages[-1].final_url.endswith("/library/advanced-search")
    assert ache_pages[-1].final_url.endswith("/library/advanced-search")
    assert ache.targets == [site.url + "/library/advanced-search"]
    # Only the search form counts: the login form on every page is refused by the critic.
    assert sum(1 for p in ache_pages if is_form(p)) == 1
    assert ache_requests < bfs_requests


@pytest.mark.parametrize("name", ["ache", "apprentice", "xcrawl"])
async def test_strategies_on_the_books_site_stay_in_budget(
    books_server: FixtureServer, name: str
) -> None:
    classes: dict[str, type[AcheCrawler | ApprenticeCrawler | XCrawler]] = {
        "ache": AcheCrawler,
        "apprentice": ApprenticeCrawler,
        "xcrawl": XCrawler,
    }
    is_record = pattern_target(r"/book/\d+")
    options = {"ache": {"learning_threshold": 10}, "apprentice": {"batch": 30}}.get(name, {})
    strategy = classes[name](SETTINGS, is_target=is_record, **options)
    books_server.reset_stats()
    pages = []
    async with HttpFetcher(SETTINGS) as fetcher:
        async for page in strategy.crawl(books_server.url + "/", fetcher=fetcher, max_requests=120):
            pages.append(page)
    stats = books_server.stats()
    assert stats["requests"] <= 120
    records = {p.final_url for p in pages if is_record(p)}
    assert records == set(strategy.targets)
    assert len(records) >= 10
    assert all(p.final_url.startswith(books_server.url) for p in pages)
    assert stats["by_kind"].get("disallowed", 0) == 0  # robots.txt obeyed


async def test_discover_forms_reports_the_page_holding_the_form() -> None:
    with LocalSite(_routes()) as site:
        async with HttpFetcher(SETTINGS) as fetcher:
            found = await discover_forms(site.url + "/", SETTINGS, fetcher=fetcher)
        requests = len(site.log)
    data = found.as_dict()
    assert len(data["forms"]) == 1
    form = data["forms"][0]
    assert form["page"] == site.url + "/library/advanced-search"
    assert form["action"] == site.url + "/find"
    assert form["method"] == "GET"
    assert form["score"] >= 0.5
    assert data["strategy"] == "ache"
    assert 0 < data["pages_fetched"] <= requests
    with pytest.raises(ConfigError, match="unknown strategy"):
        await discover_forms(site.url + "/", SETTINGS, fetcher=HttpFetcher(SETTINGS), strategy="x")
