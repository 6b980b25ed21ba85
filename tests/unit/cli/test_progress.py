"""The crawl's progress display: plain lines off a terminal, nothing when quiet, honest rates."""

from __future__ import annotations

import io
import re
import time
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

import pytest
from rich.console import Console

from deepcrawl.cli._progress import CrawlProgress, plain_line
from deepcrawl.crawler.context import CrawlStats
from deepcrawl.crawler.picking import pick_kind
from deepcrawl.settings import Settings

if TYPE_CHECKING:
    from deepcrawl.crawler.context import CrawlContext
    from deepcrawl.prototypes import LabelSession
    from deepcrawl.records.pick import Pick


def _console(*, terminal: bool) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=terminal, width=200), out


def test_off_a_terminal_each_phase_is_one_plain_line_and_the_last_figures_end_it() -> None:
    console, out = _console(terminal=False)
    stats = CrawlStats()
    with CrawlProgress(3600, console=console) as progress:
        assert not progress.live
        for phase in ("robots.txt", "finding form", "setup queries"):
            stats.phase = phase
            progress.update(stats)
        stats.phase, stats.records_reached, stats.records_estimated = "crawling", 10, 40.4
        progress.update(stats)
        stats.pages_delivered = 25  # within the interval: shown only by the last line
        progress.update(stats)
    lines = out.getvalue().splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "robots.txt", "finding form", "setup queries", "crawling", "crawling"
    ]  # fmt: skip
    assert "\x1b" not in out.getvalue()  # no colour or cursor codes in a log
    assert "records 10/~40" in lines[-1]
    assert "delivered 25" in lines[-1]


def test_quiet_shows_nothing() -> None:
    console, out = _console(terminal=False)
    with CrawlProgress(0, console=console, enabled=False) as progress:
        progress.update(CrawlStats(phase="crawling"))
    assert out.getvalue() == ""


def test_on_a_terminal_a_bar_runs_to_the_estimate() -> None:
    console, _out = _console(terminal=True)
    stats = CrawlStats(phase="crawling")
    with CrawlProgress(0, console=console) as progress:
        assert progress.live
        assert progress.progress is not None
        progress.update(stats)
        task = progress.progress.tasks[0]
        assert task.total is None  # no estimate yet: a pulsing bar, no time left
        stats.records_reached, stats.records_estimated = 30, 120.0
        progress.update(stats)
        assert (task.completed, task.total) == (30, 120.0)
        assert task.fields["phase"] == "crawling"
        stats.records_reached = 130  # reached past the estimate: the bar is full, not over
        progress.update(stats)
        assert task.total == 130
        with progress.paused():  # a prompt gets the screen to itself
            assert not progress.progress.live.is_started
        assert progress.progress.live.is_started


def test_the_rate_leaves_out_the_time_at_the_label_prompt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [100.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    stats = CrawlStats(started=now[0])
    with stats.waiting():
        now[0] += 50.0  # the user takes 50 s to label
    now[0] += 10.0
    stats.pages_fetched = 20
    assert stats.elapsed_s == 60.0
    assert stats.active_s == 10.0
    assert stats.rate == 2.0
    figures = stats.to_dict()
    assert (figures["waiting_s"], figures["pages_per_s"]) == (50.0, 2.0)
    assert re.search(r"2\.0 pages/s", plain_line(stats))


async def test_the_labelling_prompt_counts_as_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [0.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    labels: dict[str, tuple[str, bool]] = {}

    def labeller(_session: LabelSession, _pick: Pick | None) -> None:
        now[0] += 30.0  # the user reads the kinds and picks one
        labels["p1"] = ("book", True)

    stats = CrawlStats(started=0.0)
    settings = Settings().with_overrides(crawl={"auto_label": False})  # no pick: only the prompt
    ctx = SimpleNamespace(settings=settings, stats=stats, start_url="http://127.0.0.1:9/")
    session = SimpleNamespace(labels=lambda: labels)
    picked = await pick_kind(
        cast("CrawlContext", ctx), cast("LabelSession", session), None, labeller=labeller
    )
    assert picked is None
    assert labels == {"p1": ("book", True)}
    assert stats.waiting_s == 30.0
    assert stats.active_s == 0.0


def test_the_reference_documents_every_stats_json_field() -> None:
    formats = (Path(__file__).parents[3] / "docs" / "reference" / "formats.md").read_text()
    table = formats.split("## stats.json", 1)[1].split("\n## ", 1)[0]
    documented = {
        name for row in table.splitlines() if row.startswith("| `")
        for name in re.findall(r"`([a-z_]+)`", row.split("|")[1])
    }  # fmt: skip
    assert documented == {"start_url", "status", *CrawlStats().to_dict()}
