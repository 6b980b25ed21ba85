"""The "stacks" site (issue 8): a search form 2–3 clicks deep, records only browsing reaches."""

from __future__ import annotations

import re
from collections import deque

import pytest
from deepcrawl_fixtures import build_site
from deepcrawl_fixtures.data import tokenize
from deepcrawl_fixtures.site import Request, Site, split_url
from deepcrawl_fixtures.sites.stacks import StacksSite

HREF = re.compile(r"""href=['"]([^'"#]+)['"]""")
FORM = re.compile(r"<form id='search' action='/search'")


def _get(site: Site, path: str) -> str:
    kind, response = site.handle(Request("GET", *split_url(path)))
    assert response.status == 200, (path, kind)
    body = response.body
    assert isinstance(body, str)
    return body


def _clicks_to_form(site: Site) -> int:
    """Breadth-first over plain links from the home page: clicks to the first search form."""
    depth = {"/": 0}
    queue = deque(["/"])
    while queue:
        path = queue.popleft()
        if site.page_kind(path) in {"calendar", "disallowed", "unknown"}:
            continue
        body = _get(site, path)
        if FORM.search(body):
            return depth[path]
        for href in HREF.findall(body):
            if href.startswith("/") and href not in depth:
                depth[href] = depth[path] + 1
                queue.append(href)
    raise AssertionError("no search form reachable")


@pytest.mark.parametrize(("seed", "clicks"), [(0, 2), (1, 3)])
def test_the_search_form_is_two_or_three_clicks_deep(seed: int, clicks: int) -> None:
    site = build_site("stacks", records=80, seed=seed)
    assert isinstance(site, StacksSite)
    truth = site.truth()
    assert not FORM.search(_get(site, "/"))  # no search form on the home page
    assert _clicks_to_form(site) == clicks
    (form_page,) = truth.search_form_paths
    assert FORM.search(_get(site, form_page))
    assert truth.page_kind(form_page) == "search_page"


def test_browse_only_records_are_never_returned_by_search_but_listed() -> None:
    site = build_site("stacks", records=200, seed=0)
    truth = site.truth()
    nav_only = truth.nav_only_paths
    assert len(nav_only) == 20  # a tenth of the records
    assert not set(nav_only) & set(truth.search_only_paths)
    for path in nav_only[:5]:
        record = site.corpus.records[int(path.rsplit("/", 1)[1]) - 1]
        title_words = [w for w in tokenize(record.title) if len(w) > 2][:2]
        results = _get(site, f"/search?q={'+'.join(title_words)}")
        assert f"href='{path}'" not in results
        assert record.id in site.corpus.search(title_words)  # it matches, the site hides it
        pages = [
            _get(site, f"/category/{record.category}?sort=title&page={n}") for n in range(1, 6)
        ]
        assert any(f"href='{path}'" in p for p in pages)
        assert f"href='{path}'" in _get(site, f"/index/{record.title[0].lower()}")
