"""The label page after a crawl with no example (issue 28, item 3): the pick already marked, a
thumbnail of every kind that looks like records, taken in real Chromium from the site itself.
"""

from __future__ import annotations

import html
import re
import socket
import subprocess
import time
from typing import TYPE_CHECKING

import httpx
import pytest

from tests.integration.run_cli import cli_env, run_deepcrawl, spawn_deepcrawl

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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_up(page: str, server: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while True:
        assert server.poll() is None, server.communicate()[1]
        assert time.monotonic() < deadline, "the label page did not come up"
        try:
            if httpx.get(page + "/", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.2)


def test_the_pick_is_marked_and_every_kind_of_records_shows_a_thumbnail(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    # a help desk's search lists as many knowledge-base articles as cases: two kinds of records
    server = fixture_server("helpdesk", records=60, seed=3)
    db = f"sqlite:///{tmp_path / 'c.db'}"
    crawled = run_deepcrawl(tmp_path, "crawl", server.url + "/", "--db", db,
                            "--out", str(tmp_path / "out"), "--max-pages", "5")  # fmt: skip
    assert crawled.returncode == 0, crawled.stderr
    port = _free_port()
    page = f"http://127.0.0.1:{port}"
    label = spawn_deepcrawl(
        ["label", "1", "--db", db, "--web", "--port", str(port)],
        env=cli_env(tmp_path), cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        _wait_up(page, label)
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
    finally:
        label.terminate()
        label.communicate(timeout=30)
