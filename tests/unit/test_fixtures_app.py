"""The fixture sites' ASGI app in process: served kinds, search pages, stop words, stats."""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import AsyncIterator, Callable

import httpx
import pytest
from deepcrawl_fixtures import SITES, build_site
from deepcrawl_fixtures.app import FixtureApp
from deepcrawl_fixtures.site import Site

from deepcrawl.urls import normalise_url

HREF = re.compile(r"""href=['"]([^'"]+)['"]""")
BASE = "http://fixture.test"
ClientFactory = Callable[[Site], httpx.AsyncClient]


@pytest.fixture
async def make_client() -> AsyncIterator[ClientFactory]:
    clients: list[httpx.AsyncClient] = []

    def make(site: Site) -> httpx.AsyncClient:
        app = FixtureApp(site)
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE)
        client.app = app  # type: ignore[attr-defined]
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.aclose()


def _app(client: httpx.AsyncClient) -> FixtureApp:
    app: FixtureApp = client.app  # type: ignore[attr-defined]
    return app


@pytest.mark.parametrize("name", sorted(SITES))
async def test_served_kind_and_status_match_the_truth(
    name: str, make_client: ClientFactory
) -> None:
    site = build_site(name, records=120)
    client = make_client(site)
    truth = site.truth()
    for kind, paths in truth.sample_paths(per_kind=8).items():
        for path in paths:
            method = "POST" if kind.endswith("_submit") else "GET"
            response = await client.request(method, path)
            assert response.status_code == (404 if kind == "unknown" else 200), path
            assert _app(client).stats.log[-1][2] == kind


async def _walk(client: httpx.AsyncClient, site: Site, start: list[str]) -> set[str]:
    """Follow every plain link but searches and forms; return the records whose page was seen."""
    truth = site.truth()
    skip = {"results", "api", "disallowed", "print", "export", "unknown", "robots", "asset"}
    queue = deque(start)
    seen = set(queue)
    found: set[str] = set()
    while queue:
        path = queue.popleft()
        response = await client.get(path)
        kind = truth.page_kind(path)
        if kind == "detail":
            record = truth.record_of(path)
            assert record is not None
            found.add(record)
        for href in HREF.findall(response.text):
            # in normal form, as a crawler sees it: the intl site spells one link five ways
            url = normalise_url(href.replace("&amp;", "&"), BASE + path)
            target = url.removeprefix(BASE)
            target_kind = truth.page_kind(target)
            if target_kind in skip or target_kind.endswith("_submit"):
                continue
            if kind == "calendar" and target_kind == "calendar":
                continue  # the calendar is endless: do not walk it
            if target_kind == "detail" and truth.record_of(target) in found:
                continue
            if target not in seen and url.startswith(BASE):
                seen.add(target)
                queue.append(target)
    return found


JS_TARGETS = {
    "books": ["/new", "/bestsellers"],
    "shop": ["/deals"],
    "stacks": ["/new", "/bestsellers"],
    "hostile": ["/new", "/bestsellers"],
    "archive": ["/new", "/bestsellers"],
    "catalogue": ["/new", "/bestsellers"],
    "intl": ["/new", "/bestsellers"],
    "news": ["/section/politics", "/section/business", "/section/technology", "/section/science",
             "/section/health", "/section/sports", "/section/culture", "/section/world",
             "/section/opinion", "/section/travel"],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(SITES))
async def test_search_only_and_js_only_records(name: str, make_client: ClientFactory) -> None:
    """Plain links reach all records but the search-only and JS-only ones; JS menus add these
    (the records only a sitemap lists are linked from no page at all)."""
    site = build_site(name, records=150)
    truth = site.truth()
    client = make_client(site)
    every = set(truth.detail_paths) - set(truth.sitemap_only_paths)
    search_only, js_only = set(truth.search_only_paths), set(truth.js_only_paths)
    assert search_only
    assert js_only
    assert not search_only & js_only
    assert await _walk(client, site, ["/"]) == every - search_only - js_only
    assert await _walk(client, site, ["/", *JS_TARGETS[name]]) == every - search_only


async def test_books_search_pages_and_next_links(make_client: ClientFactory) -> None:
    site = build_site("books", records=500)
    client = make_client(site)
    hits = site.corpus.search(["time"])
    assert len(hits) > 20
    first = await client.get("/search", params={"q": "Time", "cat": ""})
    assert f"{len(hits)} results" in first.text
    shown = re.findall(r"href='/book/(\d+)'", first.text)
    assert [int(i) for i in shown] == hits[:10]
    nxt = re.search(r"rel='next' href='([^']+)'", first.text)
    assert nxt is not None
    second = await client.get(nxt[1].replace("&amp;", "&"))
    assert [int(i) for i in re.findall(r"href='/book/(\d+)'", second.text)] == hits[10:20]


