"""``deepcrawl crawl START_URL`` with no example (issue 28): the crawl picks the records' kind.

Off a terminal it picks and says so in one stderr line and in ``stats.json``; at a terminal (a
pseudo-terminal here) it proposes the pick and takes the person's answer.
"""

from __future__ import annotations

import json
import os
import select
import sqlite3
import subprocess
import sys
import time
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest

from deepcrawl.crawler.setup import SETUP_RESULT_PAGES
from tests.integration.run_cli import cli_env, run_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser


def _delivered(out: Path) -> list[str]:
    return [json.loads(line)["url"] for line in (out / "pages.jsonl").read_text().splitlines()]


def test_off_a_terminal_the_crawl_picks_the_records_and_delivers_only_them(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("books", records=40, seed=19)
    truth = server.truth()
    out = tmp_path / "out"
    done = run_deepcrawl(tmp_path, "crawl", server.url + "/", "--db", "sqlite:///c.db",
                         "--out", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stderr.splitlines() if x.startswith("records picked"))
    assert "records picked with no example: /book/‹number› — " in line
    assert "of the result entries, layout agreement 0." in line
    picked = json.loads((out / "stats.json").read_text())["picked"]
    assert picked["kind"] == "/book/‹number›"
    assert picked["tie"] is False
    assert 0 < picked["confidence"] <= 1
    assert picked["like"].startswith(server.url + "/book/")
    urls = _delivered(out)
    assert {truth.page_kind(url) for url in urls} == {"detail"}  # only records
    wanted = {server.url + path for path in truth.detail_paths}
    assert len(wanted & set(urls)) >= 0.95 * len(wanted)  # as a --like crawl of it reaches


def test_at_a_terminal_the_pick_is_proposed_and_enter_accepts_it(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("books", records=40, seed=19)
    truth = server.truth()
    out = tmp_path / "out"
    primary, secondary = os.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "deepcrawl", "crawl", server.url + "/", "--db", "sqlite:///c.db",
         "--out", str(out), "--max-pages", "5"],
        env={**cli_env(tmp_path), "COLUMNS": "200", "TERM": "xterm"},
        cwd=tmp_path,
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        close_fds=True,
    )  # fmt: skip
    os.close(secondary)
    shown = _read_until(primary, b"[y] crawl these", process)
    assert b"/book/" in shown  # the kind and its evidence come first
    os.write(primary, b"\n")
    shown += _read_until(primary, None, process)
    assert process.wait(timeout=240) == 0, shown.decode(errors="replace")
    os.close(primary)
    picked = json.loads((out / "stats.json").read_text())["picked"]
    assert picked["kind"] == "/book/‹number›"
    assert picked["accepted"] is True
    urls = _delivered(out)
    assert urls
    assert {truth.page_kind(url) for url in urls} == {"detail"}


def _read_until(fd: int, wanted: bytes | None, process: subprocess.Popen[bytes]) -> bytes:
    """What the terminal showed until ``wanted`` appeared (None: until the process ended)."""
    seen = b""
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the process closed the terminal
                return seen
            if not chunk:
                return seen
            seen += chunk
            if wanted is not None and wanted in seen:
                return seen
        elif process.poll() is not None and wanted is not None:
            break
    raise AssertionError(f"never saw {wanted!r}: {seen.decode(errors='replace')[-2000:]}")


def test_two_kinds_of_one_size_are_told_apart_by_the_fields_their_pages_show(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    # a help desk's search lists as many knowledge-base articles as cases, one of each in turn:
    # their counts tie, but a case's page shows its fields and an article's its prose
    server = fixture_server("helpdesk", records=60, seed=3)
    out = tmp_path / "out"
    done = run_deepcrawl(tmp_path, "crawl", server.url + "/", "--db", "sqlite:///c.db",
                         "--out", str(out), "--max-pages", "5")  # fmt: skip
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stderr.splitlines() if x.startswith("records picked"))
    assert line.startswith("records picked with no example: /case/‹number›"), line
    assert "its pages showing the record fields " in line, line
    assert "runner-up /kb/‹number›" in line, line
    assert "--like " in line, line  # the other kind's example, to take it instead
    picked = json.loads((out / "stats.json").read_text())["picked"]
    assert picked["tie"] is False
    assert (picked["kind"], picked["runner_up"]["kind"]) == ("/case/‹number›", "/kb/‹number›")
    assert picked["fields"]
    assert picked["runner_up"]["fields"] == []


def test_records_all_takes_the_tickets_and_the_wiki_pages(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("tracker", records=40, seed=3)
    truth = server.truth()
    out = tmp_path / "out"
    done = run_deepcrawl(tmp_path, "crawl", server.url + "/", "--db", "sqlite:///c.db",
                         "--out", str(out), "--records", "all")  # fmt: skip
    assert done.returncode == 0, done.stderr
    picked = json.loads((out / "stats.json").read_text())["picked"]
    assert {kind["kind"] for kind in picked["taken"]} == {"/issue/‹number›", "/wiki/‹word›"}
    paths = {urlsplit(url).path for url in _delivered(out)}
    issues, wiki = set(truth.detail_paths), set(truth.other_kind_paths)
    assert paths <= issues | wiki  # records of both kinds, no twin, list or search page
    assert len(paths & wiki) >= 0.9 * len(wiki)
    # the issues are listed after the help pages every word finds: the normal phase reads past
    # them as far as the setup phase's lists showed (not every list yet: issue 28's note)
    assert len(paths & issues) >= 0.5 * len(issues)


def test_a_setup_list_repeating_the_help_pages_first_is_read_on_past_them(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    """The tracker's search lists the same help pages first for every word. A setup query's
    list whose pages repeat the help pages in their order is read on at once, past the setup's
    pages, and the issues after them are the pick."""
    server = fixture_server("tracker", records=200, seed=3)
    out = tmp_path / "out"
    done = run_deepcrawl(tmp_path, "crawl", server.url + "/", "--db", "sqlite:///c.db",
                         "--out", str(out), "--max-pages", "5")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads((out / "stats.json").read_text())["picked"]["kind"] == "/issue/‹number›"
    with sqlite3.connect(tmp_path / "c.db") as db:
        rows = db.execute("SELECT keyword, submitted_url, result_pages FROM query").fetchall()
    firsts = {word: pages for word, url, pages in rows if "page=" not in url}
    after = SETUP_RESULT_PAGES + 1
    read_on = [word for word, url, _ in rows if url.endswith(f"&page={after}")]
    assert read_on, rows
    # its setup pages, then on at once from the next (the setup's pages are not paid twice)
    assert all(firsts[word] == SETUP_RESULT_PAGES for word in read_on), rows
