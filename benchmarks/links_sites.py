"""Hand-made "maze" sites for the link-learning benchmark (until the fixture sites have them).

Each maze site, generated from a seed, has what the two link-learning jobs are about:

* a **search form two or three clicks from the home page**, behind a gateway page among many
  pages of unrelated links (news, events, help, careers …) — the words of the path to it
  (anchor texts, URL slugs) vary from seed to seed, so a learner must generalise;
* **records** (``/item/N``) reachable by browsing (category pages with pagination, an A–Z
  index) — a share of them (``nav_only``) the search form never returns — and noise beside
  them: print views, ``?ref=related`` near-duplicates, sort variants, an endless calendar;
* a login form and a newsletter form on every page (forms the critic must refuse).

:class:`MazeServer` serves one site on 127.0.0.1 in a thread (HTTP/1.1 keep-alive,
``TCP_NODELAY``, a deep listen backlog — see NOTES.md) and counts requests by page kind.
"""

from __future__ import annotations

import html
import random
import re
import socket
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

__all__ = ["MazeServer", "MazeSite"]

_WORDS = [
    "river",
    "stone",
    "garden",
    "window",
    "silver",
    "morning",
    "harbor",
    "candle",
    "forest",
    "meadow",
    "copper",
    "lantern",
    "valley",
    "thunder",
    "amber",
    "orchard",
    "bridge",
    "compass",
    "feather",
    "island",
    "marble",
    "velvet",
    "winter",
    "summer",
    "shadow",
    "crystal",
    "harvest",
    "canyon",
    "willow",
    "falcon",
    "ember",
    "glacier",
    "prairie",
    "tide",
    "cedar",
]
_GATEWAYS = ("Library", "Catalogue", "Collections", "Resources", "Archive", "Holdings")
_FORM_LINKS = (
    ("Advanced search", "advanced-search"),
    ("Search the catalogue", "catalogue-search"),
    ("Find items", "find"),
    ("Power search", "power-search"),
    ("Search our holdings", "holdings-search"),
    ("Detailed search", "detailed-search"),
)
_NOISE = ("news", "events", "careers", "press", "help", "partners", "blog", "shop-info")
_CATS = ("maps", "letters", "photos", "prints", "books", "scores")
_PER_PAGE = 10
_LOGIN = (
    "<form action='/login' method='post'><label>User <input name='user'></label>"
    "<label>Password <input type='password' name='password'></label>"
    "<input type='submit' value='Log in'></form>"
)
_NEWSLETTER = (
    "<form action='/newsletter' method='post'><label>E-mail <input type='email' name='email'>"
    "</label><input type='submit' value='Subscribe'></form>"
)


