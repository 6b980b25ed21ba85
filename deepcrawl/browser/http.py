"""The plain-HTTP backend of the fetch contract: httpx for the transfer, lxml for the parse.

About fifty times faster than the browser on this machine (docs/ARCHITECTURE.md), so it serves every
page that does not need JavaScript. The body is read as a stream and the transfer stopped as soon as
it passes ``http.max_body_bytes``; non-HTML answers are not read at all (the page comes back with
its content type and an empty body). httpx exceptions are translated into
:mod:`deepcrawl.errors` here. Links carry the same text and DOM path as the browser's
(:mod:`deepcrawl.browser.js.links` follows lxml's ``getpath``), forms come from
:func:`deepcrawl.page.static_forms.parse_forms`.

``localhost`` and every ``*.localhost`` name connect to the loopback address, as in Chromium
(RFC 6761, section 6.3: such names are never looked up), so both fetchers reach the same
server for ``http://bücher.localhost:8000/``. Cookies, extra headers, the user agent and the
proxy are the browser's (:mod:`deepcrawl.browser.access`); through a proxy, the proxy resolves
names.
"""

from __future__ import annotations

import asyncio
import functools
import re
import time
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlencode, urljoin, urlsplit

import charset_normalizer
import httpcore
import httpx
from w3lib.encoding import html_to_unicode

from deepcrawl.browser.access import SiteAccess
from deepcrawl.browser.base import Fetcher
from deepcrawl.browser.render import media_type
from deepcrawl.browser.scope import Scope, strip_fragment
from deepcrawl.errors import (
    BlockedError,
    BodyTooLargeError,
    FetchError,
    FetchTimeoutError,
    NetworkError,
)
from deepcrawl.page.fetched import Exchange, FetchedPage, Link
from deepcrawl.page.html import base_url
from deepcrawl.page.static_forms import parse_forms
from deepcrawl.urls import browser_url, with_query_encoding

if TYPE_CHECKING:
    import ssl
    from collections.abc import Awaitable, Callable, Iterable

    from httpcore import AsyncNetworkStream
    from httpcore._backends.base import SOCKET_OPTION
    from lxml.html import HtmlElement

    from deepcrawl.page.submission import Submission
    from deepcrawl.settings import Settings

__all__ = [
    "MAX_CONNECTIONS",
    "MAX_REDIRECTS",
    "HttpFetcher",
    "decode_body",
    "extract_links",
    "open_client",
]

#: Redirects a plain-HTTP request follows before it fails (a browser gives up near 20; a
#: record page more than a few hops away is a loop or a trap).
MAX_REDIRECTS = 10
#: Connections one client keeps across all hosts: five times the default per-host concurrency
#: (``politeness.concurrency_per_host``), which is the limit that binds on one site.
MAX_CONNECTIONS = 20

_T = TypeVar("_T")

_TEXT_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_READABLE = ("text/", "application/json", "application/xml", "application/javascript")
_SPACE = re.compile(r"\s+")
_FORM_TYPE = "application/x-www-form-urlencoded"
_FORMISH = re.compile(r"<(form|input|textarea|select)\b", re.I)
_PAGING = re.compile(r"(^|\s)(next|prev|previous)(\s|$)")


def _collapse(text: str | None) -> str:
    return _SPACE.sub(" ", text or "").strip()


def _absolute(base: str, raw: str | None, encoding: str) -> str | None:
    raw = (raw or "").strip()
    if not raw or raw.startswith("#"):
        return None
    try:
        url = urljoin(base, raw)
        scheme = urlsplit(url).scheme
    except ValueError:
        return None
    if scheme not in {"http", "https"}:
        return None
    return browser_url(with_query_encoding(strip_fragment(url), encoding))


def _text(element: HtmlElement) -> str:
    text = _collapse(element.text_content())
    if not text:
        images = element.xpath(".//img[@alt]")
        text = _collapse(
            (images[0].get("alt") if images else None)
            or element.get("alt")
            or element.get("title")
            or element.get("aria-label")
        )
    return text[:500]


