"""Where robots.txt forbids the search, the crawl says what it may still do (issue 48).

The "closed" fixture site forbids ``/search`` (its form's action) and allows its category
lists and record pages. The crawl sends no query and nothing else robots.txt forbids (the
server's request log says so), and its one line names the allowed ways to the records and
``--navigate``; with it the records are reached through the lists, an example given or none.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from tests.integration.run_cli import run_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from deepcrawl_fixtures import FixtureServer

    ServerFactory = Callable[..., FixtureServer]

pytestmark = pytest.mark.browser

RECORDS = 40


def _forbidden(server: FixtureServer) -> list[str]:
    """The requests robots.txt forbids that reached the server."""
    return [
        row["path"]
        for row in server.stats()["log"]
        if row["path"].startswith(("/search", "/admin/"))
    ]


def _crawl(server: FixtureServer, tmp_path: Path, *args: str, like: bool = True) -> tuple[int, str]:
    server.reset_stats()
    how = ("--like", server.truth().detail_paths[0]) if like else ("--auto",)
    done = run_deepcrawl(
        tmp_path, "crawl", server.url + "/", *how,
        "--db", f"sqlite:///{tmp_path / 'crawl.db'}", "--out", str(tmp_path / "out"), *args,
        timeout=300,
    )  # fmt: skip
    return done.returncode, done.stderr


def test_the_line_names_what_robots_txt_still_allows(
    fixture_server: ServerFactory, tmp_path: Path
) -> None:
    server = fixture_server("closed", records=RECORDS, seed=0)
    code, stderr = _crawl(server, tmp_path)
    assert code == 1, stderr[-3000:]
    last = stderr.strip().splitlines()[-1]
    assert "robots.txt forbids the search form's action" in last, last
    assert "robots.txt still allows" in last, last
    assert "/category/… 10" in last, last  # the start page's lists of records
    assert "the record pages given" in last, last
    assert "--navigate" in last, last
    assert not _forbidden(server)


@pytest.mark.parametrize("like", [True, False], ids=["like", "no-example"])
def test_with_navigate_the_records_are_reached_through_the_allowed_pages(
    fixture_server: ServerFactory, tmp_path: Path, like: bool
) -> None:
    # with no example, the records' kind is picked from what the allowed lists show
    server = fixture_server("closed", records=RECORDS, seed=0)
    code, stderr = _crawl(server, tmp_path, "--navigate", like=like)
    assert code == 0, stderr[-3000:]
    truth = server.truth()
    delivered = [json.loads(line)["url"] for line in (tmp_path / "out" / "pages.jsonl").open()]
    records = {truth.record_of(url) for url in delivered} - {None}
    # what no crawl honouring robots.txt reaches: the records only the search returns, and
    # those only a script's menu links (the crawl probes no script here)
    linked = set(truth.detail_paths) - set(truth.search_only_paths) - set(truth.js_only_paths)
    assert len(linked) >= 0.8 * len(truth.detail_paths)
    assert linked <= records, (sorted(linked - records), stderr[-2000:])
    assert records <= set(truth.detail_paths)
    assert not _forbidden(server)  # robots.txt honoured: no query, nothing forbidden asked
