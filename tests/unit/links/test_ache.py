"""ACHE's automatic feature selection, multi-level link classifier and path levels."""

from __future__ import annotations

import pytest
from sklearn.base import clone
from sklearn.pipeline import Pipeline

from deepcrawl.links._ache_model import (
    AutomaticFeatureSelector,
    MultiLevelLinkClassifier,
    space_terms,
)
from deepcrawl.links.ache import link_levels
from deepcrawl.links.context import LinkContext


def _link(url: str, anchor: str = "", around: str = "") -> LinkContext:
    return LinkContext(
        url=url, source="http://s.test/", anchor=anchor, around=tuple(around.split())
    )


def test_space_terms_remove_stop_words_and_stem() -> None:
    terms = space_terms(_link("http://s.test/used-cars/search?page=2", "The searching of Cars"))
    assert terms["anchor"] == ["search", "car"]  # "the", "of" are stop words; stems
    assert terms["url"] == ["use", "car", "search", "page"]  # host left out, digits too


def test_url_subterms_absorb_the_frequency_of_terms_containing_them() -> None:
    # "job" is frequent; "jobsearch" and "jobfind" contain it, so their counts go to "job"
    # (Algorithm 2, lines 8-13) and "job" outranks the equally frequent "about".
    links = [
        _link("http://s.test/job"),
        _link("http://s.test/jobsearch"),
        _link("http://s.test/jobfind"),
        _link("http://s.test/about"),
        _link("http://s.test/about"),
    ]
    afs = AutomaticFeatureSelector(n_features=1, url_top_k=2).fit(links, [1] * len(links))
    assert afs.vocabulary_ == ["url:job"]
    # Transform counts a selected URL term wherever it occurs as a substring.
    row = afs.transform([_link("http://s.test/jobsearch/x")]).toarray()[0]
    assert row.tolist() == [1.0]


def test_features_are_selected_per_level_by_document_frequency() -> None:
    links = [
        _link("http://s.test/a", "advanced search"),
        _link("http://s.test/b", "search books"),
        _link("http://s.test/c", "news today"),
        _link("http://s.test/d", "news archive"),
    ]
    afs = AutomaticFeatureSelector(n_features=1, url_top_k=1).fit(links, [1, 1, 2, 2])
    assert {"anchor:search", "anchor:news"} <= set(afs.get_feature_names_out())
    assert "anchor:advanc" not in afs.vocabulary_


@pytest.mark.parametrize("model", ["nb", "svm"])
def test_multi_level_classifier_learns_levels(model: str) -> None:
    train = [
        (_link("http://s.test/search/advanced", "advanced search", "find items"), 1),
        (_link("http://s.test/catalogue/search", "search the catalogue", "find"), 1),
        (_link("http://s.test/library", "library", "collections catalogue"), 2),
        (_link("http://s.test/catalogue", "catalogue", "library collections"), 2),
        (_link("http://s.test/news/12", "storm hits coast", "weather today"), 4),
        (_link("http://s.test/events/2024", "events", "calendar today"), 4),
    ]
    clf = MultiLevelLinkClassifier(n_features=5, url_top_k=3, model=model)  # type: ignore[arg-type]
    assert clf.fit([c for c, _ in train], [lv for _, lv in train]) is clf
    assert isinstance(clf.pipeline_, Pipeline)
    test = [
        _link("http://s.test/search", "quick search"),
        _link("http://s.test/library/catalogue", "our library"),
        _link("http://s.test/news/99", "storm warning", "weather"),
    ]
    assert clf.predict(test).tolist() == [1, 2, 4]
    ranked = clf.rank(test)
    assert [level for level, _ in ranked] == [1, 2, 4]
    assert all(0.0 < p <= 1.0 for _, p in ranked)
    assert clf.predict_proba(test).shape == (3, 3)


def test_classifier_is_a_scikit_learn_estimator() -> None:
    clf = MultiLevelLinkClassifier(n_features=3, model="svm", C=0.5)
    assert clf.get_params()["C"] == 0.5
    copy = clone(clf)
    assert copy.get_params() == clf.get_params()
    assert not hasattr(copy, "pipeline_")


def test_one_level_seen_predicts_it() -> None:
    clf = MultiLevelLinkClassifier().fit([_link("http://s.test/x", "x")], [2])
    assert clf.rank([_link("http://s.test/y", "y")]) == [(2, 1.0)]


def test_link_levels_is_distance_to_the_nearest_target() -> None:
    # home -> gateway -> form ; home -> news -> article ; article -> home
    edges = {
        "home": ["gateway", "news"],
        "gateway": ["form", "guide"],
        "news": ["article"],
        "article": ["home"],
    }
    assert link_levels(edges, {"form"}, max_level=3) == {
        "form": 0,
        "gateway": 1,
        "home": 2,
        "article": 3,
    }
    assert "article" not in link_levels(edges, {"form"}, max_level=2)