def extract_links(root: HtmlElement, page_url: str, encoding: str = "utf-8") -> list[Link]:
    """Links of a parsed page, as the browser's ``links.js`` reports them.

    Args:
        root: the document, parsed (:meth:`deepcrawl.page.fetched.FetchedPage.root`).
        page_url: the page's final URL (``<base href>`` overrides it for resolution).
        encoding: the page's encoding, in which a query's non-ASCII characters are encoded
            (:func:`deepcrawl.urls.with_query_encoding`).

    Returns:
        Links in document order: anchors, areas and ``link rel=next/prev``, then frames.
    """
    tree = root.getroottree()
    base = base_url(root, page_url)
    links: list[Link] = []
    for element in root.iter("a", "area", "link"):
        href = element.get("href")
        if href is None:
            continue
        rel = _collapse(element.get("rel")).lower()
        if element.tag == "link" and not _PAGING.search(rel):
            continue
        url = _absolute(base, href, encoding)
        if url is None:
            continue
        text = "" if element.tag == "link" else _text(element)
        links.append(Link(url=url, text=text, dom_path=tree.getpath(element)[1:], rel=rel))
    for element in root.iter("iframe", "frame"):
        url = _absolute(base, element.get("src"), encoding)
        if url is not None:
            links.append(
                Link(
                    url=url,
                    text=_collapse(element.get("title")),
                    origin="iframe",
                    dom_path=tree.getpath(element)[1:],
                )
            )
    return links


async def _read_capped(response: httpx.Response, url: str, limit: int) -> bytes:
    """The body of a streamed response, the transfer stopped as soon as it passes ``limit``."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise BodyTooLargeError(url, f"body of {int(declared)} bytes exceeds {limit}")
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > limit:
            raise BodyTooLargeError(url, f"body exceeds {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def _detect(body: bytes) -> str | None:
    """The encoding of an undeclared body: UTF-8 when it decodes as such, else the guess of
    charset-normalizer (None when it has none)."""
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        best = charset_normalizer.from_bytes(body).best()
        return best.encoding if best is not None else None
    return "utf-8"


def decode_body(body: bytes, content_type: str | None) -> tuple[str, str]:
    """A page's text and its encoding, found as a browser finds it (w3lib's ``html_to_unicode``,
    after the HTML Standard's sniffing): a byte-order mark, then the ``charset`` of the
    ``Content-Type`` header, then a ``<meta>`` or XML declaration, then detection; bytes the
    encoding cannot read become U+FFFD.

    Args:
        body: the body as received.
        content_type: the ``Content-Type`` header, None when there was none.
    """
    encoding, text = html_to_unicode(content_type, body, auto_detect_fun=_detect)
    return text, encoding


def _exchange(response: httpx.Response, body: bytes, *, hop: bool = False) -> Exchange:
    """The wire view of a response whose body was read: headers as received (``raw`` keeps
    their order and spelling; values are bytes, read as ISO-8859-1 as RFC 9110 allows), and,
    unless it is a ``hop`` of one, the redirect chain before it (httpx reads each redirect's
    body as it follows it)."""
    request = response.request
    return Exchange(
        method=request.method,
        url=str(request.url),
        request_headers=_pairs(request.headers.raw),
        protocol=response.http_version,
        status=response.status_code,
        reason=response.reason_phrase,
        headers=_pairs(response.headers.raw),
        body=body,
        redirects=() if hop else tuple(_exchange(r, r.content, hop=True) for r in response.history),
    )


def _pairs(raw: Iterable[tuple[bytes, bytes]]) -> tuple[tuple[str, str], ...]:
    return tuple((name.decode("latin-1"), value.decode("latin-1")) for name, value in raw)


class _LoopbackNames(httpcore.AsyncNetworkBackend):
    """httpcore's network backend with ``localhost`` and ``*.localhost`` on 127.0.0.1."""

    def __init__(self) -> None:
        self._backend = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SOCKET_OPTION] | None = None,
    ) -> AsyncNetworkStream:
        if host == "localhost" or host.endswith(".localhost"):
            host = "127.0.0.1"
        return await self._backend.connect_tcp(
            host, port, timeout=timeout, local_address=local_address, socket_options=socket_options
        )

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[SOCKET_OPTION] | None = None,
    ) -> AsyncNetworkStream:
        return await self._backend.connect_unix_socket(
            path, timeout=timeout, socket_options=socket_options
        )

    async def sleep(self, seconds: float) -> None:
        await self._backend.sleep(seconds)


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """The TLS context every client of this process verifies with (httpx's default: the
    environment's ``SSL_CERT_FILE``, else certifi's bundle), made once: making one reads the
    whole certificate bundle, and a crawl opens several clients."""
    return httpx.create_ssl_context()


