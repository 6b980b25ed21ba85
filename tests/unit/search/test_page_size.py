"""Fewer result pages: page-size controls, the JSON data path, paging control, known texts."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from deepcrawl.browser.base import Fetcher
from deepcrawl.fetch.gate import Gate
from deepcrawl.fetch.held import HeldPages
from deepcrawl.fetch.politeness import HostLimiter
from deepcrawl.fetch.robots import RobotsPolicy
from deepcrawl.page.fetched import FetchedPage, Link
from deepcrawl.page.form import FieldOption, Form, FormField
from deepcrawl.search.data_api import DataPage, DataSearch, parse_data_page
from deepcrawl.search.page_size import (
    offered_page_size,
    page_size_choice,
    page_size_param,
    with_page_size,
)
from deepcrawl.search.results import QueryResult, ResultLink, ResultPage
from deepcrawl.search.template import TemplateSearch, UrlTemplate, carries
from deepcrawl.settings import PolitenessSettings

BASE = "http://news.test"
DATA = Path(__file__).parents[2] / "data" / "real"


def select(name: str, values: list[str], label: str = "") -> FormField:
    options = tuple(FieldOption(value=v, text=v) for v in values)
    return FormField(tag="select", type="select-one", name=name, label=label, options=options)


def test_page_size_select_is_set_to_its_largest_sensible_value() -> None:
    form = Form(
        page_url=f"{BASE}/",
        action=f"{BASE}/search",
        fields=(
            select("per_page", ["10", "20", "50"]),
            select("show", ["25", "100", "100000", "all"]),
            select("n", ["5", "15"], label="Results per page"),
            select("cat", ["", "art", "travel"], label="Category"),
            select("year", ["2023", "2024"], label="Year"),
        ),
    )
    assert page_size_choice(form) == {"per_page": "50", "show": "100", "n": "15"}


def test_page_size_parameters_in_urls() -> None:
    url = f"{BASE}/api/search?q=tea&offset=0"
    assert page_size_param(url) is None
    assert with_page_size(url, "limit", 50) == f"{BASE}/api/search?q=tea&offset=0&limit=50"
    sized = f"{BASE}/api/search?q=tea&per_page=10&page=2"
    assert page_size_param(sized) == "per_page"
    assert with_page_size(sized, "per_page", 50) == f"{BASE}/api/search?q=tea&per_page=50&page=2"
    assert carries(url, " Tea ")
    assert not carries(url, "te")


def test_json_results_are_the_longest_list_of_objects_naming_a_url() -> None:
    body = json.dumps(
        {
            "total": 31,
            "facets": [{"name": "art", "count": 3}],
            "results": [{"url": f"/a/{i}", "title": f"A {i}", "tags": ["x"]} for i in range(3)],
        }
    )
    page = parse_data_page(body, f"{BASE}/api/search?q=a")
    assert page is not None
    assert page.total == 31
    assert page.links == tuple((f"{BASE}/a/{i}", f"A {i}") for i in range(3))
    nested = json.dumps({"data": {"hits": [{"link": "https://x.test/p/1", "name": "One"}]}})
    hits = parse_data_page(nested, BASE)
    assert hits is not None
    assert hits.links == (("https://x.test/p/1", "One"),)
    empty = parse_data_page(json.dumps({"total": 0, "results": []}), BASE)
    assert empty is not None
    assert empty.links == ()
    assert empty.total == 0
    assert parse_data_page("<html>not json</html>", BASE) is None
    assert parse_data_page(json.dumps({"status": "ok"}), BASE) is None


@pytest.mark.parametrize(
    ("total", "read"),
    [("93 results", 93), ("about 1,204 matches", 1204), ("1,204", 1204), ("many", None),
     (True, None)],
)  # fmt: skip
def test_a_total_written_as_text_is_read_as_a_page_reports_it(
    total: object, read: int | None
) -> None:
    body = json.dumps({"entries": [{"url": "/a/1", "title": "A"}], "total": total})
    page = parse_data_page(body, BASE)
    assert page is not None
    assert page.total == read


class JsonSite(Fetcher):
    """A JSON search of 95 records: ``offset`` paging, 10 a page unless ``limit`` (<= 50) says."""

    def __init__(self) -> None:
        self.fetched: list[str] = []

    async def fetch(self, url: str) -> FetchedPage:
        self.fetched.append(url)
        query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
        hits = list(range(1, 96)) if query.get("q") == "tea" else []
        offset = int(query.get("offset", "0"))
        limit = min(50, int(query.get("limit", "10")))
        shown = hits[offset : offset + limit]
        data = {
            "total": len(hits),
            "results": [{"url": f"/story/{i}", "title": f"Story {i}"} for i in shown],
        }
        body = json.dumps(data)
        return FetchedPage(url, url, 200, "application/json", body)


#: A robots.txt answer that closes the data request's path.
ROBOTS = FetchedPage(
    f"{BASE}/robots.txt", f"{BASE}/robots.txt", 200, "text/plain", "User-agent: *\nDisallow: /api\n"
)


def browser_result(keyword: str) -> QueryResult:
    """What the browser saw: the first ten results, and the data request of the page."""
    links = [ResultLink(url=f"{BASE}/story/{i}", text=f"Story {i}") for i in range(1, 11)]
    return QueryResult(
        keyword=keyword,
        links=links,
        pages=1,
        data_urls=[f"{BASE}/api/search?q={keyword}&offset=0"],
    )


async def test_data_search_checks_raises_the_page_size_and_pages_by_offset() -> None:
    site = JsonSite()
    search = DataSearch.from_result(browser_result("tea"), site, page_size=50)
    assert search is not None
    assert await search.check(browser_result("tea"))
    assert search.size_param == "limit"
    site.fetched.clear()
    result = await search.query("tea")
    assert (result.outcome, result.via, result.total_results) == ("ok", "http", 95)
    assert len(result.result_links) == 95
    assert result.pages == 2
    assert site.fetched == [
        f"{BASE}/api/search?q=tea&offset=0&limit=50",
        f"{BASE}/api/search?q=tea&offset=50&limit=50",
    ]
    assert (await search.query("coffee")).outcome == "no_results"
    stopped = await search.query("tea", more=lambda _page, number: number < 1)
    assert stopped.pages == 1
    assert len(stopped.result_links) == 50


async def test_each_data_page_names_its_next_request_while_the_list_goes_on() -> None:
    # a data response shows no pager: the page the paging control sees names the request of
    # the next page as a page's "next" link would, and the last page none (its list's end)
    site = JsonSite()
    search = DataSearch.from_result(browser_result("tea"), site)
    assert search is not None
    seen: list[list[str]] = []

    def more(page: ResultPage, _number: int) -> bool:
        seen.append([link.url for link in page.links if link.rel == "next"])
        return True

    result = await search.query("tea", more=more)
    assert result.pages == 10
    assert seen[0] == [f"{BASE}/api/search?q=tea&offset=10"]
    assert seen[-1] == []  # 95 of 95: no next request
    assert all(len(nexts) == 1 for nexts in seen[:-1])


class NamedNextSite(JsonSite):
    """The JSON search of 95 records whose first request carries no page parameter: each
    response names the next page's request (``"next": "/api/search?q=tea&page=2"``)."""

    async def fetch(self, url: str) -> FetchedPage:
        self.fetched.append(url)
        query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
        hits = list(range(1, 96)) if query.get("q") == "tea" else []
        page = int(query.get("page", "1"))
        shown = hits[(page - 1) * 10 : page * 10]
        more = page * 10 < len(hits)
        data = {
            "total": f"About {len(hits)} results",
            "entries": [{"url": f"/story/{i}", "title": f"Story {i}"} for i in shown],
            "next": f"/api/search?q=tea&page={page + 1}" if more else None,
        }
        return FetchedPage(url, url, 200, "application/json", json.dumps(data))


