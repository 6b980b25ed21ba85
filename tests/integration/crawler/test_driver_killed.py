"""The Playwright driver killed mid-crawl: the crawl starts a new one and loses nothing (issue 47).

The real thing, as in ``test_reliability.py``: ``deepcrawl crawl`` in a subprocess, Chromium
rendering every record page (``browser.render = always``), a SQLite file and a fixture site. The
drivers (Playwright's Node.js processes, each in a session of its own:
:mod:`deepcrawl.browser.chromium`) are found in the crawl's process tree and SIGKILLed, every
one (one a browser pool), once records are being rendered. The crawl runs in a new interpreter,
not a fork of the test's (:mod:`tests.integration.forked`): the fork's exit frees no future, so
an unread one would never be reported there.
"""

from __future__ import annotations

import json
import subprocess
import time
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import psutil
import pytest

from tests.integration.crawler.crawl_process import assert_quiet, crawl_args, query
from tests.integration.run_cli import cli_env, spawn_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser

#: Record pages stored before the driver is killed: the normal phase is rendering records.
KILL_AFTER = 3


def _drivers(pid: int) -> list[psutil.Process]:
    """The Playwright drivers (``node … run-driver``) among the descendants of ``pid``."""
    found = []
    for proc in psutil.Process(pid).children(recursive=True):
        try:
            if "run-driver" in proc.cmdline():
                found.append(proc)
        except psutil.Error:
            continue  # gone meanwhile
    return found


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + ("?" + parts.query if parts.query else "")


def test_a_killed_driver_is_restarted_and_every_record_is_delivered_once(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("books", records=40, seed=29)
    truth = server.truth()
    db, out = tmp_path / "crawl.db", tmp_path / "out"
    env = cli_env(tmp_path, DEEPCRAWL_BROWSER__RENDER="always")
    args = ["-v", *crawl_args(server, db, "--out", str(out))]  # -v: what the pools did
    crawl = spawn_deepcrawl(args, fork=False, env=env, cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    try:
        deadline = time.monotonic() + 180
        while query(db, "SELECT count(*) FROM page WHERE kind = 'record'") < [(KILL_AFTER,)]:
            assert crawl.poll() is None, crawl.communicate()[1].decode()[-3000:]
            assert time.monotonic() < deadline, "no record was rendered"
            time.sleep(0.05)
        drivers = _drivers(crawl.pid)  # one a browser pool: the search's, the fetchers'
        assert drivers, "no driver in the crawl's process tree"
        for driver in drivers:
            driver.kill()
        _, err = crawl.communicate(timeout=240)
    finally:
        crawl.kill()
    stderr = err.decode()
    assert crawl.returncode == 0, stderr[-3000:]
    assert_quiet(stderr)
    assert "restarting the browser: its driver died" in stderr

    delivered = [json.loads(line)["url"] for line in (out / "pages.jsonl").read_text().splitlines()]
    assert len(delivered) == len(set(delivered)), "a record was delivered twice"
    records = query(db, "SELECT url, error FROM page WHERE kind = 'record'")
    assert [(url, error) for url, error in records if error] == [], "a record was lost"
    assert set(delivered) == {url for url, _ in records}
    assert {truth.page_kind(_path(u)) for u in delivered} == {"detail"}
    assert len({truth.record_of(_path(u)) for u in delivered}) == len(truth.detail_paths)
