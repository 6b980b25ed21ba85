"""Roundup's record_of on URLs and pages saved from the running tracker (tests/data/real/)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from deepcrawl_fixtures.real.apps.roundup import Roundup
from deepcrawl_fixtures.real.base import RealTruth

DATA = Path(__file__).parents[1] / "data" / "real" / "roundup"
RECORDS = frozenset((DATA / "records.txt").read_text().split())


@pytest.fixture
def app() -> Roundup:
    app = Roundup()
    app.__dict__["_truth"] = RealTruth(records=RECORDS)  # the issues of the tracker's database
    return app


def test_every_issue_page_maps_to_its_issue(app: Roundup) -> None:
    for key in RECORDS:
        assert app.record_of(f"/issue{key}") == key
        assert app.record_of(f"/issue{key}?ref=search") == key


def test_the_breadth_first_list_splits_into_issues_and_the_rest(app: Roundup) -> None:
    urls = (DATA / "bfs-urls.txt").read_text().split()
    issues = {u for u in urls if app.record_of(u)}
    assert issues == {u for u in urls if re.fullmatch(r"/issue\d+", u)}
    assert len(issues) == 106
    assert not any(app.record_of(u) for u in urls if u.startswith(("/msg", "/user")))


@pytest.mark.parametrize(
    "path",
    ["/msg26", "/user3", "/issue", "/issue?@template=search", "/issue17?@template=history",
     "/issue17?@action=edit", "/issue17/title", "/issue241", "/issue0017x", "/"],
)  # fmt: skip
def test_other_pages_are_not_records(app: Roundup, path: str) -> None:
    assert app.record_of(path) is None


def test_search_results_link_issues(app: Roundup) -> None:
    html = (DATA / "search-bergen.html").read_text()
    count = int(re.search(r"1\.\.\d+ out of (\d+)", html)[1])  # type: ignore[index]
    links = set(re.findall(r'href="(issue\d+)"', html))
    assert len(links) == count == 8
    assert all(app.record_of("/" + link) for link in links)


def test_a_login_form_is_beside_the_search_box() -> None:
    html = (DATA / "issue.html").read_text()
    forms = re.findall(r"<form[^>]*>", html)
    assert any('method="GET" action="issue"' in f for f in forms)  # the search box
    assert "__login_name" in html
    assert any('method="POST"' in f for f in forms)


def test_the_search_box_submission_is_a_search() -> None:
    # As a browser sent it to the tracker (from the server's log of a crawl).
    sent = "/issue?%40columns=id%2Cactivity%2Ctitle&%40sort=activity&%40search_text=Bergen"
    assert sent.startswith(Roundup.search_paths)
    assert not "/issue?@sort=-activity&@group=priority".startswith(Roundup.search_paths)
