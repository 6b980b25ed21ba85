"""What a fetch gives: the page, its links and the HTTP exchange behind it.

These are the values every floor above passes around: the fetchers (:mod:`deepcrawl.browser`)
make them, the search machinery and the crawl read them, storage keeps them and the exports
write them. They hold data only; the fetch contract itself is :class:`deepcrawl.browser.base
.Fetcher`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

from deepcrawl.page.html import parse_html

if TYPE_CHECKING:
    from lxml.html import HtmlElement

    from deepcrawl.page.form import Form

__all__ = ["Exchange", "FetchedPage", "Link", "LinkOrigin"]

LinkOrigin = Literal["html", "probe", "iframe"]


@dataclass(frozen=True, slots=True)
class Link:
    """A link found on a page.

    Attributes:
        url: absolute URL, fragment removed (not yet normalised).
        text: anchor text (or ``alt``/``title``/``aria-label`` when there is no text), collapsed.
        origin: ``html`` for a link in the DOM, ``probe`` for a navigation that clicking or
            hovering a scripted element triggered, ``iframe`` for a link inside a same-site frame.
        dom_path: the element's path from ``html`` (``html/body/div[2]/ul/li[3]/a``) — the DOM
            context the apprentice and the link learner use.
        rel: the ``rel`` attribute (``next``, ``prev``, ``nofollow`` …), lower-cased.
    """

    url: str
    text: str = ""
    origin: LinkOrigin = "html"
    dom_path: str = ""
    rel: str = ""


@dataclass(frozen=True, slots=True)
class Exchange:
    """The HTTP request and response behind a fetched page, as they went over the wire.

    What a WARC archive keeps (its ``request`` and ``response`` records): the status line and
    the headers in the server's order and spelling, and the body bytes before any decoding of
    their character set. The HTTP clients (httpx, Chromium) undo transfer and content encodings
    (chunks, gzip) as they read, so ``body`` is the payload after those; the headers that
    announced them are kept under an ``X-Archive-Orig-`` name in the archive (see
    :mod:`deepcrawl.warc`).

    Attributes:
        method: the request method (``GET``).
        url: the URL of the request that got this response (the last hop of a redirect chain).
        request_headers: the request's headers as sent, in order.
        protocol: the response's protocol (``HTTP/1.1``).
        status: the response's status code.
        reason: the reason phrase of the status line (``OK``).
        headers: the response's headers as received, in order.
        body: the payload bytes as received.
        redirects: the redirect responses that led here, first first, each with its request
            (a redirect's body is empty when the client did not keep it: Chromium).
    """

    method: str
    url: str
    request_headers: tuple[tuple[str, str], ...]
    protocol: str
    status: int
    reason: str
    headers: tuple[tuple[str, str], ...]
    body: bytes
    redirects: tuple[Exchange, ...] = ()


@dataclass(slots=True)
class FetchedPage:
    """What one fetch of one URL gave.

    Attributes:
        url: the URL asked for.
        final_url: the URL after redirects.
        status: the HTTP status of the final response.
        content_type: the media type (``text/html``), parameters dropped, lower-cased.
        body: the HTML (the live DOM's serialisation for the browser), or the raw body decoded.
        links: links on the page (empty for non-HTML answers).
        forms: forms on the page (empty for non-HTML answers, or when not asked for).
        via: which backend fetched it.
        fetched_at: when the response arrived (UTC).
        elapsed_s: seconds from request to complete body.
        headers: response headers, lower-cased names.
        exchange: the request and response as they went over the wire (None when the answer
            was not read: a non-HTML page in the browser, a body Chromium no longer held).
    """

    url: str
    final_url: str
    status: int
    content_type: str
    body: str
    links: list[Link] = field(default_factory=list)
    forms: list[Form] = field(default_factory=list)
    via: Literal["browser", "http"] = "http"
    fetched_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    elapsed_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    exchange: Exchange | None = None
    _root: HtmlElement | None = field(default=None, init=False, repr=False, compare=False)
    _parsed: bool = field(default=False, init=False, repr=False, compare=False)

    @property
    def is_html(self) -> bool:
        """True when the answer is an HTML document."""
        return self.content_type in {"text/html", "application/xhtml+xml"}

    def root(self) -> HtmlElement | None:
        """The body parsed (:func:`~deepcrawl.page.html.parse_html`), once for every reader of
        the page — its links, its main text, its canonical link, its title; None for an answer
        that is not HTML, or empty. Shared: read it, and copy it before changing it."""
        if not self._parsed:
            self._root = parse_html(self.body) if self.is_html and self.body else None
            self._parsed = True
        return self._root

    def forget_tree(self) -> None:
        """Let the parsed body go (:meth:`root` parses it again if asked): a page kept long —
        a cut list's last page, held for its state — need not hold a tree several times the
        size of its body."""
        self._root, self._parsed = None, False

    def stored_body(self) -> bytes:
        """The body as the store keeps it: UTF-8, the bytes no charset decoded kept as they
        came (``surrogateescape``)."""
        return self.body.encode("utf-8", errors="surrogateescape")
