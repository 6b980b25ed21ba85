"""The kinds of a site's pages: a wanted URL's canonical key, any URL's kind, the site's classifier,
and its stored pages as a browser's scripts ask for them."""

from __future__ import annotations

import re
from pathlib import Path

from deepcrawl.classify.url import Decision
from deepcrawl.page.fetched import FetchedPage
from deepcrawl.prototypes import LabelSession
from deepcrawl.records import StoredPages, canonical_url, make_classifier, page_kind
from deepcrawl.storage import Repository

H = "http://shop.test"


def test_the_canonical_key_drops_the_query_keys_the_rule_names_and_keeps_the_rest() -> None:
    drop = re.compile(r"(?:utm_.*|sid)$")
    assert canonical_url(f"{H}/item?id=7&sid=x1&utm_source=a", drop) == f"{H}/item?id=7"
    assert canonical_url(f"{H}/item?id=7", drop) == f"{H}/item?id=7"


def test_a_pages_kind_is_its_prototype_else_its_shape() -> None:
    by_prototype = Decision(f"{H}/item/7", "item", True, 1.0, "prototype", prototype="p1")
    assert page_kind(by_prototype) == "p1"
    by_model = Decision(f"{H}/item/7", None, False, 0.1, "model")
    other = Decision(f"{H}/item/8", None, False, 0.1, "model")
    assert page_kind(by_model) == page_kind(other) != page_kind(by_prototype)


def test_the_sites_classifier_wants_the_labelled_kind_only(tmp_path: Path) -> None:
    with Repository.open(f"sqlite:///{tmp_path / 'db.sqlite'}") as repo:
        site = repo.site(f"{H}/")
        urls = [f"{H}/item/{i}" for i in range(20)] + [f"{H}/help/{i}" for i in range(20)]
        session = LabelSession.learn(repo, site.id, urls)
        item = session.like(f"{H}/item/3")
        session.label(item.id, "item", relevant=True)
        classifier = make_classifier(repo, site.id, urls)
        assert classifier.decide(f"{H}/item/99").relevant
        assert not classifier.decide(f"{H}/help/99").relevant


def test_the_stored_pages_answer_by_normal_form_and_not_for_a_failure(tmp_path: Path) -> None:
    with Repository.open(f"sqlite:///{tmp_path / 'db.sqlite'}") as repo:
        site = repo.site(f"{H}/")
        page = FetchedPage(f"{H}/item/7", f"{H}/item/7", 200, "text/html", "<p>seven</p>")
        repo.save_page(site.id, page, kind="record")
        repo.save_failure(site.id, f"{H}/item/8", "gone", status=404)
        stored = StoredPages(repo, site.id)
        found = stored.document("HTTP://SHOP.TEST/item/7#top")
        assert found is not None
        assert (found.body, found.status) == (b"<p>seven</p>", 200)
        assert stored.document(f"{H}/item/8") is None
        assert stored.document(f"{H}/item/9") is None
