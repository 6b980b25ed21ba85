"""Every input checked before anything is created or sent (issue 47), through the command line.

A ``--like`` example that answers 404, an ``--out`` or ``--db`` under a file or in a folder that
may not be written: one ``error:`` line naming the input, exit 1, nothing made. An IPv6 literal
start URL keeps its brackets wherever a URL is rebuilt (robots.txt first). ``forms`` refuses a
form that submits to another host, and says why. ``--quiet`` prints nothing but errors where
stderr is no terminal.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
from typing import TYPE_CHECKING

import pytest
from deepcrawl_fixtures import FixtureServer

from deepcrawl.browser.testing import LocalSite, Reply
from tests.integration.cli.test_inputs_first import one_error_line
from tests.integration.run_cli import cli_env, run_deepcrawl, run_deepcrawl_process

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

pytestmark = pytest.mark.browser


@pytest.fixture
def books(fixture_server: Callable[..., FixtureServer]) -> FixtureServer:
    server = fixture_server("books", records=40, seed=5)
    server.reset_stats()
    return server


def _crawl(books: FixtureServer, tmp_path: Path, *args: str) -> list[str]:
    return ["crawl", books.url + "/", "--max-pages", "2", *args]


def test_a_like_example_that_answers_404_ends_the_crawl_before_a_query(
    books: FixtureServer, tmp_path: Path
) -> None:
    result = run_deepcrawl(
        tmp_path,
        *_crawl(books, tmp_path, "--like", "/no-such-kind/1", "--db", "sqlite:///c.db"),
        "--out", "out",
    )  # fmt: skip
    one_error_line(result, f"--like {books.url}/no-such-kind/1", "HTTP 404")
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no database, no output
    paths = [entry["path"] for entry in books.stats()["log"]]
    assert not any(path.startswith("/search") for path in paths), paths  # no query spent


@pytest.mark.parametrize(
    ("option", "culprit"),
    [
        (["--out", "taken"], "--out taken: taken is a file, not a folder"),
        (["--out", "taken/pages"], "--out taken/pages: taken is a file, not a folder"),
        (["--db", "sqlite:///taken/c.db"], "taken is a file, not a folder"),
    ],
    ids=["out-is-a-file", "out-under-a-file", "db-under-a-file"],
)
def test_an_output_where_a_file_stands_is_refused_before_anything_is_made(
    books: FixtureServer, tmp_path: Path, option: list[str], culprit: str
) -> None:
    (tmp_path / "taken").write_text("a file, where a folder is wanted\n")
    args = ["--db", "sqlite:///c.db", *option] if option[0] == "--out" else option
    result = run_deepcrawl(tmp_path, *_crawl(books, tmp_path, "--like", "/book/1", *args))
    one_error_line(result, culprit)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]  # no deepcrawl.db either
    assert books.stats()["requests"] == 0


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        if os.access(folder, os.W_OK):  # root writes anywhere: no folder refuses it
            pytest.skip("this user may write into a read-only folder (root)")
        yield folder
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize(
    "option", [["--out", "read-only/out"], ["--db", "sqlite:///read-only/c.db"]], ids=["out", "db"]
)
def test_an_output_in_a_read_only_folder_is_refused_before_anything_is_made(
    books: FixtureServer, tmp_path: Path, read_only: Path, option: list[str]
) -> None:
    args = ["--db", "sqlite:///c.db", *option] if option[0] == "--out" else option
    result = run_deepcrawl(tmp_path, *_crawl(books, tmp_path, "--like", "/book/1", *args))
    one_error_line(result, "read-only is not writable")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["read-only"]
    assert list(read_only.iterdir()) == []
    assert books.stats()["requests"] == 0


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.fixture
def books_on_ipv6() -> Iterator[FixtureServer]:
    if not _ipv6_loopback():
        pytest.skip("this machine has no IPv6 loopback (::1)")
    with FixtureServer("books", records=40, seed=5, host="::1") as server:
        yield server


def test_an_ipv6_start_url_is_crawled_with_its_brackets_kept(
    books_on_ipv6: FixtureServer, tmp_path: Path
) -> None:
    start = books_on_ipv6.url + "/"
    assert start.startswith("http://[::1]:")
    result = run_deepcrawl(
        tmp_path, "crawl", start, "--like", "/book/1", "--max-pages", "2",
        "--db", "sqlite:///c.db", "--out", "out",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "outside the crawl's scope" not in result.stderr
    pages = [json.loads(line) for line in (tmp_path / "out" / "pages.jsonl").open()]
    assert len(pages) == 2
    assert all(page["url"].startswith("http://[::1]:") for page in pages)
    assert "/robots.txt" in [entry["path"] for entry in books_on_ipv6.stats()["log"]]


def test_forms_refuses_a_form_that_submits_to_another_host_and_says_why(
    books: FixtureServer, tmp_path: Path
) -> None:
    elsewhere = books.url + "/search"  # another origin: the fixture site's port, not the page's
    page = (
        "<!doctype html><title>Library</title><h1>Find a book</h1>"
        f"<form action='{elsewhere}' method='get'><input type='text' name='q'>"
        "<input type='submit' value='Search'></form>"
        "<form action='/search' method='get'><input type='text' name='q'>"
        "<input type='submit' value='Search'></form>"
    )
    with LocalSite({"/": Reply(page)}) as site:
        result = run_deepcrawl(tmp_path, "forms", site.url + "/")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("1. "))
    assert "refuse" in lines[first], lines[first]
    assert "ACCEPT" not in lines[first], lines[first]
    host = elsewhere.split("/")[2]
    why = f"submits to {host}, not to its page's host {site.url.split('/')[2]}"
    assert any(why in line and "outside the crawl's scope" in line for line in lines), lines
    second = next(line for line in lines if line.startswith("2. "))
    assert "ACCEPT" in second, second  # the same form on the page's own host is taken
    assert any(line.startswith("critic's choice: 2 ") for line in lines), lines


def test_quiet_prints_nothing_but_errors_when_stderr_is_a_file(
    books: FixtureServer, tmp_path: Path
) -> None:
    log = tmp_path / "stderr.txt"
    with log.open("w") as stderr:  # a file: no terminal, the plain-line progress would go there
        result = run_deepcrawl_process(
            ["-q", *_crawl(books, tmp_path, "--db", "sqlite:///c.db")],
            env=cli_env(tmp_path), cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=stderr,
            timeout=240,
        )  # fmt: skip
    assert result.returncode == 0, log.read_text()
    assert log.read_text() == ""
