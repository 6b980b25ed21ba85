"""The form filler on the fixture sites, in real Chromium, checked against the sites' own data.

Each site's search semantics is known from its data (``Corpus.search``): a query must reach
exactly the records the site's search holds for the word, over every result page, whatever the
pagination style — "Next" links (books), page numbers after a POST (shop), a "Load more" button
over a JSON endpoint (news).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pytest
from deepcrawl_fixtures import FixtureServer, build_site
from deepcrawl_fixtures.data import STOP_WORDS

from deepcrawl.browser import BrowserPool
from deepcrawl.search import FormFiller, FormSearch, QueryResult, find_search_form
from deepcrawl.settings import Settings

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """Default settings; the critic cache shared with the other form tests of the session."""
    cache = tmp_path_factory.getbasetemp() / "forms-critic-cache"
    return Settings().with_overrides(forms={"model_cache_dir": cache})


@pytest.fixture(scope="module")
async def pool(settings: Settings) -> AsyncIterator[BrowserPool]:
    """One Chromium for the module."""
    async with BrowserPool(settings, ["127.0.0.1"]) as pool:
        yield pool


def records(server: FixtureServer, result: QueryResult) -> set[str]:
    """Canonical detail paths of the records among the result links."""
    truth = server.truth()
    found = {truth.record_of(url) for url in result.result_urls}
    return {r for r in found if r is not None}


def expected(site: str, words: list[str], category: str = "", *, stop: bool = False) -> set[str]:
    """The records the site's own search returns for ``words``."""
    built = build_site(site)
    hits = built.corpus.search(words, category, drop=STOP_WORDS if stop else frozenset())
    return {built.detail_path(built.corpus.records[i - 1]) for i in hits}


async def filler_for(
    server: FixtureServer, pool: BrowserPool, settings: Settings, **options: bool
) -> FormFiller:
    form, verdict = await find_search_form(server.url + "/", settings, pool)
    return FormFiller(pool, form, verdict, settings, **options)


async def test_books_next_links_reach_every_result_page(
    books_server: FixtureServer, pool: BrowserPool, settings: Settings
) -> None:
    filler = await filler_for(books_server, pool, settings)
    assert filler.query_field == "q"
    result = await filler.query("first")
    want = expected("books", ["first"], stop=True)
    assert result.outcome == "ok", result.error
    assert records(books_server, result) == want
    assert result.pages == math.ceil(len(want) / 10) >= 3
    assert result.total_results == len(want)
    assert [u.rsplit("page=", 1)[-1] for u in result.submitted[1:]] == [
        str(n) for n in range(2, result.pages + 1)
    ]
    roles = {link.text: link.role for link in result.links}
    assert roles["Log in"] == roles["About us"] == "chrome"
    assert roles["Next »"] == "pager"
    assert all("/book/" in url for url in result.result_urls)
    row = result.to_query_row(new_records=3)
    assert (row.result_count, row.result_pages, row.outcome) == (len(want), result.pages, "ok")


async def test_books_rejects_stop_words_with_a_no_results_page(
    books_server: FixtureServer, pool: BrowserPool, settings: Settings
) -> None:
    filler = await filler_for(books_server, pool, settings)
    result = await filler.query("the")
    assert result.outcome == "no_results"
    assert result.pages == 1
    assert result.result_links == []
    missing = await filler.query("zzyzzx")
    assert missing.outcome == "no_results"


async def test_books_category_select_is_a_query_dimension(
    books_server: FixtureServer, pool: BrowserPool, settings: Settings
) -> None:
    filler = await filler_for(books_server, pool, settings)
    options = filler.category_options()
    assert set(options) == {"cat"}
    assert set(options["cat"]) == set(build_site("books").categories)
    for category in ("history", "science"):
        result = await filler.query("good", {"cat": category})
        want = expected("books", ["good"], category, stop=True)
        assert records(books_server, result) == want
        assert all(f"cat={category}" in url for url in result.submitted)
    bad = await filler.query("good", {"cat": "no-such-category"})
    assert bad.outcome == "error"
    assert "no option" in (bad.error or "")
    # Back to all categories: the select is reset to its default.
    plain = await filler.query("good")
    assert records(books_server, plain) == expected("books", ["good"], stop=True)


async def test_books_get_form_switches_to_a_checked_url_template(
    books_server: FixtureServer, pool: BrowserPool, settings: Settings
) -> None:
    form, verdict = await find_search_form(books_server.url + "/", settings, pool)
    async with FormSearch(pool, form, verdict, settings) as search:
        first = await search.query("day")
        # its first page by browser, which showed the template equivalent; the rest by template
        assert first.via == "http"
        assert records(books_server, first) == expected("books", ["day"], stop=True)
        assert search.check is not None
        assert search.check.passed, search.check
        assert search.template is not None
        assert search.template.template.keyword_param == "q"
        second = await search.query("best")
        assert second.via == "http"
        assert records(books_server, second) == expected("books", ["best"], stop=True)
        assert second.pages == math.ceil(len(expected("books", ["best"], stop=True)) / 10)
        stop = await search.query("the")
        assert (stop.via, stop.outcome) == ("http", "no_results")
        informative = await search.category_informativeness("good", sample=3)
        assert informative["cat"] >= 0.25


