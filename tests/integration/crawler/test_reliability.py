"""A crawl under a failing consumer, under signals, and beside a second process (issue 15).

Every crawl here is the real thing — ``python -m deepcrawl crawl`` in a subprocess (or
``crawl_each`` in this one), Chromium, a SQLite file, a fixture site — and ends within seconds
of what stops it: a pipe reader that has read enough, a full disk, a raising callback, a
signal, or another process crawling the same site.
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
import socket
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

from deepcrawl.crawler import crawl_each
from deepcrawl.settings import load_settings
from tests.integration.run_cli import DEEPCRAWL, cli_env, run_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Callable

    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser

#: What a clean end never leaves on stderr.
NOISE = ("Traceback", "never retrieved", "Exception ignored", "Connection closed")


def _crawl_args(server: FixtureServer, db: Path, *args: str) -> list[str]:
    like = server.truth().detail_paths[0]
    return ["crawl", server.url + "/", "--like", like, "--db", f"sqlite:///{db}", *args]


def _query(db: Path, sql: str) -> list[tuple[Any, ...]]:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return list(conn.execute(sql).fetchall())
    except sqlite3.OperationalError:  # not created yet
        return []


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + ("?" + parts.query if parts.query else "")


def _assert_quiet(stderr: str) -> None:
    for noise in NOISE:
        assert noise not in stderr, stderr[-3000:]


def test_a_pipe_reader_that_had_enough_ends_the_crawl_and_resume_delivers_the_rest(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("books", records=40, seed=23)
    truth = server.truth()
    db, out = tmp_path / "crawl.db", tmp_path / "out"
    crawl = subprocess.Popen(
        [*DEEPCRAWL, *_crawl_args(server, db, "--out", "-")], env=cli_env(tmp_path),
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    head = subprocess.run(["head", "-2"], stdin=crawl.stdout, capture_output=True, timeout=240)
    assert crawl.stdout is not None
    crawl.stdout.close()  # head's end of the pipe is the only one left: it has closed
    closed = time.monotonic()
    try:
        _, err = crawl.communicate(timeout=60)
    finally:
        crawl.kill()
    ended_s = time.monotonic() - closed
    stderr = err.decode()
    assert crawl.returncode == 0, stderr[-3000:]
    assert ended_s < 60
    print(f"the crawl ended {ended_s:.1f} s after head closed the pipe")
    first = [json.loads(line)["url"] for line in head.stdout.decode().splitlines()]
    assert len(first) == 2
    written = int(stderr.split("the output pipe closed after ")[1].split()[0])
    assert "--resume" in stderr
    _assert_quiet(stderr)
    # nothing is remembered as delivered that was not written, and no URL stays leased
    assert _query(db, "SELECT count(*) FROM delivery") == [(written,)]
    assert _query(db, "SELECT count(*) FROM frontier WHERE state = 'leased'") == [(0,)]

    resumed = run_deepcrawl(tmp_path, *_crawl_args(server, db, "--out", str(out)), "--resume")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    rest = [json.loads(line)["url"] for line in (out / "pages.jsonl").read_text().splitlines()]
    assert len(rest) == len(set(rest)), "a page was delivered twice"
    assert not set(rest) & set(first), "a page the pipe got was delivered again"
    stored = {url for (url,) in _query(db, "SELECT url FROM page WHERE error IS NULL "
                                           "AND kind = 'record'")}  # fmt: skip
    delivered_first = stored - set(rest)
    assert set(first) <= delivered_first
    assert len(delivered_first) == written  # every other stored record came in the file
    assert {truth.page_kind(_path(u)) for u in stored} == {"detail"}
    assert len({truth.record_of(_path(u)) for u in stored}) >= 0.8 * len(truth.detail_paths)


def test_output_to_a_full_device_is_one_error_line(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("books", records=40, seed=23)
    db = tmp_path / "crawl.db"
    with Path("/dev/full").open("w") as full:
        done = subprocess.run(
            [*DEEPCRAWL, *_crawl_args(server, db, "--out", "-")], env=cli_env(tmp_path),
            cwd=tmp_path, stdout=full, stderr=subprocess.PIPE, text=True, timeout=240, check=False,
        )  # fmt: skip
    assert done.returncode == 1, done.stderr[-3000:]
    errors = [line for line in done.stderr.splitlines() if line.startswith("error")]
    assert len(errors) == 1, done.stderr[-3000:]
    assert errors[0].startswith("error: cannot write to standard output after 0 pages")
    assert "No space left on device" in errors[0]
    assert "--resume" in errors[0]
    _assert_quiet(done.stderr)
    assert _query(db, "SELECT count(*) FROM delivery") == [(0,)]
    assert _query(db, "SELECT count(*) FROM frontier WHERE state = 'leased'") == [(0,)]


class CallbackFailed(Exception):
    """The extractor's own error."""


