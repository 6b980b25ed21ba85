"""A crawl of a throttled site: every third request answered 503 (or 429) with ``Retry-After``.

The site is a fixture site behind a proxy of the test's own (:mod:`.throttle`), which logs when
each request came. The crawl must deliver what it delivers unthrottled, send nothing to the
host within ``Retry-After`` of a throttled answer — whichever request it was: a form
submission, a result page, the ``--like`` page, a record, robots.txt — and list in
``deepcrawl failures`` any URL it gave up.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest
from typer.testing import CliRunner

from deepcrawl.cli import app
from deepcrawl.crawler import CallbackSink, Crawl
from deepcrawl.settings import Settings, load_settings
from tests.integration.crawler.throttle import ThrottlingProxy
from tests.integration.run_cli import run_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser

#: Seconds the throttled answers ask to wait: a few, so that the test takes well under a minute.
RETRY_AFTER = 2


def crawl_settings(tmp_path: Path, name: str) -> Settings:
    """A crawl of its own database; one request at a time to the host, no rate of its own (the
    server's ``Retry-After`` is the only wait); the querying ends after a few fruitless queries
    (every third request costs the crawl ``RETRY_AFTER`` seconds)."""
    return load_settings(
        storage={"url": f"sqlite:///{tmp_path / name}.db", "bodies_dir": tmp_path / name},
        politeness={"requests_per_second": 0.0, "concurrency_per_host": 1, "retries": 3},
        querying={"stop_fruitless_queries": 8},
    )


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + ("?" + parts.query if parts.query else "")


async def crawl(url: str, like: str, settings: Settings) -> tuple[Any, set[str]]:
    delivered: list[dict[str, Any]] = []
    async with Crawl(url + "/", settings=settings, like=[like]) as run:
        report = await run.run(CallbackSink(delivered.append))
    return report, {path_of(r["url"]) for r in delivered}


@pytest.mark.parametrize("status", [503, 429])
async def test_a_throttled_site_is_crawled_as_an_unthrottled_one_and_its_host_waited_for(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path, status: int
) -> None:
    server = fixture_server("books", records=12, seed=47)
    like = server.truth().detail_paths[0]
    _, unthrottled = await crawl(server.url, like, crawl_settings(tmp_path, "plain"))
    assert unthrottled

    settings = crawl_settings(tmp_path, "throttled")
    with ThrottlingProxy(server.url, every=3, status=status, retry_after=RETRY_AFTER) as proxy:
        report, delivered = await crawl(proxy.url, like, settings)
    throttled = [a for a in proxy.arrivals if a.status == status]
    assert len(throttled) >= 5, proxy.arrivals  # submissions and result pages among them
    assert report.status == "done"
    assert delivered == unthrottled
    assert proxy.too_soon() == []
    assert report.stats.retries >= len(throttled)

    listed = CliRunner().invoke(
        app, ["failures", str(report.site_id), "--db", settings.storage.url, "--json"]
    )
    assert listed.exit_code == 0, listed.output
    assert json.loads(listed.stdout) == []  # every throttled request was retried in the end


def test_a_search_whose_result_pages_time_out_ends_naming_the_timeout(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("books", records=12, seed=47)
    like = server.truth().detail_paths[0]
    out = tmp_path / "out"
    with ThrottlingProxy(server.url, stall="/search", stall_s=20.0) as proxy:
        site = proxy.url + "/"
        done = run_deepcrawl(
            tmp_path,
            "--set", "browser.page_timeout_s=2", "--set", "http.timeout_s=2",
            "--set", "politeness.retries=1", "--set", "politeness.requests_per_second=0",
            "--set", "querying.stop_fruitless_queries=3",
            "crawl", site, "--like", like, "--db", f"sqlite:///{tmp_path / 'c.db'}",
            "--out", str(out),
            timeout=240,
        )  # fmt: skip
    assert done.returncode == 1, done.stderr
    stop = done.stderr.strip().splitlines()[-1]
    assert "returned no links in" in stop, done.stderr
    assert "timed out" in stop, stop
    stats = json.loads((out / "stats.json").read_text())
    assert stats["status"] == "failed"
    assert stats["query_failures"].get("timeout", 0) >= 1, stats
    assert stats["errors"] >= stats["query_failures"]["timeout"]
    progress = [line for line in done.stderr.splitlines() if "  errors " in line]
    assert progress, done.stderr
    assert int(progress[-1].split("  errors ")[1].split()[0]) > 0, progress[-1]

    # ``deepcrawl failures`` lists the queries that timed out beside the pages
    db = f"sqlite:///{tmp_path / 'c.db'}"
    listed = CliRunner().invoke(app, ["failures", site, "--db", db, "--json"])
    assert listed.exit_code == 0, listed.output
    queries = [row for row in json.loads(listed.stdout) if row["kind"] == "query"]
    assert len(queries) == stats["query_failures"]["timeout"], queries
    assert all("(timeout)" in row["reason"] for row in queries), queries
    assert {row["error_class"] for row in queries} == {"FetchTimeoutError"}
