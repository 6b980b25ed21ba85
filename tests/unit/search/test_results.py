"""Judging result pages without a browser: messages, counts, pagination, chrome, outcomes."""

from __future__ import annotations

import pytest

from deepcrawl.page.fetched import Link
from deepcrawl.search.judge import Judge, classify_links
from deepcrawl.search.pagination import brings_new_links, next_page, page_number_of, pager_urls
from deepcrawl.search.results import (
    ChromeFilter,
    Clickable,
    QueryResult,
    ResultLink,
    ResultPage,
    error_marker,
    no_results_marker,
    page_signature,
    total_results,
)

BASE = "http://shop.test"
HOME = Link(f"{BASE}/", "Home", dom_path="html/body/header/a[1]")
ABOUT = Link(f"{BASE}/about", "About", dom_path="html/body/footer/a")


def record(i: int, word: str = "tea") -> Link:
    return Link(f"{BASE}/item/{i}", f"{word} item {i}", dom_path=f"html/body/main/ol/li[{i}]/a")


def page(url: str, *links: Link, blocks: tuple[str, ...] = (), status: int = 200) -> ResultPage:
    return ResultPage(url=url, status=status, title="Shop", blocks=list(blocks), links=list(links))


@pytest.mark.parametrize(
    "text",
    [
        "No results for “tea”.",
        "No results: your search contained only common words.",
        "Sorry, no products match “tea”.",
        "No articles match your search.",
        "Your search - tea - did not match any documents.",
        "0 results found",
        "Nothing found.",
        "We couldn't find anything for tea",
    ],
)
def test_no_results_messages_are_recognised(text: str) -> None:
    assert no_results_marker(page(BASE, blocks=("Search", text))) == text


@pytest.mark.parametrize(
    "text", ["10 results for tea", "Tea and no results about it", "Results 1-10 of 37", "Sorry"]
)
def test_ordinary_texts_are_not_no_results_messages(text: str) -> None:
    assert no_results_marker(page(BASE, blocks=(text,))) is None


def test_error_pages_by_status_and_by_heading() -> None:
    assert error_marker(page(BASE, status=503)) == "HTTP status 503"
    oops = page(BASE, blocks=("Something went wrong", "Please try again later."))
    assert "went wrong" in (error_marker(oops) or "")
    assert error_marker(page(BASE, blocks=("37 results for error",))) is None


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("37 results for “tea”, page 1", 37),
        ("1,204 products", 1204),
        ("Results 1–10 of 2,048", 2048),
        ('115 rows where search matches "nonprofit"', 115),  # Datasette
    ],
)
def test_total_results_reads_the_reported_count(text: str, count: int) -> None:
    assert total_results(page(BASE, blocks=(text,))) == count


def test_next_page_prefers_rel_then_text_then_numbers_then_buttons() -> None:
    here = f"{BASE}/search?q=tea"
    rel = Link(f"{BASE}/search?q=tea&page=2", "→", rel="next")
    text = Link(f"{BASE}/search?q=tea&page=2", "Next »")
    number = Link(f"{BASE}/search?q=tea&page=2&sid=9", "2")
    other = Link(f"{BASE}/category/2", "2")
    assert next_page(page(here, rel, text), 1, ()).how == "rel"  # type: ignore[union-attr]
    assert next_page(page(here, text), 1, ()).how == "text"  # type: ignore[union-attr]
    turn = next_page(page(here, other, number), 1, ())
    assert turn is not None
    assert (turn.how, turn.url) == ("number", number.url)
    assert next_page(page(here, other), 1, ()) is None
    more = page(here)
    more.clickables = [Clickable("main > button", "Load more", "more")]
    turn = next_page(more, 1, ())
    assert turn is not None
    assert (turn.kind, turn.locator) == ("more", "main > button")
    assert next_page(page(here, text), 1, {text.url}) is None  # never the same page twice


def test_pager_links_and_page_numbers() -> None:
    here = f"{BASE}/search"
    links = [
        Link(f"{BASE}/search?keywords=tea&page=1&sid=1", "1"),
        Link(f"{BASE}/search?keywords=tea&page=2&sid=1", "2"),
        Link(f"{BASE}/search?keywords=tea&page=2&sid=1", "Next »", rel="next"),
        Link(f"{BASE}/search?keywords=tea&page=1&sid=1", "« Previous"),
        record(1),
    ]
    assert pager_urls(page(here, *links)) == {links[0].url, links[1].url}
    assert page_number_of(links[1].url) == 2
    assert page_number_of(record(1).url) is None


