"""Many processes, one crawl, on a real PostgreSQL server (issue 9, on a job queue since 49).

``deepcrawl crawl … --db postgresql://…`` runs the query loop and is the one delivery point; its
wanted pages are fetched by fetch jobs (procrastinate) that its own worker and ``deepcrawl
worker`` processes run. Afterwards its output holds every stored record exactly once and
nothing else, the worker having fetched its share. The SIGKILL of a worker mid-batch is
``tests/integration/harvest/test_workers.py``'s: the same jobs, the same sweep.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest
import sqlalchemy as sa

from tests.integration.run_cli import cli_env, run_deepcrawl, spawn_deepcrawl

if TYPE_CHECKING:
    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser

#: Records the crawl process delivers before it is killed.
KILLED_AFTER = 3


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + ("?" + parts.query if parts.query else "")


def _lines(out: Path) -> list[str]:
    pages = out / "pages.jsonl"
    return pages.read_text().splitlines() if pages.exists() else []


#: The settings of every process of a crawl here, on top of :func:`cli.cli_env`'s.
SETTINGS = {
    # one rate for the host, shared by every process (not multiplied by them)
    "DEEPCRAWL_POLITENESS__REQUESTS_PER_SECOND": "40",
    "DEEPCRAWL_POLITENESS__CONCURRENCY_PER_HOST": "4",
    "DEEPCRAWL_CRAWL__HEARTBEAT_S": "2",
    "DEEPCRAWL_CRAWL__DELIVER_POLL_S": "0.2",
    # record pages over plain HTTP in every process (the form still runs in Chromium): in
    # auto mode the crawl fetches a few pages both ways on purpose, to choose
    "DEEPCRAWL_BROWSER__RENDER": "never",
}


def _spawn(cmd: list[str], tmp_path: Path) -> subprocess.Popen[bytes]:
    """A process of the crawl, in ``tmp_path``, its stderr kept for the failure message."""
    return spawn_deepcrawl(
        cmd,
        env=cli_env(tmp_path, **SETTINGS),
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _reap(procs: list[subprocess.Popen[bytes]]) -> None:
    """Stop what still runs (a worker waits for more jobs; a failed test) and close the kept
    stderr pipes."""
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        assert proc.stderr is not None
        proc.stderr.close()


def _stored(engine: sa.Engine) -> tuple[set[str], int]:
    """Paths of the stored records, and the frontier's pending URLs."""
    with engine.connect() as conn:
        stored = {
            path_of(url)
            for (url,) in conn.execute(
                sa.text("SELECT url FROM page WHERE kind = 'record' AND error IS NULL")
            )
        }
        pending = conn.execute(
            sa.text("SELECT count(*) FROM frontier WHERE state IN ('queued', 'leased')")
        ).scalar()
    return stored, int(pending or 0)


def test_a_worker_shares_the_fetch_jobs_of_a_crawl(
    fixture_server: Callable[..., FixtureServer],
    make_db: Callable[[str], str],
    tmp_path: Path,
) -> None:
    server = fixture_server("books", records=150, seed=23)
    truth = server.truth()
    db = make_db("postgres")
    out = tmp_path / "out-crawl"
    crawl = _spawn(["crawl", server.url + "/", "--like", truth.detail_paths[0], "--db", db,
                    "--out", str(out)], tmp_path)  # fmt: skip
    procs = [crawl]
    engine = sa.create_engine(db)
    try:
        deadline = time.monotonic() + 120
        # the crawl's own engine worker registers first; the worker's come after
        while True:
            try:
                with engine.connect() as conn:
                    ids = conn.execute(sa.text("SELECT id FROM procrastinate_workers")).all()
            except sa.exc.ProgrammingError:
                ids = []
            if ids:
                break
            assert crawl.poll() is None, crawl.stderr.read().decode()[-2000:]  # type: ignore[union-attr]
            assert time.monotonic() < deadline, "the crawl's worker never registered"
            time.sleep(0.1)
        crawls = {int(row.id) for row in ids}
        procs.append(_spawn(["worker", "--db", db, "--concurrency", "3"], tmp_path))
        crawl.wait(timeout=180)
        assert crawl.returncode == 0, crawl.stderr.read().decode()[-2000:]  # type: ignore[union-attr]
        stored, pending = _stored(engine)
        with engine.connect() as conn:
            ran = conn.execute(
                sa.text(
                    "SELECT worker_id FROM procrastinate_jobs WHERE task_name = "
                    "'deepcrawl.fetch' AND status = 'succeeded'"
                )
            ).scalars()
            by_worker = Counter("crawl" if w in crawls else "worker" for w in ran)
    finally:
        engine.dispose()
        _reap(procs)

    delivered = [path_of(json.loads(line)["url"]) for line in _lines(out)]
    assert pending == 0
    twice_delivered = {path: n for path, n in Counter(delivered).items() if n > 1}
    assert not twice_delivered, twice_delivered
    assert set(delivered) == stored, "a stored record was not delivered, or one not stored was"
    assert json.loads((out / "stats.json").read_text())["pages_delivered"] == len(delivered)
    found = {truth.record_of(p) for p in delivered} & set(truth.detail_paths)
    assert len(found) >= 0.8 * len(truth.detail_paths)
    assert by_worker["worker"] > 0, by_worker  # the worker fetched its share
    # no page requested twice: each URL is one job's, fetched once
    fetched = Counter(e["path"] for e in server.stats()["log"] if e["path"] in stored)
    assert all(n == 1 for n in fetched.values()), {p: n for p, n in fetched.items() if n > 1}


