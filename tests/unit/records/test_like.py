"""``prototypes --from-file URLS --like U`` as a function (deepcrawl.records.like), on pages saved
from the test bed's MkDocs site: twelve sections, one kind of page.

The URL list is the example page's navigation (every navigable page of the site); a fake fetcher
serves the saved pages of four sections and answers 404 elsewhere, so the layout widens the
example's prototype to the sections whose pages it has, and to no other.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import lxml.html

from deepcrawl.browser.base import Fetcher
from deepcrawl.page.fetched import Exchange, FetchedPage
from deepcrawl.records.like import like_over_list, served_html
from deepcrawl.settings import load_settings

PAGES = Path(__file__).resolve().parents[2] / "data" / "real" / "mkdocs" / "pages"
DOCS = "http://127.0.0.1:23005"
EXAMPLE = f"{DOCS}/guides/argue-execution-peak/"
SAVED = {
    "guides": ["guides-argue-execution-peak", "guides-else-regard-rough"],
    "community": ["community-ago-pulled-future"],
    "security": ["security-afternoon-uses"],
    "tutorials": ["tutorials-courts-chat"],
}


def _page(name: str) -> str:
    return (PAGES / f"{name}.html").read_text(encoding="utf-8")


def _section(url: str) -> str:
    return urlsplit(url).path.split("/")[1]


def _urls() -> list[str]:
    """The links of the example page's navigation."""
    root = lxml.html.fromstring(_page("guides-argue-execution-peak"))
    urls = (urljoin(EXAMPLE, href).split("#")[0] for href in root.xpath("//a/@href"))
    return list(dict.fromkeys(u for u in urls if u.startswith(DOCS) and u.endswith("/")))


class _SavedDocs(Fetcher):
    """The saved pages of four sections, in turn; 404 for any other URL."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.turn: dict[str, int] = {}

    async def fetch(self, url: str) -> FetchedPage:
        self.asked.append(url)
        names = SAVED.get(_section(url))
        if names is None:
            return FetchedPage(url, url, 404, "text/html", "<html><p>not found</p></html>")
        turn = self.turn[url] = self.turn.get(url, len(self.turn))
        return FetchedPage(url, url, 200, "text/html", _page(names[turn % len(names)]))


def test_the_example_widens_to_the_sections_whose_pages_look_like_it() -> None:
    urls = _urls()
    fetcher = _SavedDocs()
    answer = asyncio.run(
        like_over_list(urls, EXAMPLE, load_settings(), make_fetcher=lambda _s, _scope: fetcher)
    )
    assert answer.evidence == "layout"
    assert answer.reason == ""
    assert {_section(u) for u in answer.members} == set(SAVED)
    assert {_section(p.examples[0]) for p in answer.widened} == set(SAVED) - {"guides"}
    assert answer.layout is not None
    assert len(answer.layout.widening.checked) == 3  # the others' samples were not pages
    assert fetcher.asked[0] == f"{DOCS}/robots.txt"  # politely: robots.txt first
    assert len(fetcher.asked) == 1 + answer.requests
    assert answer.requests < answer.layout.fetched  # two samples the safety rule refused
    data = answer.to_dict()
    assert data["evidence"]["used"] == "layout"
    assert data["members"] == list(answer.members)
    assert {s["added"] for s in data["evidence"]["siblings"]} == {True}
    assert data["prototype"]["id"] == answer.prototype.id  # type: ignore[union-attr]


def test_offline_the_example_keeps_its_own_section() -> None:
    urls = _urls()
    answer = asyncio.run(like_over_list(urls, EXAMPLE, load_settings(), offline=True))
    assert (answer.evidence, answer.reason, answer.widened) == ("urls", "--offline", ())
    assert {_section(u) for u in answer.members} == {"guides"}


def test_an_example_that_cannot_be_fetched_leaves_the_urls_answer_and_says_so() -> None:
    urls = _urls()
    answer = asyncio.run(
        like_over_list(
            urls,
            f"{DOCS}/reference/not-saved/",
            load_settings(),
            make_fetcher=lambda _s, _scope: _SavedDocs(),
        )
    )
    assert (answer.evidence, answer.reason) == ("urls", "the example page could not be fetched")
    assert {_section(u) for u in answer.members} == {"reference"}
    assert answer.widened == ()


def test_a_rendered_page_is_compared_as_its_server_wrote_it() -> None:
    served = b"<html><body><main><h1>A guide</h1></main></body></html>"
    exchange = Exchange("GET", EXAMPLE, (), "HTTP/1.1", 200, "OK", (), served)
    rendered = FetchedPage(
        EXAMPLE, EXAMPLE, 200, "text/html", "<html><body><div>scripts</div></body></html>",
        via="browser", headers={"content-type": "text/html; charset=utf-8"}, exchange=exchange,
    )  # fmt: skip
    assert served_html(rendered) == served.decode()
    plain = FetchedPage(EXAMPLE, EXAMPLE, 200, "text/html", "<p>x</p>", exchange=exchange)
    assert served_html(plain) == "<p>x</p>"
