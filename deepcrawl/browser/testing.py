"""A tiny local web server for the browser layer's own tests and benchmarks.

The fixture sites (``deepcrawl_fixtures``) model whole websites; the browser layer also needs
odd single pages — one that never answers, one of 10 MB, one that opens popups — served from
a thread in the test process. :class:`LocalSite` serves a dict of paths with HTTP/1.1 keep-alive, a
deep listen backlog and ``TCP_NODELAY`` (Python's defaults stall: docs/ARCHITECTURE.md), and logs
every request (method and path, and its headers) so tests can assert what was never asked for,
and what a request carried.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self

__all__ = ["LocalSite", "Reply"]


@dataclass(frozen=True, slots=True)
class Reply:
    """One canned answer.

    Attributes:
        body: the body (str is sent as UTF-8).
        status: the HTTP status.
        content_type: the Content-Type header.
        delay_s: seconds to wait before answering (a hanging page: a large value).
        headers: extra headers.
    """

    body: str | bytes = ""
    status: int = 200
    content_type: str = "text/html; charset=utf-8"
    delay_s: float = 0.0
    headers: tuple[tuple[str, str], ...] = ()


Route = Reply | Callable[[str], Reply]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128
    allow_reuse_address = True

    def handle_error(self, request: object, client_address: object) -> None:
        return  # a client that hung up (a timed-out fetch) is not news


class LocalSite:
    """Serve ``routes`` (path without query → :class:`Reply` or a function of the full path).

    Use as a context manager; :attr:`url` is ``http://127.0.0.1:PORT``; :attr:`log` holds
    ``(method, path)`` of every request, :attr:`headers` its headers (names in lower case) and
    :attr:`bodies` its body at the same index (a route reads the latest one to answer a form
    submission). Unknown paths get a 404 page.
    """

    def __init__(self, routes: dict[str, Route]) -> None:
        self.routes = routes
        self.log: list[tuple[str, str]] = []
        self.headers: list[dict[str, str]] = []
        self.bodies: list[bytes] = []
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    @property
    def url(self) -> str:
        """The site's base URL, without a trailing slash."""
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def port(self) -> int:
        """The port the site listens on."""
        assert self._server is not None
        return int(self._server.server_address[1])

    def requested(self, fragment: str) -> list[tuple[str, str]]:
        """Logged requests whose path contains ``fragment``."""
        with self._lock:
            return [entry for entry in self.log if fragment in entry[1]]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                with contextlib.suppress(OSError):
                    self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def log_message(self, format: str, *args: object) -> None:
                return

            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                sent = self.rfile.read(length) if length else b""
                with site._lock:
                    site.log.append((self.command, self.path))
                    site.headers.append({k.lower(): v for k, v in self.headers.items()})
                    site.bodies.append(sent)
                route = site.routes.get(self.path.split("?", 1)[0])
                if route is None:
                    reply = Reply("<html><body>not found</body></html>", status=404)
                else:
                    reply = route(self.path) if callable(route) else route
                if reply.delay_s and site._stop.wait(reply.delay_s):
                    return
                body = reply.body.encode() if isinstance(reply.body, str) else reply.body
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", reply.content_type)
                    self.send_header("Content-Length", str(len(body)))
                    for name, value in reply.headers:
                        self.send_header(name, value)
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(body)
                except OSError:
                    return

            do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = _answer

        return Handler

    def __enter__(self) -> Self:
        if self._server is not None:
            raise RuntimeError("LocalSite cannot be entered twice")
        self._server = _Server(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        time.sleep(0)
