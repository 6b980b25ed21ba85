"""WARC archives of fetched pages, checked by warcio: records, status lines, headers and bytes
as the server sent them, over plain HTTP and in real Chromium, stored in real SQLite."""

from __future__ import annotations

import gzip
import json
import re
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from lxml import html as lxml_html
from warcio.archiveiterator import ArchiveIterator

from deepcrawl.browser.fetcher import BrowserFetcher
from deepcrawl.browser.http import HttpFetcher
from deepcrawl.export import write_warc
from deepcrawl.settings import load_settings
from deepcrawl.storage import Repository
from deepcrawl.warc import ORIGINAL_PREFIX
from tests.integration.run_cli import cli_env, run_deepcrawl, spawn_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from deepcrawl_fixtures import FixtureServer

    from deepcrawl.settings import Settings

pytestmark = pytest.mark.browser

#: A page in windows-1252: its bytes are not UTF-8, and a re-encoding would change them.
LATIN = (
    "<!doctype html><html><head><title>Crème brûlée</title></head>"
    "<body><p>Café, naïve façade — 5 €</p>"
    "<script>document.body.insertAdjacentHTML('beforeend', '<p id=added>added</p>')</script>"
    "</body></html>"
).encode("cp1252")
UTF8 = "<!doctype html><title>Straße</title><p>grüße</p>".encode()

MOVED = b"<p>moved to /latin</p>"
ROUTES = {
    "/latin": (LATIN, "text/html; charset=windows-1252"),
    "/utf8": (UTF8, "text/html; charset=utf-8"),
}


