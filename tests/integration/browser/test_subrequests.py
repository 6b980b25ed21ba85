"""A real client-side search in real Chromium: the whole result list, each document once.

The site is a real Sphinx build (``tests/data/real/sphinx``): its ``search.html?q=WORD`` loads
``searchindex.js``, appends the results one every few milliseconds and fetches every result's
page for a snippet. Requests are counted on the server side.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from collections import Counter
from email.utils import formatdate
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from nltk.stem.snowball import SnowballStemmer

from deepcrawl.browser import BrowserPool, SafetyGate, Subrequests, render_page
from deepcrawl.browser.render import SETTLE_MAX_S
from deepcrawl.browser.settle import SETTLE_QUIET_S
from deepcrawl.browser.testing import LocalSite, Reply
from deepcrawl.fetch import Count, Gate, HostLimiter, RobotsPolicy
from deepcrawl.page import FetchedPage
from deepcrawl.records.documents import StoredPages
from deepcrawl.search import FormFiller, find_search_form
from deepcrawl.settings import Settings
from deepcrawl.storage import Repository
from deepcrawl.urls import normalise_url

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Iterator

pytestmark = pytest.mark.browser

SITE = Path(__file__).parents[2] / "data" / "real" / "sphinx"
SETTINGS = Settings().with_overrides(browser={"page_timeout_s": 10.0})
WORDS = ("river", "castle", "falcon", "copper", "meadow")
_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css"}
_PAGE = re.compile(r"/(page\d+|index)\.html$")


@pytest.fixture(scope="module")
def sphinx() -> Iterator[LocalSite]:
    """The Sphinx build served as a static server serves it (with ``Last-Modified``)."""
    routes: dict[str, Reply | Callable[[str], Reply]] = {}
    for path in SITE.rglob("*"):
        if path.suffix in _TYPES:
            stamp = formatdate(path.stat().st_mtime, usegmt=True)
            routes["/" + path.relative_to(SITE).as_posix()] = Reply(
                path.read_bytes(),
                content_type=_TYPES[path.suffix],
                headers=(("Last-Modified", stamp),),
            )
    with LocalSite(routes) as site:
        yield site


@pytest.fixture(scope="module")
async def pool() -> AsyncIterator[BrowserPool]:
    """A pool with the default settings, shared (its cache warm after the first test)."""
    async with BrowserPool(SETTINGS, {"127.0.0.1"}) as running:
        yield running


def _indexed_pages(word: str) -> set[str]:
    """Pages whose text or titles hold ``word``, read from the site's own ``searchindex.js``
    (its terms are Snowball stems, as Sphinx's English stemmer makes them)."""
    raw = (SITE / "searchindex.js").read_text()
    index = json.loads(raw[raw.index("(") + 1 : raw.rindex(")")])
    stem = SnowballStemmer("english").stem(word)
    found: set[str] = set()
    for table in ("terms", "titleterms"):
        docs = index[table].get(stem, [])
        for doc in docs if isinstance(docs, list) else [docs]:
            found.add(index["docnames"][doc] + ".html")
    assert found, f"{word!r} is not in the index"
    return found


def _results(page: FetchedPage) -> set[str]:
    return {link.url.rsplit("/", 1)[1] for link in page.links if "/ul/li" in link.dom_path}


async def _render(pool: BrowserPool, url: str, **options: Any) -> FetchedPage:
    async with pool.page() as lease:
        return await render_page(lease, url, forms=False, **options)


async def test_render_reads_the_whole_progressive_result_list(
    sphinx: LocalSite, pool: BrowserPool
) -> None:
    # "entry" is in every title: 29 results, appended one every 5 ms after the load event
    for word in ("entry", "castle"):
        page = await _render(pool, f"{sphinx.url}/search.html?q={word}")
        finished = re.search(r"found (\d+) pages? matching", page.body)
        assert finished, "read before the search finished"
        results = _results(page)
        assert len(results) == int(finished[1])
        assert _indexed_pages(word) <= results


async def test_five_queries_fetch_each_document_at_most_once(sphinx: LocalSite) -> None:
    sphinx.log.clear()
    seen: set[str] = set()
    allowed = Subrequests(SETTINGS.browser.page_timeout_s, block_linked=False)
    async with BrowserPool(SETTINGS, {"127.0.0.1"}, subrequests=allowed) as pool:
        for word in WORDS:
            seen |= _results(await _render(pool, f"{sphinx.url}/search.html?q={word}"))
        stats = pool.subrequests.stats
    asked = Counter(path.split("?", 1)[0] for _method, path in sphinx.log)
    assert asked["/search.html"] == len(WORDS)
    assert asked["/searchindex.js"] == 1
    assert all(n == 1 for path, n in asked.items() if path != "/search.html"), asked
    assert {p for p in asked if _PAGE.search(p)} == {"/" + name for name in seen}
    assert stats.from_cache > 0


async def test_linked_documents_are_refused_and_stored_ones_answered(
    sphinx: LocalSite, tmp_path: Path
) -> None:
    """With the store, pages the crawl has are never asked for; without, linked ones are not."""
    with Repository.open(f"sqlite:///{tmp_path / 'crawl.db'}") as repo:
        site = repo.site(sphinx.url + "/")
        stored = {"page01.html", "page02.html", "page03.html", "page04.html", "page05.html"}
        for name in stored:
            url = f"{sphinx.url}/{name}"
            body = (SITE / name).read_text()
            page = FetchedPage(url, url, 200, "text/html", body)
            repo.save_page(site.id, page, url=normalise_url(url), with_links=False)
        sphinx.log.clear()
        async with BrowserPool(SETTINGS, {"127.0.0.1"}, store=StoredPages(repo, site.id)) as pool:
            for word in WORDS:
                page = await _render(pool, f"{sphinx.url}/search.html?q={word}")
                assert re.search(r"found \d+ pages? matching", page.body)
            stats = pool.subrequests.stats
    asked = {path for _method, path in sphinx.log}
    assert not {p for p in asked if _PAGE.search(p)}, "a result page was downloaded"
    assert stats.from_store > 0
    assert stats.blocked_linked > 0


async def test_form_search_reads_all_results_and_pays_once_for_the_index(
    sphinx: LocalSite, pool: BrowserPool
) -> None:
    form, verdict = await find_search_form(f"{sphinx.url}/search.html", SETTINGS, pool)
    filler = FormFiller(pool, form, verdict, SETTINGS)
    await filler.learn_baseline()
    sphinx.log.clear()
    politeness = SETTINGS.politeness
    robots = RobotsPolicy("deepcrawl", obey=False)
    sent = Count()  # what the pages' gate counted
    pool.gate = Gate(politeness, robots, HostLimiter(politeness), lambda _url: True, tally=sent)
    try:
        for word in WORDS:
            before, counted = len(sphinx.log), sent.requests
            result = await filler.query(word, max_pages=1)
            assert result.outcome == "ok"
            assert sent.requests - counted == len(sphinx.log) - before  # what the server saw
            shown = {u.rsplit("/", 1)[1] for u in result.result_urls}
            # the index page lists every title, so every query shows it: chrome to the judge
            assert _indexed_pages(word) - {"index.html"} <= shown
    finally:
        pool.gate = SafetyGate()
    asked = Counter(path.split("?", 1)[0] for _method, path in sphinx.log)
    assert asked["/search.html"] == len(WORDS)
    assert sum(asked.values()) == len(WORDS), asked  # index and scripts came from the cache


async def test_a_still_page_is_read_within_one_quiet_period(
    sphinx: LocalSite, pool: BrowserPool
) -> None:
    """Settling costs a page that does not change about one quiet period, no more."""
    timings: dict[str, list[float]] = {"before": [], "after": []}
    for _ in range(5):
        for name, settle_s in (("before", 0.0), ("after", SETTLE_MAX_S)):
            started = time.monotonic()
            await _render(pool, f"{sphinx.url}/page07.html", settle_s=settle_s)
            timings[name].append(time.monotonic() - started)
    slower = statistics.median(timings["after"]) - statistics.median(timings["before"])
    assert slower <= SETTLE_QUIET_S + 0.15, timings


PAGER = """<html><body><ul id=results><li><a href="/doc/1">One</a></li></ul>
<a id=more href="/list?page=2">More</a> <a rel=next href="/list/3">Next</a>
<script>
const add = (html) => document.getElementById('results').insertAdjacentHTML('beforeend', html);
fetch('/list?page=2').then(r => r.text()).then(add);
fetch('/list/3').then(r => r.text()).then(add);
fetch('/doc/1').then(r => r.text()).then(t => add('<li>snippet ' + t + '</li>'));
</script></body></html>"""


async def test_pager_requests_are_never_refused(pool: BrowserPool) -> None:
    """A "load more" script fetches its own pager links: those answers the list needs."""
    routes: dict[str, Reply | Callable[[str], Reply]] = {
        "/list": lambda path: Reply(PAGER if "page=" not in path else '<li><a href="/doc/2">2</a>'),
        "/list/3": Reply('<li><a href="/doc/3">Three</a></li>'),
        "/doc/1": Reply("the first document"),
    }
    with LocalSite(routes) as site:
        page = await _render(pool, site.url + "/list")
        asked = {path for _method, path in site.log}
    assert {site.url + f"/doc/{n}" for n in (1, 2, 3)} <= {link.url for link in page.links}
    assert "/doc/1" not in asked  # the page links to it: the snippet is not worth a request
    assert "the first document" not in page.body


API_CALLER = """<html><body><ul id="r"><li><a href="/doc/1">One</a></li></ul><script>
fetch('/api/user').then(r => document.body.dataset.api = String(r.status));
</script></body></html>"""


async def test_a_refused_script_request_is_asked_once_per_session(pool: BrowserPool) -> None:
    """Every page's template script asks an API the crawl may not use: the server refuses it
    once; the next pages get the same refusal without a request."""
    routes: dict[str, Reply | Callable[[str], Reply]] = {
        "/list": Reply(API_CALLER),
        "/api/user": Reply('{"error": "forbidden"}', status=403, content_type="application/json"),
    }
    with LocalSite(routes) as site:
        pages = [await _render(pool, f"{site.url}/list?n={n}") for n in range(3)]
        asked = [path for _method, path in site.log if path.startswith("/api/")]
    assert asked == ["/api/user"]
    assert all('data-api="403"' in page.body for page in pages)  # the page saw the refusal
