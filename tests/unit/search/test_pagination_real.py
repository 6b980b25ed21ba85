"""Paging past a pager that stops linking pages: a saved ht://Dig result page (page 10 of 25)."""

from __future__ import annotations

from pathlib import Path

from deepcrawl.browser.http import extract_links
from deepcrawl.page.fetched import FetchedPage
from deepcrawl.page.html import parse_html
from deepcrawl.search.pagination import next_page
from deepcrawl.search.results import ResultPage, page_from_fetched, shown_range

DATA = Path(__file__).parents[2] / "data" / "real" / "htdig"
QUERY = (
    "http://127.0.0.1:8000/cgi-bin/htsearch?restrict=;exclude=;config=htdig;method=and;"
    "format=builtin-long;sort=score;words=home%20plain%20text%20topic;page="
)


def _saved_page(url: str) -> ResultPage:
    body = (DATA / "results-page10.html").read_text(encoding="utf-8")
    root = parse_html(body)
    assert root is not None
    return page_from_fetched(
        FetchedPage(url, url, 200, "text/html", body, extract_links(root, url))
    )


def test_the_page_reports_its_place_in_the_list() -> None:
    assert shown_range(_saved_page(QUERY + "10")) == (91, 100, 241)


def test_the_tenth_page_links_no_next_but_the_list_goes_on_by_its_number() -> None:
    turn = next_page(_saved_page(QUERY + "10"), 10, ())
    assert turn is not None
    assert (turn.url, turn.how) == (QUERY + "11", "past pager")


def test_no_page_past_the_pager_when_the_number_is_not_the_page_or_already_read() -> None:
    # read as page 9 of its list, the URL's number is not the page's: no guess
    assert next_page(_saved_page(QUERY + "10"), 9, ()) is None
    assert next_page(_saved_page(QUERY + "10"), 10, (QUERY + "11",)) is None


def test_no_page_past_the_last_one_or_without_a_numbered_pager() -> None:
    last = _saved_page(QUERY + "10")
    last.blocks[:] = ["Documents 231 - 241 of 241 matches"]
    assert next_page(last, 10, ()) is None
    unnumbered = _saved_page(QUERY + "10")
    unnumbered.links[:] = [link for link in unnumbered.links if "page=" not in link.url]
    assert next_page(unnumbered, 10, ()) is None
