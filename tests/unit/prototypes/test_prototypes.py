"""The probabilistic string prototyper (deepcrawl.prototypes): markParts, refinement, matcher."""

from __future__ import annotations

import random
import re

import pytest

from deepcrawl.prototypes import Prototype, PrototypeMatcher, Prototyper, prototype_id
from deepcrawl.urls import normalise_url

H = "https://www.example.com"


def _amazon(rng: random.Random) -> list[str]:
    urls = []
    for i in range(300):
        urls.append(f"http://www.amazon.com/t-{i}/dp/B{rng.randrange(10**8):08d}?ie=UTF8&sr={i}")
        urls.append(
            f"http://www.amazon.com/s-{i}/product-reviews/B{rng.randrange(10**8):08d}?ie=UTF8"
        )
    for i in range(80):
        urls.append(f"http://www.amazon.com/gp/offer-listing/ref=olp?ie=UTF8&sr={i}&condition=new")
        urls.append(f"http://www.amazon.com/gp/offer-listing/ref=olp?ie=UTF8&sr={i}&condition=used")
    return urls


def _by_regex(prototyper: Prototyper) -> dict[str, Prototype]:
    return {p.regex: p for p in prototyper.prototypes_}


def _assert_partition(prototyper: Prototyper, urls: list[str]) -> None:
    """Every URL fullmatches exactly one prototype, the one the matcher names."""
    compiled = [(p.id, re.compile(p.regex)) for p in prototyper.prototypes_]
    for url in urls:
        normal = normalise_url(url)
        hits = [pid for pid, rx in compiled if rx.fullmatch(normal)]
        assert len(hits) == 1, (normal, hits)
        assert prototyper.matcher_.match(normal) == hits[0]


def test_table_1_of_the_paper_is_found() -> None:
    urls = _amazon(random.Random(0))
    fitted = Prototyper(split_required_query_keys=True).fit(urls)
    assert len(fitted.prototypes_) == 4
    coverage = sorted(round(p.coverage, 2) for p in fitted.prototypes_)
    assert coverage == [0.11, 0.11, 0.39, 0.39]
    regexes = [p.regex for p in fitted.prototypes_]
    assert any("/dp/" in r and "sr=[0-9]+" in r for r in regexes)
    assert any("product-reviews" in r for r in regexes)
    assert any("condition=new" in r for r in regexes)
    assert any("condition=used" in r for r in regexes)
    _assert_partition(fitted, urls)


def test_required_query_keys_do_not_split_by_default() -> None:
    fitted = Prototyper().fit(_amazon(random.Random(0)))
    assert len(fitted.prototypes_) == 3
    assert any("condition=[A-Za-z0-9]+" in p.regex for p in fitted.prototypes_)


def test_an_optional_mode_key_splits_but_variant_keys_do_not() -> None:
    urls = [f"{H}/item?id={i}" for i in range(60)]
    urls += [f"{H}/item?id={i}&view=print" for i in range(40)]
    urls += [f"{H}/item?id={i}&utm_source=mail&sid=abc{i}" for i in range(30)]
    urls += [f"{H}/item?id={i}&page=2&sort=price" for i in range(30)]
    fitted = Prototyper().fit(urls)
    assert sorted(p.count for p in fitted.prototypes_) == [40, 120]
    printed = next(p for p in fitted.prototypes_ if p.count == 40)
    assert "view=print" in printed.regex
    assert "split on view=print" in printed.how
    _assert_partition(fitted, urls)
    flat = Prototyper(query_split_max_values=0).fit(urls)
    assert len(flat.prototypes_) == 1


def test_typed_wildcards() -> None:
    rng = random.Random(1)
    urls = [f"{H}/item/{rng.randrange(10**6)}" for _ in range(50)]
    urls += [f"{H}/blob/{rng.randrange(16**32):032x}" for _ in range(50)]
    urls += [
        f"{H}/day/20{rng.randrange(10, 30)}-0{rng.randrange(1, 9)}-1{rng.randrange(9)}"
        for _ in range(50)
    ]
    urls += [
        f"{H}/wiki/{rng.choice('abc')}{rng.randrange(99)}-x_{rng.randrange(9)}" for _ in range(50)
    ]
    regexes = [p.regex for p in Prototyper().fit(urls).prototypes_]
    assert r"https://www\.example\.com/item/[0-9]+/?" in regexes
    assert r"https://www\.example\.com/blob/[0-9a-fA-F]+/?" in regexes
    assert r"https://www\.example\.com/day/[0-9]{4}-[0-9]{2}-[0-9]{2}/?" in regexes
    assert r"https://www\.example\.com/wiki/[A-Za-z0-9\-._~%+]+/?" in regexes


