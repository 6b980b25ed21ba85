"""A harvest on a real PostgreSQL server with real worker processes, one of them killed.

``deepcrawl harvest SITES --db postgresql://… --workers 0`` coordinates and delivers; two
``deepcrawl worker`` processes run the jobs. The first worker is killed with SIGKILL at a moment
it runs a site's query loop *and* a batch of fetches. procrastinate's workers beat every
``crawl.heartbeat_s``; the harvest's stalled-job sweep runs the dead worker's jobs again in the
other, which must take them up within 60 s. Afterwards: every site's records in its
``pages.jsonl``, each once and each a stored one, a site that cannot be reached recorded
``failed`` with its reason, and the frontier settled.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from collections import Counter
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest
import sqlalchemy as sa

from tests.integration.run_cli import cli_env, spawn_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from deepcrawl_fixtures import FixtureServer

pytestmark = [pytest.mark.browser, pytest.mark.postgres]

#: Every process's settings on top of :func:`cli_env`'s: a rate that leaves the kill time to
#: land mid-harvest, beats every 2 s (a worker silent for 6 s is dead).
SETTINGS = {
    "DEEPCRAWL_POLITENESS__REQUESTS_PER_SECOND": "25",
    "DEEPCRAWL_POLITENESS__CONCURRENCY_PER_HOST": "2",
    "DEEPCRAWL_CRAWL__HEARTBEAT_S": "2",
    "DEEPCRAWL_CRAWL__DELIVER_POLL_S": "0.2",
    "DEEPCRAWL_BROWSER__RENDER": "never",
}
#: How soon another worker must take up the killed worker's jobs.
WITHIN_S = 60.0


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + ("?" + parts.query if parts.query else "")


def _rows(engine: sa.Engine, sql: str) -> list[sa.Row[tuple[object, ...]]]:
    try:
        with engine.connect() as conn:
            return list(conn.execute(sa.text(sql)))
    except sa.exc.ProgrammingError:  # the job queue's tables are not made yet
        return []


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_a_harvest_survives_the_sigkill_of_a_worker_running_a_query_loop_and_fetches(
    fixture_server: Callable[..., FixtureServer],
    make_db: Callable[[str], str],
    tmp_path: Path,
) -> None:
    servers = [
        fixture_server("books", records=40, seed=51),
        fixture_server("shop", records=30, seed=52),
        fixture_server("news", records=30, seed=53),
    ]
    for server in servers:
        server.reset_stats()
    dead = f"http://127.0.0.1:{_free_port()}/"
    sites = tmp_path / "sites.txt"
    sites.write_text("".join(f"{s.url}/\n" for s in servers) + dead + "\n")
    db = make_db("postgres")
    out = tmp_path / "out"
    env = cli_env(tmp_path, **SETTINGS)

    def spawn(*args: str) -> subprocess.Popen[bytes]:
        return spawn_deepcrawl(list(args), env=env, cwd=tmp_path, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)  # fmt: skip

    engine = sa.create_engine(db)
    harvest = spawn("harvest", str(sites), "--db", db, "--out", str(out), "--workers", "0")
    procs = [harvest]
    try:
        first = spawn("worker", "--db", db, "--sites", "2", "--concurrency", "3")
        procs.append(first)
        # the first worker's two engine workers register first: their ids are its own
        deadline = time.monotonic() + 120
        while len(ids := _rows(engine, "SELECT id FROM procrastinate_workers ORDER BY id")) < 2:
            assert first.poll() is None, "the first worker ended early"
            assert harvest.poll() is None, "the harvest ended early"
            assert time.monotonic() < deadline, "the first worker never registered"
            time.sleep(0.1)
        mine = {int(row.id) for row in ids[:2]}
        # room for every site's query loop: the killed one's is taken up at once
        second = spawn("worker", "--db", db, "--sites", "4", "--concurrency", "3")
        procs.append(second)
        # killed while it runs a site's query loop and a fetch job (frozen to look)
        doing = (
            "SELECT id, task_name, worker_id FROM procrastinate_jobs WHERE status = 'doing'"
            " AND task_name IN ('deepcrawl.site', 'deepcrawl.fetch')"
        )
        held: list[sa.Row[tuple[object, ...]]] = []
        while time.monotonic() < deadline + 60:
            os.kill(first.pid, signal.SIGSTOP)
            held = [r for r in _rows(engine, doing) if r.worker_id in mine]
            if {r.task_name for r in held} == {"deepcrawl.site", "deepcrawl.fetch"}:
                break
            os.kill(first.pid, signal.SIGCONT)
            time.sleep(0.05)
        assert {r.task_name for r in held} == {"deepcrawl.site", "deepcrawl.fetch"}, held
        os.kill(first.pid, signal.SIGKILL)
        killed_at = time.monotonic()
        first.wait()
        killed = {int(r.id) for r in held}
        # taken up by the other worker: running or done there, within a minute
        taken_up_s = None
        while time.monotonic() - killed_at < WITHIN_S + 30:
            rows = _rows(engine, "SELECT id, status, worker_id FROM procrastinate_jobs")
            now = {int(r.id): r for r in rows if int(r.id) in killed}
            if all(r.status == "succeeded" or (r.status == "doing" and r.worker_id not in mine)
                   for r in now.values()):  # fmt: skip
                taken_up_s = time.monotonic() - killed_at
                break
            time.sleep(0.2)
        harvest.wait(timeout=240)
        assert harvest.stderr is not None
        assert harvest.returncode == 0, harvest.stderr.read().decode()[-3000:]
        stored = {
            int(site): {_path(url) for url in urls}
            for site, urls in _group(
                _rows(
                    engine, "SELECT site_id, url FROM page WHERE kind = 'record' AND error IS NULL"
                )
            ).items()
        }
        pending = _rows(engine, "SELECT count(*) AS n FROM frontier WHERE state IN "
                        "('queued', 'leased')")[0].n  # fmt: skip
    finally:
        engine.dispose()
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

    print(f"the killed worker's jobs {sorted(killed)} were taken up after {taken_up_s} s")
    assert taken_up_s is not None
    assert taken_up_s < WITHIN_S
    assert pending == 0
    report = json.loads((out / "harvest.json").read_text())
    by_url = {site["url"]: site for site in report["sites"]}
    assert by_url[dead]["state"] == "failed"
    assert "cannot reach" in by_url[dead]["reason"]
    for number, server in enumerate(servers, 1):
        site = by_url[server.url + "/"]
        assert site["state"] == "done", site
        delivered = [
            _path(json.loads(line)["url"])
            for line in (out / site["name"] / "pages.jsonl").read_text().splitlines()
        ]
        twice = {p: n for p, n in Counter(delivered).items() if n > 1}
        assert not twice, twice
        assert set(delivered) == stored[number], "a stored record was not delivered"
        truth = server.truth()
        found = {truth.record_of(p) for p in delivered} & set(truth.detail_paths)
        assert len(found) >= 0.8 * len(truth.detail_paths), (site["name"], len(found))


def _group(rows: list[sa.Row[tuple[object, ...]]]) -> dict[object, list[str]]:
    found: dict[object, list[str]] = {}
    for site_id, url in rows:
        found.setdefault(site_id, []).append(str(url))
    return found
