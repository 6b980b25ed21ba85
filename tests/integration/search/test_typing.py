"""A search-as-you-type box in real Chromium: typed into one live page, never submitted.

The page models MkDocs-Material's search: a form without an action (it "submits" to its own
page), a script that searches a small in-page index on each key-up and lists the matches as
links, and Enter opening the best match (a navigation away). The filler must find that typing
alone shows the results and then type every keyword into the same page: the server sees the
page once, whatever the number of queries. A form that submits elsewhere, or has a submit button
(what typing shows beside it is suggestions), is submitted as ever.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

import pytest

from deepcrawl.browser import BrowserPool
from deepcrawl.browser.testing import LocalSite, Reply
from deepcrawl.search import FormFiller, find_search_form
from deepcrawl.settings import Settings

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Iterator

    from deepcrawl.search.results import QueryResult

pytestmark = pytest.mark.browser

SETTINGS = Settings().with_overrides(browser={"page_timeout_s": 10.0})

DOCS = {
    f"/docs/{name}/": text
    for name, text in {
        "river-walk": "river stone bridge",
        "river-mill": "river mill grain",
        "stone-garden": "stone garden wall",
        "mill-pond": "mill pond river",
        "garden-gate": "garden gate stone",
        "bridge-toll": "bridge toll road",
    }.items()
}

LIVE = """<html><body><header><a href="/">Home</a> <a href="/about/">About</a>
<form name="search"><input name="query" placeholder="Search" aria-label="Search"></form>
</header><main><ol id="results"></ol><p id="meta"></p></main>
<script>
const docs = %s;
const box = document.querySelector('input[name=query]');
function search() {
  const word = box.value.trim().toLowerCase();
  const hits = Object.keys(docs).filter(url => word && docs[url].split(' ').includes(word));
  document.getElementById('results').innerHTML =
    hits.map(url => '<li><a href="' + url + '">' + docs[url] + '</a></li>').join('');
  document.getElementById('meta').textContent =
    hits.length ? hits.length + ' matching documents' : 'No matching documents';
}
box.addEventListener('keyup', search);
box.closest('form').addEventListener('submit', event => {
  event.preventDefault();
  const first = document.querySelector('#results a');
  if (first) location.href = first.href;
});
</script></body></html>"""

SUGGESTING = """<html><body><a href="/">Home</a>
<form><input name="q" aria-label="Search"><button>Search</button></form><ul id="suggest"></ul>
<script>
const box = document.querySelector('input[name=q]');
box.addEventListener('keyup', () => {
  document.getElementById('suggest').innerHTML = ['a', 'b', 'c', 'd'].map(
    s => '<li><a href="/suggested/' + s + '/">' + box.value + ' ' + s + '</a></li>').join('');
});
</script></body></html>"""

SUBMITTED = """<html><body><a href="/">Home</a>
<form action="/search"><input name="q" aria-label="Search"><button>Search</button></form>
</body></html>"""


WIDGET = """<html><body><a href="/">Home</a>
<form action="javascript:void(0);" role="search"><input class="box" placeholder="Search">
<button class="clear">Clear</button><div id="drawer"></div></form>
<script>
const docs = %s;
const box = document.querySelector('.box');
let hits = [], shown = 0;
async function render() {
  const items = [];
  for (const url of hits.slice(0, shown)) {  // one data file a result shown, as Pagefind's
    const text = await (await fetch('/fragment' + url)).text();
    items.push('<li><a href="' + url + '">' + text + '</a></li>');
  }
  const more = shown < hits.length
    ? '<button type="button" class="more">Load more results</button>' : '';
  document.getElementById('drawer').innerHTML = '<p>' + hits.length + ' results for '
    + box.value + '</p><ol>' + items.join('') + '</ol>' + more;
  const button = document.querySelector('.more');
  if (button) button.addEventListener('click', () => { shown += 3; render(); });
}
box.addEventListener('input', () => {
  const word = box.value.trim().toLowerCase();
  hits = Object.keys(docs).filter(url => word && docs[url].split(' ').includes(word));
  shown = 3;
  setTimeout(render, 100);
});
document.querySelector('.clear').addEventListener('click', () => {
  box.value = ''; hits = []; render();
});
</script></body></html>"""
"""A search widget as static-site search libraries draw it: a form whose action is a script,
a "Clear" button (a ``<button>`` without a type: a submit button to the browser), results
rendered as one types, three at a time behind a "Load more results" button inside the form."""

FORMLESS = """<html><body><a href="/">Home</a>
<div class="finder"><label>Search <input type="search" id="live-q" autocomplete="off"></label>
<ol id="hits"></ol><button type="button" id="more" hidden>More results</button></div>
<script>
const box = document.getElementById('live-q');
let timer = null;
box.addEventListener('input', () => {
  clearTimeout(timer);
  timer = setTimeout(async () => {
    const html = await (await fetch('/feed?q=' + encodeURIComponent(box.value))).text();
    document.getElementById('hits').innerHTML = html;
  }, 250);
});
</script></body></html>"""
"""A box of no ``<form>`` that asks the site for each word typed (after a pause) and draws
the answer; a word the site refuses (a stop word) answers nothing, and Enter does nothing."""

NOTES = {f"/notes/{i}/": f"lamp note {'even' if i % 2 == 0 else 'odd'}" for i in range(1, 8)}


def _results(path: str) -> Reply:
    word = path.partition("q=")[2].lower()
    hits = [url for url, text in DOCS.items() if word and word in text.split()]
    items = "".join(f'<li><a href="{url}">{DOCS[url]}</a></li>' for url in hits)
    meta = f"{len(hits)} results" if hits else "No results found"
    return Reply(f"<html><body><a href='/'>Home</a><p>{meta}</p><ol>{items}</ol></body></html>")


def _feed(path: str) -> Reply:
    """The formless box's answer: the documents holding the word, stop words refused."""
    word = path.partition("q=")[2].lower()
    hits = [] if word in {"the", "of"} else [u for u, t in DOCS.items() if word in t.split()]
    return Reply("".join(f'<li><a href="{url}">{DOCS[url]}</a></li>' for url in hits))