async def test_a_raising_callback_surfaces_from_crawl_each_as_itself(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("books", records=40, seed=23)
    settings = load_settings(
        storage={"url": f"sqlite:///{tmp_path / 'crawl.db'}", "bodies_dir": tmp_path / "bodies"},
        politeness={"requests_per_second": 0.0, "concurrency_per_host": 4},
        browser={"memory_check_every": 0},
    )
    seen: list[str] = []

    def extract(record: dict[str, Any]) -> None:
        if len(seen) == 2:
            raise CallbackFailed(f"cannot parse {record['url']}")
        seen.append(record["url"])

    started = time.monotonic()
    with pytest.raises(CallbackFailed, match="cannot parse"):
        await asyncio.wait_for(
            crawl_each(server.url + "/", extract, like=[server.truth().detail_paths[0]],
                       settings=settings),
            timeout=120,
        )  # fmt: skip
    print(f"the callback's error surfaced after {time.monotonic() - started:.1f} s")
    db = tmp_path / "crawl.db"
    assert _query(db, "SELECT count(*) FROM delivery") == [(2,)]
    assert _query(db, "SELECT count(*) FROM frontier WHERE state = 'leased'") == [(0,)]
    assert _query(db, "SELECT state FROM crawl_worker") == [("stopped",)]


#: SIGINT trials: half at a random moment, half once the crawl runs (the test runs alone: each
#: trial is seconds in which the other worker waits).
TRIALS = 12


@pytest.mark.alone  # its 5 s budget is the product's, not a second test's beside it
def test_sigint_at_random_moments_stops_the_crawl_within_5_s_every_time(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    # One store for every trial, run again after each stop as a user would. Even trials signal
    # at a random moment after the start (on a busy machine, often while the command loads);
    # odd ones once the crawl runs (browser, setup phase, normal phase of a resumed crawl).
    # A site too large for twelve short runs to finish: every trial's signal finds it crawling.
    server = fixture_server("books", records=5000)
    db = tmp_path / "crawl.db"
    command = [*DEEPCRAWL, *_crawl_args(server, db, "--out", str(tmp_path / "out"))]
    env = cli_env(tmp_path, DEEPCRAWL_CRAWL__PROGRESS_EVERY_S="0")
    rng = random.Random(15)
    stops: list[float] = []
    crawling = 0
    for trial in range(TRIALS):
        delay = rng.uniform(0.5, 6.0)
        proc = subprocess.Popen(command, env=env, cwd=tmp_path,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
        assert proc.stderr is not None
        early: list[bytes] = []
        if trial % 2:  # from the crawl's first progress line on
            early.append(proc.stderr.readline())
            assert early[0], f"trial {trial}: the crawl ended before it started"
        time.sleep(delay)
        assert proc.poll() is None, f"trial {trial}: the crawl ended before the signal"
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        try:
            _, err = proc.communicate(timeout=30)
        finally:
            proc.kill()
        stops.append(time.monotonic() - sent)
        stderr = b"".join([*early, err]).decode()
        assert proc.returncode == 130, f"trial {trial} at {delay:.1f} s: {stderr[-2000:]}"
        assert "interrupted" in stderr
        crawling += "everything so far is stored" in stderr
        _assert_quiet(stderr)
        assert stops[-1] < 5.0, f"trial {trial}: SIGINT at {delay:.1f} s took {stops[-1]:.1f} s"
        assert _query(db, "SELECT count(*) FROM frontier WHERE state = 'leased'") in ([(0,)], [])
    assert crawling >= TRIALS // 2
    print(f"{TRIALS} of {TRIALS} stopped ({crawling} while crawling); slowest {max(stops):.2f} s, "
          f"mean {sum(stops) / len(stops):.2f} s")  # fmt: skip


def test_a_second_crawl_process_is_refused_and_takes_over_after_the_first_is_killed(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("books")
    db = tmp_path / "crawl.db"
    args = _crawl_args(server, db)
    command = [*DEEPCRAWL, *args]
    first = subprocess.Popen(command, env=cli_env(tmp_path), cwd=tmp_path,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not _query(db, "SELECT 1 FROM crawl_worker WHERE state = 'running'"):
            assert first.poll() is None, "the first crawl ended"
            assert time.monotonic() < deadline, "the first crawl never started"
            time.sleep(0.1)
        second = run_deepcrawl(tmp_path, *args, timeout=120)
        assert second.returncode == 1, second.stderr[-2000:]
        lines = second.stderr.strip().splitlines()
        assert len(lines) == 1, second.stderr
        assert lines[0].startswith("error: another process (")
        assert f":{first.pid}," in lines[0]
        assert first.poll() is None  # the first runs on
    finally:
        first.kill()
        first.wait()

    # killed: its claim is stale, and the next crawl takes it over
    third = subprocess.Popen(command, env=cli_env(tmp_path), cwd=tmp_path,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        mine = f"%:{third.pid}"
        while not _query(db, f"SELECT 1 FROM crawl_worker WHERE state = 'running' "
                             f"AND name LIKE '{mine}'"):  # fmt: skip
            assert third.poll() is None, third.communicate()[1].decode()[-2000:]
            assert time.monotonic() < deadline, "the crawl after the kill never started"
            time.sleep(0.1)
        third.send_signal(signal.SIGTERM)
        _, err = third.communicate(timeout=30)
        assert third.returncode == 128 + signal.SIGTERM, err.decode()[-2000:]
    finally:
        third.kill()
    states = dict(_query(db, "SELECT name, state FROM crawl_worker"))
    assert states[f"{socket.gethostname()}:{third.pid}"] == "stopped"
