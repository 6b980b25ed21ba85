"""Inputs checked before anything is created, alike in every command (issue 25, item 5).

Through the command line, as a user meets them: a SQLite ``--db`` in a folder that does not
exist is refused (one ``error:`` line, exit 1, no folder made, no request sent); ``--out`` holds
nothing before the database opened; ``--warc`` makes its folder as ``--out`` does; ``render``,
``forms``, ``query`` and ``discover`` refuse the URL ``crawl`` refuses; every error line of a
command starts with ``error:``.
"""

from __future__ import annotations

import subprocess
from typing import TYPE_CHECKING

import pytest
from warcio.archiveiterator import ArchiveIterator

from deepcrawl.browser.testing import LocalSite, Reply
from tests.integration.run_cli import cli_env, run_deepcrawl, run_deepcrawl_process

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser


@pytest.fixture
def books(fixture_server: Callable[..., FixtureServer]) -> FixtureServer:
    server = fixture_server("books", records=40, seed=5)
    server.reset_stats()
    return server


def one_error_line(result: subprocess.CompletedProcess[str], *words: str) -> str:
    """The command failed with exit 1 and one line on stderr, ``error: …`` naming ``words``."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 1, result.stderr
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: "), lines[0]
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def test_a_database_folder_that_does_not_exist_is_refused_before_anything_is_made(
    books: FixtureServer, tmp_path: Path
) -> None:
    db = f"sqlite:///{tmp_path / 'nowhere' / 'deeper' / 'crawl.db'}"
    result = run_deepcrawl(
        tmp_path, "crawl", books.url + "/", "--like", "/book/1", "--max-pages", "2", "--db", db,
        "--out", "out",
    )  # fmt: skip
    one_error_line(result, "does not exist", "nowhere")
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no folder, no file
    assert books.stats()["requests"] == 0  # checked before the site is asked


def test_a_database_that_fails_to_open_leaves_no_output(
    books: FixtureServer, tmp_path: Path
) -> None:
    (tmp_path / "garbage.db").write_bytes(b"this is no SQLite database, but a text file\n" * 50)
    result = run_deepcrawl(
        tmp_path, "crawl", books.url + "/", "--like", "/book/1", "--db", "sqlite:///garbage.db",
        "--out", "out", "--warc", "c.warc.gz",
    )  # fmt: skip
    one_error_line(result, "garbage.db")
    assert not (tmp_path / "out" / "pages.jsonl").exists()
    assert not (tmp_path / "c.warc.gz").exists()


def test_the_warc_folder_is_made_as_the_out_folder_is(books: FixtureServer, tmp_path: Path) -> None:
    result = run_deepcrawl(
        tmp_path, "crawl", books.url + "/", "--like", "/book/1", "--max-pages", "2",
        "--db", "sqlite:///c.db", "--warc", "out/c.warc.gz",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    with (tmp_path / "out" / "c.warc.gz").open("rb") as stream:
        kinds = [record.rec_type for record in ArchiveIterator(stream)]
    assert kinds.count("response") >= 2


@pytest.mark.parametrize(
    "command",
    [
        ["crawl", "{url}", "--like", "/book/1", "--db", "sqlite:///c.db"],
        ["render", "{url}"],
        ["render", "{url}", "--render", "never"],
        ["forms", "{url}"],
        ["query", "{url}", "time"],
        ["discover", "{url}"],
    ],
    ids=["crawl", "render", "render-http", "forms", "query", "discover"],
)
def test_every_command_refuses_the_url_crawl_refuses(
    books: FixtureServer, tmp_path: Path, command: list[str]
) -> None:
    long_url = books.url + "/search?q=" + "a" * 3000
    result = run_deepcrawl(tmp_path, *[part.format(url=long_url) for part in command])
    one_error_line(result, "longer than 2048 characters")
    assert books.stats()["requests"] == 0


def test_discover_without_a_form_ends_with_an_error_line(tmp_path: Path) -> None:
    with LocalSite(
        {"/": Reply("<!doctype html><title>home</title><p>no form, no link</p>")}
    ) as site:
        result = run_deepcrawl(tmp_path, "discover", site.url + "/", "--max-requests", "2")
    one_error_line(result, "no searchable form")


def test_the_error_lines_of_urls_normalise_and_doctor_start_with_error(tmp_path: Path) -> None:
    normalised = run_deepcrawl_process(
        ["urls", "normalise"], input="http://a.com/\nhttp://a b.com/\n",
        env=cli_env(tmp_path), cwd=tmp_path, capture_output=True, text=True, check=False,
        timeout=120,
    )  # fmt: skip
    assert normalised.returncode == 1
    lines = normalised.stderr.splitlines()
    assert len(lines) == 2, normalised.stderr
    assert all(line.startswith("error: ") for line in lines), lines
    doctor = run_deepcrawl(tmp_path, "doctor", "--no-browser", "--db", "nosuchdb://x/y")
    assert doctor.returncode == 1
    assert doctor.stderr.splitlines()[-1].startswith("error: 1 required check(s) failed")
