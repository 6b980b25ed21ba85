"""One ``<form>`` around the whole page (a log-in box, a search box, a newsletter sign-up, a
pager of links whose script fills hidden fields and submits): the search group is found in the
live DOM, queried in Chromium once, then by its submissions replayed over plain HTTP — every
page turned with the state the page before it rendered — and no other group's button is ever
pressed. A small local site plays the framework: a state token per rendered page, a 500 for a
token it did not render."""

from __future__ import annotations

import itertools
import threading
from typing import TYPE_CHECKING
from urllib.parse import parse_qs

import pytest

from deepcrawl.browser import BrowserPool
from deepcrawl.browser.testing import LocalSite, Reply
from deepcrawl.search import FormSearch, choose_search_form
from deepcrawl.settings import Settings

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

pytestmark = pytest.mark.browser

RECORDS = 7
PER_PAGE = 3
SCRIPT = (
    "<script>function turn(t, a) { var f = document.forms[0];"
    " f.evt.value = t; f.evtarg.value = a; f.submit(); }</script>"
)


class PageWideSite:
    """The site's state: the tokens it rendered, the log-ins and sign-ups it was sent."""

    def __init__(self) -> None:
        self.tokens: set[str] = set()
        self.counter = itertools.count()
        self.lock = threading.Lock()
        self.actions: list[str] = []
        self.site = LocalSite({"/find": self.answer})

    def page(self, words: str, results: str, pager: str) -> str:
        with self.lock:
            token = f"t{next(self.counter)}"
            self.tokens.add(token)
        return (
            "<html><head><title>Find things</title></head><body>"
            f"<form method='post' action='/find' id='page'>{SCRIPT}"
            f"<input type='hidden' name='state' value='{token}'>"
            "<input type='hidden' name='evt' value=''><input type='hidden' name='evtarg' value=''>"
            "<div id='top'><label for='u'>User name</label><input id='u' name='user'>"
            "<label for='p'>Password</label><input id='p' type='password' name='pw'>"
            "<input type='submit' name='login' value='Log in'></div>"
            "<div id='main'><h1>Search the collection</h1><div id='box'>"
            f"<label for='q'>Search for</label><input id='q' name='q' value='{words}'>"
            "<input type='submit' name='go' value='Search'></div>"
            f"{results}{pager}</div>"
            "<div id='footer'><h2>Newsletter</h2><label for='e'>E-mail address</label>"
            "<input id='e' name='email'><input type='submit' name='subscribe' value='Subscribe'>"
            "</div></form></body></html>"
        )

    def answer(self, _path: str) -> Reply:
        sent = {k: v[0] for k, v in parse_qs(self.site.bodies[-1].decode()).items()}
        if not sent:
            return Reply(self.page("", "", ""))
        if "login" in sent or "subscribe" in sent:
            self.actions.append(next(k for k in ("login", "subscribe") if k in sent))
            return Reply(self.page("", "<p>Thank you</p>", ""))
        if sent.get("state") not in self.tokens:
            return Reply("<h1>Invalid postback or callback argument</h1>", status=500)
        words = sent.get("q", "")
        number = int(sent["evtarg"]) if sent.get("evt") == "list" else 1
        if words.startswith("xq") or not words:
            return Reply(self.page(words, f"<p>No results for {words}</p>", ""))
        first = (number - 1) * PER_PAGE
        shown = range(first, min(first + PER_PAGE, RECORDS))
        items = "".join(f"<li><a href='/record/{words}-{i}'>{words} {i}</a></li>" for i in shown)
        pages = -(-RECORDS // PER_PAGE)
        pager = " ".join(
            f"<a href=\"javascript:turn('list','{n}')\">{n}</a>" if n != number else f"<b>{n}</b>"
            for n in range(1, pages + 1)
        )
        results = f"<p>{RECORDS} results for {words}</p><ol>{items}</ol>"
        return Reply(self.page(words, results, f"<p class='pager'>{pager}</p>"))


@pytest.fixture
def wide() -> Iterator[PageWideSite]:
    site = PageWideSite()
    with site.site:
        yield site


@pytest.fixture
async def pool() -> AsyncIterator[BrowserPool]:
    async with BrowserPool(Settings(), ["127.0.0.1"]) as pool:
        yield pool


async def test_the_search_group_is_queried_and_paged_and_no_other_group_pressed(
    wide: PageWideSite, pool: BrowserPool
) -> None:
    settings = Settings()
    url = wide.site.url + "/find"
    choice = await choose_search_form(url, settings, pool)
    assert [form.group for form in choice.forms] == [
        'form[id="page"] input[name="login"]',
        'form[id="page"] input[name="go"]',
        'form[id="page"] input[name="subscribe"]',
    ]
    assert [v.searchable for v in choice.verdicts] == [False, True, False]
    assert choice.verdict.query_field == "q"
    async with FormSearch(pool, choice.form, choice.verdict, settings) as search:
        first = await search.query("tea")
        assert first.outcome == "ok", first.error
        assert search.replay is not None  # checked against the browser's first page
        tea = {u for u in first.result_urls if "/record/" in u}
        assert tea == {f"{wide.site.url}/record/tea-{i}" for i in range(RECORDS)}
        second = await search.query("salt")
        assert second.via == "http"
        assert len({u for u in second.result_urls if "/record/" in u}) == RECORDS
        assert second.pages == 3
    assert wide.actions == []  # neither the log-in nor the sign-up was ever pressed
    # the nonsense word and "tea" in the browser; "tea" checked and read on, "salt" read by
    # replay: its three pages, each turned from the state of the page before
    posts = [entry for entry in wide.site.log if entry[0] == "POST"]
    assert len(posts) <= 2 + 3 + 3
