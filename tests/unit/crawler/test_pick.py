"""What the crawl says of the records' kind it picked with no example (issue 28)."""

from __future__ import annotations

from deepcrawl.crawler.pick import Pick, PickedKind
from deepcrawl.prototypes import Prototype

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
