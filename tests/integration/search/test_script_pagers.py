"""Pagers that are not links, in real Chromium: numbered buttons whose script fetches the page
they name, and a list that grows as it is scrolled.

Both result pages are shells a script fills from a JSON request, three results at a time, and
report their total ("8 results"): the filler must read every result through them, and never
open a result.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

import pytest

from deepcrawl.browser import BrowserPool
from deepcrawl.browser.testing import LocalSite, Reply
from deepcrawl.search import FormFiller, find_search_form
from deepcrawl.settings import Settings

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Iterator

pytestmark = pytest.mark.browser

SETTINGS = Settings().with_overrides(browser={"page_timeout_s": 10.0})

ITEMS = {
    f"/item/{i}/": f"lantern {'harbour' if i % 3 else 'meadow'} note {i}" for i in range(1, 11)
}
"""Ten records; "lantern" matches all, "harbour" seven."""

FORM = """<html><body><a href="/">Home</a> <a href="/about/">About</a>
<form action="%s"><input name="q" aria-label="Search"><button>Search</button></form>
</body></html>"""

SHELL = """<html><body><a href="/">Home</a> <a href="/about/">About</a>
<p id="count"></p><ol id="list"></ol><div id="pager"></div>
<script>
const word = new URLSearchParams(location.search).get('q') || '';
const list = document.getElementById('list');
async function load(page, append) {
  const data = await (await fetch('/api?q=' + encodeURIComponent(word) + '&page=' + page)).json();
  document.getElementById('count').textContent = data.total + ' results';
  const items = data.items.map(i => '<li><a href="' + i.url + '">' + i.title + '</a></li>');
  list.innerHTML = (append ? list.innerHTML : '') + items.join('');
  return data;
}
%s
</script></body></html>"""

NUMBERED = """load(1, false).then(data => {
  const pages = Math.ceil(data.total / 3);
  const pager = document.getElementById('pager');
  for (let n = 1; n <= pages; n++) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = String(n);
    button.addEventListener('click', () => load(n, false));
    pager.appendChild(button);
  }
});"""

SCROLLED = """document.body.style.minHeight = '100%%';
list.style.lineHeight = '400px';
let next = 1, busy = false, total = Infinity;
async function more() {
  if (busy || (next - 1) * 3 >= total) return;
  busy = true;
  total = (await load(next, next > 1)).total;
  next += 1;
  busy = false;
}
window.addEventListener('scroll', () => {
  if (window.innerHeight + window.scrollY >= document.body.scrollHeight - 50) more();
});
more();"""


def _api(path: str) -> Reply:
    query = parse_qs(urlsplit(path).query)
    word = query.get("q", [""])[0].lower()
    page = int(query.get("page", ["1"])[0])
    hits = [url for url, text in ITEMS.items() if word and word in text.split()]
    items = [{"url": url, "title": ITEMS[url]} for url in hits[(page - 1) * 3 : page * 3]]
    body = json.dumps({"total": len(hits), "items": items})
    return Reply(body, content_type="application/json")


@pytest.fixture(scope="module")
def site() -> Iterator[LocalSite]:
    routes: dict[str, Reply | Callable[[str], Reply]] = {
        "/": Reply(FORM % "/results"),
        "/feed/": Reply(FORM % "/stream"),
        "/results": Reply(SHELL % NUMBERED),
        "/stream": Reply(SHELL % SCROLLED),
        "/api": _api,
    }
    routes.update(
        {url: Reply(f"<html><body><p>{text}</p></body></html>") for url, text in ITEMS.items()}
    )
    with LocalSite(routes) as running:
        yield running


@pytest.fixture(scope="module")
async def pool() -> AsyncIterator[BrowserPool]:
    async with BrowserPool(SETTINGS, {"127.0.0.1"}) as running:
        yield running


@pytest.mark.parametrize("start", ["/", "/feed/"], ids=["numbered buttons", "infinite scroll"])
async def test_every_result_is_read_through_a_scripted_pager(
    pool: BrowserPool, site: LocalSite, start: str
) -> None:
    form, verdict = await find_search_form(site.url + start, SETTINGS, pool)
    filler = FormFiller(pool, form, verdict, SETTINGS)
    result = await filler.query("lantern")
    assert result.outcome == "ok"
    assert result.total_results == 10
    assert {link.url.removeprefix(site.url) for link in result.result_links} == set(ITEMS)
    assert result.pages == 4  # three results a page
    harbour = await filler.query("harbour")
    expected = {url for url, text in ITEMS.items() if "harbour" in text}
    assert {link.url.removeprefix(site.url) for link in harbour.result_links} == expected
    assert not any(path.startswith("/item/") for _, path in site.log)  # no result opened