def _transport(access: SiteAccess) -> httpx.AsyncHTTPTransport:
    """httpx's transport: through the access's proxy, else over :class:`_LoopbackNames` (httpx
    takes no backend of its own: its connection pool is rebuilt with the same TLS context and
    limits). Given a transport, httpx never reads proxies from the environment."""
    limits = httpx.Limits(max_connections=MAX_CONNECTIONS)
    tls = _tls_context()
    if access.proxy is not None:
        return httpx.AsyncHTTPTransport(
            verify=tls, limits=limits, proxy=httpx.Proxy(access.proxy.url)
        )
    transport = httpx.AsyncHTTPTransport(verify=tls, limits=limits)
    pool = transport._pool
    transport._pool = httpcore.AsyncConnectionPool(
        ssl_context=pool._ssl_context,
        max_connections=pool._max_connections,
        max_keepalive_connections=pool._max_keepalive_connections,
        keepalive_expiry=pool._keepalive_expiry,
        network_backend=_LoopbackNames(),
    )
    return transport


def open_client(
    settings: Settings, access: SiteAccess | None = None, **options: Any
) -> httpx.AsyncClient:
    """An httpx client that sends what the browser sends: the access's user agent, headers and
    cookies, through its proxy (or none), with ``http`` timeouts and redirect limits.

    Args:
        settings: deepcrawl settings (``http`` and, when ``access`` is None, ``access``).
        access: the crawl's access, read once; None: read from ``settings``.
        options: more ``httpx.AsyncClient`` keyword arguments (``event_hooks`` …).

    Raises:
        AccessError: ``access`` is None and an access setting cannot be used.
    """
    http = settings.http
    access = access if access is not None else SiteAccess.from_settings(settings)
    client_options = access.client_options()
    client_options["headers"]["Accept"] = "text/html,*/*;q=0.5"
    hooks: dict[str, list[Any]] = client_options.pop("event_hooks")
    for event, more in options.pop("event_hooks", {}).items():
        hooks[event] = [*hooks.get(event, []), *more]
    return httpx.AsyncClient(
        **client_options,
        event_hooks=hooks,
        timeout=httpx.Timeout(http.timeout_s),
        follow_redirects=True,
        max_redirects=MAX_REDIRECTS,
        transport=_transport(access),
        **options,
    )


