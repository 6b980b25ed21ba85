"""The crawl and ``deepcrawl status`` count queries by one rule (issue 25, item 7): every query
submitted and stored, the empty query that found nothing among them (the keyword manager keeps
it out of the history its stop rules read, not out of the count)."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import pytest
import sqlalchemy as sa

from tests.integration.run_cli import run_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser


def test_the_crawl_and_status_report_the_same_number_of_queries(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("books", records=40, seed=5)
    db = f"sqlite:///{tmp_path / 'crawl.db'}"
    out = tmp_path / "out"
    crawl = run_deepcrawl(
        tmp_path, "crawl", server.url + "/", "--like", server.truth().detail_paths[0],
        "--max-pages", "5", "--db", db, "--out", str(out),
    )  # fmt: skip
    assert crawl.returncode == 0, crawl.stderr
    said = re.search(r"pages delivered, (\d+) queries", crawl.stderr)
    assert said is not None, crawl.stderr
    engine = sa.create_engine(db)
    try:
        with engine.connect() as conn:
            empty = conn.execute(
                sa.text("SELECT count(*) FROM query WHERE keyword = '' AND result_count = 0")
            ).scalar()
    finally:
        engine.dispose()
    assert empty, "the crawl sent no fruitless empty query: the case is not exercised"
    status = run_deepcrawl(tmp_path, "status", "--db", db, "--json")
    assert status.returncode == 0, status.stderr
    [site] = json.loads(status.stdout)
    assert int(said[1]) == site["queries"]
    assert json.loads((out / "stats.json").read_text())["queries"] == site["queries"]
