"""Real Scrapy over a real crawl's output: the example project of ``examples/scrapy`` extracts
the books the crawl delivered, through its item pipelines, from pages.jsonl and from the WARC,
without Scrapy fetching a page again (the fixture server counts what it was sent)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from deepcrawl_fixtures.sites import build_site

from tests.integration.run_cli import ROOT, cli_env, run_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Callable

    from deepcrawl_fixtures import FixtureServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PROJECT = ROOT / "examples" / "scrapy"
RECORDS, SEED = 30, 5
FIELDS = ("id", "url", "title", "category", "published", "pages", "description")


@pytest.fixture(scope="module")
def crawled(
    fixture_server: Callable[..., FixtureServer], tmp_path_factory: pytest.TempPathFactory
) -> tuple[FixtureServer, Path]:
    """The books site crawled once with ``--out`` and ``--warc``."""
    server = fixture_server("books", records=RECORDS, seed=SEED)
    tmp = tmp_path_factory.mktemp("crawl")
    done = run_deepcrawl(
        tmp, "crawl", server.url + "/", "--like", "/book/1", "--db", f"sqlite:///{tmp / 'c.db'}",
        "--out", str(tmp / "out"), "--warc", str(tmp / "crawl.warc.gz"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return server, tmp


def scrapy_crawl(tmp: Path, *arguments: str) -> list[dict[str, object]]:
    """``scrapy crawl books ARGUMENTS`` in the example project; the books its pipeline wrote."""
    books = tmp / f"books-{len(list(tmp.glob('books-*')))}.jsonl"
    env = cli_env(tmp)
    env["PYTHONPATH"] = os.pathsep.join([str(PROJECT), env["PYTHONPATH"]])
    done = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "books", *arguments, "-s", f"BOOKS_FILE={books}"],
        cwd=PROJECT, env=env, capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    return [json.loads(line) for line in books.read_text().splitlines()]


@pytest.mark.parametrize("source", ["pages", "warc"])
def test_the_example_project_extracts_one_book_per_record(
    crawled: tuple[FixtureServer, Path], source: str
) -> None:
    server, tmp = crawled
    delivered = [
        json.loads(line) for line in (tmp / "out" / "pages.jsonl").read_text().splitlines()
    ]
    truth = server.truth()
    wanted = {truth.record_of(page["final_url"]) for page in delivered} - {None}
    assert len(wanted) == RECORDS  # the crawl holds every record

    given = str(tmp / "out" / "pages.jsonl") if source == "pages" else str(tmp / "crawl.warc.gz")
    server.reset_stats()
    books = scrapy_crawl(tmp, "-a", f"{source}={given}")
    assert server.stats(log=False)["requests"] == 0  # Scrapy fetched nothing again

    assert len(books) == len({book["id"] for book in books}) == RECORDS  # one per record
    records = {r.id: r for r in build_site("books", records=RECORDS, seed=SEED).corpus.records}
    for book in books:
        assert all(book[name] not in ("", None, 0) for name in FIELDS), book
        record = records[book["id"]]
        assert book["title"] == record.title
        assert book["category"] == record.category
        assert book["published"] == record.date.isoformat()
        assert truth.record_of(book["url"]) == truth.detail_paths[record.id - 1]
    if source == "pages":  # what deepcrawl knew of the page reached the callback
        assert any(book["query"] for book in books)


def test_the_spider_takes_a_live_crawl_through_the_iterator(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("books", records=RECORDS, seed=SEED)
    db = f"sqlite:///{tmp_path / 'live.db'}"
    books = scrapy_crawl(
        tmp_path, "-a", f"crawl_url={server.url}/", "-a", "like=/book/1", "-a", f"db={db}"
    )
    assert sorted(book["id"] for book in books) == list(range(1, RECORDS + 1))
    assert any(book["query"] for book in books)  # the record of each page reached parse
