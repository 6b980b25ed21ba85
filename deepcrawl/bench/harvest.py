"""``deepcrawl bench --job harvest``: every real application of the bed as one harvest.

1. every application named (default: all of ``fixtures/real``) is installed if needed and served
   behind its counting proxy, all at once, each on its own port (its own host for politeness);
   with ``copies`` above one, each is served that many times, every copy an instance of its own
   behind a proxy of its own and a site of its own (``name-2`` …): many hosts of one shape;
2. a throw-away PostgreSQL server is started; for each count of workers (1, 2 and 4 by default)
   a new database, the proxies' logs emptied, and ``deepcrawl harvest SITES --db … --workers N``
   runs as a child process — the start URLs alone, no examples, as a new user would — under the
   bench's wall-time cap, its process tree sampled (CPU, memory, the machine's load). A count of
   0 is the harvest with no ``--db``: the embedded default, every job in one process on SQLite.
   With ``kill_after``, each count of workers runs a second time and one worker is SIGKILLed
   that many seconds in (:mod:`deepcrawl.bench.kill`): how soon its jobs ran elsewhere, and the
   run's wall time beside the uninterrupted one's;
3. each site is scored from its proxy's log and its ``pages.jsonl`` (record recall, harvest
   rate: :mod:`deepcrawl_fixtures.real.score`), its records delivered twice counted, and its
   politeness measured from the log's times (:mod:`deepcrawl.bench.politeness`: requests in
   flight at once, starts a second), to set beside ``politeness.concurrency_per_host`` and
   ``requests_per_second``; and the run's records by time: how many seconds in half, four
   fifths and all of them had been fetched (from each page's ``fetched_at``) — a harvest whose
   last site ends late shows its pace there, where the wall time hides it.

The harvest runs with the bench's ``--set`` assignments (its workers too). Throughput is records
delivered a second of the harvest's wall time, compared between the counts of workers of one
run: where politeness is not the limit (many hosts), two workers should deliver nearly twice
what one does on a machine with the cores to spare.
"""

from __future__ import annotations

import contextlib
import json
import math
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deepcrawl.bench.child import kill_group
from deepcrawl.bench.kill import KillReport, WorkerKill
from deepcrawl.bench.politeness import HostPoliteness, measure
from deepcrawl.bench.real import _real_apps
from deepcrawl.bench.usage import TreeSampler, TreeUsage
from deepcrawl.errors import FixtureError
from deepcrawl.settings import override_args

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from deepcrawl_fixtures.real import RealApp, Running
    from deepcrawl_fixtures.real.score import RealScore

    from deepcrawl.settings import Settings

__all__ = [
    "SHARES",
    "WORKERS",
    "HarvestRun",
    "HarvestSiteRun",
    "harvest_table",
    "records_by_time",
    "run_harvest_bench",
]

#: The counts of workers a harvest bench compares by default.
WORKERS = (1, 2, 4)

#: The shares of a run's records whose fetch times the bench reports (its records by time).
SHARES = (0.5, 0.8, 1.0)


def records_by_time(seconds: Sequence[float], shares: Sequence[float] = SHARES) -> dict[str, float]:
    """The seconds by which each share of the records had been fetched, keyed by the share as
    a percentage (``{"50%": 154.0, …}``); nothing for no records.

    Args:
        seconds: when each record was first fetched, in seconds from the run's start.
        shares: fractions of the records, each in (0, 1].
    """
    ordered = sorted(seconds)
    if not ordered:
        return {}
    # the k-th record, k the share of n rounded up (0.8 of 10 is the 8th: rounded first, since
    # 0.8 * 10 is 8.000000000000002 in floating point)
    return {
        f"{share:.0%}": round(ordered[max(1, math.ceil(round(share * len(ordered), 9))) - 1], 1)
        for share in shares
    }


