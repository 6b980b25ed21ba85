"""``deepcrawl bench --suite real``: how a crawl's end is read, and the table and JSON."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest
from deepcrawl_fixtures.real.score import RealScore
from rich.console import Console

from deepcrawl.bench.real import RealRun, _delivered, _stop_reason, run_real_bench
from deepcrawl.bench.report import real_runs_to_json, real_table
from deepcrawl.errors import FixtureError
from deepcrawl.settings import load_settings

if TYPE_CHECKING:
    from pathlib import Path

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.settings import Settings


def _run(crawler: str, delivered: int, documents: int, stop: str) -> RealRun:
    figures = RealScore(
        records=10,
        records_delivered=delivered,
        delivered=delivered,
        delivered_wanted=delivered,
        records_fetched=delivered,
        documents=documents,
        assets=3,
        by_method={"GET": documents + 3},
    )
    return RealRun(
        site="docs", title="Docs 1.0", crawler=crawler, score=figures, stop=stop, wall_s=1.5
    )


def test_the_crawls_own_account_of_its_stop(tmp_path: Path) -> None:
    (tmp_path / "crawl").mkdir()
    stats = {"status": "done", "stop_reason": "saturated"}
    (tmp_path / "crawl" / "stats.json").write_text(json.dumps(stats))
    assert _stop_reason(tmp_path, 0) == "done (saturated)"
    (tmp_path / "crawl.log").write_text("setup ...\nerror: --like x: no prototype matches\n")
    assert _stop_reason(tmp_path, 1) == "exit 1: error: --like x: no prototype matches"


def test_delivered_urls_skip_a_line_torn_by_a_kill(tmp_path: Path) -> None:
    pages = tmp_path / "pages.jsonl"
    pages.write_text('{"url": "http://h/a/"}\n{"url": "http://h/b/"}\n{"url": "http://h/c')
    assert _delivered(pages) == ["http://h/a/", "http://h/b/"]
    assert _delivered(tmp_path / "missing.jsonl") == []


def test_table_pairs_each_site_with_its_baseline() -> None:
    runs = [_run("deepcrawl", 9, 12, "done (saturated)"), _run("bfs", 7, 50, "no more links")]
    console = Console(width=250, record=True)
    console.print(real_table(runs))
    text = console.export_text()
    row = next(line for line in text.splitlines() if line.startswith("│ docs"))
    cells = [cell.strip() for cell in row.strip("│").split("│")]
    assert cells == [
        "docs", "9/10", "0.900", "1.000", "0.750", "12", "3", "0/0", "done (saturated)", "2",
        "0.700", "0.140", "50",
    ]  # fmt: skip
    data = json.loads(real_runs_to_json(runs))
    assert [(r["crawler"], r["recall"], r["stop"]) for r in data] == [
        ("deepcrawl", 0.9, "done (saturated)"),
        ("bfs", 0.7, "no more links"),
    ]


def test_an_unknown_real_site_is_refused() -> None:
    def no_fetcher(settings: Settings) -> Fetcher:
        raise AssertionError("no site may be crawled")

    with pytest.raises(FixtureError, match="unknown real site 'nope'"):
        run_real_bench(["nope"], load_settings(), make_fetcher=no_fetcher)
