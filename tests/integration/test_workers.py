"""Many processes, one crawl, on a real PostgreSQL server (issue 9).

``deepcrawl crawl … --db postgresql://…`` and three ``deepcrawl worker`` processes share one
crawl of the books fixture site; one worker is killed with SIGKILL mid-crawl. Afterwards every
stored record was delivered exactly once over all the processes' outputs, and no page was
requested twice — except those the killed worker had in flight (at most its concurrency), which
another process fetched again once their leases expired.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest
import sqlalchemy as sa

if TYPE_CHECKING:
    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
KILLED_CONCURRENCY = 2
#: Pages the first worker delivers before it is killed.
KILLED_AFTER = 3


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + ("?" + parts.query if parts.query else "")


def _lines(out: Path) -> list[str]:
    pages = out / "pages.jsonl"
    return pages.read_text().splitlines() if pages.exists() else []


def test_workers_share_a_crawl_and_survive_a_sigkill(
    fixture_server: Callable[..., FixtureServer],
    make_db: Callable[[str], str],
    tmp_path: Path,
) -> None:
    server = fixture_server("books", records=400, seed=23)
    server.reset_stats()
    truth = server.truth()
    db = make_db("postgres")
    env = {
        **os.environ,
        "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'fixtures'}",
        "DEEPCRAWL_STORAGE__BODIES_DIR": str(tmp_path / "bodies"),
        # one rate for the host, shared by the four processes (not multiplied by them)
        "DEEPCRAWL_POLITENESS__REQUESTS_PER_SECOND": "40",
        "DEEPCRAWL_POLITENESS__CONCURRENCY_PER_HOST": "4",
        # short, so the killed worker's URLs come back soon; long enough for a fetch at load 10
        "DEEPCRAWL_CRAWL__LEASE_S": "6",
        "DEEPCRAWL_CRAWL__HEARTBEAT_S": "1",
        "DEEPCRAWL_BROWSER__MEMORY_CHECK_EVERY": "0",
        # record pages over plain HTTP in every process (the form still runs in Chromium): in
        # auto mode the crawl fetches a few pages both ways on purpose, to choose
        "DEEPCRAWL_BROWSER__RENDER": "never",
    }
    deepcrawl = [sys.executable, "-m", "deepcrawl"]
    crawl_cmd = [
        *deepcrawl, "crawl", server.url + "/", "--like", truth.detail_paths[0],
        "--db", db, "--out", str(tmp_path / "out-crawl"),
    ]  # fmt: skip
    outs = [tmp_path / f"out-worker{i}" for i in range(3)]

    def spawn(cmd: list[str]) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            cmd, env=env, cwd=tmp_path,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip

    crawl = spawn(crawl_cmd)
    time.sleep(1.0)  # the crawl creates the site's row first (the workers wait for its labels)

    def worker(i: int) -> subprocess.Popen[bytes]:
        tasks = KILLED_CONCURRENCY if i == 0 else 3
        cmd = [*deepcrawl, "worker", "--db", db, "--out", str(outs[i]), "--concurrency", str(tasks)]
        return spawn(cmd)

    def wait_for(pages: int) -> None:
        # killed early in its work: the crawl process fetches too, and with the related-books
        # links most records are reached at once, so a late kill could find the work done
        deadline = time.monotonic() + 120
        while len(_lines(outs[0])) < pages:
            assert workers[0].poll() is None, workers[0].stderr.read().decode()[-2000:]  # type: ignore[union-attr]
            assert time.monotonic() < deadline, f"the first worker never delivered {pages} pages"
            time.sleep(0.05)

    # The worker to be killed starts alone beside the crawl, the others once it has work in
    # hand: started together on a loaded machine, the first could find the frontier drained.
    workers = [worker(0)]
    procs = [crawl, *workers]
    try:
        wait_for(1)
        workers += [worker(1), worker(2)]
        procs += workers[1:]
        wait_for(KILLED_AFTER)
        os.kill(workers[0].pid, signal.SIGKILL)
        killed_at = time.monotonic()
        workers[0].wait()
        for proc in procs[:1] + procs[2:]:
            proc.wait(timeout=150)
            assert proc.returncode == 0, proc.stderr.read().decode()[-2000:]  # type: ignore[union-attr]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            assert proc.stderr is not None
            proc.stderr.close()

    delivered = [
        path_of(json.loads(line)["url"])
        for out in [tmp_path / "out-crawl", *outs]
        for line in _lines(out)
    ]
    engine = sa.create_engine(db)
    try:
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
    finally:
        engine.dispose()
    assert pending == 0
    assert set(delivered) == stored, "a stored record was not delivered"
    # Delivery is write, then record: a record the killed worker had written but not yet
    # recorded is delivered again by the process that takes its lease (see
    # deepcrawl.crawler.worker). Nothing else is delivered twice.
    again = Counter(delivered) - Counter(set(delivered))
    killed_last = {
        path_of(json.loads(line)["url"]) for line in _lines(outs[0])[-KILLED_CONCURRENCY:]
    }
    assert set(again) <= killed_last, again
    assert len({truth.record_of(p) for p in delivered} & set(truth.detail_paths)) >= 0.8 * len(
        truth.detail_paths
    )
    survivors = sum(len(_lines(out)) for out in outs[1:])
    assert survivors > 0, "the surviving workers fetched nothing"

    fetched = Counter(e["path"] for e in server.stats()["log"] if e["path"] in stored)
    twice = {path: n for path, n in fetched.items() if n > 1}
    # only what the killed worker had in flight may be fetched again, once
    assert len(twice) <= KILLED_CONCURRENCY, twice
    assert all(n == 2 for n in twice.values()), twice

    time.sleep(max(0.0, killed_at + 3.5 - time.monotonic()))  # silent for 3 heartbeats: dead
    status = subprocess.run(
        [*deepcrawl, "status", "--db", db, "--json"],
        env=env, cwd=tmp_path, capture_output=True, timeout=60, check=True,
    )  # fmt: skip
    [site] = json.loads(status.stdout)
    assert site["frontier"]["queued"] == site["frontier"]["leased"] == 0
    assert site["delivered"] == len(delivered)
    roles = Counter((w["role"], w["state"], w["alive"]) for w in site["workers"])
    # the killed worker never said goodbye: still "running", but no longer alive
    assert roles == {("crawl", "done", False): 1, ("worker", "done", False): 2,
                     ("worker", "running", False): 1}  # fmt: skip


def test_worker_refuses_sqlite(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "deepcrawl", "worker", "--db", f"sqlite:///{tmp_path / 'x.db'}"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 1
    assert "PostgreSQL" in done.stderr