def test_paging_goes_on_while_the_last_page_brings_a_link_not_shown_before() -> None:
    here = f"{BASE}/search"
    first = page(here, HOME, record(1), record(2))
    assert brings_new_links([first])
    assert brings_new_links([first, page(f"{here}?page=2", HOME, record(2), record(3))])
    assert not brings_new_links([first, page(f"{here}?page=2", HOME, record(2))])
    assert not brings_new_links([first, page(f"{here}?page=2")])


def test_chrome_from_a_baseline_and_from_recurrence() -> None:
    chrome = ChromeFilter(min_queries=3, share=0.9)
    chrome.learn_baseline([HOME])
    moved = Link(f"{BASE}/?sid=other", "Home", dom_path=HOME.dom_path)
    assert chrome.is_chrome(moved)  # same place and text, another session id
    assert not chrome.is_chrome(ABOUT)
    for word in ("tea", "salt", "rice"):
        chrome.observe({ChromeFilter.key(ABOUT), ChromeFilter.key(record(1, word))})
    assert chrome.is_chrome(ABOUT)
    assert not chrome.is_chrome(record(1, "tea"))


def test_classify_links_roles_and_first_page() -> None:
    chrome = ChromeFilter()
    chrome.learn_baseline([HOME])
    first = page(f"{BASE}/search?q=tea", HOME, record(1), Link(f"{BASE}/search?q=tea&page=2", "2"))
    second = page(f"{BASE}/search?q=tea&page=2", HOME, record(1), record(2))
    links = classify_links([first, second], chrome)
    roles = {link.url: (link.role, link.page) for link in links}
    assert roles[HOME.url] == ("chrome", 1)
    assert roles[record(1).url] == ("result", 1)
    assert roles[record(2).url] == ("result", 2)
    assert roles[f"{BASE}/search?q=tea&page=2"] == ("pager", 1)
    assert len(links) == 4


def test_judge_outcomes_against_an_empty_baseline() -> None:
    judge = Judge()
    nonsense = page(f"{BASE}/search?q=xq", HOME, ABOUT, blocks=("No results for xq",))
    base = judge.learn_baseline("xq", nonsense, {ChromeFilter.key(HOME)})
    assert base.empty
    assert base.error is None
    ok = QueryResult(keyword="tea")
    judge.judge(ok, [page(f"{BASE}/search?q=tea", HOME, ABOUT, record(1), record(2))], cap=5)
    assert ok.outcome == "ok"
    assert ok.result_urls == [record(1).url, record(2).url]
    assert ok.result_texts()[record(1).url] == "tea item 1"
    silent = QueryResult(keyword="salt")  # an empty list without any message
    judge.judge(silent, [page(f"{BASE}/search?q=salt", HOME, ABOUT)], cap=5)
    assert silent.outcome == "no_results"
    broken = QueryResult(keyword="rice")
    judge.judge(broken, [page(f"{BASE}/search?q=rice", status=500)], cap=5)
    assert (broken.outcome, broken.error) == ("error", "HTTP status 500")


def test_judge_reports_a_form_that_ignores_its_keyword() -> None:
    judge = Judge()
    listing = [HOME, *(record(i, "any") for i in range(1, 6))]
    base = judge.learn_baseline("xq", page(f"{BASE}/list", *listing), {ChromeFilter.key(HOME)})
    assert not base.empty
    result = QueryResult(keyword="tea")
    judge.judge(result, [page(f"{BASE}/list", *listing)], cap=5)
    assert result.outcome == "error"
    assert "same page for every keyword" in (result.error or "")
    echo = page(f"{BASE}/s?q=tea", Link(f"{BASE}/s?q=tea", "tea", dom_path="html/body/a"))
    assert page_signature(echo, "tea") == frozenset({("html/body/a", "\x00")})


def test_judge_notes_the_page_cap() -> None:
    judge = Judge()
    here = f"{BASE}/search?q=tea"
    capped = page(here, record(1), Link(f"{BASE}/search?q=tea&page=2", "Next"))
    result = QueryResult(keyword="tea")
    judge.judge(result, [capped], cap=1)
    assert result.outcome == "ok"
    assert "page cap" in (result.error or "")


def test_query_row_maps_the_result() -> None:
    result = QueryResult(
        keyword="tea",
        submitted=[f"{BASE}/search?q=tea", f"{BASE}/search?q=tea&page=2"],
        links=[ResultLink(url=record(1).url), ResultLink(url=HOME.url, role="chrome")],
        pages=2,
        outcome="ok",
    )
    row = result.to_query_row(new_records=1)
    assert (row.keyword, row.submitted_url, row.result_count) == ("tea", result.submitted[0], 1)
    assert (row.new_records, row.result_pages, row.outcome, row.error) == (1, 2, "ok", None)
