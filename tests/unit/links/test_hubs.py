"""The hub scout's yield decision: which kind of non-wanted page is worth a request, and when
it stops being worth one (:mod:`deepcrawl.links.hubs`)."""

from __future__ import annotations

from typing import Any

import pytest

from deepcrawl.keywords.outcome import QueryOutcome
from deepcrawl.links.hubs import HubScout, query_yield

TOPIC, HOME, TWIN = "site/topics/slug?", "site//?", "site/notes/slug?"


def _outcome(new: int, cost: int) -> QueryOutcome:
    return QueryOutcome("w", results=10, new=new, cost=cost, total_results=None, error=None,
                        reached=0)  # fmt: skip


def _notes_site(scout: HubScout, notes: int = 6) -> None:
    """Notes of a folder, each linking its plain-text twin, the home page and one of two topic
    pages (the ht://Dig layout, as URL lists)."""
    for i in range(notes):
        scout.see(
            f"/notes/{i}.html",
            [
                (f"/notes/{i}.txt", TWIN),
                ("/", HOME),
                (f"/topics/{'ab'[i % 2]}.html", TOPIC),
            ],
        )


def _scout(max_kinds: int = 2, **options: Any) -> HubScout:
    return HubScout(max_kinds, **options)


def test_query_yield_is_new_records_a_request_over_the_window() -> None:
    history = [_outcome(30, 3), _outcome(2, 2), _outcome(0, 1), _outcome(1, 1)]
    assert query_yield(history, 3) == pytest.approx(3 / 4)
    assert query_yield(history, 0) == pytest.approx(33 / 7)
    assert query_yield([], 10) is None


def test_no_kind_is_tried_before_a_member_is_linked_from_enough_pages() -> None:
    scout = _scout(min_inlinks=3)
    _notes_site(scout, notes=2)  # the home page linked twice, each topic once
    assert scout.next_hub(0.5) is None
    _notes_site(scout, notes=3)  # a third note links the home page
    assert scout.next_hub(0.5) == "/"


def test_a_family_of_lists_is_tried_before_the_one_page_every_page_links_to() -> None:
    scout = _scout(min_inlinks=2)
    _notes_site(scout)  # home linked 6 times, topics a and b 3 times each
    url = scout.next_hub(0.5)
    assert url in {"/topics/a.html", "/topics/b.html"}


def test_a_kind_that_brings_nothing_is_dropped_and_the_paying_kind_read_to_its_end() -> None:
    scout = _scout(min_inlinks=2)
    scout.see("/notes/1.html", [("/", HOME), ("/topics/a.html", TOPIC)])
    scout.see("/notes/2.html", [("/", HOME), ("/topics/b.html", TOPIC)])
    assert scout.next_hub(0.5) == "/"  # no topic linked twice yet: the home page is tried
    assert scout.next_hub(0.5) is None  # one trial at a time
    scout.record("/", 0)  # it lists topics, no note
    scout.see("/", [(f"/topics/{t}.html", TOPIC) for t in "abc"])
    first = scout.next_hub(0.5)
    assert first in {"/topics/a.html", "/topics/b.html"}  # two links each, c one
    scout.record(first, 12)
    assert scout.kinds[HOME].dropped
    rest = []
    while (url := scout.next_hub(0.5)) is not None:
        rest.append(url)
        scout.record(url, 10)
    assert sorted([first, *rest]) == ["/topics/a.html", "/topics/b.html", "/topics/c.html"]
    assert not scout.kinds[TOPIC].dropped


def test_a_kind_is_not_read_while_the_queries_bring_more() -> None:
    scout = _scout(min_inlinks=2)
    _notes_site(scout)
    scout.read_already("/", HOME, 0)
    url = scout.next_hub(0.5)
    assert url is not None
    assert url.startswith("/topics/")
    scout.record(url, 8)
    assert scout.next_hub(9.0) is None  # a result page brings 9: the topics do not beat it
    assert scout.kinds[TOPIC].dropped
    assert scout.next_hub(0.5) is None  # dropped for good


def test_a_kind_that_stops_paying_is_dropped() -> None:
    scout = _scout(min_inlinks=1, window=2)
    scout.see("/notes/1.html", [(f"/topics/{i}.html", TOPIC) for i in range(6)])
    yields = iter([20, 15, 1, 0, 30, 30])
    read = []
    while (url := scout.next_hub(2.0)) is not None:
        read.append(url)
        scout.record(url, next(yields))
    # 20, 15 pay; (15 + 1) / 2 = 8 still does; (1 + 0) / 2 does not: the last two are not read
    assert len(read) == 4
    assert scout.kinds[TOPIC].dropped


def test_hub_min_yield_holds_when_no_query_competes() -> None:
    scout = _scout(min_inlinks=1, min_yield=5.0)
    scout.see("/notes/1.html", [("/topics/a.html", TOPIC), ("/topics/b.html", TOPIC)])
    url = scout.next_hub(None)
    assert url is not None
    scout.record(url, 4)
    assert scout.next_hub(None) is None


def test_the_kinds_tried_are_capped() -> None:
    scout = _scout(min_inlinks=1, max_kinds=2)
    scout.see("/notes/1.html", [(f"/{k}/x", f"site/{k}/slug?") for k in "abcd"])
    tried = []
    while (url := scout.next_hub(0.5)) is not None:
        tried.append(url)
        scout.record(url, 0)
    assert len(tried) == 2
    assert len(scout.tried) == 2


def test_a_page_read_before_counts_as_a_trial_of_its_kind() -> None:
    scout = _scout(min_inlinks=1, max_kinds=1)
    _notes_site(scout)
    scout.read_already("/topics/a.html", TOPIC, 3)
    assert scout.next_hub(0.5) == "/topics/b.html"  # the kind read on; a is not fetched again
    scout.record("/topics/b.html", 3)
    assert scout.next_hub(0.5) is None  # no member left; no other kind may be tried


def test_a_page_read_before_is_no_candidate() -> None:
    scout = HubScout(2, min_inlinks=2, read=["/"])
    _notes_site(scout)
    url = scout.next_hub(0.5)
    assert url is not None
    assert url.startswith("/topics/")  # the start page, linked from every note, is not tried


def test_a_page_linking_one_member_twice_counts_once() -> None:
    scout = _scout(min_inlinks=2)
    scout.see("/notes/1.html", [("/topics/a.html", TOPIC), ("/topics/a.html", TOPIC)])
    assert scout.next_hub(0.5) is None


def test_off_once_every_kind_tried_is_dropped() -> None:
    scout = _scout(min_inlinks=1, max_kinds=1)
    scout.see("/notes/1.html", [("/topics/a.html", TOPIC), ("/topics/b.html", TOPIC)])
    scout.record(scout.next_hub(0.5) or "", 0)
    assert scout.enabled  # the trial is not judged yet
    assert scout.next_hub(0.5) is None
    assert not scout.enabled  # its kind dropped, and no other may be tried: links go uncounted
    scout.see("/notes/2.html", [("/x/y", "site/x/slug?")])
    assert "site/x/slug?" not in scout.kinds


def test_off_with_no_kind_allowed() -> None:
    scout = _scout(max_kinds=0)
    _notes_site(scout)
    assert not scout.enabled
    assert scout.next_hub(0.0) is None
    assert scout.kinds == {}
