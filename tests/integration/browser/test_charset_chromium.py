"""Chromium and the plain-HTTP fetcher read a page in windows-1252 or Shift_JIS alike.

The encoding declared in the ``<meta>`` only or in the header only; each page links to a path
and a query with non-ASCII characters. Both fetchers must see the same text and the same link
in normal form (the path in UTF-8, the query in the page's encoding), or a record would get two
keys depending on which fetcher met its link.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from deepcrawl.browser import BrowserPool, HttpFetcher, render_page
from deepcrawl.browser.testing import LocalSite, Reply
from deepcrawl.settings import Settings
from deepcrawl.urls import normalise_url

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

pytestmark = pytest.mark.browser

SETTINGS = Settings().with_overrides(browser={"page_timeout_s": 10.0})
FRENCH = "Café crème à 5 €"
JAPANESE = "東京都の図書館"


def _page(text: str, meta: str = "") -> str:
    return (
        f"<html><head>{meta}<title>t</title></head><body><p id=t>{text}</p>"
        f"<a href='/{text[:3]}?q={text[:3]}&amp;e=é'>{text}</a></body></html>"
    )


PAGES = {
    "/cp1252-meta": Reply(
        _page(FRENCH, "<meta charset=windows-1252>").encode("cp1252"), content_type="text/html"
    ),
    "/cp1252-header": Reply(
        _page(FRENCH).encode("cp1252"), content_type="text/html; charset=windows-1252"
    ),
    "/sjis-meta": Reply(
        _page(JAPANESE, "<meta http-equiv=Content-Type content='text/html; charset=Shift_JIS'>")
        .replace("é", "")
        .encode("shift_jis"),
        content_type="text/html",
    ),
    "/sjis-header": Reply(
        _page(JAPANESE).replace("é", "").encode("shift_jis"),
        content_type="text/html; charset=Shift_JIS",
    ),
}


@pytest.fixture(scope="module")
def site() -> Iterator[LocalSite]:
    with LocalSite(dict(PAGES)) as served:  # type: ignore[arg-type]
        yield served


@pytest.fixture(scope="module")
async def pool() -> AsyncIterator[BrowserPool]:
    async with BrowserPool(SETTINGS, {"127.0.0.1"}) as running:
        yield running


@pytest.mark.parametrize("path", list(PAGES))
async def test_browser_and_plain_http_agree(site: LocalSite, pool: BrowserPool, path: str) -> None:
    async with pool.page() as lease:
        rendered = await render_page(lease, site.url + path, forms=False)
        text = await lease.page.inner_text("#t")
    async with HttpFetcher(SETTINGS) as fetcher:
        fetched = await fetcher.fetch(site.url + path)
    assert f"<p id=t>{text}</p>" in fetched.body or f'<p id="t">{text}</p>' in fetched.body
    assert text in (FRENCH, JAPANESE)
    [browser_link] = rendered.links
    [http_link] = fetched.links
    assert http_link.text == browser_link.text == text
    assert http_link.url == browser_link.url  # as Chromium serialises it, byte for byte
    assert normalise_url(http_link.url) == normalise_url(browser_link.url)
