"""Auto mode on the fixture sites, and ``deepcrawl render`` as a user runs it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from deepcrawl.browser import AdaptiveFetcher, BrowserFetcher, HttpFetcher, make_fetcher
from deepcrawl.browser.testing import LocalSite, Reply
from deepcrawl.settings import Settings
from tests.integration.run_cli import run_deepcrawl_process

if TYPE_CHECKING:
    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser

SETTINGS = Settings()


def test_make_fetcher_follows_the_render_mode() -> None:
    assert isinstance(make_fetcher(SETTINGS, render="never"), HttpFetcher)
    assert isinstance(make_fetcher(SETTINGS, render="always"), BrowserFetcher)
    assert isinstance(make_fetcher(SETTINGS, render="auto"), AdaptiveFetcher)


async def test_auto_mode_decides_per_prototype(books_server: FixtureServer) -> None:
    url = books_server.url
    detail = books_server.truth().detail_paths[:8]
    async with AdaptiveFetcher(SETTINGS, render="auto", recheck_share=0.25) as fetcher:
        home = await fetcher.fetch(url + "/")
        probe_urls = {link.url for link in home.links if link.origin == "probe"}
        assert {url + "/new", url + "/bestsellers"} <= probe_urls  # the JS-only menu links
        pages = [await fetcher.fetch(url + path) for path in detail]
        verdict = fetcher.verdicts[fetcher.key(url + detail[0])]
        # the menu repeats on every page: found once, it does not make detail pages need Chromium
        assert verdict.browser is False
        assert [p.via for p in pages[:2]] == ["browser", "browser"]  # the two samples
        assert {p.via for p in pages[2:]} == {"http"}
        assert fetcher.counts["compared"] == 3
        assert fetcher.counts["rechecked"] == 0  # the first comes after 1 / recheck_share pages


async def test_auto_mode_renders_script_built_results(news_server: FixtureServer) -> None:
    url = news_server.url
    async with AdaptiveFetcher(SETTINGS, render="auto", recheck_share=0.25) as fetcher:
        await fetcher.fetch(url + "/")
        first = await fetcher.fetch(url + "/search?q=the")
        second = await fetcher.fetch(url + "/search?q=world")
        verdict = fetcher.verdicts[fetcher.key(url + "/search?q=x")]
        assert verdict.browser is True
        assert verdict.render
        assert first.via == "browser"
        assert second.via == "browser"
        assert any("/20" in link.url for link in second.links)  # articles the script listed


SCRIPTED = """<html><body><p>A page whose script adds a link.</p><div id=more></div>
<script>document.getElementById('more').innerHTML = '<a href="/scripted/">Scripted</a>';</script>
</body></html>"""


async def test_a_sampled_page_is_rendered_from_the_bytes_http_got() -> None:
    pages = {f"/page/{i}": Reply(SCRIPTED) for i in range(3)}
    with LocalSite(dict(pages)) as site:
        async with AdaptiveFetcher(SETTINGS, render="auto", recheck_share=0.25) as fetcher:
            fetched = [await fetcher.fetch(site.url + path) for path in pages]
        assert fetcher.counts["compared"] >= 1
        assert fetched[0].via == "browser"
        assert site.url + "/scripted/" in {link.url for link in fetched[0].links}
        # each page was asked of the server once: the browser rendered what HTTP had fetched
        assert sorted(path for _, path in site.log if path.startswith("/page/")) == sorted(pages)


async def test_an_error_page_is_no_sample_and_is_asked_once() -> None:
    missing = Reply("<html><body><h1>Not found</h1><a href='/'>Home</a></body></html>", 404)
    with LocalSite({"/robots.txt": missing, "/page/1": Reply(SCRIPTED)}) as site:
        async with AdaptiveFetcher(SETTINGS, render="auto", recheck_share=0.25) as fetcher:
            robots = await fetcher.fetch(site.url + "/robots.txt")
            page = await fetcher.fetch(site.url + "/page/1")
        assert (robots.status, robots.via) == (404, "http")
        assert fetcher.verdicts[fetcher.key(site.url + "/robots.txt")].samples == 0
        assert page.via == "browser"  # a page of the site is still sampled
        # the site's HTML error page was not asked again by the browser
        assert [path for _, path in site.log].count("/robots.txt") == 1


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _render(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return run_deepcrawl_process(
        ["render", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


def test_render_command_json(shop_server: FixtureServer) -> None:
    result = _render(shop_server.url + "/", "--probe", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["url"] == shop_server.url + "/"
    assert data["final_url"] == shop_server.url + "/"
    assert data["status"] == 200
    origins = {link["origin"] for link in data["links"]}
    assert origins == {"html", "probe"}
    assert {"url", "text", "origin"} <= set(data["links"][0])
    search = [f for f in data["forms"] if any(x["name"] == "keywords" for x in f["fields"])]
    assert search
    assert search[0]["submits"][0]["kind"] == "image"


def test_render_command_tables(books_server: FixtureServer) -> None:
    result = _render(books_server.url + "/")
    assert result.returncode == 0, result.stderr
    assert "Links" in result.stdout
    assert "cat" in result.stdout  # the search form's select


@pytest.mark.parametrize(
    ("target", "words"),
    [("closed-port", "ERR_CONNECTION_REFUSED"), ("/robots.txt", "not an HTML page")],
)
def test_render_command_errors(books_server: FixtureServer, target: str, words: str) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/" if target == "closed-port" else ""
    url = url or books_server.url + target
    result = _render(url)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error:")
    assert words in lines[0]
