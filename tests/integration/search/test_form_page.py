"""The form filler asks the server for its form's page only when no page it has will do.

Small local sites whose result pages do not show the form again (so every submission needs the
form's page): one whose form is the same at every load (its page is loaded twice for a whole
run of queries), one whose form carries a one-time token that changes per load (loaded afresh
before every submission, and every submission accepted), and one whose token is bound to the
cookie its page sets (a copy of that page fetched over plain HTTP is not submitted from).
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

import pytest

from deepcrawl.browser import BrowserPool
from deepcrawl.browser.http import HttpFetcher
from deepcrawl.browser.testing import LocalSite, Reply
from deepcrawl.search import FormFiller, find_search_form
from deepcrawl.settings import Settings

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

pytestmark = pytest.mark.browser

WORDS = ("water", "fire", "earth")


def form_page(name: str, token: str) -> str:
    return (
        f"<html><head><title>Search {name}</title></head><body><header><a href='/'>Home</a> "
        "<a href='/about'>About</a></header><main><h1>Find</h1>"
        f"<form action='/{name}/search' method='get'><input type='hidden' name='token' "
        f"value='{token}'><label>Search <input type='search' name='q'></label>"
        "<button type='submit'>Search</button></form></main></body></html>"
    )


def results(q: str) -> Reply:
    """Three records for a real word, "no results" for the nonsense one; no form."""
    if q.startswith("xq"):
        main = f"<p class='none'>No results for {q}.</p>"
    else:
        main = "".join(
            f"<li><a href='/record/{q}-{i}'>Record {i} about {q}</a></li>" for i in (1, 2, 3)
        )
    return Reply(f"<html><head><title>{q}</title></head><body><ol>{main}</ol></body></html>")


FORBIDDEN = Reply("<html><head><title>Forbidden</title></head><body>bad token</body></html>", 403)


class Tokens:
    """The site's tokens: issued per load, each good for one submission."""

    def __init__(self) -> None:
        self.counter = itertools.count(1)
        self.issued: set[str] = set()
        self.refused = 0

    def issue(self) -> str:
        token = f"t{next(self.counter)}"
        self.issued.add(token)
        return token

    def spend(self, token: str) -> bool:
        if token in self.issued:
            self.issued.discard(token)
            return True
        self.refused += 1
        return False


@pytest.fixture
def site() -> Iterator[tuple[LocalSite, Tokens]]:
    tokens = Tokens()

    def query(path: str) -> dict[str, str]:
        return {k: v[0] for k, v in parse_qs(urlsplit(path).query).items()}

    def once_search(path: str) -> Reply:
        args = query(path)
        return results(args.get("q", "")) if tokens.spend(args.get("token", "")) else FORBIDDEN

    def cookie_page(path: str) -> Reply:
        token = tokens.issue()  # the cookie is what a later load of the page is known by
        return Reply(form_page("cookie", token), headers=(("Set-Cookie", f"sid={token}"),))

    routes = {
        "/stable": Reply(form_page("stable", "same-for-all")),
        "/stable/search": lambda path: results(query(path).get("q", "")),
        "/once": lambda _path: Reply(form_page("once", tokens.issue())),
        "/once/search": once_search,
        "/cookie": cookie_page,
        "/cookie/search": once_search,
    }
    with LocalSite(routes) as served:
        yield served, tokens


@pytest.fixture
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    cache = tmp_path_factory.getbasetemp() / "forms-critic-cache"
    return Settings().with_overrides(
        forms={"model_cache_dir": cache},
        browser={"page_timeout_s": 5.0},
    )


@pytest.fixture
async def pool(settings: Settings) -> AsyncIterator[BrowserPool]:
    async with BrowserPool(settings, ["127.0.0.1"]) as pool:
        yield pool


def loads(served: LocalSite, path: str) -> int:
    return sum(1 for method, logged in served.log if method == "GET" and logged == path)


async def query_every_word(
    served: LocalSite, path: str, settings: Settings, pool: BrowserPool
) -> FormFiller:
    """The filler of the search form the finder finds at ``path``, once it has queried
    :data:`WORDS` (every query answered)."""
    form, verdict = await find_search_form(served.url + path, settings, pool)
    filler = FormFiller(pool, form, verdict, settings)
    outcomes = [(await filler.query(word)).outcome for word in WORDS]
    assert outcomes == ["ok"] * len(WORDS)
    return filler


async def test_a_form_the_same_at_every_load_has_its_page_loaded_twice(
    site: tuple[LocalSite, Tokens], pool: BrowserPool, settings: Settings
) -> None:
    served, _tokens = site
    filler = await query_every_word(served, "/stable", settings, pool)
    # the finder's render, submitted from by the nonsense baseline; one load for the first
    # word, which shows the form as the finder saw it: every later load is answered from it
    assert loads(served, "/stable") == 2
    assert filler.form_page.held
    assert len(served.requested("/stable/search")) == 1 + len(WORDS)


async def test_a_form_whose_one_time_token_changes_per_load_is_loaded_for_each_submission(
    site: tuple[LocalSite, Tokens], pool: BrowserPool, settings: Settings
) -> None:
    served, tokens = site
    filler = await query_every_word(served, "/once", settings, pool)
    assert tokens.refused == 0
    assert loads(served, "/once") == 1 + len(WORDS)  # the baseline submits from the finder's
    assert not filler.form_page.held


async def test_a_plain_http_copy_whose_cookie_the_browser_lacks_is_not_submitted_from(
    site: tuple[LocalSite, Tokens], pool: BrowserPool, settings: Settings
) -> None:
    served, tokens = site
    url = served.url + "/cookie"
    async with HttpFetcher(settings, ["127.0.0.1"], forms=False) as http:
        document = await http.fetch(url)  # as the crawl's input check fetches the start page
    form, verdict = await find_search_form(url, settings, pool, document=document)
    assert loads(served, "/cookie") == 1  # the finder rendered the copy
    filler = FormFiller(pool, form, verdict, settings)
    assert (await filler.query("water")).outcome == "ok"
    assert tokens.refused == 0  # the baseline too was submitted from a page the browser loaded
    assert loads(served, "/cookie") == 3  # the baseline's load, then one for the word
