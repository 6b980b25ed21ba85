"""A query's parameters, whatever their separator (deepcrawl.urls._query): ``;`` as ``&``
where the query separates its parameters by it, everywhere parameters are read."""

from __future__ import annotations

import random

import pytest

from deepcrawl.prototypes import Prototyper
from deepcrawl.records.identity import query_items
from deepcrawl.records.session_params import url_params
from deepcrawl.safety import SafetyRule
from deepcrawl.search.page_size import with_page_size
from deepcrawl.urls import (
    SessionParams,
    drop_query_keys,
    drop_session_params,
    normalise_url,
    parse_normalised,
    query_pairs,
    query_separator,
    split_query,
    with_ampersands,
)

H = "http://git.example"


@pytest.mark.parametrize(
    ("query", "items", "separator"),
    [
        ("p=r;a=commit;h=ab12", ["p=r", "a=commit", "h=ab12"], ";"),
        ("p=r&a=commit", ["p=r", "a=commit"], "&"),
        ("p=r;a=tree&h=1", ["p=r", "a=tree", "h=1"], "&"),  # mixed: joined by "&"
        ("q=a;b&page=2", ["q=a;b", "page=2"], "&"),  # "b" is no parameter: part of a value
        ("q=a%3Bb;page=2", ["q=a%3Bb", "page=2"], ";"),  # an escaped ";" never separates
        ("q=x;;page=2", ["q=x", "", "page=2"], ";"),
        ("style=a;=b", ["style=a;=b"], "&"),  # a piece without a name is no parameter
    ],
)
def test_a_query_is_split_at_the_separators_it_uses(
    query: str, items: list[str], separator: str
) -> None:
    assert split_query(query) == (items, separator)
    assert query_separator(query) == separator


def test_query_pairs_decode_like_parse_qsl() -> None:
    assert query_pairs("p=my+proj;a=commit;f=a%3Bb") == [
        ("p", "my proj"), ("a", "commit"), ("f", "a;b"),
    ]  # fmt: skip
    assert query_pairs("q=a;b&x=") == [("q", "a;b"), ("x", "")]
    assert query_pairs("q=a;x=", keep_blank_values=False) == [("q", "a")]


def test_the_normal_form_sorts_semicolon_parameters_and_keeps_their_separator() -> None:
    assert normalise_url(f"{H}/?p=r;a=commit;h=ab12") == f"{H}/?a=commit;h=ab12;p=r"
    assert normalise_url(f"{H}/?h=ab12;p=r;a=commit") == f"{H}/?a=commit;h=ab12;p=r"
    # a ";" inside a value stays where it is, and so does an escaped one
    assert normalise_url(f"{H}/?x=1&q=a;b") == f"{H}/?q=a;b&x=1"
    assert normalise_url(f"{H}/?q=a%3bb;x=1") == f"{H}/?q=a%3Bb;x=1"
    assert normalise_url(f"{H}/?q=a%3Bb&x=1") != normalise_url(f"{H}/?q=a;b&x=1")
    # session ids are dropped from such a query too
    assert normalise_url(f"{H}/?p=r;sid=ab12cd34ef;a=tree") == f"{H}/?a=tree;p=r"


def test_the_helpers_over_normal_forms_keep_the_separator() -> None:
    url = normalise_url(f"{H}/?p=r;a=commit;h=ab12")
    tokens = parse_normalised(url)
    assert tokens.query == (("a", "commit"), ("h", "ab12"), ("p", "r"))
    assert tokens.to_url() == url
    assert drop_query_keys(url, lambda key: key == "h") == f"{H}/?a=commit;p=r"
    sessions = SessionParams((), anyway=("h",))
    assert drop_session_params(url, sessions) == f"{H}/?a=commit;p=r"
    assert with_ampersands(url) == f"{H}/?a=commit&h=ab12&p=r"
    assert with_ampersands(f"{H}/?q=a;b&x=1") == f"{H}/?q=a;b&x=1"
    assert query_items(url) == (f"{H}/", ["a=commit", "h=ab12", "p=r"])
    params = {name: rest for name, _value, rest in url_params(url)}
    assert params["h"] == f"{H}/?a=commit;p=r"


def test_a_page_size_is_set_in_the_sites_spelling() -> None:
    assert with_page_size(f"{H}/s?q=tea;page=2", "per_page", 50) == (
        f"{H}/s?q=tea;page=2;per_page=50"
    )


def test_safety_reads_a_semicolon_as_a_separator() -> None:
    rule = SafetyRule()
    assert rule.url_reason(f"{H}/?q=word;a=logout") is not None
    assert rule.url_reason(f"{H}/?p=r;a=commit;h=ab12") is None


#: Views of a repository and the parameters each is written with (gitweb's own): a commit by
#: its hash, a tree by its hash and the commit's, a blob by its file too, a file's blame by the
#: file and the commit only.
_VIEWS = {
    "commit": ("h",),
    "tree": ("h", "hb"),
    "blob": ("f", "h", "hb"),
    "blame": ("f", "hb"),
}


def _repository_urls(views: dict[str, tuple[str, ...]], *, same_object: bool = False) -> list[str]:
    rng = random.Random(4)
    urls = []
    for _ in range(30):
        h = f"{rng.randrange(16**40):040x}"
        project = rng.choice(["alpha.git", "beta.git", "gamma.git", "delta.git"])
        for view, keys in views.items():
            if not same_object:
                h = f"{rng.randrange(16**40):040x}"
            values = {"h": h, "hb": h[::-1], "f": f"src/{h[:6]}.c"}
            items = "".join(f";{key}={values[key]}" for key in keys)
            urls.append(f"{H}/?p={project};a={view}{items}")
    return urls


def test_every_view_of_a_repository_is_a_kind_of_its_own() -> None:
    urls = _repository_urls(_VIEWS)
    prototyper = Prototyper().fit(urls)
    labels = prototyper.predict(urls)
    assert None not in labels
    commit, tree = labels[0], labels[1]
    assert commit != tree
    assert len(set(labels)) == 4
    for p in prototyper.prototypes_:  # a prototype keeps its examples as the site wrote them
        assert p.examples
        assert all(";" in e and p.matches(e) for e in p.examples)
    assert {url.split(";a=")[1].split(";")[0] for url, pid in zip(urls, labels, strict=True)
            if pid == commit} == {"commit"}  # fmt: skip


def test_one_objects_formats_stay_one_kind() -> None:
    """A required key whose every value is another form of the same object (the same other
    items) is a variant, not a kind."""
    urls = _repository_urls({"json": ("h",), "csv": ("h",)}, same_object=True)
    assert len(set(Prototyper().fit_predict(urls))) == 1


def test_values_written_with_the_same_keys_stay_one_kind() -> None:
    """No URL a twin of another is no proof of other objects when every value comes with the
    same keys: a sample may hold one format of each record (``/book/7/export?format=json``),
    and a category beside a product's id (``cat=music&id=7``) is no view of its own."""
    formats = _repository_urls({"json": ("h",), "csv": ("h",)})
    assert len(set(Prototyper().fit_predict(formats))) == 1
    rng = random.Random(5)
    categories = ["music", "toys", "books", "garden", "tools", "sports"]
    items = [f"{H}/item?cat={rng.choice(categories)}&id={rng.randrange(10**4)}" for _ in range(90)]
    assert len(set(Prototyper().fit_predict(items))) == 1