async def test_a_data_page_that_names_its_next_request_is_paged_by_it() -> None:
    # the browser's first page scrolled in two data pages as it settled (20 links): the check
    # reads the request's pages on, as many as the browser's page asked, before it compares
    site = NamedNextSite()
    browser = QueryResult(
        keyword="tea",
        links=[ResultLink(url=f"{BASE}/story/{i}", text=f"Story {i}") for i in range(1, 21)],
        pages=1,
        data_urls=[f"{BASE}/api/search?q=tea", f"{BASE}/api/search?q=tea&page=2"],
    )
    search = DataSearch.from_result(browser, site, page_size=10)
    assert search is not None
    assert await search.check(browser)
    one = browser.model_copy(update={"data_urls": browser.data_urls[:1]})
    assert not await search.check(one)  # one data page cannot list the browser's twenty
    site.fetched.clear()
    result = await search.query("tea")
    assert (result.outcome, result.pages, result.total_results) == ("ok", 10, 95)
    assert len(result.result_links) == 95
    assert site.fetched[1] == f"{BASE}/api/search?q=tea&page=2"
    assert parse_data_page(json.dumps({"entries": [], "next": None}), BASE) == DataPage((), None)


async def test_data_search_refuses_a_mismatch_and_keeps_to_the_crawls_gate() -> None:
    site = JsonSite()
    other = browser_result("tea").model_copy(
        update={"links": [ResultLink(url=f"{BASE}/story/99", text="Elsewhere")]}
    )
    search = DataSearch.from_result(other, site, page_size=50)
    assert search is not None
    assert not await search.check(other)
    assert (
        DataSearch.from_result(browser_result("tea").model_copy(update={"data_urls": []}), site)
        is None
    )
    politeness = PolitenessSettings(requests_per_second=0)
    gate = Gate(politeness, RobotsPolicy("deepcrawl"), HostLimiter(politeness), lambda _url: True)
    await gate.open(BASE + "/", HeldPages(site, [ROBOTS]))  # a robots.txt that closes /api
    closed = DataSearch.from_result(browser_result("tea"), gate.wrap(site))
    assert closed is not None
    site.fetched.clear()
    refused = await closed.query("tea")
    assert refused.outcome == "error"
    assert "robots" in (refused.error or "")
    assert site.fetched == []


