"""A form is known by what stays (issue 48): the "minted" fixture site names its search form
afresh on every load (name, id, class, the query field's id) and carries a one-time hidden
token each submission must spend. The crawl finds the form again on each load by its action,
method and field names, reads the token afresh for every submission, and delivers the records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from deepcrawl.crawler import CallbackSink, Crawl
from deepcrawl.settings import load_settings

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from deepcrawl_fixtures import FixtureServer

    ServerFactory = Callable[..., FixtureServer]

pytestmark = pytest.mark.browser

RECORDS = 60


async def test_a_form_renamed_on_every_load_is_queried_and_its_records_delivered(
    fixture_server: ServerFactory, tmp_path: Path
) -> None:
    server = fixture_server("minted", records=RECORDS, seed=0)
    server.reset_stats()
    truth = server.truth()
    settings = load_settings(
        storage={"url": f"sqlite:///{tmp_path / 'crawl.db'}", "bodies_dir": tmp_path / "bodies"},
        politeness={"requests_per_second": 0.0, "concurrency_per_host": 4},
    )
    records: list[dict[str, Any]] = []
    async with Crawl(server.url + "/", settings=settings, like=[truth.detail_paths[0]]) as crawl:
        report = await crawl.run(CallbackSink(records.append))
    assert report.status == "done"
    stats = server.stats()
    submissions = [
        row["path"] for row in stats["log"]
        if row["method"] == "GET" and row["path"].startswith("/search?") and "tk=" in row["path"]
    ]  # fmt: skip
    assert len(submissions) >= 3, stats["by_kind"]  # several queries, each with a token
    # each submission carried the token of its own load of the form; one at most was sent
    # again: the trial of plain HTTP, which repeats the browser's last submission (refused,
    # it keeps the querying in the browser)
    tokens = [path.split("tk=")[1].split("&")[0] for path in submissions]
    assert len(tokens) - len(set(tokens)) <= 1
    assert stats["by_status"].get(403, 0) <= 1
    got = {truth.record_of(r["url"]) for r in records}
    assert len(got) >= 0.8 * RECORDS, (len(got), report.stats)
    assert all(truth.page_kind(r["url"]) == "detail" for r in records)
