"""The fixture sites in real Chromium: JS menus, the JS-built form, JS-rendered results."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import httpx
import pytest
from deepcrawl_fixtures import FixtureServer
from playwright.async_api import Browser, Page

pytestmark = pytest.mark.browser


@pytest.fixture
async def page(chromium_browser: Browser) -> AsyncIterator[Page]:
    context = await chromium_browser.new_context()
    page = await context.new_page()
    page.set_default_timeout(5000)
    yield page
    await context.close()


async def _hrefs(page: Page) -> set[str]:
    hrefs: list[str] = await page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
    return set(hrefs)


async def test_books_hover_menu_reveals_links(page: Page, books_server: FixtureServer) -> None:
    await page.goto(books_server.url + "/")
    before = await _hrefs(page)
    assert books_server.url + "/new" not in before
    await page.hover("#browse-menu")
    after = await _hrefs(page)
    assert books_server.url + "/new" in after
    assert books_server.url + "/category/poetry" in after


async def test_books_click_menu_navigates(page: Page, books_server: FixtureServer) -> None:
    await page.goto(books_server.url + "/")
    assert await page.locator("[href$='/bestsellers']").count() == 0
    async with page.expect_navigation():
        await page.click("#bestsellers-link")
    assert page.url == books_server.url + "/bestsellers"
    assert books_server.truth().page_kind(page.url) == "browse"


async def test_books_plain_get_form_with_category(page: Page, books_server: FixtureServer) -> None:
    await page.goto(books_server.url + "/")
    await page.fill("#search input[name=q]", "time")
    await page.select_option("#search select[name=cat]", "history")
    async with page.expect_navigation():
        await page.click("#search input[type=submit]")
    assert page.url == books_server.url + "/search?q=time&cat=history"
    assert await page.locator("ol.results li").count() > 0


async def test_shop_onclick_menu_and_window_open(page: Page, shop_server: FixtureServer) -> None:
    await page.goto(shop_server.url + "/")
    assert _no_link_to(await _hrefs(page), "/browse?cat=garden")
    async with page.context.expect_page() as popup_info:
        await page.click("span.deals")
    popup = await popup_info.value
    await popup.wait_for_load_state()
    assert popup.url == shop_server.url + "/deals"
    async with page.expect_navigation():
        await page.click("li.dept >> text=Garden")
    assert page.url == shop_server.url + "/browse?cat=garden"


async def test_shop_post_form_with_image_button(page: Page, shop_server: FixtureServer) -> None:
    shop_server.reset_stats()
    await page.goto(shop_server.url + "/")
    form = page.locator("form[action='/search']")
    assert await form.get_attribute("id") is None
    assert await form.get_attribute("name") is None
    await form.locator("input[name=keywords]").fill("time")
    async with page.expect_navigation():
        await form.locator("input[type=image]").click()
    assert page.url == shop_server.url + "/search"
    assert "products for “time”" in await page.inner_text("main")
    posts = [e for e in shop_server.stats()["log"] if e["method"] == "POST"]
    assert [(e["path"], e["kind"], e["status"]) for e in posts] == [("/search", "results", 200)]


async def test_news_js_form_results_and_load_more(page: Page, news_server: FixtureServer) -> None:
    raw = httpx.get(news_server.url + "/").text
    assert "<form class='site-search'" not in raw
    assert "action='/search'" not in raw
    await page.goto(news_server.url + "/")
    form = page.locator("form.site-search")
    assert await form.count() == 1
    await form.locator("input[name=q]").fill("time")
    async with page.expect_navigation():
        await form.locator("input[name=q]").press("Enter")
    assert page.url == news_server.url + "/search?q=time"
    await page.wait_for_function("document.querySelectorAll('#results li').length === 10")
    truth = news_server.truth()
    links = await page.eval_on_selector_all("#results a", "els => els.map(e => e.href)")
    assert all(truth.page_kind(u) == "detail" for u in links)
    await page.click("#load-more")
    await page.wait_for_function("document.querySelectorAll('#results li').length === 20")
    more = await page.eval_on_selector_all("#results a", "els => els.map(e => e.href)")
    assert more[:10] == links
    assert len(set(more)) == 20


async def test_news_no_results_and_sections_menu(page: Page, news_server: FixtureServer) -> None:
    await page.goto(news_server.url + "/search?q=zzzzqqq")
    await page.wait_for_selector("#status.no-results")
    assert await page.is_hidden("#load-more")
    assert news_server.url + "/section/politics" not in await _hrefs(page)
    await page.click("#sections-button")
    assert news_server.url + "/section/politics" in await _hrefs(page)


def _no_link_to(hrefs: set[str], suffix: str) -> bool:
    """True when no link ends with ``suffix`` (the target is reachable by JS only)."""
    return not any(h.endswith(suffix) for h in hrefs)


@pytest.mark.parametrize("name", ["books", "shop", "news"])
async def test_every_page_kind_renders_without_script_errors(
    name: str, page: Page, fixture_server: Callable[..., FixtureServer]
) -> None:
    server = fixture_server(name)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    samples = server.truth().sample_paths(per_kind=1)
    for kind, paths in samples.items():
        if kind.endswith("_submit") or kind in {"unknown", "api", "asset", "robots", "export"}:
            continue
        response = await page.goto(server.url + paths[0])
        assert response is not None
        assert response.status == 200, paths[0]
        assert await page.title(), paths[0]
    assert errors == []
