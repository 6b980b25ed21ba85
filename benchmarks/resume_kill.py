"""A shared crawl SIGKILLed in its query loop and resumed, against the same crawl uninterrupted.

Usage::

    PYTHONPATH=.:fixtures .venv/bin/python benchmarks/resume_kill.py [--site books]
        [--records 1000] [--kill-after 60] [--kill-at QUERIES] [--workers 2] [--rate 40]

Serves one fixture site and starts a throw-away PostgreSQL server, then crawls the site twice,
each time into a database of its own: ``deepcrawl crawl`` (its own fetch worker) beside
``--workers`` ``deepcrawl worker`` processes,

* **uninterrupted**: to its end;
* **killed**: the crawl process (its process group: driver and browser too) SIGKILLed
  ``--kill-after`` seconds in and once ``--kill-at`` queries are stored, while it still queries
  (the workers go on), then ``deepcrawl crawl --resume`` on the same database and ``--out``.

Prints, for each run, the records delivered (those of the site's truth), the recall, and the
queries stored (for the killed run: before the kill, and by the resumed crawl). A resumed crawl
that gets its querying's state back reaches the uninterrupted run's recall (within 0.2%) with
no more queries than the uninterrupted run plus those the killed one had sent.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

import sqlalchemy as sa
from deepcrawl_fixtures.postgres import PostgresServer
from deepcrawl_fixtures.server import FixtureServer

ROOT = Path(__file__).resolve().parents[1]
DEEPCRAWL = [sys.executable, "-m", "deepcrawl"]


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + ("?" + parts.query if parts.query else "")


def _spawn(args: list[str], work: Path, env: dict[str, str], log: str) -> subprocess.Popen[bytes]:
    """A process of the crawl in ``work``, its stderr in ``work/log``."""
    env = {
        **os.environ,
        "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'fixtures'}",
        "DEEPCRAWL_STORAGE__BODIES_DIR": str(work / "bodies"),
        "DEEPCRAWL_CRAWL__HEARTBEAT_S": "2",
        "DEEPCRAWL_CRAWL__DELIVER_POLL_S": "0.2",
        **env,
    }
    with (work / log).open("ab") as err:
        return subprocess.Popen(
            [*DEEPCRAWL, *args], env=env, cwd=work,
            stdout=subprocess.DEVNULL, stderr=err, start_new_session=True,
        )  # fmt: skip


def _queries(db: str) -> int:
    engine = sa.create_engine(db)
    try:
        with engine.connect() as conn:
            return int(conn.execute(sa.text("SELECT count(*) FROM query")).scalar_one())
    except sa.exc.ProgrammingError:  # no tables yet
        return 0
    finally:
        engine.dispose()


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def run(
    site: FixtureServer,
    db: str,
    work: Path,
    *,
    workers: int,
    env: dict[str, str],
    kill_after: float | None,
    kill_at: int = 0,
    timeout: float,
) -> dict[str, object]:
    """One crawl of ``site`` into ``db`` (killed and resumed with ``kill_after``); its figures."""
    work.mkdir(parents=True)
    out = work / "out"
    crawl = ["crawl", site.url + "/", "--db", db, "--out", str(out)]
    started = time.monotonic()
    procs = [_spawn(crawl, work, env, "crawl.log")]
    procs += [
        _spawn(["worker", "--db", db, "--concurrency", "3"], work, env, f"worker{n}.log")
        for n in range(workers)
    ]
    figures: dict[str, object] = {}
    try:
        if kill_after is not None:
            while time.monotonic() - started < kill_after or _queries(db) < kill_at:
                if procs[0].poll() is not None:
                    raise SystemExit("the crawl ended before its kill point: kill it sooner")
                time.sleep(0.1)
            os.killpg(procs[0].pid, signal.SIGKILL)  # the crawl, its driver and its browser
            procs[0].wait()
            figures["queries_killed"] = _queries(db)
            procs.append(_spawn([*crawl, "--resume"], work, env, "resume.log"))
        last = procs[-1] if kill_after is not None else procs[0]
        last.wait(timeout=timeout)
        if last.returncode != 0:
            raise SystemExit(f"the crawl failed: see {work}")
    finally:
        _stop(procs)
    truth = site.truth()
    lines = (out / "pages.jsonl").read_text().splitlines()
    delivered = {truth.record_of(_path(json.loads(line)["url"])) for line in lines}
    records = len(delivered & set(truth.detail_paths))
    queries = _queries(db)
    figures.update(
        wall_s=round(time.monotonic() - started, 1),
        records=records,
        recall=round(records / len(truth.detail_paths), 4),
        queries=queries,
    )
    if kill_after is not None:
        figures["queries_resumed"] = queries - int(str(figures["queries_killed"]))
    return figures


def main() -> int:
    """Parse the command line, run both crawls, print their figures as JSON lines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", default="books")
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kill-after", type=float, default=60.0)
    parser.add_argument("--kill-at", type=int, default=0, help="and once this many queries")
    parser.add_argument("--workers", type=int, default=2, help="deepcrawl worker processes")
    parser.add_argument("--rate", type=float, default=40.0, help="requests a second, shared")
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--only", choices=["uninterrupted", "killed"])
    parser.add_argument("--keep", type=Path, help="keep each run's folder here")
    parser.add_argument("--render", default="never", help="browser.render of every process")
    args = parser.parse_args()
    env = {
        "DEEPCRAWL_POLITENESS__REQUESTS_PER_SECOND": str(args.rate),
        "DEEPCRAWL_BROWSER__RENDER": args.render,
    }
    with (
        FixtureServer(args.site, records=args.records, seed=args.seed) as site,
        PostgresServer() as pg,
        tempfile.TemporaryDirectory(prefix="resume-kill-") as tmp,
    ):
        base = args.keep or Path(tmp)
        plan = [("uninterrupted", None), ("killed", args.kill_after)]
        for name, kill in plan:
            if args.only not in (None, name):
                continue
            figures = run(
                site, pg.new_database(name), base / name, workers=args.workers,
                env=env, kill_after=kill, kill_at=args.kill_at, timeout=args.timeout,
            )  # fmt: skip
            print(json.dumps({"run": name, **figures}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