class HttpFetcher(Fetcher):
    """Fetch pages over plain HTTP.

    Args:
        settings: deepcrawl settings (the ``http`` section).
        scope: hosts that may be fetched; None: any.
        forms: parse the forms of HTML pages.
        access: cookies, headers and proxy shared with the browser; None: read from
            ``settings`` when the fetcher opens.
    """

    def __init__(
        self,
        settings: Settings,
        scope: Scope | Iterable[str] | None = None,
        *,
        forms: bool = True,
        access: SiteAccess | None = None,
    ) -> None:
        self.settings = settings
        if isinstance(scope, Scope):
            self.scope: Scope | None = scope
        else:
            self.scope = Scope(tuple(scope), implicit=False) if scope is not None else None
        self.forms = forms
        self.access = access
        self._client: httpx.AsyncClient | None = None

    async def open(self) -> None:
        """Create the connection pool.

        Raises:
            AccessError: an access setting (cookie file, header, proxy) cannot be used.
        """
        self._client = open_client(
            self.settings, self.access, event_hooks={"request": [self._check_scope]}
        )

    async def _check_scope(self, request: httpx.Request) -> None:
        """Refuse every hop of a redirect chain that leaves the scope, before it is sent."""
        url = str(request.url)
        if self.scope is not None and not self.scope.allows(url):
            raise BlockedError(url, "redirected out of the crawl's scope")

    async def close(self) -> None:
        """Close every connection."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def fetch(self, url: str) -> FetchedPage:
        """Fetch ``url``; see :class:`~deepcrawl.browser.base.Fetcher` for the contract.

        Raises:
            FetchError: the subclass saying why there is no answer.
        """
        return await self._guarded(url, self._fetch)

    async def fetch_bytes(self, url: str, *, max_bytes: int) -> tuple[FetchedPage, bytes]:
        """Fetch a document that is no page (a sitemap, perhaps gzipped): its body as sent,
        whatever its type, neither decoded nor parsed.

        Returns:
            The answer (its ``body`` empty) and the body's bytes (a ``Content-Encoding`` such
            as gzip undone by the transfer, a gzipped file left as it is).

        Raises:
            FetchError: as :meth:`fetch`; :class:`BodyTooLargeError` past ``max_bytes``.
        """

        async def download(
            client: httpx.AsyncClient, url: str, started: float
        ) -> tuple[FetchedPage, bytes]:
            async with client.stream("GET", url) as response:
                raw = await _read_capped(response, url, max_bytes)
                headers = {k.lower(): v for k, v in response.headers.items()}
                page = FetchedPage(
                    url=url,
                    final_url=strip_fragment(str(response.url)),
                    status=response.status_code,
                    content_type=media_type(headers.get("content-type", "")),
                    body="",
                    via="http",
                    elapsed_s=time.monotonic() - started,
                    headers=headers,
                )
            return page, raw

        return await self._guarded(url, download)

    async def _guarded(
        self, url: str, run: Callable[[httpx.AsyncClient, str, float], Awaitable[_T]]
    ) -> _T:
        """Check ``url`` against the scope, run one transfer, translate httpx's errors."""
        if self._client is None:
            raise RuntimeError("HttpFetcher used outside its 'async with' block")
        try:
            scheme = urlsplit(url).scheme
        except ValueError as exc:
            raise FetchError(url, f"unparsable URL ({exc})") from exc
        if scheme not in {"http", "https"}:
            raise BlockedError(url, "only http and https URLs are fetched")
        if self.scope is not None and not self.scope.admit(url):
            raise BlockedError(url, "outside the crawl's scope")
        started = time.monotonic()
        try:
            async with asyncio.timeout(self.settings.http.timeout_s):
                return await run(self._client, url, started)
        except TimeoutError as exc:
            raise FetchTimeoutError(
                url, f"no complete answer in {self.settings.http.timeout_s} s"
            ) from exc
        except httpx.TimeoutException as exc:
            raise FetchTimeoutError(url, f"timed out ({type(exc).__name__})") from exc
        except httpx.TooManyRedirects as exc:
            raise FetchError(url, "too many redirects") from exc
        except httpx.TransportError as exc:
            raise NetworkError(url, str(exc) or type(exc).__name__) from exc
        except (httpx.InvalidURL, httpx.HTTPError) as exc:
            raise FetchError(url, str(exc) or type(exc).__name__) from exc

    async def submit(self, submission: Submission) -> FetchedPage:
        """Send ``submission`` as a url-encoded POST; its answer as :meth:`fetch` gives one.

        Raises:
            FetchError: as :meth:`fetch`.
        """

        async def post(client: httpx.AsyncClient, url: str, started: float) -> FetchedPage:
            return await self._fetch(client, url, started, data=list(submission.fields))

        return await self._guarded(submission.action, post)

    async def _fetch(
        self,
        client: httpx.AsyncClient,
        url: str,
        started: float,
        *,
        data: list[tuple[str, str]] | None = None,
    ) -> FetchedPage:
        limit = self.settings.http.max_body_bytes
        method, content = ("GET", None) if data is None else ("POST", urlencode(data))
        sent = None if data is None else {"content-type": _FORM_TYPE}
        async with client.stream(method, url, content=content, headers=sent) as response:
            final_url = strip_fragment(str(response.url))
            headers = {k.lower(): v for k, v in response.headers.items()}
            content_type = media_type(headers.get("content-type", ""))
            declared = headers.get("content-length", "")
            if declared.isdigit() and int(declared) > limit:
                raise BodyTooLargeError(url, f"body of {int(declared)} bytes exceeds {limit}")
            chunks: list[bytes] = []
            readable = (
                not content_type
                or content_type.startswith(_READABLE)
                or content_type.endswith("+xml")
            )
            if readable:
                size = 0
                async for chunk in response.aiter_bytes():
                    size += len(chunk)
                    if size > limit:
                        raise BodyTooLargeError(url, f"body exceeds {limit} bytes")
                    chunks.append(chunk)
            raw = b"".join(chunks)
            status = response.status_code
            exchange = _exchange(response, raw) if readable else None
        if not content_type and raw.lstrip()[:1] == b"<":
            content_type = "text/html"
        body, encoding = decode_body(raw, headers.get("content-type")) if raw else ("", "utf-8")
        page = FetchedPage(
            url=url,
            final_url=final_url,
            status=status,
            content_type=content_type,
            body=body,
            via="http",
            elapsed_s=time.monotonic() - started,
            headers=headers,
            exchange=exchange,
        )
        if content_type in _TEXT_TYPES and raw:
            root = page.root()  # parsed once: the crawl reads its main text from it too
            if root is not None:
                page.links = extract_links(root, final_url, encoding)
            if self.forms and _FORMISH.search(body):
                page.forms = parse_forms(body, final_url)
        return page