@dataclass(frozen=True, slots=True)
class HarvestSiteRun:
    """One site of one harvest run."""

    site: str
    state: str
    score: RealScore
    twice: int
    """Records delivered more than once (0: each once)."""
    politeness: HostPoliteness

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures."""
        return {
            "site": self.site,
            "state": self.state,
            **self.score.to_dict(),
            "twice": self.twice,
            "politeness": self.politeness.to_dict(),
        }


@dataclass
class HarvestRun:
    """One harvest of every site with ``workers`` worker processes."""

    workers: int
    """Worker processes started (0: the embedded harvest, in one process on SQLite)."""
    wall_s: float
    stop: str
    usage: TreeUsage
    sites: list[HarvestSiteRun] = field(default_factory=list)
    kill: KillReport | None = None
    """The worker killed in this run (None: an uninterrupted run)."""
    by_time: dict[str, float] = field(default_factory=dict)
    """Seconds from the start by which each share of the records had been fetched
    (:func:`records_by_time`)."""

    @property
    def label(self) -> str:
        """The run as the table names it: its workers, and the kill if any."""
        where = "SQLite" if self.workers == 0 else str(self.workers)
        return where if self.kill is None else f"{where}, killed at {self.kill.after_s:.0f} s"

    @property
    def records(self) -> int:
        """Wanted records delivered, every site's."""
        return sum(site.score.records_delivered for site in self.sites)

    @property
    def records_per_s(self) -> float:
        """Records delivered a second of wall time."""
        return self.records / self.wall_s if self.wall_s > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures."""
        return {
            "workers": self.workers,
            "kill": None if self.kill is None else self.kill.to_dict(),
            "wall_s": self.wall_s,
            "stop": self.stop,
            "records": self.records,
            "records_per_s": round(self.records_per_s, 3),
            "records_by_time_s": self.by_time,
            "cpu_share": round(self.usage.cpu_s / self.wall_s / 2, 3) if self.wall_s else 0.0,
            "usage": self.usage.to_dict(),
            "sites": [site.to_dict() for site in self.sites],
        }


def run_harvest_bench(
    sites: Sequence[str] | None,
    settings: Settings,
    *,
    workers: Sequence[int] = WORKERS,
    kill_after: float | None = None,
    copies: int = 1,
    out: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[HarvestRun]:
    """Harvest the real sites ``sites`` (default: all) once for each count of ``workers`` (0:
    in one process on SQLite), and with ``kill_after`` once more for each count on PostgreSQL
    with one worker SIGKILLed that many seconds in; each site served ``copies`` times, as that
    many sites on as many hosts.

    Raises:
        FixtureError: an unknown site, or one that cannot be installed or started; no
            PostgreSQL server binaries.
    """
    from deepcrawl_fixtures.postgres import PostgresServer
    from deepcrawl_fixtures.real import serve

    apps = _real_apps()
    names = list(sites or sorted(apps))
    unknown = [name for name in names if name not in apps]
    if unknown:
        raise FixtureError(f"unknown real site {unknown[0]!r}; known: {', '.join(sorted(apps))}")
    say = progress or (lambda _msg: None)
    runs: list[HarvestRun] = []
    with tempfile.TemporaryDirectory(prefix="deepcrawl-harvest-") as scratch:
        root = out or Path(scratch)
        root.mkdir(parents=True, exist_ok=True)
        with contextlib.ExitStack() as stack:
            served: dict[str, tuple[RealApp, Running]] = {}
            for name in names:
                for copy in range(1, copies + 1):
                    site_name = name if copy == 1 else f"{name}-{copy}"
                    app = apps[name]()
                    say(f"{site_name}: installing and starting")
                    log = root / f"requests-{site_name}.jsonl"
                    served[site_name] = (app, stack.enter_context(serve(app, log_path=log)))
            sites_file = root / "sites.txt"
            sites_file.write_text(
                "".join(
                    f"{site.url}{app.start_path} --name {name}\n"
                    for name, (app, site) in served.items()
                )
            )
            try:
                pg = stack.enter_context(PostgresServer())
            except FileNotFoundError as exc:
                raise FixtureError(str(exc)) from exc
            plan: list[tuple[int, float | None]] = [(count, None) for count in workers]
            if kill_after is not None:
                plan += [(count, kill_after) for count in workers if count > 0]
            for count, kill in plan:
                for _app, site in served.values():
                    site.reset()
                tag = f"{count}" if kill is None else f"{count}-killed"
                db = None if count == 0 else pg.new_database(f"harvest{tag.replace('-', '_')}")
                say(f"deepcrawl harvest of {len(served)} sites: {tag} workers")
                runs.append(_harvest(served, sites_file, db, root / f"workers-{tag}", count,
                                     settings, kill_after=kill))  # fmt: skip
    return runs


def _harvest(
    served: dict[str, tuple[RealApp, Running]],
    sites_file: Path,
    db: str | None,
    folder: Path,
    count: int,
    settings: Settings,
    *,
    kill_after: float | None,
) -> HarvestRun:
    from deepcrawl_fixtures.real.process import python_env
    from deepcrawl_fixtures.real.score import score

    shutil.rmtree(folder, ignore_errors=True)
    where = ["--workers", "0"] if db is None else ["--db", db, "--workers", str(count)]
    cmd = [sys.executable, "-m", "deepcrawl", *override_args(), "-q", "harvest", str(sites_file),
           *where, "--out", str(folder / "out")]  # fmt: skip
    folder.mkdir(parents=True)
    started, began = time.perf_counter(), time.time()
    with (folder / "harvest.log").open("w") as log:
        proc = subprocess.Popen(cmd, cwd=folder, env=python_env(), stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
        killing = (
            WorkerKill(proc.pid, db, after_s=kill_after, heartbeat_s=settings.crawl.heartbeat_s)
            if db is not None and kill_after is not None
            else contextlib.nullcontext()
        )
        with TreeSampler(proc.pid) as sampler, killing as killer:
            try:
                proc.wait(settings.bench.real_timeout_s)
                stop = f"exit {proc.returncode}"
            except subprocess.TimeoutExpired:
                kill_group(proc)
                stop = f"killed after {settings.bench.real_timeout_s:.0f} s"
            finally:
                if proc.poll() is None:
                    kill_group(proc)
    run = HarvestRun(count, round(time.perf_counter() - started, 1), stop, sampler.usage,
                     kill=killer.report if isinstance(killer, WorkerKill) else None)  # fmt: skip
    report = folder / "out" / "harvest.json"
    states = (
        {s["name"]: s["state"] for s in json.loads(report.read_text())["sites"]}
        if (report.exists())
        else {}
    )
    fetched: list[float] = []
    for name, (app, site) in served.items():
        entries = site.requests()
        shutil.copy(site.log_path, folder / f"requests-{name}.jsonl")
        pages = folder / "out" / name / "pages.jsonl"
        lines = (
            [json.loads(line) for line in pages.read_text().splitlines()] if pages.exists() else []
        )
        urls = [line["url"] for line in lines]
        twice = sum(1 for n in Counter(urls).values() if n > 1)
        fetched += _record_times(app, lines, began)
        run.sites.append(
            HarvestSiteRun(
                name, states.get(name, "?"), score(app, entries, urls), twice, measure(entries)
            )
        )
    run.by_time = records_by_time(fetched)
    return run


def _record_times(app: RealApp, lines: Sequence[dict[str, Any]], began: float) -> list[float]:
    """When each of a site's wanted records was first fetched, in seconds after ``began``."""
    from deepcrawl_fixtures.real.score import path_of

    truth, first = app.truth().records, {}
    for line in lines:
        key = app.record_of(path_of(line["url"]))
        if key in truth and key not in first:
            first[key] = datetime.fromisoformat(line["fetched_at"]).timestamp() - began
    return list(first.values())


