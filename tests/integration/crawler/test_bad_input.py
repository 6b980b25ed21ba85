"""Bad input to ``deepcrawl crawl``: one line, exit 1, nothing sent to the site, nothing stored.

And the other side of it: an internationalised host crawls like any other, and a store that
holds a bad row (written by an older deepcrawl) still lists its other sites.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from deepcrawl.storage import Repository
from tests.integration.run_cli import run_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Callable

    from deepcrawl_fixtures import FixtureServer

#: A port of this test's range where nothing listens.
DEAD_PORT = 27999


def _deepcrawl(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_deepcrawl(tmp_path, *args, timeout=120)


@pytest.fixture
def books(fixture_server: Callable[..., FixtureServer]) -> FixtureServer:
    server = fixture_server("books", records=40, seed=5)
    server.reset_stats()
    return server


def _write(tmp_path: Path, name: str, data: bytes) -> str:
    (tmp_path / name).write_bytes(data)
    return name


CASES = {
    "long-url": (lambda u: [u + "/" + "a" * 3000], "longer than 2048 characters"),
    "scheme": (lambda u: ["ftp://example.org/"], "must start with http:// or https://"),
    "no-host": (lambda u: ["http:///search"], "has no host"),
    "like-int": (lambda u: [u + "/", "--labels", "like-int.yaml"],
                 "labels file like-int.yaml, entry 1, field 'like': must be a URL or a path"),
    "like-list": (lambda u: [u + "/", "--labels", "like-list.yaml"],
                  "labels file like-list.yaml, entry 2, field 'like': must be a URL or a path"),
    "labels-missing": (lambda u: [u + "/", "--labels", "nowhere.yaml"],
                       "labels file nowhere.yaml does not exist"),
    "keywords-missing": (lambda u: [u + "/", "--like", "/book/1", "--keywords", "none.txt"],
                         "keyword file 'none.txt' does not exist"),
    "keywords-empty": (lambda u: [u + "/", "--like", "/book/1", "--keywords", "empty.txt"],
                       "keyword file 'empty.txt' holds no keyword"),
    "keywords-binary": (lambda u: [u + "/", "--like", "/book/1", "--keywords", "bin.txt"],
                        "keyword file 'bin.txt' is a binary file"),
    "like-other-host": (lambda u: [u + "/", "--like", "http://elsewhere.example/book/1"],
                        "is on elsewhere.example, not on the start URL's host"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_is_one_line_before_anything_is_sent(
    case: str, books: FixtureServer, tmp_path: Path
) -> None:
    _write(tmp_path, "like-int.yaml", b"- like: 5\n")
    _write(tmp_path, "like-list.yaml", b"- like: /book/2\n- like: [/book/1, /book/3]\n")
    _write(tmp_path, "empty.txt", b"# nothing\n\n")
    _write(tmp_path, "bin.txt", b"\x89PNG\r\n\x1a\n\x00\x00")
    args, message = CASES[case]
    db = tmp_path / "crawl.db"
    done = _deepcrawl(tmp_path, "crawl", *args(books.url), "--db", f"sqlite:///{db}")
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ")
    assert message in lines[0]
    assert "no such setting" not in lines[0]
    assert books.stats()["requests"] == 0  # not even robots.txt
    assert not db.exists()  # nothing stored


def test_an_unreachable_host_says_so(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{DEAD_PORT}/"
    done = _deepcrawl(tmp_path, "crawl", url, "--like", "/book/1", "--db", "sqlite:///c.db")
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"error: {url}: cannot reach 127.0.0.1:{DEAD_PORT}: All connection attempts failed"
    ]
    assert not (tmp_path / "c.db").exists()


def test_a_start_page_that_is_no_html_says_so(books: FixtureServer, tmp_path: Path) -> None:
    url = books.url + "/favicon.ico"
    done = _deepcrawl(tmp_path, "crawl", url, "--like", "/book/1", "--db", "sqlite:///c.db")
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"error: the start URL {url} is not an HTML page (image/png)")
    # robots.txt first, as from any crawler, then the one look at the start page
    assert [entry["path"] for entry in books.stats()["log"]] == ["/robots.txt", "/favicon.ico"]
    assert not (tmp_path / "c.db").exists()


def test_a_store_with_a_bad_row_still_lists_its_other_sites(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'old.db'}"
    with Repository.open(db) as repo:
        good = repo.site("http://good.example/")
        with pytest.raises(ValueError, match="2048"):  # what an older deepcrawl left behind
            repo.site("http://bad.example/" + "a" * 3000)
    for command in ("sites", "status"):
        done = _deepcrawl(tmp_path, command, "--db", db, "--json")
        assert done.returncode == 0, done.stderr
        listed = json.loads(done.stdout)
        assert [s.get("id", s.get("site_id")) for s in listed] == [good.id]
        assert done.stderr.startswith(f"warning: site {good.id + 1} is unreadable and left out")


@pytest.mark.browser
def test_an_internationalised_host_renders(books: FixtureServer, tmp_path: Path) -> None:
    port = books.url.rsplit(":", 1)[1]
    done = _deepcrawl(tmp_path, "render", f"http://bücher.localhost:{port}/", "--json")
    assert done.returncode == 0, done.stderr
    page = json.loads(done.stdout)
    assert page["status"] == 200
    assert page["final_url"] == f"http://xn--bcher-kva.localhost:{port}/"
    assert books.stats()["by_kind"]["home"] == 1


async def test_plain_http_reaches_an_internationalised_localhost(books: FixtureServer) -> None:
    from deepcrawl.browser import HttpFetcher
    from deepcrawl.crawler.inputs import check_url
    from deepcrawl.fetch.robots import RobotsPolicy
    from deepcrawl.settings import Settings

    port = books.url.rsplit(":", 1)[1]
    start = check_url(f"http://bücher.localhost:{port}/")
    assert start == f"http://xn--bcher-kva.localhost:{port}/"
    robots = RobotsPolicy("deepcrawl")
    async with HttpFetcher(Settings(), (f"bücher.localhost:{port}",)) as fetcher:
        await robots.load(start, fetcher)  # robots.txt read, not "forbids everything"
        assert robots.allowed(start + "search?q=x")
        assert not robots.allowed(start + "admin/")
        page = await fetcher.fetch(start)
    assert page.status == 200
    assert page.forms
