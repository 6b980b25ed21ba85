"""Sitemaps in a crawl: the records only a sitemap lists are reached, and ``stats.json`` says so.

The ``catalogue`` fixture site names a sitemap index in its robots.txt (a gzipped sitemap, a plain
one with a URL on another host, one of pages no crawl wants) and holds records that neither its
search nor any of its pages lead to.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

from deepcrawl.browser.http import HttpFetcher
from deepcrawl.browser.scope import Scope, host_of
from deepcrawl.crawler import CrawlStats, crawl_each
from deepcrawl.crawler.context import CrawlContext
from deepcrawl.crawler.sitemaps import SitemapReader
from deepcrawl.fetch.politeness import make_limiter
from deepcrawl.fetch.robots import RobotsPolicy
from deepcrawl.settings import Settings, load_settings
from deepcrawl.storage import Repository
from deepcrawl.storage.state import CrawlState
from tests.integration.run_cli import run_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Callable

    from deepcrawl_fixtures import FixtureServer


def crawl_settings(tmp_path: Path, **sections: dict[str, Any]) -> Settings:
    """Settings for a crawl of a local fixture site: its own database, no rate limit."""
    tmp_path.mkdir(parents=True, exist_ok=True)  # the database's folder is not made for it
    base = load_settings(
        storage={"url": f"sqlite:///{tmp_path / 'crawl.db'}", "bodies_dir": tmp_path / "bodies"},
        politeness={"requests_per_second": 0.0, "concurrency_per_host": 4},
    )
    return base.with_overrides(**sections)


def path_of(url: str) -> str:
    return urlsplit(url).path


@pytest.mark.browser
def test_crawl_reaches_the_records_only_the_sitemaps_list(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("catalogue", records=40, seed=5)
    server.reset_stats()
    truth = server.truth()
    assert truth.sitemap_only_paths
    out = tmp_path / "out"
    result = run_deepcrawl(
        tmp_path, "crawl", server.url + "/", "--like", "/book/1",
        "--db", f"sqlite:///{tmp_path / 'crawl.db'}", "--out", str(out), timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr

    delivered = {path_of(json.loads(line)["url"]) for line in (out / "pages.jsonl").open()}
    assert set(truth.sitemap_only_paths) <= delivered
    assert delivered == set(truth.detail_paths)
    stats = json.loads((out / "stats.json").read_text())
    assert stats["sitemaps_read"] == 4  # the index and its three sitemaps
    # every record and the 12 pages of pages.xml; the URL on another host is left out
    assert stats["sitemap_urls"] == 40 + 12
    assert stats["sitemap_accepted"] == 40  # the classifier wants the records only
    kinds = server.stats()["by_kind"]
    assert kinds["sitemap"] == 4
    assert kinds.get("home", 0) <= 3  # pages.xml's pages are not fetched for it


@pytest.mark.browser
async def test_with_sitemaps_off_the_crawl_neither_reads_them_nor_reaches_their_records(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("catalogue", records=40, seed=6)
    server.reset_stats()
    truth = server.truth()
    settings = crawl_settings(tmp_path, crawl={"sitemaps": False})
    pages: list[dict[str, Any]] = []
    report = await crawl_each(server.url + "/", pages.append, like=["/book/1"], settings=settings)
    assert report.stats.sitemaps_read == report.stats.sitemap_urls == 0
    assert "sitemap" not in server.stats()["by_kind"]
    assert not {path_of(p["url"]) for p in pages} & set(truth.sitemap_only_paths)


async def _read_sitemaps(url: str, settings: Settings) -> tuple[list[str], CrawlStats]:
    """The page URLs a crawl of ``url`` reads from the site's sitemaps, and its figures."""
    with Repository.open(settings.storage.url, settings.storage) as repo:
        site = repo.site(url)
        ctx = CrawlContext(
            start_url=url,
            settings=settings,
            repo=repo,
            site=site,
            state=CrawlState(repo, site.id),
            limiter=make_limiter(settings.politeness, repo.engine, site.id),
            robots=RobotsPolicy(settings.http.user_agent, obey=settings.politeness.obey_robots),
            stats=CrawlStats(),
        )
        scope = Scope((host_of(url),), implicit=False)
        async with HttpFetcher(settings, scope, forms=False) as http:
            await ctx.robots.load(url, http)
            found = [u async for _, urls in SitemapReader(ctx, http).urls() for u in urls]
    return found, ctx.stats


async def test_sitemap_xml_is_looked_for_when_robots_names_none_and_read_once(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    # robots.txt not read (the user's choice): no Sitemap line, so /sitemap.xml is tried
    catalogue = fixture_server("catalogue", records=20, seed=7)
    catalogue.reset_stats()
    settings = crawl_settings(tmp_path, politeness={"obey_robots": False})
    found, stats = await _read_sitemaps(catalogue.url + "/", settings)
    log = [e["path"] for e in catalogue.stats()["log"]]
    assert log[0] == "/sitemap.xml"
    assert sorted(path_of(u) for u in found if "/book/" in u) == sorted(
        catalogue.truth().detail_paths
    )
    assert stats.sitemaps_read == 4
    catalogue.reset_stats()
    again, _ = await _read_sitemaps(catalogue.url + "/", settings)  # from the store
    assert again == found
    assert catalogue.stats()["requests"] == 0

    # a site without sitemaps: /sitemap.xml answers 404, which is no failure, asked for once
    books = fixture_server("books", records=20, seed=7)
    books.reset_stats()
    found, stats = await _read_sitemaps(books.url + "/", crawl_settings(tmp_path / "books"))
    assert found == []
    assert (stats.sitemaps_read, stats.errors) == (0, 0)
    assert [e["path"] for e in books.stats()["log"]] == ["/robots.txt", "/sitemap.xml"]
    books.reset_stats()
    await _read_sitemaps(books.url + "/", crawl_settings(tmp_path / "books"))
    assert [e["path"] for e in books.stats()["log"]] == ["/robots.txt"]
