"""A crawl under a failing consumer, under signals, and beside a second process (issue 15).

Every crawl here is the real thing — ``python -m deepcrawl crawl`` in a subprocess (or
``crawl_each`` in this one), Chromium, a SQLite file, a fixture site — and ends within seconds
of what stops it: a pipe reader that has read enough, a full disk, a raising callback, a
signal, or another process crawling the same site. The SIGINT trials are in
``test_sigint.py``: they run alone, and a file of their own lets them wait for no other test.
"""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

from deepcrawl.crawler import crawl_each
from deepcrawl.settings import load_settings
from tests.integration.crawler.crawl_process import assert_quiet, crawl_args, query
from tests.integration.run_cli import cli_env, run_deepcrawl, run_deepcrawl_process, spawn_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Callable

    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + ("?" + parts.query if parts.query else "")


def test_a_pipe_reader_that_had_enough_ends_the_crawl_and_resume_delivers_the_rest(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("books", records=40, seed=23)
    truth = server.truth()
    db, out = tmp_path / "crawl.db", tmp_path / "out"
    crawl = spawn_deepcrawl(
        [*crawl_args(server, db, "--out", "-")], env=cli_env(tmp_path),
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
    assert_quiet(stderr)
    # nothing is remembered as delivered that was not written, and no URL stays leased
    assert query(db, "SELECT count(*) FROM delivery") == [(written,)]
    assert query(db, "SELECT count(*) FROM frontier WHERE state = 'leased'") == [(0,)]

    resumed = run_deepcrawl(tmp_path, *crawl_args(server, db, "--out", str(out)), "--resume")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    rest = [json.loads(line)["url"] for line in (out / "pages.jsonl").read_text().splitlines()]
    assert len(rest) == len(set(rest)), "a page was delivered twice"
    assert not set(rest) & set(first), "a page the pipe got was delivered again"
    stored = {url for (url,) in query(db, "SELECT url FROM page WHERE error IS NULL "
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
        done = run_deepcrawl_process(
            [*crawl_args(server, db, "--out", "-")], env=cli_env(tmp_path),
            cwd=tmp_path, stdout=full, stderr=subprocess.PIPE, text=True, timeout=240, check=False,
        )  # fmt: skip
    assert done.returncode == 1, done.stderr[-3000:]
    errors = [line for line in done.stderr.splitlines() if line.startswith("error")]
    assert len(errors) == 1, done.stderr[-3000:]
    assert errors[0].startswith("error: cannot write to standard output after 0 pages")
    assert "No space left on device" in errors[0]
    assert "--resume" in errors[0]
    assert_quiet(done.stderr)
    assert query(db, "SELECT count(*) FROM delivery") == [(0,)]
    assert query(db, "SELECT count(*) FROM frontier WHERE state = 'leased'") == [(0,)]


class CallbackFailed(Exception):
    """The extractor's own error."""


async def test_a_raising_callback_surfaces_from_crawl_each_as_itself(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("books", records=40, seed=23)
    settings = load_settings(
        storage={"url": f"sqlite:///{tmp_path / 'crawl.db'}", "bodies_dir": tmp_path / "bodies"},
        politeness={"requests_per_second": 0.0, "concurrency_per_host": 4},
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
    assert query(db, "SELECT count(*) FROM delivery") == [(2,)]
    assert query(db, "SELECT count(*) FROM frontier WHERE state = 'leased'") == [(0,)]
    assert query(db, "SELECT state FROM crawl_worker") == [("stopped",)]


def test_a_second_crawl_process_is_refused_and_takes_over_after_the_first_is_killed(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("books")
    db = tmp_path / "crawl.db"
    args = crawl_args(server, db)
    command = list(args)
    first = spawn_deepcrawl(command, env=cli_env(tmp_path), cwd=tmp_path,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not query(db, "SELECT 1 FROM crawl_worker WHERE state = 'running'"):
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
    third = spawn_deepcrawl(command, env=cli_env(tmp_path), cwd=tmp_path,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        mine = f"%:{third.pid}"
        while not query(db, f"SELECT 1 FROM crawl_worker WHERE state = 'running' "
                             f"AND name LIKE '{mine}'"):  # fmt: skip
            assert third.poll() is None, third.communicate()[1].decode()[-2000:]
            assert time.monotonic() < deadline, "the crawl after the kill never started"
            time.sleep(0.1)
        third.send_signal(signal.SIGTERM)
        _, err = third.communicate(timeout=30)
        assert third.returncode == 128 + signal.SIGTERM, err.decode()[-2000:]
    finally:
        third.kill()
    states = dict(query(db, "SELECT name, state FROM crawl_worker"))
    assert states[f"{socket.gethostname()}:{third.pid}"] == "stopped"
