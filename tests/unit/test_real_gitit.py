"""gitit's record_of on URLs and pages saved from the running wiki (tests/data/real/gitit/)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote

import pytest
from deepcrawl_fixtures.real.apps.gitit import Gitit
from deepcrawl_fixtures.real.base import RealTruth

DATA = Path(__file__).parents[1] / "data" / "real" / "gitit"
RECORDS = frozenset((DATA / "records.txt").read_text().splitlines())


@pytest.fixture
def app() -> Gitit:
    app = Gitit()
    app.__dict__["_truth"] = RealTruth(records=RECORDS)  # the page files of the repository
    return app


def test_every_page_maps_to_itself(app: Gitit) -> None:
    for name in RECORDS:
        assert app.record_of("/" + quote(name)) == name
        assert app.record_of("/" + quote(name) + "?ref=x") == name
    assert app.record_of("/") == "Front Page"
    assert app.record_of("/Gitit%20User%e2%80%99s%20Guide") == "Gitit User\u2019s Guide"


def test_the_breadth_first_list_splits_into_pages_and_look_alikes(app: Gitit) -> None:
    urls = (DATA / "bfs-urls.txt").read_text().split()
    keys = {u: app.record_of(u) for u in urls}
    others = [u for u, k in keys.items() if k is None]
    look_alike = re.compile(r"/(_|css/)|.*\?(printable|revision=)")
    assert all(look_alike.match(u) for u in others), [u for u in others if not look_alike.match(u)]
    assert all(u.startswith("/_") for u in urls if "/_" in u and keys[u] is None)
    assert len({k for k in keys.values() if k}) == 204  # distinct pages the list reaches


@pytest.mark.parametrize(
    "path",
    ["/_edit/Ago%20Said%20Canal", "/_history/Ago%20Said%20Canal", "/_showraw/Ago%20Said%20Canal",
     "/_discuss/Ago%20Said%20Canal", "/@Ago%20Said%20Canal", "/_diff/Ago%20Said%20Canal?to=28af",
     "/Ago%20Said%20Canal?revision=28af319fe73beb76cfe0e825b37cd8609e31fc86",
     "/Ago%20Said%20Canal?printable", "/Ago%20Said%20Canal/", "/ago%20said%20canal",
     "/_search?patterns=Bergen", "/_index", "/css/custom.css", "/robots.txt"],
)  # fmt: skip
def test_look_alikes_are_not_records(app: Gitit, path: str) -> None:
    assert app.record_of(path) is None


@pytest.mark.parametrize("page", ["search-bergen.html", "go-post-bergen.html"])
def test_search_results_link_records(app: Gitit, page: str) -> None:
    html = (DATA / page).read_text()
    count = int(re.search(r"(\d+) matches found", html)[1])  # type: ignore[index]
    results = html[html.index("matches found") :].split("</ol")[0]  # the sidebar comes after
    links = re.findall(r'<li\s*><a href="([^"]+)"', results)
    assert len(links) == count == 19
    assert all(app.record_of(link) for link in links)


def test_the_example_is_a_record(app: Gitit) -> None:
    assert app.record_of(Gitit.like_path) == "Ago Said Canal"
