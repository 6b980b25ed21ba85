"""The result-list stop rule of the query loop: evidence scaled with the site, counts refused."""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

import pytest

from deepcrawl.browser.base import Link
from deepcrawl.crawler.queries import QueryLoop, lists_checked_out
from deepcrawl.forms.results import ResultPage
from deepcrawl.keywords.known import KnownTexts
from deepcrawl.settings import Settings

if TYPE_CHECKING:
    from deepcrawl.crawler.context import CrawlContext


def _loop(**crawl: object) -> QueryLoop:
    settings = Settings().with_overrides(crawl=dict(crawl))
    # the stop rule reads the settings and the manager only: no storage, no limiter
    return QueryLoop(cast("CrawlContext", SimpleNamespace(settings=settings)), None)


def test_lists_checked_out_sums_the_latest_lists_until_the_evidence_is_reached() -> None:
    # oldest first; the latest three hold 100 + 100 + 100 records, 2 of them lacking
    checked = [(100, 40), (100, 1), (100, 0), (100, 1)]
    assert lists_checked_out(checked, need=300, share=0.01)  # 2 < 3
    # a fourth list is needed for 400: 42 lacking of 400
    assert not lists_checked_out(checked, need=400, share=0.01)
    assert not lists_checked_out(checked, need=401, share=0.01)  # not enough evidence at all
    assert not lists_checked_out(checked, need=300, share=0.005)  # 2 >= 1.5
    assert not lists_checked_out([], need=1, share=0.5)


def test_the_evidence_grows_with_the_records_known() -> None:
    loop = _loop(stop_checked_records=300, stop_checked_fraction=0.1)
    assert loop.checked_need() == 300  # nothing known: the floor
    loop.observe(f"r{i}" for i in range(10_000))
    assert loop.checked_need() == 1000
    assert _loop(stop_checked_records=0).checked_need() == 0  # the rule is off


def _page(total: int, ids: list[str]) -> ResultPage:
    return ResultPage(
        url="http://site/search?q=w",
        blocks=[f"{total} results for “w”"],
        links=[Link(f"http://site/{rid}") for rid in ids],
    )


@pytest.mark.parametrize(("known", "stops"), [(1_000, True), (10_000, False)])
def test_a_lucky_window_stops_a_small_site_but_not_a_large_one(known: int, stops: bool) -> None:
    """A hand-made tail: lists of 50 records, 19 of 700 lacking, then six lucky lists (300
    records, 2 lacking). The 300 records asked for with 1,000 records known stop the crawl;
    with 10,000 known the rule asks for 1,000, and those lack 21: 2.1%, above 1%."""
    loop = _loop(stop_checked_records=300, stop_checked_fraction=0.1, stop_checked_share=0.01)
    loop.observe(f"r{i}" for i in range(known))
    lacking = [2, 1, 1, 2, 1, 1, 2, 1, 1, 2, 1, 1, 2, 1, 0, 1, 0, 0, 1, 0]  # the last six: lucky
    for n, lack in enumerate(lacking):
        word = "word" + "abcdefghijklmnopqrst"[n]
        for i in range(50 - lack):  # the fetched records holding the word: 50 - lack
            loop.texts.add(f"held-{n}-{i}", word)
        # the first page reports the whole list's total: 50, of which ``lack`` are not held
        loop.pager(word)(_page(50, [f"x{n}"]), 1)
    assert loop.checked_need() == (300 if known == 1_000 else 1_000)
    assert loop.checked_out() is stops


def test_a_word_held_by_more_fetched_records_than_the_search_returns_is_not_counted() -> None:
    texts = KnownTexts()
    for i in range(30):  # "history" labels the history books' pages, which the search ignores
        words = ["history" if i < 20 else "travel", "nothing" if i < 10 else "else"]
        texts.add(f"r{i}", " ".join(words))
    assert texts.unknown_left("nothing", 14, ()) == 4
    assert texts.unknown_left("history", 12, ()) is None  # 20 held, 12 returned: no measure
    assert texts.unknown_left("history", 25, ()) == 5
