"""Forms that misbehave end with a clear outcome, never a crash; unsafe forms are never sent.

Small local sites (served from the test process) play a search that answers 500, one that
shows an error message with status 200, one that never answers, one that returns the same page
for every keyword, one whose page disappears, and scripted forms (a JS handler, Enter only).
The fixture shop then proves, by its server's request counts, that its login, cart, wishlist
and newsletter forms are never submitted.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

import pytest

from deepcrawl.browser import BrowserPool, render_page
from deepcrawl.browser.testing import LocalSite, Reply
from deepcrawl.errors import UnsafeFormError
from deepcrawl.forms import load_critic
from deepcrawl.search import FormFiller, find_search_form, query_page
from deepcrawl.settings import Settings

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Iterator

    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser

CHROME = "<header><a href='/'>Home</a> <a href='/about'>About</a></header>"


def form_page(name: str, *, button: bool = True) -> str:
    submit = "<button type='submit'>Search</button>" if button else ""
    return (
        f"<html><head><title>Search {name}</title></head><body>{CHROME}<main><h1>Find</h1>"
        f"<form action='/{name}/search' method='get'><label>Search "
        f"<input type='search' name='q' placeholder='Search'></label>{submit}</form>"
        "</main></body></html>"
    )


def results_page(path: str) -> Reply:
    """Three records for a real word, a "no results" message for the nonsense one."""
    q = parse_qs(urlsplit(path).query).get("q", [""])[0]
    if q.startswith("xq"):
        main = f"<p class='none'>No results for {q}.</p>"
    else:
        main = (
            "<ol>"
            + "".join(
                f"<li><a href='/record/{q}-{i}'>Record {i} about {q}</a></li>" for i in range(3)
            )
            + "</ol>"
        )
    return Reply(
        f"<html><head><title>{q}</title></head><body>{CHROME}<main>{main}</main></body></html>"
    )


SAME = (
    "<html><head><title>Catalogue</title></head><body>"
    + CHROME
    + "<main><ul>"
    + "".join(f"<li><a href='/item/{i}'>Item number {i}</a></li>" for i in range(6))
    + "</ul></main></body></html>"
)
JS_FORM = (
    "<html><head><title>Search</title></head><body>" + CHROME + "<main>"
    "<div class='box'><input type='search' id='q' placeholder='Search'>"
    "<span id='go' role='button' onclick='run()'>Search</span></div>"
    "<p id='status'></p><ol id='results'></ol></main><script>"
    "function run() { const q = document.getElementById('q').value;"
    " fetch('/jsfail/api?q=' + encodeURIComponent(q))"
    ".then(r => { if (!r.ok) { document.getElementById('status').textContent ="
    " 'Search is temporarily unavailable.'; return; } }); }"
    "</script></body></html>"
)


JS_OK = (
    "<html><head><title>Search</title></head><body>" + CHROME + "<main>"
    "<div class='box'><input type='text' name='term' placeholder='Search the catalogue'>"
    "<button type='button' id='go'>Search</button></div><p id='status'></p><ol id='out'></ol>"
    "</main><script>document.getElementById('go').addEventListener('click', () => {"
    " const q = document.querySelector('[name=term]').value;"
    " fetch('/jsok/api?q=' + encodeURIComponent(q)).then(r => r.json()).then(items => {"
    "  const out = document.getElementById('out'); out.innerHTML = '';"
    "  document.getElementById('status').textContent ="
    "   items.length ? items.length + ' results' : 'No results found.';"
    "  for (const [href, text] of items) { const li = document.createElement('li');"
    "   const a = document.createElement('a'); a.href = href; a.textContent = text;"
    "   li.appendChild(a); out.appendChild(li); } }); });"
    "</script></body></html>"
)


def js_api(path: str) -> Reply:
    q = parse_qs(urlsplit(path).query).get("q", [""])[0]
    items = [] if q.startswith("xq") else [[f"/doc/{q}/{i}", f"Doc {i} on {q}"] for i in range(4)]
    return Reply(json.dumps(items), content_type="application/json")


@pytest.fixture(scope="module")
def site() -> Iterator[LocalSite]:
    """The misbehaving forms."""
    state = {"gone": False}

    def vanishing(_path: str) -> Reply:
        return (
            Reply("<html><body>gone</body></html>", 404)
            if state["gone"]
            else Reply(form_page("vanish"))
        )

    routes: dict[str, Reply | Callable[[str], Reply]] = {
        "/": Reply(form_page("ok")),
        "/about": Reply("<html><body>about</body></html>"),
        "/ok/search": results_page,
        "/broken": Reply(form_page("broken")),
        "/broken/search": Reply(
            "<html><head><title>500 Internal Server Error</title></head><body>"
            "<h1>Internal Server Error</h1></body></html>",
            500,
        ),
        "/oops": Reply(form_page("oops")),
        "/oops/search": Reply(
            "<html><head><title>Oops</title></head><body><h1>Something went wrong</h1>"
            "<p>Please try again later.</p></body></html>"
        ),
        "/slow": Reply(form_page("slow")),
        "/slow/search": Reply(SAME, delay_s=60),
        "/same": Reply(form_page("same")),
        "/same/search": Reply(SAME),
        "/vanish": vanishing,
        "/vanish/search": results_page,
        "/enter": Reply(form_page("enter", button=False)),
        "/enter/search": results_page,
        "/jsok": Reply(JS_OK),
        "/jsok/api": js_api,
        "/jsfail": Reply(JS_FORM),
        "/jsfail/api": Reply('{"error": "down"}', 500, "application/json"),
    }
    with LocalSite(routes) as served:
        served.state = state  # type: ignore[attr-defined]
        yield served


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    cache = tmp_path_factory.getbasetemp() / "forms-critic-cache"
    return Settings().with_overrides(
        forms={"model_cache_dir": cache},
        browser={"page_timeout_s": 3.0},
    )


@pytest.fixture(scope="module")
async def pool(settings: Settings) -> AsyncIterator[BrowserPool]:
    async with BrowserPool(settings, ["127.0.0.1"]) as pool:
        yield pool


async def filler(site: LocalSite, path: str, pool: BrowserPool, settings: Settings) -> FormFiller:
    form, verdict = await find_search_form(site.url + path, settings, pool)
    return FormFiller(pool, form, verdict, settings)


async def test_a_working_form_and_enter_key_submission(
    site: LocalSite, pool: BrowserPool, settings: Settings
) -> None:
    ok = await (await filler(site, "/", pool, settings)).query("water")
    assert ok.outcome == "ok"
    assert [link.text for link in ok.result_links] == [f"Record {i} about water" for i in range(3)]
    assert {link.text for link in ok.links if link.role == "chrome"} == {"Home", "About"}
    enter = await filler(site, "/enter", pool, settings)
    assert [s.kind for s in enter.form.submits] == ["enter"]
    result = await enter.query("salt")
    assert result.outcome == "ok"
    assert len(result.result_links) == 3
    assert site.requested("/enter/search?q=salt")


async def test_error_status_gives_an_error_outcome(
    site: LocalSite, pool: BrowserPool, settings: Settings
) -> None:
    result = await (await filler(site, "/broken", pool, settings)).query("water")
    assert result.outcome == "error"
    assert "500" in (result.error or "")
    assert result.to_query_row().outcome == "error"


async def test_error_message_with_status_200_gives_an_error_outcome(
    site: LocalSite, pool: BrowserPool, settings: Settings
) -> None:
    result = await (await filler(site, "/oops", pool, settings)).query("water")
    assert result.outcome == "error"
    assert "went wrong" in (result.error or "")


async def test_a_form_that_never_answers_times_out_cleanly(
    site: LocalSite, pool: BrowserPool, settings: Settings
) -> None:
    slow = await filler(site, "/slow", pool, settings)
    started = time.monotonic()
    result = await slow.query("water")
    assert result.outcome == "error"
    assert "within" in (result.error or "")
    assert result.pages == 0
    assert time.monotonic() - started < 20
    # The pool is still usable afterwards.
    assert (await (await filler(site, "/", pool, settings)).query("tea")).outcome == "ok"


async def test_the_same_page_for_every_keyword_is_reported(
    site: LocalSite, pool: BrowserPool, settings: Settings
) -> None:
    same = await filler(site, "/same", pool, settings)
    first = await same.query("water")
    second = await same.query("fire")
    assert same.judge.baseline is not None
    assert not same.judge.baseline.empty
    for result in (first, second):
        assert result.outcome == "error"
        assert "same page for every keyword" in (result.error or "")


async def test_a_form_page_that_disappears_gives_an_error_outcome(
    site: LocalSite, pool: BrowserPool, settings: Settings
) -> None:
    vanish = await filler(site, "/vanish", pool, settings)
    # leave the form's page, so it must be loaded again (from the server: two loads showing
    # the same form would let later ones be answered from the bytes of the second)
    async with pool.page() as lease:
        await render_page(lease, site.url + "/about", forms=False)
    site.state["gone"] = True  # type: ignore[attr-defined]
    result = await vanish.query("fire")
    assert result.outcome == "error"
    assert "404" in (result.error or "")


async def test_a_scripted_search_rendered_in_place(
    site: LocalSite, pool: BrowserPool, settings: Settings
) -> None:
    js = await filler(site, "/jsok", pool, settings)
    assert js.form.formless
    assert [s.kind for s in js.form.submits] == ["js"]
    result = await js.query("water")
    assert result.outcome == "ok", result.error
    assert [link.text for link in result.result_links] == [f"Doc {i} on water" for i in range(4)]
    assert result.total_results == 4
    assert result.submitted == [f"{site.url}/jsok/api?q=water"]
    assert (await js.query("xqnothing")).outcome == "no_results"


async def test_a_scripted_search_whose_data_request_fails(
    site: LocalSite, pool: BrowserPool, settings: Settings
) -> None:
    js = await filler(site, "/jsfail", pool, settings)
    assert js.form.formless
    assert [s.kind for s in js.form.submits] == ["js"]
    result = await js.query("water")
    assert result.outcome == "error"
    assert site.requested("/jsfail/api?q=water")
    assert result.submitted[0].endswith("/jsfail/api?q=water")


async def test_login_cart_delete_and_newsletter_forms_are_never_submitted(
    fixture_server: Callable[..., FixtureServer], pool: BrowserPool, settings: Settings
) -> None:
    server = fixture_server("shop", seed=7)  # a private server: its counts are ours
    truth = server.truth()
    critic = load_critic(settings.forms)
    item = truth.sample_paths(per_kind=1)["detail"][0]
    refused = 0
    for path in (item, "/account/login", "/account/register"):
        async with pool.page() as lease:
            page = await render_page(lease, server.url + path, forms=True)
        for form, verdict in zip(page.forms, critic.judge(page.forms), strict=True):
            if urlsplit(form.action).path == "/search":
                continue
            with pytest.raises(UnsafeFormError):
                FormFiller(pool, form, verdict, settings)
            refused += 1
    assert refused >= 5  # cart, wishlist delete, login, registration, newsletter
    _form, _verdict, result = await query_page(server.url + "/account/login", "good", settings)
    assert result.outcome == "ok"
    assert result.form_action.endswith("/search")
    kinds = server.stats()["by_kind"]
    assert not {k for k in kinds if k.endswith("_submit")}, kinds