def test_optional_query_keys_do_not_make_new_prototypes() -> None:
    urls = [f"{H}/search?q=w{i}" for i in range(40)]
    urls += [f"{H}/search?q=w{i}&page={i % 7 + 2}" for i in range(40)]
    urls += [f"{H}/search?sort=price&q=w{i}" for i in range(5)]
    urls += [f"{H}/search?utm_source=mail&q=w{i}" for i in range(2)]
    fitted = Prototyper().fit(urls)
    assert len(fitted.prototypes_) == 1
    regex = fitted.prototypes_[0].regex
    assert re.fullmatch(regex, normalise_url(f"{H}/search?page=3&q=zz&sort=price"))
    assert not re.fullmatch(regex, normalise_url(f"{H}/search?page=3"))  # q is required
    assert "query: page, sort, utm_source optional" in fitted.prototypes_[0].how


def test_literal_siblings_of_one_shape_are_merged_into_a_wildcard() -> None:
    cats = ["fiction", "history", "science", "poetry", "travel", "art"]
    urls = [f"{H}/category/{c}?page={p}" for c in cats for p in range(1, 8)]
    fitted = Prototyper().fit(urls)
    assert len(fitted.prototypes_) == 1
    assert "merged" in fitted.prototypes_[0].how


def test_few_literal_siblings_stay_separate_kinds() -> None:
    urls = [f"{H}/book/{i}/{v}" for i in range(30) for v in ("print", "export", "reviews")]
    fitted = Prototyper().fit(urls)
    assert len(fitted.prototypes_) == 3


def test_shapes_split_a_segment_that_mixes_two_kinds() -> None:
    urls = [f"{H}/book-{i}" for i in range(40)] + [f"{H}/author-{i}" for i in range(30)]
    urls += [f"{H}/{i}.html" for i in range(30)]
    fitted = Prototyper().fit(urls)
    assert len(fitted.prototypes_) == 3
    assert {p.count for p in fitted.prototypes_} == {40, 30}
    _assert_partition(fitted, urls)


def test_rare_words_of_a_closed_vocabulary_stay_literal() -> None:
    urls = [f"{H}/book/{i}" for i in range(200)] + [f"{H}/login", f"{H}/about", f"{H}/"]
    fitted = Prototyper().fit(urls)
    regexes = {p.regex for p in fitted.prototypes_}
    assert len(regexes) == 4
    assert any(r.endswith("/login/?") for r in regexes)


def test_trailing_slash_is_folded() -> None:
    urls = [f"{H}/book/{i}" for i in range(20)] + [f"{H}/book/{i}/" for i in range(5)]
    fitted = Prototyper().fit(urls)
    assert len(fitted.prototypes_) == 1
    unfolded = Prototyper(fold_trailing_slash=False).fit(urls)
    assert len(unfolded.prototypes_) == 2


def test_siblings_exclude_each_other_so_the_most_specific_wins() -> None:
    urls = [f"{H}/p/{w}?page={i}" for w in ("new", "top") for i in range(20)]
    urls += [f"{H}/p/x{i}y?page=1" for i in range(100)]
    fitted = Prototyper().fit(urls)
    assert len(fitted.prototypes_) == 3
    _assert_partition(fitted, urls)
    wildcard = next(p for p in fitted.prototypes_ if p.count == 100)
    assert not re.fullmatch(wildcard.regex, f"{H}/p/new?page=1")
    assert re.fullmatch(wildcard.regex, f"{H}/p/newer?page=1")


def test_fit_is_blind_to_input_order_and_duplicates() -> None:
    urls = _amazon(random.Random(3))
    shuffled = urls * 2
    random.Random(4).shuffle(shuffled)
    a = [(p.regex, p.count) for p in Prototyper().fit(urls).prototypes_]
    b = [(p.regex, p.count) for p in Prototyper().fit(shuffled).prototypes_]
    assert a == b


