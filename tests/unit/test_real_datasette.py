"""Datasette's record_of on URLs and pages saved from the running site (tests/data/real/)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from deepcrawl_fixtures.real.apps.datasette import Datasette, landmark_rows
from deepcrawl_fixtures.real.base import RealTruth

DATA = Path(__file__).parents[1] / "data" / "real" / "datasette"
RECORDS = frozenset((DATA / "records.txt").read_text().split())


@pytest.fixture
def app() -> Datasette:
    app = Datasette()
    app.__dict__["_truth"] = RealTruth(records=RECORDS)  # the primary keys of the table
    return app


def test_every_row_page_maps_to_its_row(app: Datasette) -> None:
    for key in RECORDS:
        assert app.record_of(f"/data/landmarks/{key}") == key
        assert app.record_of(f"/data/landmarks/{key}?ref=search") == key


def test_the_breadth_first_list_splits_into_rows_and_the_rest(app: Datasette) -> None:
    urls = (DATA / "bfs-urls.txt").read_text().split()
    keys = {u: app.record_of(u) for u in urls}
    rows = {u for u, k in keys.items() if k}
    assert rows == {u for u in urls if re.fullmatch(r"/data/landmarks/\d+", u)}
    assert len(rows) == 205


@pytest.mark.parametrize(
    "path",
    ["/data/landmarks/17.json", "/data/landmarks/17?_shape=array", "/data/landmarks",
     "/data/landmarks?_search=Bergen", "/data/landmarks.csv?_size=max", "/data/landmarks/301",
     "/data/landmarks/17/x", "/data", "/-/static/app.css"],
)  # fmt: skip
def test_other_pages_are_not_records(app: Datasette, path: str) -> None:
    assert app.record_of(path) is None


def test_search_results_link_rows(app: Datasette) -> None:
    html = (DATA / "search-bergen.html").read_text()
    count = int(re.search(r"<h3>(\d+) rows", html)[1])  # type: ignore[index]
    links = set(re.findall(r'href="(/data/landmarks/\d+)"', html))
    assert len(links) == count == 14
    assert all(app.record_of(link) for link in links)


def test_the_rows_are_the_generated_ones() -> None:
    rows = landmark_rows()
    assert [row["id"] for row in rows] == list(range(1, 301))
    assert rows == landmark_rows()  # the same seed, the same table
    html = (DATA / "row.html").read_text()
    assert str(rows[16]["name"]) in html  # row 17, the --like example
    assert Datasette.like_path == "/data/landmarks/17"
