"""JavaScript link probing in real Chromium, on the fixture sites and on hand-made pages.

The JS-only menus of the fixture sites are found, the page is the same page afterwards, and
no destructive control is ever touched, no POST ever sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from deepcrawl.browser import BrowserPool, probe_page, render_page
from deepcrawl.browser.testing import LocalSite, Reply
from deepcrawl.settings import Settings

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Iterator

    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser

SETTINGS = Settings().with_overrides(browser={"page_timeout_s": 10.0})

DANGER = """<html><body>
<div id=menu onclick="location.href='/safe-target'">Catalogue</div>
<div id=wipe onclick="fetch('/api/wipe-everything')">Delete everything</div>
<span id=out onclick="location.href='/logout-now'">Sign out</span>
<a href='#' class='btn-logOut' onclick="fetch('/bye'); return false">Bye</a>
<div id=poster>Load menu</div>
<form method=post action='/do'><button onclick="this.form.submit()">Go</button></form>
<script>
document.getElementById('poster').addEventListener('click', () => {
  fetch('/api/menu', {method: 'PO' + 'ST', body: 'x'});
});
</script></body></html>"""

NESTED = """<html><body>
<div id=level1>Open level one</div><div id=box></div>
<script>
document.getElementById('level1').addEventListener('click', () => {
  if (document.getElementById('level2')) return;
  const b = document.createElement('span'); b.id = 'level2'; b.textContent = 'Open level two';
  b.addEventListener('click', () => { location.href = '/deep-target'; });
  document.getElementById('box').appendChild(b);
});
</script></body></html>"""

SPA = """<html><body>
<button id=push onclick="history.pushState({}, '', '/spa-route')">Route</button>
<button id=hash onclick="location.hash = '#x'">Hash</button>
<span role=button onclick="window.open('/opened', '_blank')">Window</span>
</body></html>"""


@pytest.fixture(scope="module")
async def pool() -> AsyncIterator[BrowserPool]:
    async with BrowserPool(SETTINGS, {"127.0.0.1"}) as running:
        yield running


@pytest.fixture(scope="module")
def pages() -> Iterator[LocalSite]:
    with LocalSite(
        {"/danger": Reply(DANGER), "/nested": Reply(NESTED), "/spa": Reply(SPA)}
    ) as site:
        yield site


async def _probe_and_check_unchanged(pool: BrowserPool, url: str) -> tuple[set[str], object]:
    """Render and probe ``url``; assert the page is the same page afterwards."""
    async with pool.page() as lease:
        page = await render_page(lease, url, forms=False)
        html_urls = {link.url for link in page.links}
        before = await lease.page.evaluate("() => document.body.innerHTML")
        report = await probe_page(lease, page.links)
        assert lease.page.url == page.final_url
        assert await lease.page.evaluate("() => document.body.innerHTML") == before
        probe_urls = {link.url for link in report.links}
        assert not probe_urls & html_urls
        return probe_urls, report


async def test_books_menu_links_found_by_probing(
    pool: BrowserPool, fixture_server: Callable[..., FixtureServer]
) -> None:
    srv = fixture_server("books")
    found, _ = await _probe_and_check_unchanged(pool, srv.url + "/")
    assert srv.url + "/new" in found  # menu built on mouseover
    assert srv.url + "/bestsellers" in found  # addEventListener click handler


async def test_news_sections_found_by_probing(
    pool: BrowserPool, fixture_server: Callable[..., FixtureServer]
) -> None:
    srv = fixture_server("news")
    found, _ = await _probe_and_check_unchanged(pool, srv.url + "/")
    sections = {u for u in found if "/section/" in u}
    assert len(sections) == 10


async def test_shop_departments_and_popup_found(
    pool: BrowserPool, fixture_server: Callable[..., FixtureServer]
) -> None:
    srv = fixture_server("shop")
    srv.reset_stats()
    found, _ = await _probe_and_check_unchanged(pool, srv.url + "/")
    assert srv.url + "/deals" in found  # window.open
    assert sum("/browse?cat=" in u for u in found) == 10  # onclick on <li>
    kinds = srv.stats()["by_kind"]
    assert set(kinds) == {"home"}  # the probe navigated nowhere for real


async def test_shop_detail_probe_never_deletes_or_posts(
    pool: BrowserPool, fixture_server: Callable[..., FixtureServer]
) -> None:
    srv = fixture_server("shop")
    detail = srv.truth().sample_paths(per_kind=1)["detail"][0]
    srv.reset_stats()
    await _probe_and_check_unchanged(pool, srv.url + detail)
    stats = srv.stats()
    assert all(entry["method"] == "GET" for entry in stats["log"])
    assert "delete_submit" not in stats["by_kind"]
    assert not any("wishlist" in entry["path"] or "cart" in entry["path"] for entry in stats["log"])


async def test_destructive_controls_are_never_touched(pool: BrowserPool, pages: LocalSite) -> None:
    found, report = await _probe_and_check_unchanged(pool, pages.url + "/danger")
    assert pages.url + "/safe-target" in found
    assert pages.url + "/logout-now" not in found
    refused = {path for path, _text, _why in report.refused}  # type: ignore[attr-defined]
    assert {"html/body/div[2]", "html/body/span", "html/body/a"} <= refused
    assert not pages.requested("wipe")
    assert not pages.requested("/bye")
    assert not pages.requested("logout")
    assert all(method == "GET" for method, _path in pages.log)
    probed = {text for _path, text in report.probed}  # type: ignore[attr-defined]
    assert "Load menu" in probed  # its click handler tried to POST: refused by the route


async def test_depth_first_exploration_follows_new_states(
    pool: BrowserPool, pages: LocalSite
) -> None:
    found, _ = await _probe_and_check_unchanged(pool, pages.url + "/nested")
    assert pages.url + "/deep-target" in found
    async with pool.page() as lease:
        page = await render_page(lease, pages.url + "/nested", forms=False)
        report = await probe_page(lease, page.links, depth=1)
        assert pages.url + "/deep-target" not in {link.url for link in report.links}


async def test_history_hash_and_window_open_stay_on_the_page(
    pool: BrowserPool, pages: LocalSite
) -> None:
    found, _ = await _probe_and_check_unchanged(pool, pages.url + "/spa")
    assert pages.url + "/spa-route" in found
    assert pages.url + "/opened" in found
    assert not pages.requested("/opened")