def test_invalid_urls_are_counted_and_predicted_as_none() -> None:
    urls = [f"{H}/a/{i}" for i in range(10)] + ["mailto:x@y.z", "http://bad host/"]
    fitted = Prototyper().fit(urls)
    assert fitted.n_invalid_ == 2
    assert fitted.n_urls_ == 10
    assert len(fitted.invalid_) == 2
    pid = fitted.prototypes_[0].id
    assert fitted.predict([f"{H}/a/99", f"{H}/b/1", "javascript:void(0)"]) == [pid, None, None]
    assert fitted.fit_predict(urls)[:2] == [pid, pid]
    assert fitted.prototype(pid).count == 10
    with pytest.raises(KeyError):
        fitted.prototype("nope")


def test_relative_urls_are_resolved_against_the_base() -> None:
    fitted = Prototyper().fit([f"/x/{i}" for i in range(5)], base=H)
    assert fitted.prototypes_[0].examples[0].startswith(H + "/x/")


def test_examples_and_coverage() -> None:
    urls = [f"{H}/a/{i}" for i in range(30)] + [f"{H}/b/{i}" for i in range(10)]
    fitted = Prototyper(max_examples=3).fit(urls)
    a, b = fitted.prototypes_
    assert (a.count, b.count) == (30, 10)
    assert (a.coverage, b.coverage) == (0.75, 0.25)
    assert len(a.examples) == 3
    assert all(re.fullmatch(a.regex, e) for e in a.examples)


def test_prototype_ids_are_stable_and_dicts_round_trip() -> None:
    p = Prototype(regex=r"https://a\.com/x/[0-9]+", count=3, coverage=0.5, examples=("e",), how="h")
    assert p.id == prototype_id(p.regex) == Prototype(regex=p.regex).id
    assert p.id.startswith("p")
    assert len(p.id) == 11
    assert Prototype.from_dict(p.to_dict()) == p
    assert p.matches("https://a.com/x/12")
    assert not p.matches("https://a.com/x/12/")


def test_matcher_tries_prototypes_without_dispatch_hints_last() -> None:
    specific = Prototype(
        regex=r"https://a\.com/x/[0-9]+", origin="https://a.com", depth=2, head="x"
    )
    loose = Prototype(regex=r"https://a\.com/.*")
    matcher = PrototypeMatcher([loose, specific])
    assert matcher.match("https://a.com/x/1") == specific.id
    assert matcher.match("https://a.com/y") == loose.id
    assert matcher.match("https://b.com/y") is None
    assert matcher.match_many(["https://a.com/x/1"]) == [specific.id]
    assert matcher.predict(["HTTPS://A.COM/x/1#f", "nonsense"]) == [specific.id, None]


def test_nested_folders_are_one_prototype() -> None:
    urls = [f"{H}/admin/"] + [f"{H}/admin/s-{i}/" for i in range(4)]
    urls += [f"{H}/admin/s-{i}/s-{j}/" for i in range(4) for j in range(4)]
    urls += [f"{H}/book/{i}" for i in range(30)]
    fitted = Prototyper().fit(urls)
    assert len(fitted.prototypes_) == 2
    nested = next(p for p in fitted.prototypes_ if "admin" in p.regex)
    assert nested.count == 21
    assert nested.depth is None
    assert "nested folders" in nested.how
    assert fitted.matcher_.match(f"{H}/admin/s-9/s-9/s-9/") == nested.id
    flat = Prototyper(nested_folders=False).fit(urls)
    assert len(flat.prototypes_) == 4
    _assert_partition(fitted, urls)


def test_unseen_tracking_keys_do_not_hide_a_urls_prototype() -> None:
    fitted = Prototyper().fit([f"{H}/item?id={i}" for i in range(20)])
    pid = fitted.prototypes_[0].id
    assert fitted.prototypes_[0].keys == ("id",)
    assert fitted.predict([f"{H}/item?id=5&utm_campaign=x&sid=1"]) == [pid]
    assert fitted.predict([f"{H}/item?id=5&colour=red"]) == [None]  # an unknown real key


def test_fitting_nothing_gives_no_prototypes() -> None:
    for urls in ([], ["mailto:a@b.c", "not a url"]):
        fitted = Prototyper().fit(urls)
        assert fitted.prototypes_ == ()
        assert fitted.n_urls_ == 0
        assert fitted.predict([f"{H}/a"]) == [None]
