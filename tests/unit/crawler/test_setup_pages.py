"""How deep a setup-phase query reads: deeper with no example where the lists repeat one listing
first (:func:`~deepcrawl.crawler.setup.repeats_one_listing`); by the lists' totals after the first
(:func:`~deepcrawl.crawler.setup.setup_pages`)."""

from __future__ import annotations

from deepcrawl.crawler.setup import (
    SETUP_FIRST_PAGES,
    SETUP_RESULT_PAGES,
    SETUP_UNTOTALLED_PAGES,
    repeats_one_listing,
    setup_pages,
)
from deepcrawl.settings import Settings

SETTINGS = Settings()


def _shown(urls: list[str]) -> dict[str, int]:
    return {url: i for i, url in enumerate(urls)}


def test_the_help_pages_listed_first_for_every_word_are_one_listing() -> None:
    """A site-wide search lists its ten help pages first whatever the word, in one order."""
    help_pages = [f"/wiki/Help{i}" for i in range(10)]
    assert repeats_one_listing(help_pages, _shown(help_pages), SETTINGS)
    assert repeats_one_listing([*help_pages[:9], "/ticket/7"], _shown(help_pages), SETTINGS)


def test_a_relevance_ranking_repeats_records_in_another_order() -> None:
    earlier = [f"/r{i}" for i in range(30)]
    scrambled = [f"/r{i}" for i in (17, 3, 25, 8, 1, 29, 12, 20, 5, 14)]
    assert repeats_one_listing(scrambled, _shown(earlier), SETTINGS) is False


def test_a_first_page_repeating_the_help_pages_in_their_order_is_one_listing() -> None:
    """A first page of ten repeats eight help pages the list before showed, in their order,
    and two new (a page of the records listed after them): one listing. A small site ranking
    by relevance repeats six records in another order: none."""
    earlier = [f"/wiki/Help{i}" for i in range(30)]
    page = [*earlier[1:9], "/wiki/New1", "/wiki/New2"]
    assert repeats_one_listing(page, _shown(earlier), SETTINGS) is True
    records = [f"/r{i}" for i in range(40)]
    page = ["/r20", "/new1", "/r9", "/r31", "/new2", "/r2", "/new3", "/r11", "/new4", "/r35"]
    assert repeats_one_listing(page, _shown(records), SETTINGS) is False


def test_a_list_of_mostly_new_links_is_no_listing_repeated() -> None:
    earlier = [f"/r{i}" for i in range(10)]
    page = [*earlier[:4], *(f"/n{i}" for i in range(6))]
    assert repeats_one_listing(page, _shown(earlier), SETTINGS) is False


def test_a_list_too_short_to_tell_an_order_says_nothing() -> None:
    """A word of one or two results: the verdict of the lists before stands."""
    help_pages = [f"/wiki/Help{i}" for i in range(10)]
    assert repeats_one_listing(help_pages[:1], _shown(help_pages), SETTINGS) is None
    assert repeats_one_listing([], _shown(help_pages), SETTINGS) is None


def test_the_setup_reads_deep_until_a_list_goes_on_then_by_its_totals() -> None:
    """The first list is read three pages deep whatever it reports; then lists read three
    pages deep where a list reported its total, and one where none did (the stop then reads
    whole lists anyway)."""
    assert setup_pages(past_first=False, totalled=False) == SETUP_FIRST_PAGES == 3
    assert setup_pages(past_first=False, totalled=True) == SETUP_FIRST_PAGES
    assert setup_pages(past_first=True, totalled=True) == SETUP_RESULT_PAGES == 3
    assert setup_pages(past_first=True, totalled=False) == SETUP_UNTOTALLED_PAGES == 1
