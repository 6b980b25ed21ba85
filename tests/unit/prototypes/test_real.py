"""The prototyper on URL lists of real web applications, and the rules those lists called for.

``tests/data/real/<app>/urls.tsv`` holds the links a breadth-first walk of a real application
found, each with its page kind read from the application's own store (see the README there). The
prototype of one detail page (``--like``) must hold the detail pages and nothing else.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from deepcrawl.prototypes import Prototyper
from deepcrawl.urls import normalise_url

DATA = Path(__file__).resolve().parents[2] / "data" / "real"
H = "https://wiki.example.org"


def _read(app: str) -> list[tuple[str, str]]:
    rows = (line.split("\t") for line in (DATA / app / "urls.tsv").read_text().splitlines())
    return [(kind, url) for kind, url in rows]


def like_f1(urls: list[str], detail: set[str], like: str) -> float:
    """F1 of the prototype ``like`` falls in, against the detail pages (normal forms)."""
    fitted = Prototyper().fit(urls)
    pid = fitted.matcher_.match(normalise_url(like))
    assert pid is not None
    members = {u for u in map(normalise_url, urls) if fitted.matcher_.match(u) == pid}
    hits = len(members & detail)
    return 2 * hits / (len(members) + len(detail))


@pytest.mark.parametrize(
    ("app", "like"),
    [
        ("roundup", "http://127.0.0.1:23001/tracker/issue17"),
        ("dokuwiki", "http://127.0.0.1:23002/doku.php?id=records:north:meadow_thunder"),
        ("datasette", "http://127.0.0.1:23003/survey/sites/17"),
        ("mediawiki", "http://127.0.0.1:23004/index.php/Bridge_Bridge_Mill"),
    ],
)
def test_the_like_prototype_holds_the_detail_pages_of_a_real_site(app: str, like: str) -> None:
    rows = _read(app)
    detail = {normalise_url(u) for kind, u in rows if kind == "detail"}
    assert normalise_url(like) in detail
    assert like_f1([u for _, u in rows], detail, like) >= 0.98


def _kinds(urls: list[str]) -> dict[str, set[str]]:
    """The URLs of each prototype (normal forms), by prototype id."""
    fitted = Prototyper().fit(urls)
    out: dict[str, set[str]] = {}
    for url, pid in zip(urls, fitted.predict(urls), strict=True):
        assert pid is not None, url
        out.setdefault(pid, set()).add(normalise_url(url))
    return out


def _together(groups: dict[str, set[str]], *patterns: str) -> bool:
    """Whether every URL matching any of the patterns lies in one prototype, alone."""
    wanted = [re.compile(p) for p in patterns]
    hit = [pid for pid, urls in groups.items() if any(w.search(u) for u in urls for w in wanted)]
    return len(hit) == 1 and all(any(w.search(u) for w in wanted) for u in groups[hit[0]])


def test_a_word_before_an_id_is_a_literal_kind() -> None:
    urls = [f"{H}/app/issue{i}" for i in range(1, 300, 3)]
    urls += [f"{H}/app/msg{i}" for i in range(1000, 1400, 3)]
    urls += [f"{H}/app/user{i}" for i in range(1, 12)]
    groups = _kinds(urls)
    assert len(groups) == 3
    for word in ("issue", "msg", "user"):
        assert _together(groups, rf"/app/{word}[0-9]+$")


def test_a_namespace_of_a_query_value_is_a_literal_kind() -> None:
    urls = [f"{H}/doku.php?id=records:{r}:page_{i}" for r in "abcde" for i in range(30)]
    urls += [f"{H}/doku.php?id=news:2024-05-{i:02d}" for i in range(1, 25)]
    urls += [f"{H}/doku.php?id={w}" for w in ("start", "about", "contact")]
    groups = _kinds(urls)
    assert _together(groups, r"id=records:[a-e]:page_[0-9]+$")
    assert _together(groups, r"id=news:")


def test_action_values_and_twins_of_a_page_are_kinds_of_their_own() -> None:
    pages = [f"records:{r}:page_{i}" for r in "abc" for i in range(40)]
    urls = [f"{H}/doku.php?id={p}" for p in pages]
    for action in ("edit", "revisions", "backlink", "recent", "index"):
        urls += [f"{H}/doku.php?id={p}&do={action}" for p in pages[::4]]
    urls += [f"{H}/doku.php?id={p}&rev={1700000000 + i}" for i, p in enumerate(pages[::2])]
    groups = _kinds(urls)
    assert _together(groups, r"\?id=records:[a-c]:page_[0-9]+$")
    for action in ("edit", "revisions", "backlink"):
        assert _together(groups, f"do={action}")
    assert _together(groups, r"&rev=")


def test_mediawiki_views_of_an_article_are_kept_apart() -> None:
    words = ("River", "Stone", "Light", "Garden", "Paper", "Silver", "Window", "Forest")
    titles = [f"{a}_{b}" for a in words for b in words if a != b]
    base = f"{H}/index.php?title="
    urls = [base + t for t in titles]
    for action in ("edit", "history", "info", "raw"):
        urls += [f"{base}{t}&action={action}" for t in titles[::3]]
    urls += [f"{base}{t}&oldid={900 + i}" for i, t in enumerate(titles[::2])]
    urls += [f"{base}{t}&diff=prev&oldid={900 + i}" for i, t in enumerate(titles[::2])]
    groups = _kinds(urls)
    assert _together(groups, r"\?title=[A-Za-z]+_[A-Za-z]+$")
    for view in ("action=edit", "action=history", r"\?oldid=", "diff=prev"):
        assert _together(groups, view)


def test_path_twins_and_extensions_are_kept_apart() -> None:
    names = [f"Station_{i}" for i in range(80)]
    urls = [f"{H}/wiki/{n}" for n in names]
    urls += [f"{H}/_history/{n}" for n in names[::2]]
    urls += [f"{H}/data/{n}" for n in names] + [f"{H}/data/{n}.json" for n in names[::2]]
    urls += [f"{H}/data/{n}.csv" for n in names[::3]]
    groups = _kinds(urls)
    for pattern in (r"/wiki/", r"/_history/", r"/data/Station_[0-9]+$", r"\.json$", r"\.csv$"):
        assert _together(groups, pattern)


def test_an_applications_own_pages_behind_a_sigil_are_kept_apart() -> None:
    # gitit: /_login, /_index, /_random ... (one URL each) beside the wiki's page names
    names = [f"Station%20{w}" for w in ("River", "Stone", "Light", "Garden", "Paper")]
    names = [f"{a}%20{b}" for a in names for b in ("North", "South", "East", "West", "Old")]
    urls = [f"{H}/{n}" for n in names]
    urls += [f"{H}/_{page}" for page in ("login", "logout", "index", "random", "activity")]
    urls += [f"{H}/@{n}" for n in names[:4]]  # discussion pages
    groups = _kinds(urls)
    assert _together(groups, r"/Station%20[A-Za-z]+%20[A-Za-z]+$")
    assert _together(groups, r"/_[a-z]+$")
    assert _together(groups, r"/@Station")


def test_the_like_prototype_of_a_saved_gitit_walk_holds_no_special_page() -> None:
    # the first 320 links of a breadth-first walk of the test bed's gitit (fixtures/real)
    from deepcrawl_fixtures.real.apps.gitit import page_name

    from deepcrawl.prototypes import like_prototype

    urls = [H + path for path in (DATA / "gitit" / "bfs-urls.txt").read_text().split()]
    records = set((DATA / "gitit" / "records.txt").read_text().splitlines())
    found = like_prototype(urls, f"{H}/Ago%20Said%20Canal")
    assert found.members
    wanted = [page_name(url.removeprefix(H)) in records for url in found.members]
    assert not any("/_" in url for url in found.members)
    reached = {page_name(url.removeprefix(H)) for url in found.members} & records
    listed = {page_name(url.removeprefix(H)) for url in urls} & records
    precision, recall = sum(wanted) / len(wanted), len(reached) / len(listed)
    assert 2 * precision * recall / (precision + recall) >= 0.98
