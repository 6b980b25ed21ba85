"""The words a start page's box is probed with: those most of the page's link texts share."""

from __future__ import annotations

from deepcrawl.crawler.records_search import probe_words
from deepcrawl.page.fetched import FetchedPage, Link

URL = "http://lib.example/"


def _page(*texts: str) -> FetchedPage:
    links = [Link(f"{URL}c/{i}", text) for i, text in enumerate(texts)]
    return FetchedPage(URL, URL, 200, "text/html", "<html></html>", links=links)


def test_the_probe_words_are_those_most_link_texts_share() -> None:
    page = _page(
        "River maps of the north", "River charts", "Castle rolls", "Castle and river deeds", "About"
    )
    assert probe_words(page) == ["river", "castle"]


def test_stop_words_and_short_words_are_no_probe() -> None:
    page = _page("The art of tea", "The tea of art", "Art and tea")
    assert "the" not in probe_words(page)
    assert "tea" not in probe_words(page)


def test_a_page_whose_links_share_no_word_is_probed_by_any_of_theirs_in_order() -> None:
    assert probe_words(_page("Mountains", "Harbours")) == ["harbours", "mountains"]
    assert probe_words(_page()) == []


def test_words_shared_by_a_few_links_are_followed_by_the_others() -> None:
    page = _page("Browse all", "Browse every record", "Copper Mills", "Falcon Street")
    assert probe_words(page, 3) == ["browse", "copper", "falcon"]