class SessionJsonSite(JsonSite):
    """The JSON search writing a session id of its own into every link of each response, as
    a server does for each client."""

    async def fetch(self, url: str) -> FetchedPage:
        page = await super().fetch(url)
        sid = f"{len(self.fetched):04d}a1b2c3d4"
        body = re.sub(r'(/story/\d+)"', rf'\1?sid={sid}"', page.body or "")
        return FetchedPage(url, url, 200, "application/json", body)


async def test_data_search_checks_the_links_with_each_clients_session_id_dropped() -> None:
    browser = browser_result("tea")
    links = [
        link.model_copy(update={"url": f"{link.url}?sid=ffffeeee0000"}) for link in browser.links
    ]
    browser = browser.model_copy(update={"links": links})
    search = DataSearch.from_result(browser, SessionJsonSite())
    assert search is not None
    assert await search.check(browser)


class HtmlSite(Fetcher):
    """Three HTML result pages of ten links each, "Next" links between them."""

    async def fetch(self, url: str) -> FetchedPage:
        number = int(parse_qs(urlsplit(url).query).get("page", ["1"])[0])
        links = [
            Link(f"{BASE}/story/{i}", f"Story {i}", dom_path=f"html/body/ol/li[{i}]/a")
            for i in range(number * 10 - 9, number * 10 + 1)
        ]
        if number < 3:
            links.append(Link(f"{BASE}/search?q=tea&page={number + 1}", "Next", rel="next"))
        body = "<html><body><p>30 results for tea</p></body></html>"
        return FetchedPage(url, url, 200, "text/html", body, links=links)


async def test_template_paging_stops_when_told() -> None:
    template = UrlTemplate.from_url("tea", f"{BASE}/search?q=tea")
    assert template is not None
    search = TemplateSearch(template, HtmlSite())
    asked: list[int] = []

    def more(page: object, number: int) -> bool:
        asked.append(number)
        return number < 2

    result = await search.query("tea", more=more)
    assert result.pages == 2
    assert asked == [1, 2]
    assert len((await search.query("tea")).result_links) == 30


def test_the_largest_offered_page_size_is_taken_from_a_first_result_page() -> None:
    """MediaWiki's result pages offer "View (previous 20 | next 20) (20 | 50 | 100 | 250 |
    500)": the links of the list's start carry ``offset=0``, those of a later page its offset."""
    saved = (DATA / "mediawiki" / "search_government_p2.html").read_text()
    later = [BASE + href.replace("&amp;", "&") for href in re.findall(r'href="([^"]+)"', saved)]
    assert offered_page_size(later, "government") is None  # page 2: every offer starts later
    first = [url.replace("offset=20", "offset=0") for url in later]
    offer = offered_page_size(first, "Government")
    assert offer is not None
    size, url = offer
    assert size == 100  # 250 and 500 are above PAGE_SIZE_CEILING
    assert "limit=100" in url
    assert offered_page_size(first, "parliament") is None  # another query's list
    # one size is a next link's, not a choice
    single = [f"{BASE}/s?q=tea&limit=20&offset=0", f"{BASE}/s?q=tea&limit=20&offset=20"]
    assert offered_page_size(single, "tea") is None