async def test_a_first_query_of_one_page_learns_the_template_its_list_reads_on_from_page_two(
    books_server: FixtureServer, pool: BrowserPool, settings: Settings
) -> None:
    """The setup phase reads its queries' first pages only: the first such query is the
    template's trial, and its list is read on later over plain HTTP from the second page —
    not by rendering its first page again."""
    form, verdict = await find_search_form(books_server.url + "/", settings, pool)
    async with FormSearch(pool, form, verdict, settings) as search:
        first = await search.query("day", max_pages=1)
        assert (first.via, first.pages) == ("browser", 1)
        assert search.template is not None  # checked on that one page
        after = [link.url for link in first.links if link.role == "pager" and "page=2" in link.url]
        rest = await search.query("day", resume=(after[0], 2))
        assert (rest.via, rest.first_page) == ("http", 2)
        assert rest.submitted[0] == after[0]
        found = records(books_server, first) | records(books_server, rest)
        assert found == expected("books", ["day"], stop=True)


async def test_shop_post_form_with_image_button_and_page_numbers(
    fixture_server: Callable[..., FixtureServer], pool: BrowserPool, settings: Settings
) -> None:
    server = fixture_server("shop", seed=0)
    # ten a page, as the shop shows by default: the page numbers are what this test is about
    filler = await filler_for(server, pool, settings, largest_page_size=False)
    form = filler.form
    assert form.method == "POST"
    assert form.id is None
    assert form.name is None
    assert [s.kind for s in form.submits] == ["image"]
    await filler.learn_baseline()  # else the first query submits the nonsense keyword first
    server.reset_stats()
    result = await filler.query("first")
    want = expected("shop", ["first"])
    assert result.outcome == "ok", result.error
    assert records(server, result) == want
    assert result.pages == math.ceil(len(want) / 10) >= 3
    posts = [e for e in server.stats()["log"] if e["method"] == "POST"]
    assert [e["path"] for e in posts] == ["/search"]
    assert all("page=" in url for url in result.submitted[1:])
    async with FormSearch(pool, form, filler.verdict, settings) as search:
        again = await search.query("good")
        assert search.template is None  # a POST form has no URL template
        # its submission is replayed over plain HTTP, although each client is given a session
        # id of its own in the result links, and the browser asks for the largest page
        assert search.replay is not None
        assert again.via == "http"


async def test_shop_accepts_stop_words_and_the_page_cap_holds(
    shop_server: FixtureServer, pool: BrowserPool, settings: Settings
) -> None:
    filler = await filler_for(shop_server, pool, settings)
    result = await filler.query("the", max_pages=2)
    assert result.outcome == "ok"
    assert result.pages == 2
    # the "results per page" select at its largest: 50 a page
    assert len(records(shop_server, result)) == 100 < len(expected("shop", ["the"]))
    assert result.error is not None
    assert "page cap" in result.error


async def test_shop_results_per_page_select_is_set_to_its_largest_value(
    shop_server: FixtureServer, pool: BrowserPool, settings: Settings
) -> None:
    filler = await filler_for(shop_server, pool, settings)
    result = await filler.query("people")
    want = expected("shop", ["people"])
    assert len(want) > 50
    assert records(shop_server, result) == want
    assert result.pages == 2
    assert "per_page=50" in result.submitted[1]
    assert len([link for link in result.result_links if link.page == 1]) == 50


async def test_news_script_built_form_and_load_more_results(
    news_server: FixtureServer, pool: BrowserPool, settings: Settings
) -> None:
    filler = await filler_for(news_server, pool, settings)
    assert filler.form.built_by_script
    result = await filler.query("day")
    want = expected("news", ["day"])
    assert result.outcome == "ok", result.error
    assert records(news_server, result) == want
    assert result.pages == math.ceil(len(want) / 10) >= 3
    assert result.submitted[0].endswith("/search?q=day")
    assert [u.rsplit("offset=", 1)[-1] for u in result.submitted[1:]] == [
        str(10 * n) for n in range(1, result.pages)
    ]
    missing = await filler.query("zzyzzx")
    assert missing.outcome == "no_results"
    async with FormSearch(pool, filler.form, filler.verdict, settings) as search:
        good = await search.query("good")
        assert search.check is not None
        assert not search.check.passed  # the page is a shell its script fills
        assert search.data is not None  # … from a JSON request, queried directly
        assert search.data.size_param == "limit"
        assert records(news_server, good) == expected("news", ["good"])
        great = await search.query("great")
        assert great.via == "http"
        assert records(news_server, great) == expected("news", ["great"])
        assert great.pages == 1
        news_server.reset_stats()
        assert len(records(news_server, await search.query("people"))) > 50
        kinds = news_server.stats()["by_kind"]
        assert set(kinds) == {"api"}
        assert kinds["api"] == 2
