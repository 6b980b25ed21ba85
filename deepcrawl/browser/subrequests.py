"""What a page's own scripts download, answered without the network where the crawl can.

A result page's script may fetch far more than the result list: a client-side search (Sphinx's
``searchtools.js``) downloads its whole index, then every result's HTML to build a snippet, for
every query. Over a crawl that is dozens of requests per query for pages the crawl fetches
anyway. :class:`Subrequests` sits in each pooled page's route handler and answers, in order:

1. a script's fetch/XHR (GET) of a document the crawl already stored — from the store
   (:class:`DocumentStore`, which the crawl implements over its repository; the browser layer
   never imports the crawler or the storage);
2. a script's fetch/XHR of another document the page already links to: refused (unless
   ``block_linked`` is off). The link is already on the page, so the result
   list does not need the request; only decoration built from it (a snippet) is lost. Links to
   the page's own path and ``rel=next/prev`` links are not counted: a "load more" script
   fetches those, and the list needs them;
3. scripts, style sheets and data a response marks as reusable (RFC 9111 §4.2: fresh by
   ``max-age``/``Expires``, or a static file with a validator) — from a memory cache shared by
   every page of the pool, so a search index is downloaded once per crawl, not once per query;
4. a script's fetch/XHR the server refused (400, 401, 403, 404, 405, 410) — the same refusal
   from the memory cache: a page template's script that asks an API the crawl may not use
   (a tracker's REST endpoint answering 403 without a login) would otherwise cost a request
   on every page rendered, and the answer does not change within a crawl's session.

Chromium's own HTTP cache cannot do (3): Playwright disables it for a context whose requests are
routed, and every pooled context is routed (:mod:`deepcrawl.browser.lease`).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Literal, Protocol
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError

from deepcrawl.browser.scope import strip_fragment

if TYPE_CHECKING:
    from collections.abc import Callable
    from contextlib import AbstractAsyncContextManager

    from playwright.async_api import Request, Route

__all__ = [
    "CACHE_BYTES",
    "CACHE_TTL_S",
    "Answer",
    "DocumentStore",
    "StoredDocument",
    "SubrequestStats",
    "Subrequests",
    "lifetime_s",
]

#: Memory cache, shared by a pool's pages, for the scripts, style sheets and data a server marks
#: reusable: a search index is fetched once a crawl, not once a query; an entry larger than a
#: quarter of it is not kept.
CACHE_BYTES = 64 * 1024 * 1024
#: Longest a cached response without a lifetime of its own is reused (``max-age`` and
#: ``Expires`` can shorten it): a crawl's session, within which a static file does not change.
CACHE_TTL_S = 3600.0

#: How :meth:`Subrequests.answer` dealt with a request.
Answer = Literal["store", "cache", "refused", "sent"]

#: Resource types of a script's own data requests.
_DATA_TYPES = frozenset({"fetch", "xhr"})
#: Resource types the memory cache may keep.
_CACHED_TYPES = frozenset({"script", "stylesheet", "fetch", "xhr"})
#: Media types the store answers a script's request with.
_DOCUMENT_TYPES = frozenset(
    {"text/html", "application/xhtml+xml", "application/json", "application/xml", "text/xml"}
)
#: Statuses of a refusal that asking again in the same session does not change (not 408 or 429:
#: those say "later").
_REFUSED = frozenset({400, 401, 403, 404, 405, 410})
#: Response headers never replayed from the cache (the body is stored decoded and whole).
_HOP_HEADERS = frozenset(
    {"content-length", "content-encoding", "transfer-encoding", "connection", "set-cookie"}
)
#: Does the page link to this URL as to another document? Same origin and path, the request's
#: query a subset of the link's (a result link often adds a highlight parameter to the document
#: the script fetches). A link to the page's own path (a pager, a sort order) or marked
#: ``rel=next/prev`` never counts: a "load more" script fetches exactly such a link's URL, and
#: the result list needs that answer.
_LINKED_JS = """url => {
  const want = new URL(url);
  if (want.origin === location.origin && want.pathname === location.pathname) return false;
  const pairs = [...want.searchParams].map(([k, v]) => k + '=' + v);
  for (const a of document.links) {
    let have;
    try { have = new URL(a.href); } catch (e) { continue; }
    if (/\\b(next|prev)\\b/i.test(a.rel || '')) continue;
    if (have.origin !== want.origin || have.pathname !== want.pathname) continue;
    const own = new Set([...have.searchParams].map(([k, v]) => k + '=' + v));
    if (pairs.every(p => own.has(p))) return true;
  }
  return false;
}"""


@dataclass(frozen=True, slots=True)
class StoredDocument:
    """A document the crawl already has, as the browser should be answered with it.

    Attributes:
        body: the stored body.
        status: its HTTP status.
        content_type: its media type (``text/html``).
    """

    body: bytes
    status: int
    content_type: str


class DocumentStore(Protocol):
    """The crawl's stored documents, as the browser layer asks for them.

    Implemented by the crawl over its repository; called from the page's route handler, so a
    lookup must be quick (one indexed read).
    """

    def document(self, url: str) -> StoredDocument | None:
        """The stored document for ``url`` (fragment removed), or None when there is none."""
        ...


@dataclass(slots=True)
class SubrequestStats:
    """What the pool answered without the network (for logs, tests and benchmarks)."""

    from_store: int = 0
    """Script requests answered with a document the crawl stored."""
    from_cache: int = 0
    """Requests answered from the memory cache."""
    blocked_linked: int = 0
    """Script requests refused because the page already links to their document."""
    kept: int = 0
    """Responses put into the memory cache."""
    cached_bytes: int = 0
    """Bytes the memory cache holds now."""


def lifetime_s(headers: dict[str, str], ttl_s: float) -> float:
    """How long a response may be reused without asking the server, capped at ``ttl_s``.

    RFC 9111: ``no-store`` and ``no-cache`` (and a ``Vary`` on anything but the encoding) forbid
    reuse; ``max-age`` or ``Expires`` state the lifetime; a response with a validator
    (``Last-Modified``, ``ETag``) and no explicit lifetime is a static file, reused heuristically
    (§4.2.2) — for the crawl, up to ``ttl_s``. Anything else (a dynamic answer): 0.
    """
    control = {
        part.split("=", 1)[0].strip(): part.split("=", 1)[1].strip(' "') if "=" in part else ""
        for part in headers.get("cache-control", "").lower().split(",")
    }
    if "no-store" in control or "no-cache" in control:
        return 0.0
    vary = {v.strip() for v in headers.get("vary", "").lower().split(",") if v.strip()}
    if vary - {"accept-encoding"}:
        return 0.0
    if "max-age" in control:
        try:
            return max(0.0, min(ttl_s, float(control["max-age"])))
        except ValueError:
            return 0.0
    if "expires" in headers:
        try:
            expires = parsedate_to_datetime(headers["expires"]).timestamp()
        except (TypeError, ValueError):
            return 0.0  # an invalid Expires means "already expired" (RFC 9111 §5.3)
        return max(0.0, min(ttl_s, expires - time.time()))
    if "last-modified" in headers or "etag" in headers:
        return ttl_s
    return 0.0


@dataclass(frozen=True, slots=True)
class _Entry:
    """A kept response; reused until ``expires`` (``time.monotonic()``)."""

    status: int
    headers: dict[str, str]
    body: bytes
    expires: float


class Subrequests:
    """Answers a pooled page's sub-requests from the store, the memory cache, or not at all.

    Args:
        timeout_s: the longest wait for a request sent from here (``browser.page_timeout_s``).
        store: the crawl's stored documents (None: nothing is stored yet, e.g. ``render``).
        block_linked: refuse a script's fetch of a document the page links to and the crawl
            has not stored (rule 2 of the module).
        cache_bytes: size of the memory cache (0: none).
    """

    def __init__(
        self,
        timeout_s: float,
        store: DocumentStore | None = None,
        *,
        block_linked: bool = True,
        cache_bytes: int = CACHE_BYTES,
    ) -> None:
        self.timeout_s = timeout_s
        self.store = store
        self.block_linked = block_linked
        self.stats = SubrequestStats()
        self._cache: OrderedDict[str, _Entry] = OrderedDict()
        self._limit = cache_bytes

    async def answer(
        self,
        route: Route,
        request: Request,
        passage: Callable[[], AbstractAsyncContextManager[None]],
    ) -> Answer | None:
        """Answer ``request`` without the network when the rules allow (see the module).

        ``passage`` is held while a request is sent from here (to keep its answer): the page's
        gate (:mod:`deepcrawl.browser.gate`), as for any request that goes out.

        Returns:
            How it was answered here: ``store`` or ``cache`` (no request reached the server),
            ``refused``, or ``sent`` (sent from here, to keep its answer); None: let it go out.

        Raises:
            playwright.async_api.Error: the page went away (the route handler ignores it).
        """
        if request.method != "GET" or request.is_navigation_request():
            return None
        kind = request.resource_type
        url = strip_fragment(request.url)
        if kind in _DATA_TYPES:
            if self.store is not None and _same_origin(request) and (doc := self._stored(url)):
                self.stats.from_store += 1
                await route.fulfill(
                    status=doc.status, body=doc.body, headers={"content-type": doc.content_type}
                )
                return "store"
            if self.block_linked and await _linked(request, url):
                self.stats.blocked_linked += 1
                await route.abort("blockedbyclient")
                return "refused"
        if kind not in _CACHED_TYPES or self._limit <= 0:
            return None
        entry = self._cache.get(url)
        if entry is not None and entry.expires > time.monotonic():
            self._cache.move_to_end(url)
            self.stats.from_cache += 1
            await route.fulfill(status=entry.status, headers=entry.headers, body=entry.body)
            return "cache"
        return await self._fetch_and_keep(route, url, passage, refusals=kind in _DATA_TYPES)

    def _stored(self, url: str) -> StoredDocument | None:
        assert self.store is not None
        doc = self.store.document(url)
        if doc is None or not 200 <= doc.status < 300:
            return None
        media = doc.content_type.split(";", 1)[0].strip().lower()
        return doc if media in _DOCUMENT_TYPES else None

    async def _fetch_and_keep(
        self,
        route: Route,
        url: str,
        passage: Callable[[], AbstractAsyncContextManager[None]],
        *,
        refusals: bool,
    ) -> Answer | None:
        """Send the request ourselves (through ``passage``), keep the answer when it may be
        reused (with ``refusals``, a refusal too), then answer."""
        try:
            async with passage():
                response = await route.fetch(max_redirects=0, timeout=self.timeout_s * 1000)
        except PlaywrightError:
            return None  # let the browser send it and fail or succeed on its own
        headers = {k.lower(): v for k, v in response.headers.items()}
        if response.status == 200:
            life = lifetime_s(headers, CACHE_TTL_S)
        elif refusals and response.status in _REFUSED:
            life = CACHE_TTL_S
        else:
            life = 0.0
        if life <= 0:
            await route.fulfill(response=response)
            return "sent"
        body = await response.body()
        kept = {k: v for k, v in headers.items() if k not in _HOP_HEADERS}
        await route.fulfill(status=response.status, headers=kept, body=body)
        if len(body) <= self._limit // 4:
            self._keep(url, _Entry(response.status, kept, body, time.monotonic() + life))
        return "sent"

    def _keep(self, url: str, entry: _Entry) -> None:
        old = self._cache.pop(url, None)
        if old is not None:
            self.stats.cached_bytes -= len(old.body)
        self._cache[url] = entry
        self.stats.kept += 1
        self.stats.cached_bytes += len(entry.body)
        while self.stats.cached_bytes > self._limit and self._cache:
            _, dropped = self._cache.popitem(last=False)
            self.stats.cached_bytes -= len(dropped.body)


def _same_origin(request: Request) -> bool:
    """A same-origin request (a cross-origin one carries ``Origin``: the store's answer would
    lack the CORS headers the real server may send)."""
    origin = request.headers.get("origin")
    if origin is None:
        return True
    parts = urlsplit(request.url)
    return origin.rstrip("/") == f"{parts.scheme}://{parts.netloc}"


async def _linked(request: Request, url: str) -> bool:
    """Does the requesting frame already link to ``url``?"""
    try:
        frame = request.frame
        return bool(await frame.evaluate(_LINKED_JS, url))
    except PlaywrightError:
        return False  # a worker's request, or the frame navigated meanwhile
