"""What the crawl says of the records' kind it picked with no example (issue 28)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING

import pytest

from deepcrawl.classify.layout import LayoutCheck, Widening, layout_of
from deepcrawl.page.fetched import FetchedPage
from deepcrawl.prototypes import LabelSession, Prototype, ShownLink
from deepcrawl.records.like import LikeLayout
from deepcrawl.records.pick import Pick, PickedKind, _join_siblings
from deepcrawl.storage import Repository

if TYPE_CHECKING:
    from pathlib import Path

H = "https://h.com"


def _kind(
    path: str, records: int, entries: int, agreement: float | None = 0.9, estimated: float = 0
) -> PickedKind:
    prototype = Prototype(rf"https://h\.com/{path}/[0-9]+")
    return PickedKind((prototype,), f"/{path}/‹number›", f"{H}/{path}/7", records,
                      estimated or records, entries, agreement)  # fmt: skip


def test_the_message_names_the_kind_its_share_its_layout_and_the_runner_up() -> None:
    ticket, wiki = _kind("ticket", 200, 250, estimated=400.4), _kind("wiki", 30, 450)
    pick = Pick((ticket,), (wiki,), 700, 0.9)
    assert not pick.tie
    assert pick.message() == (
        "records picked with no example: /ticket/‹number› — 200 distinct records seen (about "
        "400), 36% of the result entries, layout agreement 0.90; runner-up /wiki/‹number› (30 "
        "records): --like https://h.com/wiki/7"
    )
    assert round(pick.confidence, 3) == round((1 - 30 / 400.4) * 0.9, 3)
    data = pick.to_dict()
    assert data["kind"] == "/ticket/‹number›"
    assert data["like"] == f"{H}/ticket/7"
    assert data["runner_up"]["like"] == f"{H}/wiki/7"
    assert data["tie"] is False


def test_two_kinds_within_a_tenth_tie_and_both_are_named() -> None:
    pick = Pick((_kind("case", 120, 130),), (_kind("kb", 110, 120),), 250, 0.9)
    assert pick.tie
    message = pick.message()
    assert "two kinds tie: /case/‹number› (120 records) and /kb/‹number› (110 records)" in message
    assert "--like https://h.com/kb/7" in message
    assert "--records all" in message
    assert pick.to_dict()["tie"] is True


def test_a_lone_kind_not_compared_says_so() -> None:
    pick = Pick((_kind("item", 50, 60, agreement=None),), (), 60, 0.9)
    assert pick.runner_up is None
    assert not pick.tie
    assert pick.confidence == 0.5
    assert pick.message().endswith(
        "layout agreement not compared; no other kind looks like records"
    )


RECORD = (
    "<html><head><title>{t}</title></head><body><nav><a href='/'>Home</a></nav><main>"
    "<h1>{t}</h1><p>Written by someone about {t} at length.</p><dl><dt>Place</dt><dd>Leeds</dd>"
    "<dt>Year</dt><dd>1901</dd></dl></main><footer>About this wiki</footer></body></html>"
)
INDEX = "<html><body><ul>" + "".join(f"<li><a href='/b/{i}'>{i}</a></li>" for i in range(30))
INDEX += "</ul><table><tr><td>1</td><td>2</td></tr></table></body></html>"


async def test_a_sibling_whose_typical_page_looks_like_the_example_joins_the_kind(
    tmp_path: Path,
) -> None:
    with Repository.open(f"sqlite:///{tmp_path / 'db.sqlite'}") as repo:
        site = repo.site(f"{H}/")
        links: list[ShownLink] = []
        for q in range(4):  # /a/ and /b/ hold records; /b/start shows for every word
            links += [(q, f"{H}/a/r{q}-{i}", f"A {q} {i}", "result") for i in range(5)]
            links += [(q, f"{H}/b/r{q}-{i}", f"B {q} {i}", "result") for i in range(5)]
            links.append((q, f"{H}/b/start", "B index", "result"))
        session = LabelSession.learn(repo, site.id, [url for _q, url, _t, _r in links])
        own = session.like(f"{H}/a/r0-0")
        session.label(own.id, "a", relevant=True)
        reference = layout_of(RECORD.format(t="A zero"))
        layout = LikeLayout(LayoutCheck(f"{H}/a/r0-0", own, reference=reference),
                            Widening(f"{H}/a/r0-0"))  # fmt: skip
        asked: list[str] = []

        async def fetch(url: str, body: str) -> FetchedPage:
            asked.append(url)
            return FetchedPage(url, url, 200, "text/html", body)

        sibling = session.like(f"{H}/b/r1-1")
        alike = await _join_siblings(
            session, layout, links, {}, lambda url: fetch(url, RECORD.format(t="B one"))
        )
        assert alike == [sibling]
        assert asked == [f"{H}/b/r0-0"]  # a typical page of it, not its index shown for every word
        assert session.labels()[sibling.id] == ("a", True)
        session.unlabel([sibling.id])
        assert await _join_siblings(session, layout, links, {}, lambda u: fetch(u, INDEX)) == []
        # its typical link is its index (as few queries show it as a record): the next one
        # shown, a record, joins it
        asked.clear()

        async def index_first(url: str) -> FetchedPage:
            return await fetch(url, RECORD.format(t="B two") if asked else INDEX)

        assert await _join_siblings(session, layout, links, {}, index_first) == [sibling]
        assert len(asked) == 2


async def test_the_kinds_are_judged_on_the_urls_their_records_are_known_by(
    tmp_path: Path,
) -> None:
    # every result link echoes the query (``;hl=word``), a parameter learnt to be no part of
    # the record's URL: the prototypes were learnt from the URLs without it, and so is the pick
    from deepcrawl.records.pick import pick_records
    from deepcrawl.urls import normalise_url

    words = ["river", "castle", "falcon", "copper"]
    queries = [
        SimpleNamespace(
            row=SimpleNamespace(id=q, submitted_url=f"{H}/search?q={w}", keyword=w),
            links=[
                (f"{H}/entry?id={q * 10 + i};hl={w}", f"Entry {w} {i}", "result") for i in range(6)
            ],
        )
        for q, w in enumerate(words)
    ]

    def known(url: str) -> str:
        return normalise_url(url.split(";hl=")[0])

    async def fetch(url: str) -> FetchedPage:
        return FetchedPage(url, url, 200, "text/html", RECORD.format(t=url[-2:]))

    with Repository.open(f"sqlite:///{tmp_path / 'db.sqlite'}") as repo:
        site = repo.site(f"{H}/")
        urls = [known(u) for q in queries for u, _t, _r in q.links]
        session = LabelSession.learn(repo, site.id, urls)
        assert await pick_records(queries, session, fetch) is None  # type: ignore[arg-type]
        pick = await pick_records(queries, session, fetch, record_url=known)  # type: ignore[arg-type]
    assert pick is not None
    assert pick.taken[0].records == 24


def _site_wide(words: list[str]) -> list[SimpleNamespace]:
    """Result lists of a site-wide search: per word, six change notes and four records."""
    return [
        SimpleNamespace(
            row=SimpleNamespace(id=q, submitted_url=f"{H}/search?q={w}", keyword=w),
            links=[(f"{H}/changes/{q * 10 + i}", f"Change {w} {i}", "result") for i in range(6)]
            + [(f"{H}/doc?id={q * 10 + i}", f"Record {w} {i}", "result") for i in range(4)],
        )
        for q, w in enumerate(words)
    ]


FIELDED = (
    "<html><body><main><h1>{n}</h1><dl><dt>Number</dt><dd>{n}</dd><dt>Date</dt><dd>200{n}</dd>"
    "</dl></main></body></html>"
)
PROSE = "<html><body><main><h1>{n}</h1><p>Changed {n} things.</p></main></body></html>"


@pytest.mark.parametrize("fielded", [True, False])
async def test_a_rival_whose_pages_show_record_fields_is_taken_before_prose(
    tmp_path: Path, fielded: bool
) -> None:
    # a site-wide search lists change notes beside the records, and more of them: the records'
    # pages show their fields (number, date), the notes' prose
    from deepcrawl.records.pick import pick_records

    queries = _site_wide(["river", "castle", "falcon", "copper"])

    async def fetch(url: str) -> FetchedPage:
        number = url.rsplit("=", 1)[-1].rsplit("/", 1)[-1]
        body = FIELDED if "/doc" in url and fielded else PROSE
        return FetchedPage(url, url, 200, "text/html", body.format(n=number))

    with Repository.open(f"sqlite:///{tmp_path / 'db.sqlite'}") as repo:
        site = repo.site(f"{H}/")
        session = LabelSession.learn(repo, site.id, [u for q in queries for u, _t, _r in q.links])
        pick = await pick_records(queries, session, fetch)  # type: ignore[arg-type]
    assert pick is not None
    assert pick.fielded is fielded
    assert pick.runner_up is not None
    if fielded:
        assert pick.first.shape.startswith("/doc")
        assert pick.first.fields == ("date", "number")
        assert pick.runner_up.fields == ()
        assert "its pages showing the record fields date, number that /changes/" in pick.message()
        assert not pick.tie
        assert pick.confidence > 0.5
    else:
        assert pick.first.shape.startswith("/changes")
