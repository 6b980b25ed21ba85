"""Kill ``deepcrawl crawl`` with SIGKILL at several points; ``--resume`` finishes the job.

After the last run every record is in ``pages.jsonl`` exactly once, and no page stored before
a kill was requested from the server again.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest

from tests.integration.run_cli import cli_env, run_deepcrawl, spawn_deepcrawl

if TYPE_CHECKING:
    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + ("?" + parts.query if parts.query else "")


def _count(db: Path, sql: str) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return int(conn.execute(sql).fetchone()[0])
    except sqlite3.OperationalError:  # tables not created yet
        return 0


def _stored_records(db: Path) -> set[str]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
        rows = conn.execute("SELECT url FROM page WHERE kind = 'record' AND error IS NULL")
        return {path_of(url) for (url,) in rows}


def _lines(out: Path) -> int:
    pages = out / "pages.jsonl"
    return pages.read_bytes().count(b"\n") if pages.exists() else 0


def test_sigkill_then_resume_delivers_every_record_once_and_refetches_nothing(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("books", records=60, seed=13)
    server.reset_stats()
    truth = server.truth()
    db, out = tmp_path / "crawl.db", tmp_path / "out"
    args = [
        "crawl", server.url + "/",
        "--like", truth.detail_paths[0], "--db", f"sqlite:///{db}", "--out", str(out),
    ]  # fmt: skip
    rate = {"DEEPCRAWL_POLITENESS__REQUESTS_PER_SECOND": "15"}
    kill_points: list[tuple[str, Callable[[], bool]]] = [
        ("setup", lambda: _count(db, "SELECT count(*) FROM query") >= 2),
        ("early", lambda: _lines(out) >= 5),
        ("late", lambda: _lines(out) >= 30),
    ]
    stored_before: set[str] = set()
    for name, ready in kill_points:
        mark = len(server.stats()["log"])
        proc = spawn_deepcrawl(
            [*args, *(["--resume"] if stored_before or name != "setup" else [])],
            env=cli_env(tmp_path, **rate), cwd=tmp_path,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        deadline = time.monotonic() + 120
        while not ready():
            assert proc.poll() is None, f"crawl ended before the {name} kill point"
            assert time.monotonic() < deadline, f"the {name} kill point never came"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert proc.stderr is not None
        proc.stderr.close()
        _assert_not_refetched(server, mark, stored_before)
        stored_before = _stored_records(db)

    mark = len(server.stats()["log"])
    done = run_deepcrawl(tmp_path, *args, "--resume", env=rate, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    _assert_not_refetched(server, mark, stored_before)

    delivered = [json.loads(line) for line in (out / "pages.jsonl").read_text().splitlines()]
    urls = [path_of(r["url"]) for r in delivered]
    assert len(urls) == len(set(urls)), "a page was delivered twice"
    assert set(urls) == _stored_records(db), "a stored record was not delivered"
    reached = {truth.record_of(u) for u in urls} & set(truth.detail_paths)
    assert len(reached) == len(urls)
    assert len(reached) >= 0.8 * len(truth.detail_paths)  # recall: see test_crawl_sites
    stats = json.loads((out / "stats.json").read_text())
    assert stats["status"] == "done"
    assert stats["pages_delivered"] == len(urls)


def _assert_not_refetched(server: FixtureServer, mark: int, stored: set[str]) -> None:
    """No request since ``mark`` asked for a page stored before it."""
    again = [e["path"] for e in server.stats()["log"][mark:] if e["path"] in stored]
    assert not again, f"fetched again after resume: {again[:5]}"
