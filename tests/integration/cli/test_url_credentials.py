"""Credentials in the start URL: ``deepcrawl crawl http://user:password@host/`` crawls a site
behind HTTP Basic authentication, and the password is in none of the crawl's outputs.

The site is the "books" fixture behind the ``basic`` gate (:mod:`deepcrawl_fixtures.gate`):
every request, robots.txt included, is refused without the gate's user and password. The same
site served open, crawled without credentials, gives the records to compare with.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from deepcrawl_fixtures import FixtureServer
from deepcrawl_fixtures.gate import BASIC_PASSWORD, BASIC_USER

from tests.integration.run_cli import run_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Iterator

pytestmark = pytest.mark.browser

RECORDS = 30
SEED = 5


@pytest.fixture(scope="module")
def basic_site() -> Iterator[FixtureServer]:
    """The books site behind HTTP Basic authentication."""
    with FixtureServer("books", records=RECORDS, seed=SEED, gate="basic") as server:
        yield server


@pytest.fixture(scope="module")
def open_site() -> Iterator[FixtureServer]:
    """The same site, open."""
    with FixtureServer("books", records=RECORDS, seed=SEED) as server:
        yield server


def _crawl(tmp_path: Path, name: str, start_url: str, *like: str) -> dict[str, Any]:
    """A whole crawl of ``start_url`` into ``tmp_path/name``: its outputs, by name."""
    folder = tmp_path / name
    folder.mkdir()
    db = folder / "crawl.db"
    log = folder / "crawl.log"
    examples = [arg for url in like for arg in ("--like", url)]
    done = run_deepcrawl(
        tmp_path, "--log-file", str(log), "crawl", start_url, *examples,
        "--db", f"sqlite:///{db}", "--out", str(folder / "out"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    pages = [json.loads(line) for line in (folder / "out" / "pages.jsonl").read_text().splitlines()]
    return {
        "stderr": done.stderr,
        "stdout": done.stdout,
        "log": log.read_text(),
        "stats.json": (folder / "out" / "stats.json").read_text(),
        "pages.jsonl": (folder / "out" / "pages.jsonl").read_text(),
        "database": _text_columns(db),
        "pages": pages,
    }


def _text_columns(db: Path) -> str:
    """Every text (and blob) value of every table of the SQLite database, one a line."""
    values: list[str] = []
    with sqlite3.connect(db) as connection:
        tables = [
            row[0]
            for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
        ]
        for table in tables:
            for row in connection.execute(f'SELECT * FROM "{table}"'):
                for value in row:
                    if isinstance(value, bytes):
                        values.append(value.decode("utf-8", "replace"))
                    elif isinstance(value, str):
                        values.append(value)
    return "\n".join(values)


def _records(server: FixtureServer, pages: list[dict[str, Any]]) -> set[int]:
    truth = server.truth()
    found = {truth.record_of(page["url"]) for page in pages}
    return {record for record in found if record is not None}


def test_credentials_in_the_start_url_crawl_the_site_and_appear_in_no_output(
    basic_site: FixtureServer, open_site: FixtureServer, tmp_path: Path
) -> None:
    paths = basic_site.truth().detail_paths
    host = basic_site.url.removeprefix("http://")
    secret = f"http://{BASIC_USER}:{BASIC_PASSWORD}@{host}"

    # the start URL with credentials; the examples relative to it, with the credentials too,
    # and as the browser's address bar shows them (without)
    like = (paths[0], secret + paths[1], basic_site.url + paths[2])
    basic_site.reset_stats()
    gated = _crawl(tmp_path, "gated", secret + "/", *like)
    # every request of both fetchers carried the credentials, robots.txt's first among them
    assert basic_site.stats()["by_kind"].get("gated", 0) == 0
    plain = _crawl(tmp_path, "open", open_site.url + "/", paths[0])

    records = _records(basic_site, gated["pages"])
    assert records, gated["stderr"]
    assert records == _records(open_site, plain["pages"])
    for output, text in gated.items():
        if output != "pages":
            assert BASIC_PASSWORD not in text, output
    # the crawl's URLs are the site's own, without the user name either
    assert all(page["url"].startswith(basic_site.url + "/") for page in gated["pages"])
