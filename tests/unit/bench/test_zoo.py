"""``deepcrawl bench --suite zoo``: the seeds, the bars a run meets, the table, JSON and plot."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING

import pytest
from rich.console import Console

from deepcrawl.bench.report import zoo_runs_to_json, zoo_table
from deepcrawl.bench.zoo import ZooRun, parse_seeds, write_zoo_plot, zoo_summary
from deepcrawl.errors import ConfigError

if TYPE_CHECKING:
    from pathlib import Path

RUN = ZooRun(
    seed=1,
    crawler="auto",
    records=200,
    records_delivered=198,
    delivered=200,
    on_record=200,
    documents=230,
    stop="done (the latest result lists, by their totals, hold no record the crawl lacks)",
    stopped=True,
    claimed_complete=True,
    reported_size=198.0,
    wall_s=12.0,
    config={"pager": "numbered", "ranking": "relevance"},
)


def test_seeds_are_read_as_ranges_and_lists() -> None:
    assert parse_seeds("1-4") == [1, 2, 3, 4]
    assert parse_seeds("7") == [7]
    assert parse_seeds("1,3, 5-6,3") == [1, 3, 5, 6]


@pytest.mark.parametrize("spec", ["", "a-b", "4-2", "-3", "1,,2"])
def test_a_bad_seed_list_is_refused_naming_it(spec: str) -> None:
    with pytest.raises(ConfigError, match="--seeds"):
        parse_seeds(spec)


def test_a_run_that_meets_every_bar() -> None:
    assert RUN.recall == 0.99
    assert RUN.harvest == pytest.approx(198 / 230)
    assert RUN.size_error == pytest.approx(-0.01)
    assert all(RUN.passes().values())


def test_a_claim_of_completeness_below_the_recall_bar_is_false() -> None:
    run = replace(RUN, records_delivered=140, reported_size=140.0)
    passes = run.passes()
    assert not passes["recall"]
    assert not passes["claim_true"]
    assert not passes["size"]  # 140 of 200: -30%, past the ±25% bar
    assert replace(run, claimed_complete=False).passes()["claim_true"]


def test_the_harvest_bar_is_lower_where_the_widget_fetches_a_data_file_per_result() -> None:
    run = replace(RUN, documents=400)  # 198 / 400 ≈ 0.5
    assert not run.passes()["harvest"]
    assert replace(run, data_files=True).passes()["harvest"]


def test_a_killed_crawl_did_not_stop_by_itself_and_reported_no_size() -> None:
    run = replace(RUN, stop="killed after 300 s", stopped=False, reported_size=None)
    assert not run.passes()["stopped"]
    assert not run.passes()["size"]


def test_the_summary_counts_the_bars_met_and_names_the_seeds_that_miss() -> None:
    runs = [RUN, replace(RUN, seed=2, records_delivered=100, reported_size=100.0)]
    summary = zoo_summary(runs)
    assert summary["runs"] == 2
    assert summary["met"]["recall"] == 1
    assert summary["missed"]["recall"] == [2]
    assert summary["false_claims"] == [2]


def test_the_table_json_and_plot(tmp_path: Path) -> None:
    runs = [RUN, replace(RUN, seed=2, config={"pager": "load-more", "ranking": "newest"})]
    console = Console(width=200, record=True)
    console.print(zoo_table(runs))
    text = console.export_text()
    assert "2/2" in text  # the bars met
    assert "198/200" in text
    data = json.loads(zoo_runs_to_json(runs))
    assert data["runs"][0]["passes"]["recall"] is True
    assert data["summary"]["met"]["precision"] == 2
    plot = write_zoo_plot(runs, tmp_path / "zoo.png")
    assert plot.stat().st_size > 1000


@pytest.mark.parametrize(
    ("error", "followed"),
    [
        (
            "robots.txt forbids the search form's action http://h/search: no query is sent; "
            "robots.txt still allows 1 of the start page's links (/browse): crawl with "
            "--navigate to reach the records through them",
            "--navigate",
        ),
        (
            "robots.txt forbids http://h/: robots.txt allows nothing else that leads to records",
            None,
        ),
        (None, None),
    ],
)
def test_the_advice_of_a_failed_crawls_line_is_the_flag_it_names(
    tmp_path: Path, error: str | None, followed: str | None
) -> None:
    from deepcrawl.bench.zoo import _advice

    stats = tmp_path / "stats.json"
    assert _advice(stats) is None  # no stats: no advice
    stats.write_text(json.dumps({"status": "failed", "error": error}))
    assert _advice(stats) == followed