def harvest_table(runs: Sequence[HarvestRun], settings: Settings) -> Any:
    """The bench's table: a row per site and count of workers, then a row per run."""
    from rich.table import Table

    polite = settings.politeness
    table = Table(
        title=f"harvest: politeness {polite.requests_per_second}/s, "
        f"{polite.concurrency_per_host} at once per host",
        title_justify="left",
    )
    for column in ("workers", "site", "state", "recall", "harvest", "twice", "in flight",
                   "max/s", "max/10s", "requests"):  # fmt: skip
        table.add_column(column, justify="left" if column in ("site", "state") else "right")
    for run in runs:
        for site in run.sites:
            p = site.politeness
            table.add_row(run.label, site.site, site.state, f"{site.score.recall:.3f}",
                          f"{site.score.harvest:.3f}", str(site.twice), str(p.max_in_flight),
                          str(p.max_per_s), f"{p.max_per_10s:.1f}", str(p.requests))  # fmt: skip
        cpu = run.usage.cpu_s / run.wall_s / 2 if run.wall_s else 0.0
        killed = "" if run.kill is None else f"; {_kill_text(run.kill)}"
        paced = ", ".join(f"{share} by {s:.0f} s" for share, s in run.by_time.items())
        table.add_row(
            run.label, "[bold]all[/]", run.stop, "", "", "", "", "", "",
            f"{run.records} rec, {run.wall_s:.0f} s, {run.records_per_s:.2f} rec/s, "
            f"CPU {cpu:.0%}, load {run.usage.load_mean:.1f}{killed}"
            + (f"; records {paced}" if paced else ""),
        )  # fmt: skip
    return table


def _kill_text(kill: KillReport) -> str:
    """A killed worker as the table's last column says it: whose jobs, how soon taken up."""
    parts = [f"killed pid {kill.pid} ({kill.site_jobs} site, {kill.fetch_jobs} fetch jobs)"]
    if kill.taken_up_s is not None:
        parts.append(f"taken up in {kill.taken_up_s:.0f} s")
    if kill.note:
        parts.append(kill.note)
    return ", ".join(parts)
