"""Form discovery in the live DOM, on every page kind of every fixture site and on odd pages.

Every form the server sent is found with the same fields and submit controls as the static
parser finds; forms that only scripts build are found too and marked ``built_by_script``; a
form with neither id nor name gets a locator that finds exactly it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx
import pytest

from deepcrawl.browser import BrowserPool, render_page
from deepcrawl.browser.testing import LocalSite, Reply
from deepcrawl.page.static_forms import parse_forms
from deepcrawl.settings import Settings

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable

    from deepcrawl_fixtures import FixtureServer

    from deepcrawl.page.form import Form

pytestmark = pytest.mark.browser

SETTINGS = Settings().with_overrides(browser={"page_timeout_s": 10.0})

ODD = """<html><body>
<h2>Find a record</h2>
<form action="/find"><label>Category <select name=c><option value=1>One</option>
<option value=2 selected>Two</option></select></label>
<label for=w>Words</label><input id=w name=w required>
<input type=hidden name=token value=abc>
<input type=checkbox name=new value=yes checked>
<input name=action value=shadow>
<a href="#" onclick="this.closest('form').submit(); return false">Go</a></form>
<div class=finder><input id=free name=free aria-label="Free text">
<span onclick="go()">Look up</span></div>
<form><input name=a></form><form><input name=a><input name=b></form>
<script>
var f = document.createElement('form'); f.action = '/built'; f.innerHTML = '<input name=z>';
document.body.appendChild(f);
</script>
</body></html>"""


@pytest.fixture(scope="module")
async def pool() -> AsyncIterator[BrowserPool]:
    async with BrowserPool(SETTINGS, {"127.0.0.1"}) as running:
        yield running


def _signature(form: Form) -> tuple[object, ...]:
    return (
        form.action,
        form.method,
        tuple((f.name, f.type) for f in form.fields),
        tuple(s.kind for s in form.submits),
    )


@pytest.mark.parametrize("site", ["books", "news", "shop"])
async def test_every_form_of_every_page_kind(
    site: str, pool: BrowserPool, fixture_server: Callable[..., FixtureServer]
) -> None:
    srv = fixture_server(site)
    samples = srv.truth().sample_paths(per_kind=1)
    checked = 0
    async with httpx.AsyncClient() as client:
        for kind, paths in sorted(samples.items()):
            if kind.endswith("_submit") or not paths:
                continue
            url = srv.url + paths[0]
            answer = await client.get(url)
            if "html" not in answer.headers.get("content-type", ""):
                continue
            static = [f for f in parse_forms(answer.text, url) if not f.formless]
            async with pool.page() as lease:
                page = await render_page(lease, url)
            live = [f for f in page.forms if not f.formless]
            from_server = [f for f in live if not f.built_by_script]
            assert [_signature(f) for f in from_server] == [_signature(f) for f in static], kind
            for form in live:
                async with pool.page() as lease:
                    await lease.page.goto(url)
                    assert await lease.page.locator(form.locator).count() == 1, form.locator
            checked += len(live)
    assert checked > 0


async def test_books_search_form(pool: BrowserPool, books_server: FixtureServer) -> None:
    async with pool.page() as lease:
        page = await render_page(lease, books_server.url + "/")
    form = next(f for f in page.forms if f.id == "search")
    assert form.action == books_server.url + "/search"
    assert [f.name for f in form.fields] == ["q", "cat"]
    cat = form.field("cat")
    assert cat is not None
    assert cat.options[0].text == "All categories"
    assert len(cat.options) == 11
    assert [(s.kind, s.text) for s in form.submits] == [("input", "Search")]
    assert not form.built_by_script


async def test_news_search_form_is_built_by_script(
    pool: BrowserPool, news_server: FixtureServer
) -> None:
    async with pool.page() as lease:
        page = await render_page(lease, news_server.url + "/")
    built = [f for f in page.forms if f.built_by_script]
    assert len(built) == 1
    form = built[0]
    assert form.action == news_server.url + "/search"
    assert [(f.name, f.type, f.placeholder) for f in form.fields] == [
        ("q", "search", "Search the news")
    ]
    assert [s.kind for s in form.submits] == ["button"]


async def test_shop_form_without_id_or_name(pool: BrowserPool, shop_server: FixtureServer) -> None:
    async with pool.page() as lease:
        page = await render_page(lease, shop_server.url + "/")
        form = next(f for f in page.forms if f.field("keywords") is not None)
        assert form.id is None
        assert form.name is None
        assert form.method == "POST"
        assert [s.kind for s in form.submits] == ["image"]
        assert form.submits[0].text == "Search"
        await lease.page.reload()
        located = lease.page.locator(form.locator)
        assert await located.count() == 1
        assert await located.evaluate("f => f.querySelector('[name=keywords]') !== null")


async def test_labels_hidden_fields_js_submits_and_formless_groups(pool: BrowserPool) -> None:
    with LocalSite({"/odd": Reply(ODD)}) as site:
        async with pool.page() as lease:
            page = await render_page(lease, site.url + "/odd")
            forms = page.forms
            first = forms[0]
            assert first.action == site.url + "/find"  # an input named "action" shadows nothing
            cat = first.field("c")
            assert cat is not None
            assert cat.label == "Category"
            assert cat.value == "2"
            assert [o.selected for o in cat.options] == [False, True]
            words = first.field("w")
            assert words is not None
            assert words.label == "Words"
            assert words.required
            token = first.field("token")
            assert token is not None
            assert not token.visible
            assert token.value == "abc"
            box = first.field("new")
            assert box is not None
            assert box.checked
            assert box.value == "yes"
            assert [s.kind for s in first.submits] == ["js"]
            assert first.context == "Find a record"
            twins = [f for f in forms if not f.formless and f.field("a") is not None]
            assert len(twins) == 2
            locators = {f.locator for f in twins}
            assert len(locators) == 2
            for locator in locators:
                assert await lease.page.locator(locator).count() == 1
            group = next(f for f in forms if f.formless)
            assert group.field("free") is not None
            assert group.field("free").label == "Free text"  # type: ignore[union-attr]
            assert [(s.kind, s.text) for s in group.submits] == [("js", "Look up")]
            built = [f for f in forms if f.built_by_script]
            assert [f.action for f in built] == [site.url + "/built"]
