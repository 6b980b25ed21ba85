"""Fixture data: determinism, real words, search semantics, fault placement."""

from __future__ import annotations

import hashlib

import pytest
from deepcrawl_fixtures import FAULTS, SITES, build_site
from deepcrawl_fixtures.data import STOP_WORDS, generate, tokenize, vocabulary
from deepcrawl_fixtures.faults import place_faults
from deepcrawl_fixtures.site import Site

from deepcrawl.errors import FixtureError

CATS = ("a", "b", "c")


def test_same_seed_same_records() -> None:
    assert generate(300, 7, CATS, salt="x").records == generate(300, 7, CATS, salt="x").records


def test_other_seed_or_site_other_records() -> None:
    base = generate(50, 7, CATS, salt="x").records
    assert generate(50, 8, CATS, salt="x").records != base
    assert generate(50, 7, CATS, salt="y").records != base


def test_sites_differ_at_the_same_seed() -> None:
    titles = {name: build_site(name, records=20).corpus.records[0].title for name in SITES}
    assert len(set(titles.values())) == len(SITES)


def test_records_are_made_of_real_words() -> None:
    words, _ = vocabulary()
    known = set(words) | STOP_WORDS
    corpus = generate(200, 1, CATS)
    used = {w for r in corpus.records for w in tokenize(f"{r.title} {r.description}")}
    assert used <= known
    assert len(used) > 1000  # a varied vocabulary, not a handful of words


def test_search_only_and_js_only_shares() -> None:
    corpus = generate(2000, 3, CATS)
    search_only = {r.id for r in corpus.records if r.search_only}
    assert 0.07 < len(search_only) / 2000 < 0.13
    assert len(corpus.js_only) == 100
    assert not corpus.js_only & search_only
    listed = {i for ids in corpus.by_category.values() for i in ids}
    assert listed == {r.id for r in corpus.records} - search_only - corpus.js_only
    assert set(corpus.browsable()) == listed


def test_slugs_are_unique() -> None:
    corpus = generate(3000, 0, CATS)
    assert len({r.slug for r in corpus.records}) == 3000


@pytest.mark.parametrize("word", ["time", "water", "people", "music"])
def test_search_finds_exactly_the_records_containing_the_word(word: str) -> None:
    corpus = generate(1500, 2, CATS)
    expected = {r.id for r in corpus.records if word in tokenize(f"{r.title} {r.description}")}
    hits = corpus.search([word])
    assert set(hits) == expected
    assert len(hits) == len(expected)


def test_search_is_and_ranked_title_first_then_id() -> None:
    corpus = generate(1500, 2, CATS)
    hits = corpus.search(["time", "people"])
    texts = {r.id: tokenize(f"{r.title} {r.description}") for r in corpus.records}
    assert hits
    assert all("time" in texts[i] and "people" in texts[i] for i in hits)
    in_title = [
        sum(w in tokenize(corpus.records[i - 1].title) for w in ("time", "people")) for i in hits
    ]
    keys = [(-t, i) for t, i in zip(in_title, hits, strict=True)]
    assert keys == sorted(keys)


def test_search_with_category_and_dropped_words() -> None:
    corpus = generate(1500, 2, CATS)
    assert corpus.search(["the"], drop=STOP_WORDS) == []
    assert corpus.search(["the", "water"], drop=STOP_WORDS) == corpus.search(["water"])
    in_b = corpus.search(["water"], "b")
    assert in_b
    assert all(corpus.records[i - 1].category == "b" for i in in_b)


def test_faults_every_kind_at_default_size_and_seeded() -> None:
    paths = [f"/p/{i}" for i in range(500)]
    faults = place_faults(paths, 0)
    assert len(faults) == 25
    assert set(faults.values()) == set(FAULTS)
    assert place_faults(paths, 0) == faults
    assert place_faults(paths, 1) != faults


def test_faults_on_a_small_site_still_cover_every_kind() -> None:
    faults = place_faults([f"/p/{i}" for i in range(10)], 5)
    assert sorted(faults.values()) == sorted(FAULTS)


def test_build_site_rejects_bad_names_and_options() -> None:
    with pytest.raises(FixtureError, match=f"valid names: {', '.join(sorted(SITES))}$"):
        build_site("library")
    with pytest.raises(FixtureError, match="records"):
        build_site("books", records=0)
    with pytest.raises(FixtureError, match="seed"):
        build_site("books", seed=-1)


_DIGEST = """
import hashlib
from deepcrawl_fixtures import SITES, build_site
for name in sorted(SITES):
    site = build_site(name, records=300, seed=4, faults=True)
    rs = site.corpus.records
    rows = [(r.title, r.description, r.category, r.date, r.search_only) for r in rs]
    text = repr(rows) + repr(sorted(site.faults.items()))
    print(hashlib.sha256(text.encode()).hexdigest())
"""


def test_data_is_the_same_in_another_process() -> None:
    """Same records and faults whatever the hash seed: the truth needs no server."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", _DIGEST], capture_output=True, text=True, env=env, check=True
    ).stdout.split()
    here = []
    for name in sorted(SITES):
        site = build_site(name, records=300, seed=4, faults=True)
        rows = [
            (r.title, r.description, r.category, r.date, r.search_only) for r in site.corpus.records
        ]
        text = repr(rows) + repr(sorted(site.faults.items()))
        here.append(hashlib.sha256(text.encode()).hexdigest())
    assert out == here


@pytest.mark.slow
def test_hundred_thousand_records_are_quick_to_build_and_serve() -> None:
    """Generation takes seconds; a page costs the same at 100,000 records as at 1,000."""
    import time

    from deepcrawl_fixtures.site import Request, split_url

    def per_page(site: Site) -> float:
        last = site.truth().detail_paths[-1]
        paths = [last, "/search?q=the+water&page=3", "/new?page=90", "/category/art?page=50"]
        for path in paths:  # first visits fill the caches (a query's ranking, a sort order)
            site.handle(Request("GET", *split_url(path)))
        start = time.perf_counter()
        for path in paths * 50:
            kind, response = site.handle(Request("GET", *split_url(path)))
            assert response.status == 200, (kind, path)
        return (time.perf_counter() - start) / 200

    start = time.perf_counter()
    big = build_site("books", records=100_000)
    assert time.perf_counter() - start < 30.0  # ~2.5 s on an idle machine
    assert len(big.truth().detail_paths) == 100_000
    small, large = per_page(build_site("books", records=1_000)), per_page(big)
    assert large < 3 * small + 0.0005  # no per-request scan of the records


def test_intl_site_links_each_record_in_five_spellings_of_one_url() -> None:
    import re

    from deepcrawl_fixtures.site import Request

    from deepcrawl.urls import normalise_url

    site = build_site("intl", records=60)
    host = "xn--bcher-kva.localhost:5"  # what the Host header names
    spellings: set[str] = set()
    for category in site.categories:
        page = f"http://{host}/category/{category}"
        _kind, response = site.handle(Request("GET", f"/category/{category}", host=host))
        for href in re.findall(r"href='([^']*cher[^']*)'", str(response.body)):
            spellings.add(re.sub(r"\d+", "N", href.split("#")[0]))
            url = normalise_url(href, page)
            assert re.fullmatch(rf"http://{host}/b%C3%BCcher/\d+(\?ref=\w+)?", url), href
            assert site.page_kind(url) == "detail"
    assert spellings == {
        "/bücher/N", "/b%CN%BCcher/N", "/b%cN%bccher/./N", "//bücher.localhost:N/bücher/N",
        "http://bücher.localhost:N/b%CN%BCcher/N",
    }  # fmt: skip
