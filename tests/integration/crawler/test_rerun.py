"""A finished crawl run again: it resumes its stored state and sends no query unless asked."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from deepcrawl.crawler import crawl_each
from deepcrawl.settings import Settings, load_settings

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser


def crawl_settings(tmp_path: Path) -> Settings:
    """Settings for a crawl of a local fixture site: its own database, no rate limit."""
    return load_settings(
        storage={"url": f"sqlite:///{tmp_path / 'crawl.db'}", "bodies_dir": tmp_path / "bodies"},
        politeness={"requests_per_second": 0.0, "concurrency_per_host": 4},
    )


async def test_a_finished_crawl_run_again_sends_no_query_unless_asked(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("books", records=40, seed=23)
    like = [server.truth().detail_paths[0]]
    settings = crawl_settings(tmp_path)
    pages: list[dict[str, Any]] = []
    first = await crawl_each(server.url + "/", pages.append, like=like, settings=settings)
    assert first.status == "done"
    assert first.stats.queries > 0
    assert pages

    server.reset_stats()
    again: list[dict[str, Any]] = []
    second = await crawl_each(server.url + "/", again.append, like=like, settings=settings)
    kinds = server.stats()["by_kind"]
    assert second.status == "done"
    assert kinds.get("results", 0) == 0, kinds  # no query: the form was saturated
    assert kinds.get("detail", 0) == 0, kinds  # every wanted page was fetched already
    assert again == []  # and delivered
    assert second.stats.queries == first.stats.queries
    assert second.stats.stop_reason == first.stats.stop_reason

    server.reset_stats()
    asked = settings.with_overrides(crawl={"requery": True})
    await crawl_each(server.url + "/", again.append, like=like, settings=asked)
    assert server.stats()["by_kind"].get("results", 0) > 0  # --requery queries again
