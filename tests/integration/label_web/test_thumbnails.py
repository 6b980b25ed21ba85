"""Thumbnails of example pages: taken in real Chromium, cached, and never changing the site."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import pytest

from deepcrawl.label_web.thumbnails import Thumbnails
from deepcrawl.settings import load_settings
from deepcrawl.storage import Repository

if TYPE_CHECKING:
    from collections.abc import Iterator

pytestmark = pytest.mark.browser

#: A page whose scripts submit a form and navigate away as soon as it loads.
_PAGE = b"""<!doctype html><title>record 7</title><h1>Record 7</h1>
<form method="post" action="/delete"><input name="id" value="7"></form>
<a id="out" href="/logout">log out</a>
<script>
  document.forms[0].submit();
  setTimeout(() => { location.href = "/elsewhere"; }, 10);
  fetch("/track", {method: "POST", body: "x"});
</script>"""


class _Site(BaseHTTPRequestHandler):
    seen: ClassVar[list[tuple[str, str]]] = []

    def _answer(self) -> None:
        self.seen.append((self.command, self.path))
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(_PAGE)

    do_GET = do_POST = _answer

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def site() -> Iterator[str]:
    _Site.seen.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Site)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


async def test_a_thumbnail_submits_nothing_follows_nothing_and_is_taken_once(
    site: str, tmp_path: Path
) -> None:
    settings = load_settings(
        storage={"url": f"sqlite:///{tmp_path / 'db.sqlite'}", "bodies_dir": tmp_path / "bodies"}
    )
    with Repository.open(settings.storage.url, settings.storage) as repo:
        site_id = repo.site(site + "/").id
        thumbnails = Thumbnails(repo, site_id, site + "/", settings)
        try:
            png = await thumbnails.png(site + "/record/7")
            assert png is not None
            assert png.startswith(b"\x89PNG")
            assert _Site.seen == [("GET", "/record/7")]  # no POST, no navigation away
            assert await thumbnails.png(site + "/record/7") == png  # from the cache
            assert len(_Site.seen) == 1
            assert await thumbnails.png("http://other.example/record/7") is None
        finally:
            await thumbnails.aclose()
