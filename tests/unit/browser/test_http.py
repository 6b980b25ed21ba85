"""The plain-HTTP fetcher, the scope and the adaptive comparison.

The HTTP fetcher runs against a tiny local server in a thread (no browser): links with DOM
paths like the browser's, forms from the static parser, the body limit enforced while
streaming, non-HTML answers not read, errors translated.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from deepcrawl.browser import HttpFetcher, Scope, compare_pages, url_shape
from deepcrawl.browser.testing import LocalSite, Reply
from deepcrawl.errors import (
    BlockedError,
    BodyTooLargeError,
    FetchError,
    FetchTimeoutError,
    NetworkError,
)
from deepcrawl.page import FetchedPage, Link
from deepcrawl.settings import Settings

PAGE = """<html><head><base href="/base/"><link rel="next" href="p2">
<link rel=stylesheet href=x.css></head><body><ul><li><a href="a">A  link</a></li>
<li><a href="/b#frag"><img alt="B image"></a></li></ul>
<a href="mailto:x@y.z">mail</a><a href="#top">top</a><map><area href="/c" alt="C"></map>
<iframe src="/frame" title="F"></iframe>
<form id=s action="/search"><input name=q><input type=submit value=Go></form></body></html>"""


@pytest.fixture(scope="module")
def site() -> Iterator[LocalSite]:
    big = "<html><body>" + "x" * 3_000_000 + "</body></html>"
    routes = {
        "/page": Reply(PAGE),
        "/latin": Reply(
            "<html><body><a href='/x'>caf\xe9</a></body></html>".encode("latin-1"),
            content_type="text/html; charset=iso-8859-1",
        ),
        "/big": Reply(big),
        "/slow": Reply("<html></html>", delay_s=5),
        "/pdf": Reply(b"%PDF-1.4" + b"\0" * 1000, content_type="application/pdf"),
        "/missing": Reply("<html><body>gone</body></html>", status=404),
        "/out": Reply("", status=302, headers=(("Location", "http://127.0.0.7:9/"),)),
    }
    with LocalSite(routes) as served:  # type: ignore[arg-type]
        yield served


SETTINGS = Settings().with_overrides(http={"max_body_bytes": 1_000_000, "timeout_s": 1.0})


async def test_links_and_forms(site: LocalSite) -> None:
    async with HttpFetcher(SETTINGS) as fetcher:
        page = await fetcher.fetch(site.url + "/page")
    assert page.status == 200
    assert page.via == "http"
    assert page.is_html
    got = [(link.url[len(site.url) :], link.text, link.origin, link.rel) for link in page.links]
    assert got == [
        ("/base/p2", "", "html", "next"),
        ("/base/a", "A link", "html", ""),
        ("/b", "B image", "html", ""),
        ("/c", "C", "html", ""),
        ("/frame", "F", "iframe", ""),
    ]
    assert page.links[1].dom_path == "html/body/ul/li[1]/a"
    assert [f.id for f in page.forms] == ["s"]
    assert page.forms[0].action == site.url + "/search"


async def test_charset_and_error_status(site: LocalSite) -> None:
    async with HttpFetcher(SETTINGS) as fetcher:
        latin = await fetcher.fetch(site.url + "/latin")
        missing = await fetcher.fetch(site.url + "/missing")
    assert latin.links[0].text == "café"
    assert missing.status == 404
    assert "gone" in missing.body


async def test_limits_and_errors(site: LocalSite) -> None:
    async with HttpFetcher(SETTINGS, {"127.0.0.1"}) as fetcher:
        with pytest.raises(BodyTooLargeError):
            await fetcher.fetch(site.url + "/big")
        with pytest.raises(FetchTimeoutError):
            await fetcher.fetch(site.url + "/slow")
        pdf = await fetcher.fetch(site.url + "/pdf")
        assert pdf.content_type == "application/pdf"
        assert pdf.body == ""
        assert not pdf.links
        with pytest.raises(BlockedError):
            await fetcher.fetch(site.url + "/out")
        with pytest.raises(BlockedError):
            await fetcher.fetch("http://127.0.0.8:9/")
        with pytest.raises(BlockedError):
            await fetcher.fetch("ftp://127.0.0.1/")
    async with HttpFetcher(SETTINGS) as fetcher:
        with pytest.raises(NetworkError):
            await fetcher.fetch("http://127.0.0.1:9/")
        with pytest.raises(FetchError):
            await fetcher.fetch("http://[::1")


async def test_double_entry_is_refused() -> None:
    fetcher = HttpFetcher(SETTINGS)
    async with fetcher:
        with pytest.raises(RuntimeError):
            await fetcher.__aenter__()


def test_scope_forms() -> None:
    scope = Scope(("example.com", "127.0.0.1:8000", ".cdn.net"), implicit=False)
    assert scope.allows("http://example.com:9/x")
    assert scope.allows("http://127.0.0.1:8000/")
    assert not scope.allows("http://127.0.0.1:8001/")
    assert scope.allows("https://a.cdn.net/x.js")
    assert scope.allows("https://cdn.net/")
    assert not scope.allows("https://evilcdn.net/")
    assert scope.allows("data:text/plain,x")
    assert not scope.admit("http://other.org/")
    grow = Scope(implicit=True)
    assert grow.admit("http://other.org/")
    assert grow.allows("http://other.org/y")


def test_url_shape_keys_prototypes() -> None:
    assert url_shape("http://h/book/17?b=1&a=2") == url_shape("http://h/book/9923?a=5&b=0")
    assert url_shape("http://h/book/17") != url_shape("http://h/author/17")


def _page(links: list[Link], body: str = "<p>same words here</p>") -> FetchedPage:
    return FetchedPage(
        url="http://h/", final_url="http://h/", status=200, content_type="text/html",
        body=f"<html><body>{body}</body></html>", links=links,
    )  # fmt: skip


def test_compare_pages() -> None:
    plain = _page([Link("http://h/a")])
    assert compare_pages(plain, _page([Link("http://h/a")])).reasons() == []
    richer = _page([Link("http://h/a"), Link("http://h/new", origin="probe")])
    diff = compare_pages(plain, richer)
    assert diff.probe_links == {"http://h/new"}
    assert not diff.needs_render
    assert "probe link" in diff.reasons()[0]
    assert compare_pages(plain, richer, known_links={"http://h/new"}).reasons() == []
    scripted = compare_pages(plain, _page([Link("http://h/a"), Link("http://h/js")]))
    assert scripted.script_links == {"http://h/js"}
    assert scripted.needs_render
    other_text = compare_pages(plain, _page([Link("http://h/a")], "<p>entirely other</p>"))
    assert other_text.text
    assert other_text.reasons() == ["visible text differs"]
    elsewhere = _page([Link("http://h/a"), Link("http://elsewhere/x")])
    assert compare_pages(plain, elsewhere).reasons() == []
