"""Reading sitemaps: robots.txt lines; one file — XML and text, indexes, gzip, limits, refusals."""

from __future__ import annotations

import gzip

import pytest

from deepcrawl.browser.base import Fetcher
from deepcrawl.crawler.sitemaps import parse_sitemap
from deepcrawl.errors import SitemapError
from deepcrawl.fetch.robots import RobotsPolicy
from deepcrawl.page.fetched import FetchedPage

URL = "http://example.test/sitemap.xml"
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def urlset(*locs: str, ns: str = NS) -> bytes:
    items = "".join(f"<url><loc>{loc}</loc><lastmod>2024-01-01</lastmod></url>" for loc in locs)
    return f"<?xml version='1.0' encoding='UTF-8'?><urlset xmlns='{ns}'>{items}</urlset>".encode()


def test_a_urlset_lists_its_locations_in_order_once() -> None:
    raw = urlset("http://example.test/b/2", "http://example.test/b/1", "http://example.test/b/2")
    found = parse_sitemap(URL, raw, max_bytes=1 << 20, max_urls=10)
    assert found.kind == "urlset"
    assert found.urls == ["http://example.test/b/2", "http://example.test/b/1"]
    assert not found.truncated


def test_an_index_lists_its_sitemaps() -> None:
    raw = (
        f"<sitemapindex xmlns='{NS}'><sitemap><loc>http://example.test/s1.xml.gz</loc>"
        "<lastmod>2024-01-01</lastmod></sitemap>"
        "<sitemap><loc> /s2.xml </loc></sitemap></sitemapindex>"
    ).encode()
    found = parse_sitemap(URL, raw, max_bytes=1 << 20, max_urls=10)
    assert found.kind == "index"
    # a relative location (not what the protocol allows, but written) is resolved
    assert found.urls == ["http://example.test/s1.xml.gz", "http://example.test/s2.xml"]


def test_gzip_is_read_by_its_bytes_whatever_the_name_or_type() -> None:
    found = parse_sitemap(
        URL, gzip.compress(urlset("http://example.test/1")), max_bytes=1 << 20, max_urls=10
    )
    assert found.urls == ["http://example.test/1"]


def test_no_namespace_an_escaped_ampersand_and_a_plain_text_list() -> None:
    raw = urlset("http://example.test/p?a=1&amp;b=2", ns="")
    assert parse_sitemap(URL, raw, max_bytes=1 << 20, max_urls=10).urls == [
        "http://example.test/p?a=1&b=2"
    ]
    text = b"\xef\xbb\xbfhttp://example.test/a\n\nhttps://example.test/b\nnot a url\n"
    found = parse_sitemap(URL, text, max_bytes=1 << 20, max_urls=10)
    assert found.kind == "urlset"
    assert found.urls == ["http://example.test/a", "https://example.test/b"]


def test_more_urls_than_the_limit_are_cut_and_said_so() -> None:
    raw = urlset(*(f"http://example.test/{i}" for i in range(10)))
    found = parse_sitemap(URL, raw, max_bytes=1 << 20, max_urls=4)
    assert found.urls == [f"http://example.test/{i}" for i in range(4)]
    assert found.truncated


def test_a_file_over_the_size_limit_is_refused_compressed_or_not() -> None:
    raw = urlset(*(f"http://example.test/{i}" for i in range(200)))
    with pytest.raises(SitemapError, match="larger than"):
        parse_sitemap(URL, raw, max_bytes=1000, max_urls=1000)
    # a gzip bomb is stopped at the limit, not inflated whole
    bomb = gzip.compress(b"<urlset>" + b" " * 50_000_000 + b"</urlset>")
    with pytest.raises(SitemapError, match="once decompressed"):
        parse_sitemap(URL, bomb, max_bytes=1 << 20, max_urls=1000)


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b"<html><body>Not found</body></html>", "root is <html>"),
        (b"<?xml version='1.0'?>", "not well-formed|empty"),
        (b"\x1f\x8bnot really gzip", "broken gzip"),
        (b"just some words\nand more", "neither XML nor a list"),
    ],
)
def test_what_is_no_sitemap_is_one_sitemap_error(raw: bytes, words: str) -> None:
    with pytest.raises(SitemapError, match=words) as caught:
        parse_sitemap(URL, raw, max_bytes=1 << 20, max_urls=10)
    assert caught.value.url == URL


def test_entities_are_not_expanded_nor_fetched() -> None:
    raw = (
        b"<?xml version='1.0'?><!DOCTYPE urlset [<!ENTITY x SYSTEM 'file:///etc/passwd'>]>"
        b"<urlset><url><loc>http://example.test/&x;</loc></url></urlset>"
    )
    found = parse_sitemap(URL, raw, max_bytes=1 << 20, max_urls=10)
    assert all("root:" not in url for url in found.urls)


class RobotsTxt(Fetcher):
    """Answers every URL with one robots.txt."""

    def __init__(self, body: str) -> None:
        self.body = body

    async def fetch(self, url: str) -> FetchedPage:
        return FetchedPage(url, url, 200, "text/plain", self.body)


async def test_robots_sitemap_lines_in_order_once_a_path_on_its_host() -> None:
    robots = RobotsPolicy("deepcrawl")
    body = (
        "User-agent: *\nDisallow: /admin/\n"
        "Sitemap: http://example.test/a.xml\nSitemap: /b.xml.gz\n"
        "Sitemap: http://example.test/a.xml\n"
    )
    await robots.load("http://example.test/start", RobotsTxt(body))
    assert robots.sitemaps("http://example.test/x") == [
        "http://example.test/a.xml",
        "http://example.test/b.xml.gz",
    ]
    assert robots.sitemaps("http://other.test/") == []  # not loaded: none named