class _Site(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        path, _, query = self.path.partition("?")
        if path == "/moved":  # a redirect with a body of its own
            self.send_response(301)
            self.send_header("Location", f"/latin?{query}-moved")
            self.send_header("Content-Length", str(len(MOVED)))
            self.end_headers()
            self.wfile.write(MOVED)
            return
        body, content_type = ROUTES[path]
        self.send_response(200, "Fine Thanks")  # a reason phrase of the server's own
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Archive-Test", "kept As-Is")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Site)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _settings(tmp_path: Path) -> Settings:
    return load_settings(
        storage={"url": f"sqlite:///{tmp_path / 'crawl.db'}", "bodies_dir": tmp_path / "bodies"},
    )


def _warcio_check(path: Path) -> None:
    warcio = Path(sys.executable).with_name("warcio")
    result = subprocess.run(
        [str(warcio), "check", "-v", str(path)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "digest pass" in result.stdout


def _records(path: Path) -> list[dict[str, Any]]:
    found = []
    with path.open("rb") as fh:
        for record in ArchiveIterator(fh):
            headers = record.http_headers
            found.append(
                {
                    "type": record.rec_type,
                    "id": record.rec_headers.get_header("WARC-Record-ID"),
                    "uri": record.rec_headers.get_header("WARC-Target-URI"),
                    "concurrent": record.rec_headers.get_header("WARC-Concurrent-To"),
                    "refers": record.rec_headers.get_header("WARC-Refers-To"),
                    "protocol": headers.protocol if headers else None,
                    "status": headers.statusline if headers else None,
                    "headers": headers.headers if headers else None,
                    "payload": record.content_stream().read(),
                }
            )
    return found


async def test_pages_are_archived_as_the_server_sent_them(site: str, tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    with Repository.open(settings.storage.url, settings.storage) as repo:
        site_id = repo.site(site + "/").id
        async with HttpFetcher(settings, {"127.0.0.1"}) as http:
            for path in ("/latin", "/utf8", "/moved"):
                repo.save_page(site_id, await http.fetch(site + path + "?via=http"))
        async with BrowserFetcher(settings, {"127.0.0.1"}, forms=False) as browser:
            for path in ("/latin", "/moved"):
                repo.save_page(site_id, await browser.fetch(site + path + "?via=browser"))
        pages = list(repo.pages(site_id))
        warc = tmp_path / "pages.warc"
        with warc.open("wb") as fh:
            assert write_warc(repo, pages, fh) == 5
        with (tmp_path / "pages.warc.gz").open("wb") as fh:
            write_warc(repo, pages, fh, gzip=True)

    assert not warc.read_bytes().startswith(b"\x1f\x8b")  # compressed only when asked
    assert gzip.decompress((tmp_path / "pages.warc.gz").read_bytes()).startswith(b"WARC/1.1")
    for path in (warc, tmp_path / "pages.warc.gz"):
        _warcio_check(path)
    records = _records(warc)
    assert records[0]["type"] == "warcinfo"
    assert b"software: deepcrawl/" in records[0]["payload"]
    pair, converted = ["response", "request"], ["response", "request", "conversion"]
    assert [r["type"] for r in records[1:]] == [
        *pair, *pair, *pair, *pair, *converted, *pair, *converted,
    ]  # fmt: skip
    responses = {r["uri"]: r for r in records if r["type"] == "response"}
    served = {
        "/latin?via=http": LATIN,
        "/utf8?via=http": UTF8,
        "/latin?via=http-moved": LATIN,
        "/latin?via=browser": LATIN,
        "/latin?via=browser-moved": LATIN,
    }
    assert set(responses) == {site + path for path in (*served, "/moved?via=http",
                                                        "/moved?via=browser")}  # fmt: skip
    for path, body in served.items():
        response = responses[site + path]
        assert response["protocol"] == "HTTP/1.1"
        assert response["status"] == "200 Fine Thanks"
        assert response["payload"] == body, path  # byte for byte, windows-1252 included
        headers = dict(response["headers"])
        assert headers["X-Archive-Test"] == "kept As-Is"
        assert headers["Content-Length"] == str(len(body))
        assert not any(name.startswith(ORIGINAL_PREFIX) for name in headers)
    for via in ("http", "browser"):  # each redirect archived before the page it led to
        moved = responses[f"{site}/moved?via={via}"]
        assert moved["status"] == "301 Moved Permanently"
        assert dict(moved["headers"])["Location"] == f"/latin?via={via}-moved"
    assert responses[f"{site}/moved?via=http"]["payload"] == MOVED  # httpx read it
    browser_moved = dict(responses[f"{site}/moved?via=browser"]["headers"])
    assert responses[f"{site}/moved?via=browser"]["payload"] == b""  # Chromium keeps none
    assert browser_moved[ORIGINAL_PREFIX + "Content-Length"] == str(len(MOVED))
    requests = [r for r in records if r["type"] == "request"]
    by_id = {r["id"]: r for r in records}
    for request in requests:
        assert request["protocol"] == "GET"
        assert request["status"].endswith(" HTTP/1.1")
        assert by_id[request["concurrent"]]["uri"] == request["uri"]
        assert any(name.lower() == "user-agent" for name, _value in request["headers"])
    conversions = [r for r in records if r["type"] == "conversion"]
    assert [by_id[c["refers"]]["uri"] for c in conversions] == [
        site + "/latin?via=browser",
        site + "/latin?via=browser-moved",
    ]
    for conversion in conversions:
        dom = conversion["payload"].decode("utf-8")
        assert 'id="added"' in dom  # the rendered DOM, the script's work included
        assert "Café, naïve façade" in dom


# -- as the crawl delivers ---------------------------------------------------------------------


def _crawl_args(server: FixtureServer, tmp_path: Path, *extra: str) -> list[str]:
    like = server.url + server.truth().detail_paths[0]
    db = f"sqlite:///{tmp_path / 'crawl.db'}"
    return ["crawl", server.url + "/", "--like", like,
            "--db", db, "--out", str(tmp_path / "out"), *extra]  # fmt: skip


def _lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]


def test_a_crawl_archives_and_describes_what_it_delivers(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("books", records=40, seed=23)
    warc = tmp_path / "pages.warc"
    args = _crawl_args(server, tmp_path, "--warc", str(warc), "--text", "--max-pages", "12")
    done = run_deepcrawl(tmp_path, *args)
    assert done.returncode == 0, done.stderr[-3000:]

    records = _lines(tmp_path / "out" / "pages.jsonl")
    assert len(records) == 12
    for record in records:
        assert re.fullmatch(record["prototype_regex"], record["url"])
        assert record["headers"].get("x-fixture-site") == "books", record["headers"]
        assert record["headers"]["content-type"] == "text/html; charset=utf-8"
        first_words = " ".join(record["text"].split()[:3])
        page_text = lxml_html.fromstring(record["body"]).text_content()
        assert first_words in " ".join(page_text.split())  # text of the page …
        assert "Bestsellers" not in record["text"]  # … without the site's menu
    found = [r["query"] for r in records if r["query"] is not None]
    assert found  # the keyword whose results led to the page
    assert all(isinstance(q, str) and q for q in found)

    assert not warc.read_bytes().startswith(b"\x1f\x8b")
    _warcio_check(warc)
    archived = _records(warc)
    assert archived[0]["type"] == "warcinfo"
    assert f"isPartOf: {server.url}/".encode() in archived[0]["payload"]
    responses = {r["uri"]: r for r in archived if r["type"] == "response"}
    assert set(responses) == {r["final_url"] for r in records}
    for record in records:
        response = responses[record["final_url"]]
        assert response["status"] == "200 OK"
        assert dict(response["headers"])["x-fixture-site"] == "books"
        with httpx.Client() as client:  # the body as the server sends it, byte for byte
            assert response["payload"] == client.get(record["final_url"]).content
    assert len([r for r in archived if r["type"] == "request"]) == len(records)

    # ``export --format warc``: the same records; compressed when the name ends in .gz
    db = f"sqlite:///{tmp_path / 'crawl.db'}"
    for name in ("export.warc", "export.warc.gz"):
        out = tmp_path / name
        exported = run_deepcrawl(
            tmp_path, "export", server.url + "/", "--format", "warc",
            "--db", db, "--out", str(out), timeout=120,
        )  # fmt: skip
        assert exported.returncode == 0, exported.stderr
        assert out.read_bytes().startswith(b"\x1f\x8b") == name.endswith(".gz")
        _warcio_check(out)
        again = {r["uri"]: r["payload"] for r in _records(out) if r["type"] == "response"}
        assert {uri: r["payload"] for uri, r in responses.items()} == {
            uri: body for uri, body in again.items() if uri in responses
        }


def test_a_killed_crawl_leaves_a_valid_warc_of_what_it_delivered(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("books", records=300, seed=29)
    warc = tmp_path / "pages.warc.gz"
    env = cli_env(tmp_path, DEEPCRAWL_POLITENESS__REQUESTS_PER_SECOND="10")
    jsonl = tmp_path / "out" / "pages.jsonl"
    with spawn_deepcrawl(
        [*_crawl_args(server, tmp_path, "--warc", str(warc))],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    ) as crawl:
        deadline = time.monotonic() + 180
        while len(_lines(jsonl)) < 5 and crawl.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert crawl.poll() is None, "the crawl ended before it could be killed"
        crawl.send_signal(signal.SIGKILL)
    delivered = {r["final_url"] for r in _lines(jsonl)}
    assert len(delivered) >= 5
    assert warc.read_bytes().startswith(b"\x1f\x8b")  # the name asked for gzip
    _warcio_check(warc)
    archived = {r["uri"] for r in _records(warc) if r["type"] == "response"}
    assert delivered <= archived  # written to the WARC before pages.jsonl, both before marked
