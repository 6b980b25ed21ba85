"""A worker killed while it holds leases: its URLs come back as soon as it is judged dead — silent
for three heartbeats, the rule ``deepcrawl status`` shows — not when the leases expire (issue 25,
item 3).

``deepcrawl crawl`` and one ``deepcrawl worker`` share a crawl of the books fixture site on a real
PostgreSQL server, with the default lease (``crawl.worker_lease_s``, 900 s) and a one-second
heartbeat. The worker is frozen at a moment it holds leases, and killed with SIGKILL: the crawl
still ends within a minute, having fetched the killed worker's URLs itself, and its output holds
every stored record exactly once.
"""

from __future__ import annotations

import json
import os
import signal
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

#: Every process's settings, on top of :func:`run_cli.cli_env`'s; ``crawl.worker_lease_s`` keeps its
#: default, so only the judgement of death can bring the killed worker's URLs back in time. The
#: rate leaves the worker, started a second after the crawl, time to store pages of its own:
#: the crawl must not be over first (at 40 a second it once was on a loaded machine, and at 20
#: once the crawl's store of a page got three times cheaper).
SETTINGS = {
    "DEEPCRAWL_POLITENESS__REQUESTS_PER_SECOND": "10",
    "DEEPCRAWL_POLITENESS__CONCURRENCY_PER_HOST": "4",
    "DEEPCRAWL_CRAWL__HEARTBEAT_S": "1",
    "DEEPCRAWL_CRAWL__DELIVER_POLL_S": "0.2",
    "DEEPCRAWL_BROWSER__RENDER": "never",
}
#: The crawl process's own: two fetch tasks under a cap of two live leases, so that the
#: worker's (its cap four) always finds seats. With the cap of four for both, the crawl's four
#: tasks held every seat whenever URLs were ready — each leases again as it settles — and the
#: worker got a lease only by chance: the crawl was often over first.
CRAWL_SETTINGS = {**SETTINGS, "DEEPCRAWL_POLITENESS__CONCURRENCY_PER_HOST": "2"}
#: How long the crawl may take to end once the worker is killed.
WITHIN_S = 60.0


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + ("?" + parts.query if parts.query else "")


def _scalar(engine: sa.Engine, sql: str, **params: object) -> int:
    try:
        with engine.connect() as conn:
            return int(conn.execute(sa.text(sql), params).scalar() or 0)
    except sa.exc.ProgrammingError:  # the crawl process has not created the tables yet
        return 0


def _held(engine: sa.Engine, pid: int) -> list[str]:
    """The URLs the process ``pid`` holds leases on."""
    with engine.connect() as conn:
        return list(
            conn.execute(
                sa.text(
                    "SELECT f.url FROM frontier f JOIN crawl_worker w ON f.holder = w.id "
                    "WHERE w.name LIKE :name AND f.state = 'leased'"
                ),
                {"name": f"%:{pid}"},
            ).scalars()
        )


def test_a_killed_workers_leases_come_back_once_it_is_judged_dead(
    fixture_server: Callable[..., FixtureServer],
    make_db: Callable[[str], str],
    tmp_path: Path,
) -> None:
    server = fixture_server("books", records=150, seed=31)
    truth = server.truth()
    db = make_db("postgres")
    out = tmp_path / "out"

    def spawn(*args: str, settings: dict[str, str] = SETTINGS) -> subprocess.Popen[bytes]:
        return spawn_deepcrawl([*args], env=cli_env(tmp_path, **settings), cwd=tmp_path,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip

    crawl = spawn("crawl", server.url + "/", "--like", truth.detail_paths[0], "--db", db,
                  "--out", str(out), settings=CRAWL_SETTINGS)  # fmt: skip
    time.sleep(1.0)  # the crawl creates the site's row first (the worker waits for its labels)
    worker = spawn("worker", "--db", db, "--concurrency", "2")
    engine = sa.create_engine(db)
    try:
        deadline = time.monotonic() + 180
        stored_by_worker = "SELECT pages FROM crawl_worker WHERE name LIKE :name"
        while _scalar(engine, stored_by_worker, name=f"%:{worker.pid}") < 2:
            assert worker.poll() is None, "the worker ended early"
            assert crawl.poll() is None, "the crawl ended early"
            assert time.monotonic() < deadline, "the worker never stored 2 pages"
            time.sleep(0.05)
        # frozen where it holds a lease (between two, let it run on a moment), then killed
        held: list[str] = []
        for _ in range(200):
            os.kill(worker.pid, signal.SIGSTOP)
            if held := _held(engine, worker.pid):
                break
            os.kill(worker.pid, signal.SIGCONT)
            time.sleep(0.02)
        assert held, "the worker was never caught holding a lease"
        os.kill(worker.pid, signal.SIGKILL)
        killed_at = time.monotonic()
        worker.wait()
        crawl.wait(timeout=WITHIN_S + 30)
        ended_s = time.monotonic() - killed_at
        assert crawl.stderr is not None
        assert crawl.returncode == 0, crawl.stderr.read().decode()[-3000:]
        records = "SELECT url FROM page WHERE kind = 'record' AND error IS NULL"
        with engine.connect() as conn:
            stored = {_path(url) for (url,) in conn.execute(sa.text(records))}
        pending = _scalar(engine, "SELECT count(*) FROM frontier WHERE state <> 'done'"
                          " AND state <> 'failed'")  # fmt: skip
    finally:
        engine.dispose()
        for proc in (crawl, worker):
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            assert proc.stderr is not None
            proc.stderr.close()

    print(f"the crawl ended {ended_s:.1f} s after the worker was killed holding {held}")
    assert ended_s < WITHIN_S
    assert pending == 0
    lines = (out / "pages.jsonl").read_text().splitlines()
    delivered = [_path(json.loads(line)["url"]) for line in lines]
    twice = {path: n for path, n in Counter(delivered).items() if n > 1}
    assert not twice, twice
    assert set(delivered) == stored
    assert {_path(url) for url in held} <= stored, "a URL the killed worker held was lost"
    assert len({truth.record_of(p) for p in delivered}) >= 0.8 * len(truth.detail_paths)
