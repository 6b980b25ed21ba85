"""The counting proxy of the real-site test bed: it forwards, passes Host through, and logs."""

from __future__ import annotations

import http.client
import json
import threading
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING

import pytest
from deepcrawl_fixtures.real.proxy import ProxyServer, TunedHTTPServer, is_asset

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


class _Upstream(BaseHTTPRequestHandler):
    """An application stand-in: echoes what it got; ``/chunked`` answers without a length."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == "/chunked":
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for part in (b"<p>one</p>", b"<p>two</p>"):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
            return
        body = json.dumps({"path": self.path, "host": self.headers["Host"]}).encode()
        self.send_response(200)
        self.send_header(
            "Content-Type", "text/css" if self.path.endswith(".css") else "application/json"
        )
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(303)
        self.send_header("Location", "/done?" + body.decode())
        self.send_header("Content-Length", "0")
        self.end_headers()


def _serve(server: TunedHTTPServer) -> threading.Thread:
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    return thread


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """A proxy in front of the stand-in application: (proxy port, log path)."""
    log = tmp_path / "requests.jsonl"
    upstream = TunedHTTPServer(("127.0.0.1", 0), _Upstream)
    front = ProxyServer(0, upstream_port=upstream.server_port, log_path=str(log))
    threads = [_serve(upstream), _serve(front)]
    yield front.server_port, log
    for server in (front, upstream):
        server.shutdown()
        server.server_close()
    for thread in threads:
        thread.join(5)


def _log(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_forwards_with_the_host_header_unchanged_over_one_connection(
    proxy: tuple[int, Path],
) -> None:
    port, log = proxy
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/a/b?q=1", headers={"Host": "example.test:8080"})
    first = conn.getresponse().read()
    assert json.loads(first) == {"path": "/a/b?q=1", "host": "example.test:8080"}
    conn.request("GET", "/site.css")  # the same kept-alive connection
    second = conn.getresponse().read()
    conn.close()
    assert _log(log) == [
        {"method": "GET", "path": "/a/b?q=1", "status": 200, "bytes": len(first),
         "type": "application/json", "asset": False},
        {"method": "GET", "path": "/site.css", "status": 200, "bytes": len(second),
         "type": "text/css", "asset": True},
    ]  # fmt: skip


def test_streams_a_chunked_answer_and_logs_a_post(proxy: tuple[int, Path]) -> None:
    port, log = proxy
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/chunked")
    assert conn.getresponse().read() == b"<p>one</p><p>two</p>"
    conn.request("POST", "/login", body=b"user=a", headers={"Content-Type": "x-www-form"})
    answer = conn.getresponse()
    answer.read()
    conn.close()
    assert answer.status == 303
    assert answer.getheader("Location") == "/done?user=a"
    entries = _log(log)
    assert [(e["method"], e["path"], e["status"], e["bytes"]) for e in entries] == [
        ("GET", "/chunked", 200, 20),
        ("POST", "/login", 303, 0),
    ]
    assert entries[0]["type"] == "text/html"


def test_an_unreachable_application_is_a_logged_502(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    with TunedHTTPServer(("127.0.0.1", 0), _Upstream) as closed:
        dead_port = closed.server_port  # bound, then closed: nothing listens there
    front = ProxyServer(0, upstream_port=dead_port, log_path=str(log))
    thread = _serve(front)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", front.server_port, timeout=10)
        conn.request("GET", "/")
        assert conn.getresponse().status == 502
        conn.close()
    finally:
        front.shutdown()
        front.server_close()
        thread.join(5)
    assert [e["status"] for e in _log(log)] == [502]


@pytest.mark.parametrize(
    ("content_type", "path", "asset"),
    [
        ("text/html; charset=utf-8", "/page/", False),
        ("application/json", "/search/search_index.json", False),
        ("application/xml", "/sitemap.xml", False),
        ("text/css", "/x", True),
        ("application/javascript", "/x", True),
        ("text/javascript; charset=utf-8", "/x", True),
        ("image/svg+xml", "/logo", True),
        ("font/woff2", "/f", True),
        ("", "/assets/app.js.map", True),
        ("application/octet-stream", "/fonts/roboto.woff2?v=3", True),
        ("", "/download", False),
        ("text/html", "/style.css", False),  # the type decides when it says something
    ],
)
def test_is_asset(content_type: str, path: str, asset: bool) -> None:
    assert is_asset(content_type, path) is asset
