"""The ``--like`` example as evidence in the setup phase, on a result page saved from Datasette."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

import lxml.html

from deepcrawl.crawler.setup import example_texts, example_urls, like_seen
from deepcrawl.page.fetched import FetchedPage
from deepcrawl.records.session_params import LearntSessions
from deepcrawl.settings import Settings

if TYPE_CHECKING:
    from deepcrawl.crawler.context import CrawlContext

DATA = Path(__file__).parents[2] / "data" / "real" / "datasette"
START = "http://127.0.0.1:24001/grants/grants"
EXAMPLE = "/grants/grants/17"


def _ctx() -> CrawlContext:
    settings = Settings()
    return cast(
        "CrawlContext",
        SimpleNamespace(settings=settings, start_url=START, sessions=LearntSessions()),
    )


def _links() -> list[str]:
    """Every link of the result page of "nonprofit": menus, exports, facets, sorts, 20 rows."""
    root = lxml.html.fromstring((DATA / "search-nonprofit.html").read_bytes())
    root.make_links_absolute(f"{START}?_search=nonprofit")
    return [href for a in root.iter("a") if (href := a.get("href"))]


def test_the_example_resolves_against_the_start_url() -> None:
    assert example_urls(_ctx(), [EXAMPLE, f"http://127.0.0.1:24001{EXAMPLE}"]) == [
        f"http://127.0.0.1:24001{EXAMPLE}"
    ]


def test_the_example_is_seen_once_a_result_page_shows_a_url_like_it() -> None:
    links = _links()
    rows = [url for url in links if url.rstrip("/").split("/")[-1].isdigit()]
    assert len(rows) == 20
    example = example_urls(_ctx(), [EXAMPLE])
    assert like_seen(links, example, _ctx())
    # the frame of the page alone (menus, exports, facets, sort links): nothing like the row
    assert not like_seen([url for url in links if url not in rows], example, _ctx())
    # the example itself on a result page is no other URL like it
    assert not like_seen([*[url for url in links if url not in rows], *example], example, _ctx())
    assert like_seen([], [], _ctx())  # no example: nothing to look for


def test_the_example_pages_words_are_its_main_text() -> None:
    page = FetchedPage(
        url=START + "/17",
        final_url=START + "/17",
        status=200,
        content_type="text/html",
        body=(DATA / "row-17.html").read_text(encoding="utf-8"),
    )
    (text,) = example_texts([page])
    assert "Porterburgh" in text
    assert "historic preservation" in text