def _suggesting(path: str) -> Reply:
    """A search page with a submit button that suggests links as one types."""
    return _results(path) if "q=" in path else Reply(SUGGESTING)


@pytest.fixture(scope="module")
def site() -> Iterator[LocalSite]:
    routes: dict[str, Reply | Callable[[str], Reply]] = {
        "/": Reply(LIVE % json.dumps(DOCS)),
        "/classic/": Reply(SUBMITTED),
        "/suggest/": _suggesting,
        "/search": _results,
        "/widget/": Reply(WIDGET % json.dumps(NOTES)),
        "/finder/": Reply(FORMLESS),
        "/feed": _feed,
    }
    routes.update({f"/fragment{url}": Reply(text) for url, text in NOTES.items()})
    routes.update(
        {url: Reply(f"<html><body><p>{text}</p></body></html>") for url, text in DOCS.items()}
    )
    with LocalSite(routes) as running:
        yield running


@pytest.fixture(scope="module")
async def pool() -> AsyncIterator[BrowserPool]:
    async with BrowserPool(SETTINGS, {"127.0.0.1"}) as running:
        yield running


async def test_a_search_as_you_type_is_typed_into_one_live_page(
    pool: BrowserPool, site: LocalSite
) -> None:
    form, verdict = await find_search_form(site.url + "/", SETTINGS, pool)
    filler = FormFiller(pool, form, verdict, SETTINGS)
    loads = len(site.log)
    found: dict[str, tuple[set[str], QueryResult]] = {}
    sent: list[int] = []  # what the server had answered after each query
    for word in ("river", "stone", "garden", "nothingatall", "mill"):
        result = await filler.query(word)
        found[word] = ({link.url.removeprefix(site.url) for link in result.result_links}, result)
        sent.append(len(site.log))
    assert filler.types_live is True
    assert found["river"][0] == {"/docs/river-walk/", "/docs/river-mill/", "/docs/mill-pond/"}
    assert found["stone"][0] == {"/docs/river-walk/", "/docs/stone-garden/", "/docs/garden-gate/"}
    assert found["mill"][0] == {"/docs/river-mill/", "/docs/mill-pond/"}
    assert found["nothingatall"][1].outcome == "no_results"
    assert sent == [sent[0]] * 5  # typed queries cost no request (the first's baseline did)
    # the nonsense keyword's baseline loaded the page once, submitted once; then nothing more:
    # no query reloaded the page or opened a result
    requested = [path for _, path in site.log[loads:]]
    assert requested.count("/") <= 1
    assert not any(path.startswith("/docs/") for path in requested)


