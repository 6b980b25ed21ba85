"""Sitemaps: the site's own list of its URLs, read once, politely, and handed to the classifier.

A sitemap is often the cheapest list of a site's record URLs (sitemaps.org protocol 0.9). The
crawl reads the sitemaps its robots.txt names (``Sitemap:`` lines, :meth:`RobotsPolicy.sitemaps
<deepcrawl.fetch.robots.RobotsPolicy.sitemaps>`), or ``/sitemap.xml`` when it names none:

1. each file is fetched over plain HTTP through the crawl's gate (:mod:`deepcrawl.fetch`) — in
   the crawl's scope, allowed by robots.txt and the safety rule, in the host's rate limit,
   counted, transient failures retried with back-off — and stored as a page of
   kind ``sitemap`` (its body as sent), so a resumed crawl reads it from the store, not the site;
   one that fails for good is stored with its reason (``deepcrawl failures`` lists it);
2. :func:`parse_sitemap` reads it — gzipped or not, XML (``urlset`` or ``sitemapindex``, any
   namespace) or a plain list of URLs — with lxml, entities and the network off, within
   :data:`SITEMAP_MAX_BYTES` and :data:`SITEMAP_MAX_URLS`; an index's sitemaps are read in
   turn, up to :data:`SITEMAP_MAX_FILES` files in all;
3. the in-scope URLs a sitemap lists are yielded to the normal phase, which sends them through
   the URL classifier like a record page's links (:meth:`Admission.enqueue_listed
   <deepcrawl.crawler.admission.Admission.enqueue_listed>`): a sitemap URL is evidence of a
   page, not a page; only the wanted ones are fetched and delivered.
"""

from __future__ import annotations

import asyncio
import io
import zlib
from collections import deque
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal
from urllib.parse import urljoin, urlsplit

from lxml import etree

from deepcrawl.browser.base import Fetcher
from deepcrawl.errors import HTTPStatusError, SitemapError
from deepcrawl.page.fetched import FetchedPage

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Sequence

    from deepcrawl.browser.http import HttpFetcher
    from deepcrawl.crawler.context import CrawlContext
    from deepcrawl.errors import FetchError

__all__ = [
    "SITEMAP_MAX_BYTES",
    "SITEMAP_MAX_FILES",
    "SITEMAP_MAX_URLS",
    "Sitemap",
    "SitemapReader",
    "parse_sitemap",
    "read_sitemaps",
]

#: Sitemap files (indexes included) read at most per crawl.
SITEMAP_MAX_FILES = 50
#: URLs read from one sitemap file at most: the sitemaps protocol's limit per file.
SITEMAP_MAX_URLS = 50_000
#: Largest sitemap file read, in bytes once decompressed (the sitemaps protocol's limit); a
#: larger one is not read, and its failure is recorded.
SITEMAP_MAX_BYTES = 50 * 1024 * 1024

#: What every gzip stream starts with (RFC 1952): a ``.xml.gz`` served as it is.
_GZIP_MAGIC = b"\x1f\x8b"
#: Answers that say "no sitemap here" for a guessed location: not worth recording as failures.
_ABSENT = frozenset({404, 410})
_SCHEMES = ("http://", "https://")


@dataclass(frozen=True, slots=True)
class Sitemap:
    """What one sitemap file lists.

    Attributes:
        kind: ``urlset`` (page URLs) or ``index`` (the URLs of more sitemaps).
        urls: the absolute URLs listed, in order, duplicates removed.
        truncated: more were listed than ``max_urls``; the rest were left out.
    """

    kind: Literal["urlset", "index"]
    urls: list[str]
    truncated: bool = False


def _local(tag: object) -> str:
    """An element's name without its namespace (sitemaps come with several, or none)."""
    return etree.QName(tag).localname if isinstance(tag, str) else ""


def _gunzip(url: str, raw: bytes, max_bytes: int) -> bytes:
    inflater = zlib.decompressobj(wbits=zlib.MAX_WBITS | 16)  # a gzip header and trailer
    try:
        data = inflater.decompress(raw, max_bytes + 1)
    except zlib.error as exc:
        raise SitemapError(url, f"broken gzip data ({exc})") from exc
    if len(data) > max_bytes:
        raise SitemapError(url, f"larger than {max_bytes} bytes once decompressed")
    return data