class MazeSite:
    """One generated site (pure data; see the module docstring).

    Args:
        seed: the generator's seed (words, gateway and form-link wording, depth).
        records: number of records.
        form_depth: clicks from the home page to the search form page (2 or 3).
        nav_only: share of records the search form never returns.
        noise_pages: pages of each unrelated section.
    """

    def __init__(
        self,
        seed: int = 0,
        *,
        records: int = 200,
        form_depth: int = 2,
        nav_only: float = 0.1,
        noise_pages: int = 40,
    ) -> None:
        rng = random.Random(seed)
        self.seed = seed
        self.form_depth = form_depth
        self.noise_pages = noise_pages
        self.gateway = rng.choice(_GATEWAYS)
        self.form_anchor, self.form_slug = rng.choice(_FORM_LINKS)
        self.gate_slug = self.gateway.lower()
        self.titles = [" ".join(rng.sample(_WORDS, 3)).title() for _ in range(records)]
        self.cats = [rng.choice(_CATS) for _ in range(records)]
        self.nav_only = set(rng.sample(range(records), int(records * nav_only)))
        self.rng_words = rng

    # -- truth ------------------------------------------------------------------------------

    @property
    def form_path(self) -> str:
        """Path of the page holding the search form."""
        if self.form_depth == 2:
            return f"/{self.gate_slug}/{self.form_slug}"
        return f"/{self.gate_slug}/tools/{self.form_slug}"

    @property
    def record_paths(self) -> list[str]:
        """Path of every record's detail page."""
        return [f"/item/{i}" for i in range(len(self.titles))]

    @property
    def nav_only_paths(self) -> list[str]:
        """Records the search form never returns (reachable by browsing only)."""
        return [f"/item/{i}" for i in sorted(self.nav_only)]

    # -- pages ------------------------------------------------------------------------------

    def _frame(self, title: str, body: str) -> str:
        nav = " ".join(f"<a href='/{s}'>{s.replace('-', ' ').title()}</a>" for s in _NOISE)
        return (
            f"<!DOCTYPE html><html><head><title>{html.escape(title)}</title></head><body>"
            f"<header><a href='/'>Home</a> <nav>{nav} <a href='/{self.gate_slug}'>"
            f"{self.gateway}</a></nav>{_LOGIN}</header><main><h1>{html.escape(title)}</h1>"
            f"{body}</main><footer>{_NEWSLETTER}<a href='/events/2024/01'>Calendar</a> "
            "<a href='/about'>About</a></footer></body></html>"
        )

    def _words(self, key: str, n: int) -> str:
        rng = random.Random(f"{self.seed}-{key}")
        return " ".join(rng.choice(_WORDS) for _ in range(n))

    def _item_li(self, i: int, ref: str = "") -> str:
        href = f"/item/{i}" + (f"?ref={ref}" if ref else "")
        return (
            f"<li class='record'><a href='{href}'>{html.escape(self.titles[i])}</a> "
            f"<span class='cat'>{self.cats[i]}</span></li>"
        )

    def render(self, path: str, query: dict[str, str]) -> tuple[str, str, int]:
        """(kind, html, status) of a request."""
        page_no = int(query.get("page", "1")) if query.get("page", "1").isdigit() else 1
        if path == "/":
            cats = "".join(f"<li><a href='/browse/{c}'>{c.title()}</a></li>" for c in _CATS)
            body = f"<p>{self._words('home', 30)}</p><h2>Browse</h2><ul>{cats}</ul>"
            return "home", self._frame("Welcome", body), 200
        if path == f"/{self.gate_slug}":
            links = "".join(
                f"<li><a href='/{self.gate_slug}/guide-{k}'>{self._words(f'g{k}', 2)}</a></li>"
                for k in range(12)
            )
            step = (
                f"<a href='{self.form_path}'>{self.form_anchor}</a>"
                if self.form_depth == 2
                else f"<a href='/{self.gate_slug}/tools'>Tools and services</a>"
            )
            body = f"<ul>{links}<li>{step}</li></ul><p>{self._words('gate', 40)}</p>"
            return "gateway", self._frame(self.gateway, body), 200
        if self.form_depth == 3 and path == f"/{self.gate_slug}/tools":
            links = "".join(
                f"<li><a href='/{self.gate_slug}/tool-{k}'>{self._words(f't{k}', 2)}</a></li>"
                for k in range(8)
            )
            body = f"<ul>{links}<li><a href='{self.form_path}'>{self.form_anchor}</a></li></ul>"
            return "gateway", self._frame("Tools", body), 200
        if path == self.form_path:
            form = (
                "<form action='/find' method='get'><label>Keywords <input type='text' name='q'>"
                "</label><select name='cat'><option value=''>All</option>"
                + "".join(f"<option>{c}</option>" for c in _CATS)
                + "</select><input type='submit' value='Search'></form>"
            )
            return "form", self._frame(self.form_anchor, form), 200
        if path == "/find":
            words = query.get("q", "").lower().split()
            hits = [
                i
                for i, t in enumerate(self.titles)
                if i not in self.nav_only and words and all(w in t.lower() for w in words)
            ]
            items = "".join(self._item_li(i) for i in hits[:_PER_PAGE])
            return "results", self._frame("Results", f"<ol>{items}</ol>"), 200
        if m := re.fullmatch(r"/item/(\d+)", path):
            i = int(m[1])
            if i >= len(self.titles):
                return "missing", self._frame("Not found", ""), 404
            if query.get("ref"):
                return "duplicate", self._record(i), 200
            return "record", self._record(i), 200
        if m := re.fullmatch(r"/item/(\d+)/print", path):
            return "print", f"<html><body><h1>{self.titles[int(m[1]) % len(self.titles)]}</h1>", 200
        if m := re.fullmatch(r"/browse/([a-z]+)", path):
            return self._browse(m[1], page_no, query.get("sort", ""))
        if m := re.fullmatch(r"/events/(\d+)/(\d+)", path):
            y, mo = int(m[1]), int(m[2])
            nxt = f"/events/{y + mo // 12}/{mo % 12 + 1:02d}"
            body = f"<p>No events.</p><a href='{nxt}'>Next month</a>"
            return "calendar", self._frame(f"Events {y}/{mo}", body), 200
        for section in _NOISE:
            if path == f"/{section}" or path.startswith(f"/{section}/"):
                return self._noise(section, path)
        if path.startswith(f"/{self.gate_slug}/"):
            body = f"<p>{self._words(path, 60)}</p><a href='/{self.gate_slug}'>Back</a>"
            return "noise", self._frame("Guide", body), 200
        if path in {"/about", "/login", "/newsletter"}:
            return (
                "noise",
                self._frame(path.strip("/").title(), f"<p>{self._words(path, 20)}</p>"),
                200,
            )
        return "missing", self._frame("Not found", ""), 404

    def _record(self, i: int) -> str:
        n = len(self.titles)
        related = "".join(self._item_li((i + k) % n, "related") for k in (1, 2, 3))
        body = (
            f"<p class='meta'>Category <a href='/browse/{self.cats[i]}'>{self.cats[i]}</a></p>"
            f"<p>{self._words(f'r{i}', 50)}</p><a href='/item/{i}/print'>Print</a>"
            f"<h2>Related</h2><ul>{related}</ul>"
        )
        return self._frame(self.titles[i], body)

    def _browse(self, cat: str, page_no: int, sort: str) -> tuple[str, str, int]:
        ids = [i for i, c in enumerate(self.cats) if c == cat]
        if sort == "title":
            ids.sort(key=lambda i: self.titles[i])
        start = (page_no - 1) * _PER_PAGE
        items = "".join(self._item_li(i) for i in ids[start : start + _PER_PAGE])
        pager = (
            f"<a rel='next' href='/browse/{cat}?page={page_no + 1}'>Next</a>"
            if start + _PER_PAGE < len(ids)
            else ""
        )
        sorts = f"<a href='/browse/{cat}?sort=title'>By title</a>"
        body = f"<p>{sorts}</p><ul class='records'>{items}</ul>{pager}"
        return "browse", self._frame(f"{cat.title()}, page {page_no}", body), 200

    def _noise(self, section: str, path: str) -> tuple[str, str, int]:
        m = re.fullmatch(rf"/{section}/(\d+)", path)
        k = int(m[1]) if m else 0
        links = "".join(
            f"<li><a href='/{section}/{(k * 7 + j) % self.noise_pages}'>"
            f"{self._words(f'{section}{(k * 7 + j) % self.noise_pages}', 3)}</a></li>"
            for j in range(1, 9)
        )
        body = f"<p>{self._words(f'{section}-{k}', 40)}</p><ul>{links}</ul>"
        return "noise", self._frame(f"{section.title()} {k}", body), 200


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        if parts.path == "/robots.txt":
            kind, body, status = "robots", "User-agent: *\nDisallow: /private/\n", 200
        else:
            kind, body, status = self.server.site.render(parts.path, query)
        data = body.encode()
        with self.server.lock:
            self.server.counts[kind] += 1
            self.server.log.append(parts.path + (f"?{parts.query}" if parts.query else ""))
        self.send_response(status)
        ctype = "text/plain" if kind == "robots" else "text/html; charset=utf-8"
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    request_queue_size = 256
    daemon_threads = True

    def __init__(self, site: MazeSite) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.site = site
        self.lock = threading.Lock()
        self.counts: Counter[str] = Counter()
        self.log: list[str] = []

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a crawler closing its keep-alive connections is no error worth printing

    def server_bind(self) -> None:
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().server_bind()


class MazeServer:
    """Serve a :class:`MazeSite` on 127.0.0.1 in a background thread (a context manager)."""

    def __init__(self, site: MazeSite) -> None:
        self.site = site
        self._server: _Server | None = None

    def __enter__(self) -> Self:
        if self._server is not None:
            raise RuntimeError("MazeServer cannot be entered twice")
        self._server = _Server(self.site)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def url(self) -> str:
        """Base URL, no trailing slash."""
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def requests(self) -> int:
        """Requests served since the last reset."""
        assert self._server is not None
        return sum(self._server.counts.values())

    def reset(self) -> None:
        """Forget the counts."""
        assert self._server is not None
        with self._server.lock:
            self._server.counts.clear()
            self._server.log.clear()