async def test_a_form_that_submits_elsewhere_is_submitted(
    pool: BrowserPool, site: LocalSite
) -> None:
    form, verdict = await find_search_form(site.url + "/classic/", SETTINGS, pool)
    filler = FormFiller(pool, form, verdict, SETTINGS)
    result = await filler.query("garden")
    assert filler.types_live is None  # never tried: the form leaves its page
    assert {link.url.removeprefix(site.url) for link in result.result_links} == {
        "/docs/stone-garden/",
        "/docs/garden-gate/",
    }
    assert site.requested("/search?q=garden")


async def test_suggestions_beside_a_submit_button_are_not_results(
    pool: BrowserPool, site: LocalSite
) -> None:
    form, verdict = await find_search_form(site.url + "/suggest/", SETTINGS, pool)
    filler = FormFiller(pool, form, verdict, SETTINGS)
    result = await filler.query("garden")
    assert filler.types_live is None  # never tried: the form has a button of its own
    assert {link.url.removeprefix(site.url) for link in result.result_links} == {
        "/docs/stone-garden/",
        "/docs/garden-gate/",
    }
    assert site.requested("/suggest/?q=garden")


async def test_a_widget_with_a_script_action_is_typed_into_and_read_to_its_end(
    pool: BrowserPool, site: LocalSite
) -> None:
    form, verdict = await find_search_form(site.url + "/widget/", SETTINGS, pool)
    filler = FormFiller(pool, form, verdict, SETTINGS)
    result = await filler.query("lamp")
    assert filler.types_live is True  # the Clear button is not a submission
    assert {link.url.removeprefix(site.url) for link in result.result_links} == set(NOTES)
    assert result.total_results == 7
    assert result.pages == 3  # three, then "Load more results" twice
    even = await filler.query("even")
    assert {link.url.removeprefix(site.url) for link in even.result_links} == {
        "/notes/2/",
        "/notes/4/",
        "/notes/6/",
    }
    assert even.pages == 1
    assert not any(path.startswith("/notes/") for _, path in site.log)  # nothing opened


async def test_a_formless_box_that_answers_a_word_with_nothing_is_not_waited_on(
    pool: BrowserPool, site: LocalSite
) -> None:
    # the page asked the site for the word and drew no link: the answer came, and Enter in a
    # box of no form may do nothing; neither is waited on to the page timeout
    form, verdict = await find_search_form(site.url + "/finder/", SETTINGS, pool)
    assert form.formless
    filler = FormFiller(pool, form, verdict, SETTINGS)
    started = time.monotonic()
    empty = await filler.query("the")
    assert empty.outcome == "no_results"
    assert time.monotonic() - started < SETTINGS.browser.page_timeout_s
    assert site.requested("/feed?q=the")
    result = await filler.query("river")
    assert {link.url.removeprefix(site.url) for link in result.result_links} == {
        "/docs/river-walk/",
        "/docs/river-mill/",
        "/docs/mill-pond/",
    }
    assert filler.types_live is True