def parse_sitemap(url: str, raw: bytes, *, max_bytes: int, max_urls: int) -> Sitemap:
    """Read one sitemap file as the server sent it.

    Args:
        url: where it came from (relative ``<loc>`` values are resolved against it).
        raw: its bytes, gzipped or not.
        max_bytes: the largest size accepted, once decompressed.
        max_urls: URLs read at most; the rest are left out (``truncated``).

    Raises:
        SitemapError: broken gzip data, too large, neither XML nor a list of URLs, or XML whose
            root is neither ``urlset`` nor ``sitemapindex``.
    """
    data = _gunzip(url, raw, max_bytes) if raw.startswith(_GZIP_MAGIC) else raw
    if len(data) > max_bytes:
        raise SitemapError(url, f"larger than {max_bytes} bytes")
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head.startswith(b"<"):
        return _text_sitemap(url, head, max_urls)
    return _xml_sitemap(url, data, max_urls)


def _text_sitemap(url: str, data: bytes, max_urls: int) -> Sitemap:
    """The protocol's plain-text form: one URL a line, UTF-8."""
    lines = data.decode("utf-8", errors="replace").splitlines()
    urls = list(dict.fromkeys(line.strip() for line in lines if line.strip().startswith(_SCHEMES)))
    if not urls and data.strip():
        raise SitemapError(url, "neither XML nor a list of http(s) URLs")
    return Sitemap("urlset", urls[:max_urls], truncated=len(urls) > max_urls)


def _xml_sitemap(url: str, data: bytes, max_urls: int) -> Sitemap:
    # Entities and the network off (no XXE, no fetch of a DTD); ``recover`` reads what a
    # sloppy generator wrote, up to where it breaks; elements are cleared as they are read.
    events = etree.iterparse(
        io.BytesIO(data),
        events=("start", "end"),
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        recover=True,
    )
    kind: Literal["urlset", "index"] | None = None
    urls: dict[str, None] = {}
    truncated = False
    try:
        for event, element in events:
            name = _local(element.tag)
            if kind is None:
                if name not in {"urlset", "sitemapindex"}:
                    raise SitemapError(url, f"XML whose root is <{name}>, not a sitemap")
                kind = "urlset" if name == "urlset" else "index"
                continue
            if event != "end":
                continue
            if name == "loc" and _local(getattr(element.getparent(), "tag", None)) in {
                "url",
                "sitemap",
            }:
                loc = (element.text or "").strip()
                if loc:
                    if len(urls) >= max_urls:
                        truncated = True
                        break
                    urls.setdefault(urljoin(url, loc), None)
            elif name in {"url", "sitemap"}:
                element.clear(keep_tail=False)
    except etree.XMLSyntaxError as exc:
        raise SitemapError(url, f"not well-formed XML ({exc})") from exc
    if kind is None:
        raise SitemapError(url, "empty XML document")
    listed = [u for u in urls if u.startswith(_SCHEMES)]
    return Sitemap(kind, listed, truncated=truncated)


async def read_sitemaps(
    ctx: CrawlContext,
    enqueue: Callable[[Sequence[str], str], int],
    *,
    stop: Callable[[], bool] = lambda: False,
) -> None:
    """Read the site's sitemaps and hand each one's URLs to ``enqueue``.

    Args:
        ctx: the crawl's context (``stats.sitemap_accepted`` counts what ``enqueue`` wanted).
        enqueue: takes a sitemap's URLs and its source (``sitemap URL``), queues the wanted
            ones and returns how many it wanted (:meth:`Admission.enqueue_listed
            <deepcrawl.crawler.admission.Admission.enqueue_listed>`).
        stop: asked between files: True ends the reading (the crawl stops, or is full).
    """
    from deepcrawl.browser.http import HttpFetcher
    from deepcrawl.browser.scope import Scope

    scope = Scope((ctx.host,), implicit=False)
    async with HttpFetcher(ctx.settings, scope, forms=False) as http:
        async for sitemap, urls in SitemapReader(ctx, http).urls():
            if stop():
                return
            ctx.stats.sitemap_accepted += enqueue(urls, f"sitemap {sitemap}")
            ctx.changed()
            await asyncio.sleep(0)  # let the fetch workers start on them


class _SitemapFetcher(Fetcher):
    """Plain HTTP for sitemaps: the body as sent, neither decoded nor parsed, kept losslessly in
    the page's text (``surrogateescape``), as the store keeps it."""

    def __init__(self, http: HttpFetcher, max_bytes: int) -> None:
        self.http = http
        self.max_bytes = max_bytes

    async def fetch(self, url: str) -> FetchedPage:
        page, raw = await self.http.fetch_bytes(url, max_bytes=self.max_bytes)
        return FetchedPage(
            url=page.url,
            final_url=page.final_url,
            status=page.status,
            content_type=page.content_type,
            body=raw.decode("utf-8", errors="surrogateescape"),
            via="http",
            fetched_at=page.fetched_at,
            elapsed_s=page.elapsed_s,
            headers=page.headers,
        )


