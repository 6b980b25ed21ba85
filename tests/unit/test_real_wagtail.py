"""Wagtail's record_of on URLs saved from the running site (tests/data/real/wagtail/)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from deepcrawl_fixtures.real.apps.wagtail import Wagtail
from deepcrawl_fixtures.real.base import RealTruth
from deepcrawl_fixtures.real.prose import articles, slugify

DATA = Path(__file__).parents[1] / "data" / "real" / "wagtail"
RECORDS = frozenset((DATA / "records.txt").read_text().split())


@pytest.fixture
def app() -> Wagtail:
    app = Wagtail()
    app.__dict__["_truth"] = RealTruth(records=RECORDS)  # the truth read once from the site's DB
    return app


def test_every_record_page_form_maps_to_its_record(app: Wagtail) -> None:
    for key in RECORDS:
        slug = key.strip("/")
        for form in (f"/{slug}/", f"/{slug}", f"/{slug}/?ref=search"):
            assert app.record_of(form) == key


def test_the_breadth_first_list_splits_into_articles_and_the_rest(app: Wagtail) -> None:
    urls = (DATA / "bfs-urls.txt").read_text().split()
    keys = {u: app.record_of(u) for u in urls}
    others = sorted(u for u, k in keys.items() if k is None)
    assert all(re.match(r"/($|search/|static/|admin/)", u) for u in others), others
    assert len({k for k in keys.values() if k}) == 216  # distinct articles the list reaches


@pytest.mark.parametrize(
    "path",
    ["/", "/search/", "/search/?query=Seville", "/admin/", "/Attend-Mumbai-Seems/",
     "/attend-mumbai-seems/index.html", "/no-such-page/", "/static/css/bedsite.css"],
)  # fmt: skip
def test_other_pages_are_not_records(app: Wagtail, path: str) -> None:
    assert app.record_of(path) is None


def test_search_results_link_records(app: Wagtail) -> None:
    html = (DATA / "search-seville.html").read_text()
    links = re.findall(r'<h4><a href="([^"]+)">', html)
    assert len(links) == 10
    assert all(app.record_of(link) for link in links)


def test_the_example_is_a_record_of_the_generated_data(app: Wagtail) -> None:
    first = articles("wagtail:0", 240)[0]
    assert Wagtail.like_path == f"/{slugify(first.title)}/"
    assert app.record_of(Wagtail.like_path) == Wagtail.like_path
