"""Ground truth of the fixture sites: kinds, record mapping, search-only records, faults."""

from __future__ import annotations

import pytest
from deepcrawl_fixtures import SITES, build_site

SITE_NAMES = sorted(SITES)


@pytest.mark.parametrize("name", SITE_NAMES)
def test_every_sample_path_has_its_kind(name: str) -> None:
    truth = build_site(name, records=300).truth()
    samples = truth.sample_paths(per_kind=40)
    assert set(samples) == set(truth.kinds)
    for kind, paths in samples.items():
        assert paths, kind
        for path in paths:
            assert truth.page_kind(path) == kind, path
            assert truth.page_kind("http://127.0.0.1:9" + path) == kind, path


@pytest.mark.parametrize("name", SITE_NAMES)
def test_detail_paths_are_the_records(name: str) -> None:
    site = build_site(name, records=300)
    truth = site.truth()
    assert len(truth.detail_paths) == 300
    assert len(set(truth.detail_paths)) == 300
    for path in truth.detail_paths:
        assert truth.page_kind(path) == "detail"
        assert truth.record_of(path) == path
    expected = {truth.detail_paths[r.id - 1] for r in site.corpus.records if r.search_only}
    assert set(truth.search_only_paths) == expected
    assert 0 < len(expected) < 60


@pytest.mark.parametrize("name", SITE_NAMES)
def test_near_duplicates_map_to_their_record(name: str) -> None:
    truth = build_site(name, records=100).truth()
    details = truth.sample_paths(per_kind=100)["detail"]
    canonical = set(truth.detail_paths)
    assert any(p not in canonical for p in details)  # near-duplicates are among the samples
    for path in details:
        assert truth.record_of(path) in canonical


@pytest.mark.parametrize(
    ("name", "path", "kind"),
    [
        ("books", "/book/99999", "unknown"),
        ("books", "/category/nonsense", "unknown"),
        ("books", "/events/2024/13", "unknown"),
        ("books", "/events/3024/02", "calendar"),
        ("books", "/admin/anything/deeper", "disallowed"),
        ("shop", "/item?id=99999&cat=toys", "unknown"),
        ("shop", "/item?sid=1&cat=toys&id=5&utm_source=x", "detail"),
        ("shop", "/item?view=print&id=5", "print"),
        ("shop", "/item", "unknown"),
        ("news", "/2024/01/01/no-such-slug", "unknown"),
        ("news", "/archive/1850/07", "calendar"),
        ("news", "/drafts/x", "disallowed"),
    ],
)
def test_page_kind_of_edge_urls(name: str, path: str, kind: str) -> None:
    assert build_site(name, records=50).truth().page_kind(path) == kind


def test_record_of_other_kinds_is_none() -> None:
    truth = build_site("shop", records=50).truth()
    assert truth.record_of("/item?id=5&view=print") is None
    assert truth.record_of("/browse?cat=toys") is None
    assert truth.record_of("/item?id=5&cat=whatever&sid=9") == truth.detail_paths[4]


@pytest.mark.parametrize("name", SITE_NAMES)
def test_faults_only_in_fault_mode_and_on_detail_pages(name: str) -> None:
    assert build_site(name).truth().faults == {}
    truth = build_site(name, faults=True).truth()
    assert len(truth.faults) == 25
    assert set(truth.faults) <= set(truth.detail_paths)
    assert build_site(name, faults=True).truth().faults == truth.faults


def test_kinds_include_the_form_submissions() -> None:
    kinds = {name: set(build_site(name, records=20).truth().kinds) for name in SITE_NAMES}
    assert {"login_submit", "register_submit", "newsletter_submit"} <= kinds["books"]
    assert {"cart_submit", "delete_submit", "login_submit", "newsletter_submit"} <= kinds["shop"]
    assert {"comment_submit", "newsletter_submit", "api"} <= kinds["news"]
    for found in kinds.values():
        assert {"detail", "results", "robots", "disallowed", "unknown"} <= found
