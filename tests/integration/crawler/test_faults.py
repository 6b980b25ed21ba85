"""The crawl in fault mode: it completes, backs off, records each failed URL with its reason,
and ``deepcrawl failures`` lists them."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest
from typer.testing import CliRunner

from deepcrawl.cli import app
from deepcrawl.crawler import CallbackSink, Crawl
from deepcrawl.settings import Settings, load_settings
from deepcrawl.storage import Repository

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser

#: Faults a retry cures, and faults that fail the URL for good.
TRANSIENT = {"server_error", "rate_limit", "timeout"}
PERMANENT = {"huge", "redirect_loop", "truncated"}


def crawl_settings(tmp_path: Path, **sections: dict[str, Any]) -> Settings:
    """Settings for a crawl of a local fixture site: its own database, no rate limit."""
    base = load_settings(
        storage={"url": f"sqlite:///{tmp_path / 'crawl.db'}", "bodies_dir": tmp_path / "bodies"},
        politeness={"requests_per_second": 0.0, "concurrency_per_host": 4},
    )
    return base.with_overrides(**sections)


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + ("?" + parts.query if parts.query else "")


async def test_fault_mode_completes_backs_off_and_records_failures(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("books", records=60, seed=17, faults=True)
    server.reset_stats()
    truth = server.truth()
    settings = crawl_settings(
        tmp_path,
        http={"timeout_s": 3.0},
        politeness={"backoff_base_s": 0.2, "retries": 2},
    )
    records: list[dict[str, Any]] = []
    async with Crawl(server.url + "/", settings=settings, like=[truth.detail_paths[0]]) as crawl:
        report = await crawl.run(CallbackSink(records.append))
        assert crawl.ctx is not None
        site_id = crawl.ctx.site.id
    assert report.status == "done"

    with Repository.open(settings.storage.url, settings.storage) as repo:
        stored = {path_of(p.url): p for p in repo.pages(site_id, kind="record")}
    faulty = {path: fault for path, fault in truth.faults.items() if path in stored}
    assert set(faulty.values()) & TRANSIENT, "the search surfaced no transient fault"
    for path, fault in faulty.items():
        page = stored[path]
        if fault in TRANSIENT:
            assert page.error is None, f"{fault} on {path} not retried: {page.error}"
        elif fault in PERMANENT:
            assert page.error, f"{fault} on {path} recorded without a reason"
    failed = [p for p in stored.values() if p.error is not None]
    assert report.stats.errors == len(failed)
    assert all(p.error for p in failed)

    log = server.stats()["log"]
    # the 429 was retried (after its Retry-After) and then served
    for path, fault in faulty.items():
        if fault == "rate_limit":
            statuses = [e["status"] for e in log if e["path"] == path]
            assert statuses[:2] == [429, 200], statuses
    assert report.stats.retries >= 1
    assert "disallowed" not in {e["kind"] for e in log}
    delivered = {path_of(r["url"]) for r in records}
    assert delivered == {p for p, page in stored.items() if page.error is None}

    # ``deepcrawl failures``: every URL given up, with its status, error class, attempts, reason
    runner = CliRunner()
    listed = runner.invoke(app, ["failures", str(site_id), "--db", settings.storage.url, "--json"])
    assert listed.exit_code == 0, listed.output
    found = {path_of(r["url"]): r for r in json.loads(listed.stdout)}
    assert set(found) == {path_of(p.url) for p in failed}
    classes = {"huge": "BodyTooLargeError", "redirect_loop": "FetchError"}
    for path, fault in faulty.items():
        if fault in PERMANENT:
            row = found[path]
            assert row["reason"] == stored[path].error
            assert row["attempts"] >= 1
            assert row["failed_at"].endswith("+00:00")
            assert row["error_class"] == classes.get(fault, row["error_class"]), row
            assert row["error_class"] in {"BodyTooLargeError", "FetchError", "NetworkError"}
    table = runner.invoke(app, ["failures", str(site_id), "--db", settings.storage.url])
    assert f"{len(failed)} failed URLs" in table.stdout