def test_worker_refuses_sqlite(tmp_path: Path) -> None:
    done = run_deepcrawl(tmp_path, "worker", "--db", f"sqlite:///{tmp_path / 'x.db'}", timeout=60)
    assert done.returncode == 1
    assert "PostgreSQL" in done.stderr


def test_the_delivery_point_killed_and_run_again_delivers_each_record_once(
    fixture_server: Callable[..., FixtureServer],
    make_db: Callable[[str], str],
    tmp_path: Path,
) -> None:
    """SIGKILL the crawl process — the one delivery point — while it delivers beside a worker,
    then run it again with ``--resume`` on the same ``--out``: it takes the query loop over,
    and its output holds every stored record once. A record the kill caught written but not yet
    remembered is skipped by the JSON lines sink when it reopens its file; the rest were never
    delivered by anyone else."""
    server = fixture_server("books", records=200, seed=29)
    truth = server.truth()
    db = make_db("postgres")
    out = tmp_path / "out"
    crawl_cmd = [
        "crawl", server.url + "/", "--like", truth.detail_paths[0],
        "--db", db, "--out", str(out),
    ]  # fmt: skip

    def spawn(cmd: list[str]) -> subprocess.Popen[bytes]:
        return _spawn(cmd, tmp_path)

    procs = [spawn(crawl_cmd)]
    time.sleep(1.0)
    procs.append(spawn(["worker", "--db", db, "--concurrency", "3"]))
    engine = sa.create_engine(db)
    try:
        deadline = time.monotonic() + 120
        while len(_lines(out)) < KILLED_AFTER:
            assert procs[0].poll() is None, procs[0].stderr.read().decode()[-2000:]  # type: ignore[union-attr]
            assert time.monotonic() < deadline, "the crawl process never delivered"
            time.sleep(0.02)
        os.kill(procs[0].pid, signal.SIGKILL)
        procs[0].wait()
        at_kill = len(_lines(out))
        procs.append(spawn([*crawl_cmd, "--resume"]))
        procs[2].wait(timeout=150)  # the worker waits for more jobs: stopped by _reap
        assert procs[2].returncode == 0, procs[2].stderr.read().decode()[-2000:]  # type: ignore[union-attr]
        stored, pending = _stored(engine)
    finally:
        engine.dispose()
        _reap(procs)

    delivered = [path_of(json.loads(line)["url"]) for line in _lines(out)]
    assert pending == 0
    assert len(delivered) > at_kill, "the resumed crawl delivered nothing"
    twice_delivered = {path: n for path, n in Counter(delivered).items() if n > 1}
    assert not twice_delivered, twice_delivered
    assert set(delivered) == stored
    # counted from the deliveries remembered before the kill, plus this run's
    assert json.loads((out / "stats.json").read_text())["pages_delivered"] == len(delivered)
    found = {truth.record_of(p) for p in delivered} & set(truth.detail_paths)
    assert len(found) >= 0.8 * len(truth.detail_paths)