async def test_books_ignores_and_rejects_stop_words(make_client: ClientFactory) -> None:
    client = make_client(build_site("books", records=500))
    only_stops = await client.get("/search", params={"q": "the of and"})
    assert only_stops.status_code == 200
    assert "only common words" in only_stops.text
    assert "href='/book/" not in only_stops.text.split("<footer>")[0].split("</form>")[-1]
    with_stop = await client.get("/search", params={"q": "the water"})
    plain = await client.get("/search", params={"q": "water"})
    assert "Common words were ignored: the" in with_stop.text
    ids = re.compile(r"href='/book/(\d+)'")
    assert ids.findall(with_stop.text) == ids.findall(plain.text) != []


async def test_books_no_results_page(make_client: ClientFactory) -> None:
    client = make_client(build_site("books", records=100))
    response = await client.get("/search", params={"q": "zzzzqqq"})
    assert "No results" in response.text
    assert "class='no-results'" in response.text


async def test_shop_post_search_and_page_parameter(make_client: ClientFactory) -> None:
    site = build_site("shop", records=500)
    client = make_client(site)
    hits = site.corpus.search(["the"])  # no stop-word policy on this site
    assert len(hits) > 100
    first = await client.post("/search", data={"keywords": "the", "x": "4", "y": "9"})
    assert f"{len(hits)} products" in first.text
    page3 = re.search(r"href='(/search\?keywords=the&(?:amp;)?page=3[^']*)'", first.text)
    assert page3 is not None
    third = await client.get(page3[1].replace("&amp;", "&"))
    found = [int(i) for i in re.findall(r"[?&;]id=(\d+)", third.text)]
    assert found == hits[20:30]


async def test_news_api_pages_with_offsets(make_client: ClientFactory) -> None:
    site = build_site("news", records=500)
    client = make_client(site)
    hits = site.corpus.search(["time"])
    data = (await client.get("/api/search", params={"q": "time", "offset": 10})).json()
    assert data["total"] == len(hits)
    assert data["next_offset"] == 20
    expected = [site.detail_path(site.corpus.records[i - 1]) for i in hits[10:20]]
    assert [r["url"] for r in data["results"]] == expected
    empty = (await client.get("/api/search", params={"q": "zzzzqqq"})).json()
    assert empty == {
        "query": "zzzzqqq",
        "total": 0,
        "offset": 0,
        "next_offset": None,
        "results": [],
    }


async def test_stats_count_requests_by_kind_status_and_bytes(make_client: ClientFactory) -> None:
    client = make_client(build_site("books", records=50))
    sizes = []
    for path in ("/", "/book/3", "/book/3?ref=new", "/nowhere"):
        sizes.append(len((await client.get(path)).content))
    sizes.append(len((await client.post("/login/submit", data={"username": "x"})).content))
    head = await client.head("/book/4")
    assert head.content == b""
    assert int(head.headers["content-length"]) > 0
    stats = json.loads((await client.get("/__fixture__/stats")).text)
    assert stats["requests"] == 6
    assert stats["by_kind"] == {"home": 1, "detail": 3, "unknown": 1, "login_submit": 1}
    assert stats["by_status"] == {"200": 5, "404": 1}
    assert stats["bytes"] == sum(sizes)
    assert stats["log"][1] == {
        "method": "GET", "path": "/book/3", "kind": "detail", "status": 200, "bytes": sizes[1],
        "fault": None,
    }  # fmt: skip
    assert stats["log"][2]["path"] == "/book/3?ref=new"
    assert (await client.post("/__fixture__/reset")).json() == {"ok": True}
    after = (await client.get("/__fixture__/stats", params={"log": "0"})).json()
    assert after == {"requests": 0, "by_kind": {}, "by_status": {}, "bytes": 0}


ODD_PATHS = [
    "/events/9999/12", "/events/0001/01", "/events/0000/05", "/archive/9999/12",
    "/archive/0001/01", "/archive/0000/01", "/search?q=%00", "/search?page=-5&q=the",
    "/search?page=abc&q=water", "/search?page=999999999999&q=water", "/new?page=0",
    "/item?id=-1", "/item?id=00005", "/item?id=5x", "/export?id=", "/book/0", "/book/00001",
    "/browse?cat=toys&page=99999999999", "/browse?cat=toys&sort=evil", "/book/1/export?format=x",
    "/api/search?q=the&offset=-3&limit=999", "/api/search?offset=abc", "/category/art?page=-1",
    "/section/world?page=0", "/2024/13/45/x", "/search?keywords=" + "a" * 5000,
    "/search?q=" + "+".join(["water"] * 300), "/%E2%82%AC", "//double//slash",
]  # fmt: skip


#: Error statuses a site answers on purpose: the archive's catalogue search insists on a postcode.
MEANT_ERRORS = {"archive": {400}}


@pytest.mark.parametrize("name", sorted(SITES))
async def test_odd_urls_get_200_or_404_never_500(name: str, make_client: ClientFactory) -> None:
    client = make_client(build_site(name, records=50))
    for path in ODD_PATHS:
        for method in ("GET", "POST", "HEAD"):
            response = await client.request(method, path)
            assert response.status_code in {200, 404, *MEANT_ERRORS.get(name, ())}, (method, path)
