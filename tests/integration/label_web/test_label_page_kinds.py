"""The label page after a crawl with no example (issue 28, item 3): the pick already marked, a
thumbnail of every kind that looks like records, taken in real Chromium from the site itself.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

import httpx
import pytest

from tests.integration.label_web.served import label_page
from tests.integration.run_cli import run_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser

#: One kind's card: its id, its classes, its URL shape and its thumbnail, if it shows one.
_CARD = re.compile(
    r'<article class="(?P<classes>[^"]*)"\s+id="(?P<id>[^"]+)".*?<h2><code>(?P<shape>[^<]*)'
    r"</code></h2>(?P<body>.*?)</article>",
    re.DOTALL,
)


def test_the_pick_is_marked_and_every_kind_of_records_shows_a_thumbnail(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    # a help desk's search lists as many knowledge-base articles as cases: two kinds of records
    server = fixture_server("helpdesk", records=60, seed=3)
    db = f"sqlite:///{tmp_path / 'c.db'}"
    crawled = run_deepcrawl(tmp_path, "crawl", server.url + "/", "--db", db,
                            "--out", str(tmp_path / "out"), "--max-pages", "5")  # fmt: skip
    assert crawled.returncode == 0, crawled.stderr
    with label_page(tmp_path, db) as page:
        cards = {
            html.unescape(m["shape"]): (m["id"], m["classes"].split(), m["body"])
            for m in _CARD.finditer(httpx.get(page + "/", timeout=30).text)
        }
        records = {"/case/‹number›", "/kb/‹number›"}
        assert records <= set(cards), sorted(cards)
        marked = [shape for shape, (_, classes, _) in cards.items() if "suggested" in classes]
        assert len(marked) == 1, marked  # the pick, already marked
        assert marked[0] in records
        assert "looks like the records" in cards[marked[0]][2]
        for shape in records:  # every kind that looks like records: a thumbnail, loaded at once
            pid, _, body = cards[shape]
            assert re.search(r'<img class="thumbnail"[^>]*loading="eager"', body), shape
            png = httpx.get(f"{page}/kind/{pid}/thumbnail.png", timeout=60)
            assert png.status_code == 200, shape
            assert png.headers["content-type"] == "image/png"
            assert png.content.startswith(b"\x89PNG"), shape
        for shape, (_, _, body) in cards.items():  # the other kinds' load when scrolled to
            if shape not in records:
                assert 'loading="eager"' not in body, shape
