"""The harvest bench's runs as its table and JSON show them: the embedded run, a killed worker."""

from __future__ import annotations

import io

from deepcrawl_fixtures.real.score import RealScore
from rich.console import Console

from deepcrawl.bench.harvest import HarvestRun, HarvestSiteRun, harvest_table, records_by_time
from deepcrawl.bench.kill import KillReport
from deepcrawl.bench.politeness import HostPoliteness
from deepcrawl.bench.usage import TreeUsage
from deepcrawl.settings import load_settings


def _run(workers: int, kill: KillReport | None = None) -> HarvestRun:
    usage = TreeUsage(cpu_s=60.0, peak_pss_mib=500.0, peak_processes=9, samples=30,
                      load_mean=1.5, load_max=2.0)  # fmt: skip
    score = RealScore(records=100, records_delivered=99, delivered=110, delivered_wanted=99,
                      records_fetched=99, documents=120, assets=0)  # fmt: skip
    site = HarvestSiteRun("books", "done", score, 0, HostPoliteness(120, 4, 18, 14.2))
    return HarvestRun(workers, 60.0, "exit 0", usage, [site], kill=kill)


def _text(runs: list[HarvestRun]) -> str:
    console = Console(file=io.StringIO(), width=300)
    console.print(harvest_table(runs, load_settings()))
    assert isinstance(console.file, io.StringIO)
    return console.file.getvalue()


def test_a_run_is_named_by_its_workers_sqlite_and_its_kill() -> None:
    killed = KillReport(after_s=30.4, pid=4242, site_jobs=1, fetch_jobs=2, taken_up_s=17.6)
    assert _run(2).label == "2"
    assert _run(0).label == "SQLite"
    assert _run(2, killed).label == "2, killed at 30 s"


def test_the_table_says_whose_jobs_the_kill_took_and_how_soon_they_ran_again() -> None:
    killed = KillReport(after_s=30.0, pid=4242, site_jobs=1, fetch_jobs=2, taken_up_s=17.6)
    text = _text([_run(2), _run(2, killed)])
    assert "killed pid 4242 (1 site, 2 fetch jobs), taken up in 18 s" in text
    assert "99 rec, 60 s, 1.65 rec/s" in text


def test_the_json_keeps_the_kill_and_says_none_for_an_uninterrupted_run() -> None:
    killed = KillReport(after_s=30.0, pid=7, site_jobs=0, fetch_jobs=1, taken_up_s=None,
                        note="not every job taken up within 180 s")  # fmt: skip
    assert _run(1).to_dict()["kill"] is None
    figures = _run(1, killed).to_dict()["kill"]
    assert figures == {"after_s": 30.0, "pid": 7, "site_jobs": 0, "fetch_jobs": 1,
                       "taken_up_s": None, "note": killed.note}  # fmt: skip


def test_records_by_time_are_the_seconds_by_which_each_share_was_fetched() -> None:
    seconds = [float(s) for s in (9, 1, 2, 3, 4, 5, 6, 7, 8, 10)]
    assert records_by_time(seconds) == {"50%": 5.0, "80%": 8.0, "100%": 10.0}
    assert records_by_time([3.0]) == {"50%": 3.0, "80%": 3.0, "100%": 3.0}
    assert records_by_time([]) == {}


def test_the_table_and_the_json_show_the_records_by_time() -> None:
    run = _run(2)
    run.by_time = records_by_time([10.0, 20.0, 30.0, 40.0])
    assert "records 50% by 20 s, 80% by 40 s, 100% by 40 s" in _text([run])
    assert run.to_dict()["records_by_time_s"] == {"50%": 20.0, "80%": 40.0, "100%": 40.0}
