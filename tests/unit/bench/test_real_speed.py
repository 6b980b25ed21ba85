"""The crawl beside the reference client: the ratios, the table, the JSON, the settings passed."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING

import pytest
from deepcrawl_fixtures.real.score import RealScore
from rich.console import Console

from deepcrawl.bench.real import RealRun, run_real_bench, settings_args
from deepcrawl.bench.real_speed import compare
from deepcrawl.bench.report import real_runs_to_json, real_speed_table, real_table
from deepcrawl.bench.usage import TreeUsage
from deepcrawl.errors import FixtureError
from deepcrawl.settings import load_settings, overridden

if TYPE_CHECKING:
    from deepcrawl.browser.base import Fetcher
    from deepcrawl.settings import Settings


def _run(crawler: str, delivered: int, wall_s: float, cpu_s: float, pss: float) -> RealRun:
    figures = RealScore(
        records=20_000,
        records_delivered=delivered,
        delivered=delivered,
        delivered_wanted=delivered,
        records_fetched=delivered,
        documents=delivered + 40,
        assets=0,
    )
    usage = TreeUsage(
        cpu_s=cpu_s, peak_pss_mib=pss, peak_processes=9, samples=100, load_mean=2.5, load_max=4
    )
    return RealRun(
        site="register",
        title="Register",
        crawler=crawler,
        score=figures,
        stop="done",
        wall_s=wall_s,
        usage=usage,
    )


def test_the_crawl_is_compared_with_the_reference() -> None:
    crawl = _run("deepcrawl", 5000, wall_s=150.0, cpu_s=95.0, pss=1240.0)
    reference = _run("reference", 20_000, wall_s=144.0, cpu_s=40.0, pss=60.0)
    versus = compare(crawl, reference)
    assert versus.crawl_pages_per_s == pytest.approx(33.3, abs=0.05)
    assert versus.reference_pages_per_s == pytest.approx(138.9, abs=0.05)
    assert versus.crawl_cpu_ms_per_page == 19.0
    assert versus.reference_cpu_ms_per_page == 2.0
    assert versus.cpu_ratio == pytest.approx(9.5)
    assert versus.wall_ratio == pytest.approx(150 / 144)
    assert versus.to_dict()["wall_ratio"] == 1.042
    nothing = compare(replace(crawl, score=replace(crawl.score, delivered=0)), reference)
    assert (nothing.crawl_cpu_ms_per_page, nothing.cpu_ratio) == (None, None)
    with pytest.raises(ValueError, match="usage"):
        compare(replace(crawl, usage=None), reference)


def test_the_speed_table_and_the_json_carry_the_figures() -> None:
    crawl = _run("deepcrawl", 5000, wall_s=150.0, cpu_s=95.0, pss=1240.0)
    reference = _run("reference", 20_000, wall_s=144.0, cpu_s=40.0, pss=60.0)
    crawl.versus_reference = compare(crawl, reference)
    alone = replace(_run("deepcrawl", 200, wall_s=40.0, cpu_s=6.0, pss=700.0), site="wiki")
    console = Console(width=250, record=True)
    console.print(real_speed_table([crawl, reference, alone]))
    rows = [line for line in console.export_text().splitlines() if line.startswith("│ ")]
    cells = [[cell.strip() for cell in row.strip("│").split("│")] for row in rows]
    assert cells == [
        ["register", "150", "144", "1.04×", "33.3", "138.9", "19.0", "2.0", "9.50×", "1240",
         "60", "2.5", "2.5"],
        ["wiki", "40", "-", "-", "5.0", "-", "30.0", "-", "-", "700", "-", "2.5", "-"],
    ]  # fmt: skip
    console.print(real_table([crawl, reference]))  # the reference is no crawl of this table
    assert sum(line.startswith("│ register") for line in console.export_text().splitlines()) == 1
    data = json.loads(real_runs_to_json([crawl, reference]))
    assert data[0]["usage"]["peak_pss_mib"] == 1240.0
    assert data[0]["versus_reference"]["cpu_ratio"] == 9.5
    assert data[1]["crawler"] == "reference"
    assert "versus_reference" not in data[1]


def test_the_benchs_set_assignments_go_to_the_child_commands() -> None:
    assert settings_args() == []
    with overridden(
        ["politeness.requests_per_second=200", "politeness.concurrency_per_host=8",
         'forms.fields={"region": "Umbria"}']
    ):  # fmt: skip
        assert settings_args() == [
            "--set", 'forms.fields={"region": "Umbria"}',
            "--set", "politeness.concurrency_per_host=8",
            "--set", "politeness.requests_per_second=200",
        ]  # fmt: skip


def test_an_unknown_job_is_refused() -> None:
    def no_fetcher(settings: Settings) -> Fetcher:
        raise AssertionError("no site may be crawled")

    with pytest.raises(FixtureError, match="unknown real-site job 'fast'"):
        run_real_bench(["register"], load_settings(), make_fetcher=no_fetcher, job="fast")
