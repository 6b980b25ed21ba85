"""Where robots.txt forbids the search: the lists a crawl may browse, as the records' pick
reads them, and the search request a script sends that robots.txt refused."""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

from deepcrawl.crawler.browse import BrowsedList, listed_links
from deepcrawl.crawler.navigate import PATIENCE_MIN, _patience
from deepcrawl.crawler.records_search import _forbidden_query
from deepcrawl.page.fetched import FetchedPage, Link

if TYPE_CHECKING:
    from deepcrawl.crawler.context import CrawlContext

SITE = "http://shop.example"
MENU = [Link(f"{SITE}/about", "About", dom_path="html/body/nav/a[1]"),
        Link(f"{SITE}/browse", "Browse", dom_path="html/body/nav/a[2]")]  # fmt: skip


def _list_page(number: int, last: bool = False) -> FetchedPage:
    url = f"{SITE}/browse?page={number}"
    items = [
        Link(f"{SITE}/item/{number * 10 + i}", f"Item {number * 10 + i}",
             dom_path=f"html/body/ul/li[{i + 1}]/a")
        for i in range(3)
    ]  # fmt: skip
    pager = [] if last else [Link(f"{SITE}/browse?page={number + 1}", "Next", rel="next")]
    return FetchedPage(url, url, 200, "text/html", "<html></html>", links=[*MENU, *items, *pager])


def test_each_list_page_is_one_list_of_entries_its_menus_and_pager_told_apart() -> None:
    start = FetchedPage(SITE + "/", SITE + "/", 200, "text/html", "<html></html>", links=MENU)
    lists = [BrowsedList([_list_page(1), _list_page(2), _list_page(3, last=True)])]
    shown = listed_links(start, lists)
    results = [(n, url) for n, url, _text, role in shown if role == "result"]
    assert results == [(n, f"{SITE}/item/{(n + 1) * 10 + i}") for n in range(3) for i in range(3)]
    roles = {url: role for _n, url, _text, role in shown}
    assert roles[f"{SITE}/about"] == "chrome"  # the start page's menu
    assert roles[f"{SITE}/browse?page=2"] == "pager"


def test_links_every_list_page_shows_are_chrome_without_a_start_page() -> None:
    lists = [BrowsedList([_list_page(1), _list_page(2)])]
    roles = {url: role for _n, url, _text, role in listed_links(None, lists)}
    assert roles[f"{SITE}/about"] == "chrome"
    assert roles[f"{SITE}/item/10"] == "result"


def _ctx(*refused: str) -> CrawlContext:
    return cast("CrawlContext", SimpleNamespace(gate=SimpleNamespace(forbidden=list(refused))))


def test_a_refused_request_carrying_the_word_is_the_searchs_own() -> None:
    ctx = _ctx(f"{SITE}/admin/stats?x=1", f"{SITE}/api/search?q=river+maps&page=1")
    assert _forbidden_query(ctx, "river maps") == f"{SITE}/api/search?q=river+maps&page=1"
    assert _forbidden_query(_ctx(f"{SITE}/find/river"), "River") == f"{SITE}/find/river"


def test_a_refused_request_without_the_word_is_no_search_of_it() -> None:
    ctx = _ctx(f"{SITE}/api/search?q=castle", f"{SITE}/track?page=about")
    assert _forbidden_query(ctx, "river") is None
    assert _forbidden_query(ctx, "a") is None  # "a" is a value only as a whole value
    assert _forbidden_query(_ctx(), "river") is None


def test_the_navigation_waits_for_a_tenth_of_the_records_held_without_a_new_one() -> None:
    assert _patience(0) == PATIENCE_MIN
    assert _patience(3000) == 300


def test_a_browse_reports_the_records_it_delivered_as_its_estimate_and_no_proof() -> None:
    from deepcrawl.crawler.browse import browsed
    from deepcrawl.crawler.context import CrawlStats

    stats = CrawlStats(started=0.0)
    stats.pages_delivered = 300
    lists = [BrowsedList([_list_page(1)]), BrowsedList([_list_page(1)], next_url=f"{SITE}/x")]
    browsed(stats, lists, "stopped: its last 30 requests brought no new record")
    assert (stats.records_reached, stats.records_estimated, stats.complete) == (300, 300.0, False)
    assert stats.stop_reason == (
        "1 of the 2 allowed lists read to their end; "
        "the navigation stopped: its last 30 requests brought no new record"
    )
