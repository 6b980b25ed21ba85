"""``deepcrawl bench --suite real``: how a crawl's end is read, and the table and JSON."""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import replace
from typing import TYPE_CHECKING

import pytest
from deepcrawl_fixtures.real.base import RealApp, RealTruth
from deepcrawl_fixtures.real.score import RealScore
from rich.console import Console

from deepcrawl.bench.child import crawl_stop, delivered_urls
from deepcrawl.bench.real import RealRun, run_real_bench
from deepcrawl.bench.real_prototypes import PrototypeF1, prototype_f1
from deepcrawl.bench.report import real_prototypes_table, real_runs_to_json, real_table
from deepcrawl.errors import FixtureError
from deepcrawl.records.like import like_over_list
from deepcrawl.settings import load_settings

if TYPE_CHECKING:
    from contextlib import AbstractContextManager
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
    assert crawl_stop(tmp_path, "crawl", 0) == "done (saturated)"
    (tmp_path / "crawl.log").write_text("setup ...\nerror: --like x: no prototype matches\n")
    assert crawl_stop(tmp_path, "crawl", 1) == "exit 1: error: --like x: no prototype matches"


def test_delivered_urls_skip_a_line_torn_by_a_kill(tmp_path: Path) -> None:
    pages = tmp_path / "pages.jsonl"
    pages.write_text('{"url": "http://h/a/"}\n{"url": "http://h/b/"}\n{"url": "http://h/c')
    assert delivered_urls(pages) == ["http://h/a/", "http://h/b/"]
    assert delivered_urls(tmp_path / "missing.jsonl") == []


def test_table_pairs_each_site_with_its_baseline() -> None:
    runs = [_run("deepcrawl", 9, 12, "done (saturated)"), _run("bfs", 7, 50, "no more links")]
    console = Console(width=250, record=True)
    console.print(real_table(runs))
    text = console.export_text()
    row = next(line for line in text.splitlines() if line.startswith("│ docs"))
    cells = [cell.strip() for cell in row.strip("│").split("│")]
    assert cells == [
        "docs", "9/10", "0.900", "1.000", "0.750", "12", "3", "0/0", "done (saturated)", "2",
        "0.700", "0.140", "50", "-",
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


class _Tracker(RealApp):
    """A fake application: issues are the records; messages and users look like them."""

    name = "tracker"
    title = "Tracker 1.0"
    features = frozenset()
    like_path = "/issue1"

    def install(self) -> None:
        raise AssertionError("nothing to install")

    def run(self, port: int) -> AbstractContextManager[None]:
        raise AssertionError("nothing to run")

    def truth(self) -> RealTruth:
        return RealTruth(records=frozenset(str(i) for i in range(1, 40)))

    def record_of(self, path: str) -> str | None:
        match = re.fullmatch(r"/issue([0-9]+)(\?.*)?", path)
        return match.group(1) if match and "@template" not in path else None


def test_the_like_prototype_is_scored_against_the_record_pages_of_the_list() -> None:
    h = "http://127.0.0.1:9"
    urls = [f"{h}/issue{i}" for i in range(1, 30)] + [f"{h}/issue{i}?x=1" for i in (1, 2)]
    urls += [f"{h}/msg{i}" for i in range(100, 120)] + [f"{h}/user{i}" for i in range(1, 6)]
    urls += [f"{h}/issue5", f"{h}/"]  # a duplicate counts once
    answer = asyncio.run(like_over_list(urls, f"{h}/issue1", load_settings(), offline=True))
    f1 = prototype_f1(_Tracker(), urls, answer.to_dict(), requests=0)
    assert (f1.urls, f1.record_urls, f1.records) == (57, 31, 29)
    assert (f1.members, f1.members_wanted, f1.records_matched) == (31, 31, 29)
    assert f1.f1 == 1.0
    assert "issue" in f1.regex
    assert (f1.evidence, f1.widened) == ("urls", 0)
    # a command that failed (no prototype holds the example) scores zero and says why
    missing = prototype_f1(_Tracker(), urls, "exit 1: error: no prototype matches x")
    assert (missing.members, missing.f1, missing.regex) == (0, 0.0, "")
    assert missing.evidence == "exit 1: error: no prototype matches x"


def test_the_table_shows_the_like_prototypes_f1() -> None:
    figures = PrototypeF1(
        urls=57, record_urls=31, records=29, members=40, members_wanted=30,
        records_matched=29, regex=r"http://h/issue[0-9]+(?:\?[^&]*)?", evidence="layout",
        widened=2, requests=9,
    )  # fmt: skip
    runs = [_run("deepcrawl", 9, 12, "done"), replace(_run("bfs", 7, 50, "x"), prototypes=figures)]
    console = Console(width=250, record=True)
    console.print(real_table(runs))
    console.print(real_prototypes_table(runs))
    text = console.export_text()
    crawl_row, row = (line.strip() for line in text.splitlines() if line.startswith("│ docs"))
    assert crawl_row.endswith(" 0.857 │")
    cells = [cell.strip() for cell in row.strip("│").split("│")]
    assert cells == [
        "docs", "57", "31", "29", "40", "0.750", "1.000", "0.857", "layout", "2", "9",
        r"http://h/issue[0-9]+(?:\?[^&]*)?",
    ]  # fmt: skip
    data = json.loads(real_runs_to_json(runs))
    assert "prototypes" not in data[0]
    assert data[1]["prototypes"]["f1"] == 0.8571