class SitemapReader:
    """Reads one crawl's sitemaps, each file once across runs (see the module docstring).

    Args:
        ctx: the crawl's context: scope, robots.txt, limiter, store, figures and settings.
        http: an entered plain-HTTP fetcher (sitemaps are never rendered).
    """

    def __init__(self, ctx: CrawlContext, http: HttpFetcher) -> None:
        self.ctx = ctx
        self.http = http
        self._polite = ctx.gate.wrap(_SitemapFetcher(http, SITEMAP_MAX_BYTES))

    def roots(self) -> tuple[list[str], bool]:
        """The sitemaps to start from, and whether they are named (by robots.txt) or guessed."""
        named = self.ctx.robots.sitemaps(self.ctx.start_url)
        if named:
            return named, True
        parts = urlsplit(self.ctx.start_url)
        return [f"{parts.scheme}://{parts.netloc}/sitemap.xml"], False

    async def urls(self) -> AsyncIterator[tuple[str, list[str]]]:
        """Each sitemap's in-scope page URLs, as ``(sitemap URL, URLs)``, file by file.

        Raises:
            StorageError: the store fails (a sitemap that cannot be fetched or read is recorded
                as a failure and skipped).
        """
        ctx = self.ctx
        roots, named = self.roots()
        queue = deque((url, named) for url in roots)
        seen: set[str] = set()
        while queue and len(seen) < SITEMAP_MAX_FILES:
            url, required = queue.popleft()
            if url in seen:
                continue
            seen.add(url)
            sitemap = await self._read(url, required=required)
            if sitemap is None:
                continue
            ctx.stats.sitemaps_read += 1
            if sitemap.kind == "index":
                queue.extend((child, True) for child in sitemap.urls)
                continue
            wanted = [u for u in sitemap.urls if ctx.in_scope(u)]
            ctx.stats.sitemap_urls += len(wanted)
            ctx.changed()
            yield url, wanted

    async def _read(self, url: str, *, required: bool) -> Sitemap | None:
        """One sitemap file, from the store or the site; None when there is none to read."""
        ctx = self.ctx
        answer: tuple[FetchedPage, bytes] | None = None
        stored = ctx.repo.page(ctx.site.id, url)
        if stored is not None:  # read by an earlier run: never asked for twice
            raw = ctx.repo.body(stored.id) if stored.error is None and stored.status < 400 else None
        else:
            answer = await self._fetch(url, required=required)
            raw = None if answer is None else answer[1]
        if raw is None:
            return None
        try:
            found = parse_sitemap(url, raw, max_bytes=SITEMAP_MAX_BYTES, max_urls=SITEMAP_MAX_URLS)
        except SitemapError as exc:
            if answer is not None:
                self._fail(url, str(exc), status=answer[0].status, kind=SitemapError)
            return None
        if answer is not None:
            self._save(answer[0])
        return found

    async def _fetch(self, url: str, *, required: bool) -> tuple[FetchedPage, bytes] | None:
        """Fetch a sitemap through the crawl's gate, transient failures retried; None
        when it failed for good (recorded) or a guessed location has none (recorded as the
        answer it is)."""
        tried = await self._polite.fetch_retrying(url)
        attempts = tried.attempt
        if tried.kind is not None:
            self._fail(url, tried.reason, status=tried.status, kind=tried.kind, attempts=attempts)
            return None
        page = tried.page
        assert page is not None  # no failure: an answer came
        if page.status < 400:
            return page, page.stored_body()
        if page.status in _ABSENT and not required:
            self._save(replace(page, body=""))  # "no sitemap here" is an answer, no failure
            return None
        reason = f"HTTP status {page.status}"
        self._fail(url, reason, status=page.status, kind=HTTPStatusError, attempts=attempts)
        return None

    def _save(self, page: FetchedPage) -> None:
        self.ctx.repo.save_page(self.ctx.site.id, page, kind="sitemap", with_links=False)

    def _fail(
        self,
        url: str,
        reason: str,
        *,
        status: int = 0,
        kind: type[FetchError],
        attempts: int = 1,
    ) -> None:
        ctx = self.ctx
        ctx.repo.save_failure(
            ctx.site.id,
            url,
            reason,
            status=status,
            kind="sitemap",
            error_class=kind.__name__,
            attempts=attempts,
        )
        ctx.stats.errors += 1
        ctx.changed()
