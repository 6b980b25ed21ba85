"""Issue 8 end to end on the "stacks" site: ``deepcrawl discover``, setup by discovery, --navigate.

The site's search form is two clicks deep (seed 0) behind pages of unrelated links, and a tenth
of its records are never returned by the form (category pages and the A–Z index list them).
"""

from __future__ import annotations

import json
import os
import subprocess
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

from deepcrawl.crawler import CallbackSink, Crawl
from deepcrawl.errors import ConfigError
from deepcrawl.links.discover import discover_site
from deepcrawl.settings import load_settings
from tests.integration.run_cli import run_deepcrawl_process

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from deepcrawl_fixtures import FixtureServer

    ServerFactory = Callable[..., FixtureServer]

RECORDS = 60
_FAST = {
    "DEEPCRAWL_POLITENESS__REQUESTS_PER_SECOND": "0",
    "DEEPCRAWL_POLITENESS__CONCURRENCY_PER_HOST": "4",
}


def _discover(*args: str) -> subprocess.CompletedProcess[str]:
    return run_deepcrawl_process(
        ["discover", *args],
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, **_FAST},
        check=False,
    )


def test_discover_json_names_the_deep_search_form(fixture_server: ServerFactory) -> None:
    server = fixture_server("stacks", records=RECORDS, seed=0)
    truth = server.truth()
    result = _discover(server.url + "/", "--json", "--strategy", "bfs")
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert found["strategy"] == "bfs"
    assert isinstance(found["pages_fetched"], int)
    assert 3 <= found["pages_fetched"] <= 1000  # the form is not on the start page
    assert found["forms"], found
    form = found["forms"][0]
    assert {"page", "action", "method", "score"} <= set(form)
    assert urlsplit(form["page"]).path == truth.search_form_paths[0]
    assert urlsplit(form["action"]).path == "/search"
    assert form["method"] == "GET"
    assert 0.5 < form["score"] <= 1.0


async def test_discover_rejects_an_unknown_strategy() -> None:
    with pytest.raises(ConfigError, match="unknown strategy 'nosuch'; known: ache, apprentice"):
        await discover_site("http://127.0.0.1:9/", load_settings(), strategy="nosuch")


@pytest.mark.browser
async def test_setup_discovers_the_form_and_navigate_delivers_browse_only_records(
    fixture_server: ServerFactory, tmp_path: Path
) -> None:
    server = fixture_server("stacks", records=RECORDS, seed=0)
    server.reset_stats()
    truth = server.truth()
    assert truth.nav_only_paths
    settings = load_settings(
        storage={"url": f"sqlite:///{tmp_path / 'crawl.db'}", "bodies_dir": tmp_path / "bodies"},
        politeness={"requests_per_second": 0.0, "concurrency_per_host": 4},
        crawl={"navigate": True},
        links={"navigate_strategy": "ache", "navigate_max_requests": 400},
    )
    records: list[dict[str, Any]] = []
    async with Crawl(server.url + "/", settings=settings, like=[truth.detail_paths[0]]) as crawl:
        report = await crawl.run(CallbackSink(records.append))
    assert report.status == "done"
    stats = report.stats
    # the home page has no search form: discovery found the one two clicks deep
    assert stats.discovery_pages > 2
    got = {truth.record_of(r["url"]) for r in records}
    nav_only = set(truth.nav_only_paths)
    # the form never returns these; the navigate phase found every one by following links, but
    # the --like example, which the setup phase fetched as evidence and the crawl already holds
    assert nav_only <= got
    assert stats.nav_records >= len(nav_only - {truth.record_of(truth.detail_paths[0])})
    assert stats.nav_requests > 0
    # each record delivered once, and nothing but records (print and export views refused)
    assert len(records) == len(got)
    assert all(truth.page_kind(r["url"]) == "detail" for r in records)
    unsafe = {"login_submit", "register_submit", "newsletter_submit"}
    assert not unsafe & set(server.stats(log=False)["by_kind"])
