"""A throttling reverse proxy of the tests' own: a fixture site whose every n-th request is
answered 429 or 503 with ``Retry-After`` (or whose pages under a path answer only after a long
while), and a log of when each request came.

It stands on 127.0.0.1 in front of a :class:`~deepcrawl_fixtures.FixtureServer` and forwards
with the ``Host`` header unchanged (the site builds its links to the proxy), as the counting
proxy of the real-site bed does (:mod:`deepcrawl_fixtures.real.proxy`, whose tuned server it
uses). It runs in a thread of the test: what it measures is when requests arrive, which the
crawler's GIL does not move by more than a few milliseconds.
"""

from __future__ import annotations

import http.client
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, ClassVar, Self
from urllib.parse import urlsplit

from deepcrawl_fixtures.real.proxy import TunedHTTPServer

if TYPE_CHECKING:
    from types import TracebackType

__all__ = ["Arrival", "ThrottlingProxy"]

#: Headers not forwarded (RFC 9110 §7.6.1), and what the proxy sets itself.
_SKIPPED = frozenset(
    {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "content-length"}
)


@dataclass(frozen=True, slots=True)
class Arrival:
    """One request as the proxy saw it: when it came (``time.monotonic``), what, the answer."""

    at: float
    method: str
    path: str
    status: int


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ThrottlingProxy
    _local: ClassVar[threading.local] = threading.local()

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        at = time.monotonic()
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        throttled = self.server.throttles()
        if self.server.stall and self.path.startswith(self.server.stall):
            time.sleep(self.server.stall_s)  # a search slower than any timeout of the crawler
        if throttled:
            status, payload = self.server.status, b"<html><body>Try again later</body></html>"
            headers = [("Retry-After", str(self.server.retry_after)), ("Content-Type", "text/html")]
        else:
            try:
                status, headers, payload = self._forward(body)
            except OSError:  # the site is gone (a stalled answer outlived the test)
                status, headers, payload = 502, [], b""
        self.server.arrived(Arrival(at, self.command, self.path, status))
        self.send_response(status)
        for key, value in headers:
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_POST = do_HEAD = do_GET

    def _forward(self, body: bytes | None) -> tuple[int, list[tuple[str, str]], bytes]:
        headers = {k: v for k, v in self.headers.items() if k.lower() not in _SKIPPED}
        if body is not None:
            headers["Content-Length"] = str(len(body))
        for fresh in (False, True):
            conn = self._upstream(fresh=fresh)
            try:
                conn.request(self.command, self.path, body=body, headers=headers)
                answer = conn.getresponse()
                payload = answer.read()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                if fresh:
                    raise
                continue
            kept = [(k, v) for k, v in answer.getheaders() if k.lower() not in _SKIPPED]
            return answer.status, kept, payload
        raise AssertionError("unreachable")

    def _upstream(self, *, fresh: bool) -> http.client.HTTPConnection:
        conn: http.client.HTTPConnection | None = getattr(self._local, "conn", None)
        if fresh and conn is not None:
            conn.close()
            conn = None
        if conn is None:
            conn = http.client.HTTPConnection("127.0.0.1", self.server.upstream_port, timeout=60)
            self._local.conn = conn
        return conn


class ThrottlingProxy(TunedHTTPServer):
    """The site at ``upstream`` with every ``every``-th request answered ``status`` and
    ``Retry-After: retry_after`` (``/robots.txt`` included: a server throttles what it likes;
    ``every`` 0: none), and every request whose path starts with ``stall`` answered only after
    ``stall_s`` seconds (empty: none).

    Use it as a context manager; :attr:`url` is where to crawl, :attr:`arrivals` what came.
    """

    block_on_close = False  # a stalled answer's thread is not waited for

    def __init__(
        self,
        upstream: str,
        *,
        every: int = 0,
        status: int = 503,
        retry_after: int = 1,
        stall: str = "",
        stall_s: float = 20.0,
    ) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        port = urlsplit(upstream).port
        assert port is not None, upstream
        self.upstream_port = port
        self.every, self.status, self.retry_after = every, status, retry_after
        self.stall, self.stall_s = stall, stall_s
        self.arrivals: list[Arrival] = []
        self._seen = 0
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The proxy's origin."""
        return f"http://127.0.0.1:{self.server_port}"

    def throttles(self) -> bool:
        """Count a request; whether it is one to throttle."""
        with self._lock:
            self._seen += 1
            return self.every > 0 and self._seen % self.every == 0

    def arrived(self, arrival: Arrival) -> None:
        """Log one request."""
        with self._lock:
            self.arrivals.append(arrival)

    def too_soon(self) -> list[tuple[Arrival, Arrival]]:
        """Each request that came less than ``retry_after`` seconds after a throttled one was
        answered, with that throttled one."""
        with self._lock:
            log = sorted(self.arrivals, key=lambda a: a.at)
        out: list[tuple[Arrival, Arrival]] = []
        for i, throttled in enumerate(log):
            if throttled.status != self.status:
                continue
            out.extend(
                (throttled, later)
                for later in log[i + 1 :]
                if later.at - throttled.at < self.retry_after
            )
        return out

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join(timeout=5)
