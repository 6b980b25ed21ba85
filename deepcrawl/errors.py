"""The one exception tree of deepcrawl.

Every error deepcrawl raises on purpose derives from :class:`DeepcrawlError`, so a caller can
catch the whole family in one place (the CLI does: one clear line, exit code 1). Third-party
exceptions (httpx, Playwright, SQLAlchemy, lxml) are translated at the boundary where they occur,
with ``raise ... from exc`` so the original stays attached for debugging::

    DeepcrawlError
    ├── ConfigError                 bad settings, a bad option value, a bad file given by the user
    │   ├── InvalidURLError         a URL that cannot be parsed or normalised (keeps the URL)
    │   └── AccessError             an unusable cookie file, storage state, header or proxy
    ├── StorageError                the database cannot be reached, opened or written
    │   ├── SchemaVersionError      the database was written by a newer deepcrawl
    │   └── NoDatabaseError         a command that only reads found no database to read
    ├── OutputError                 delivered pages cannot be written (a full disk, a closed pipe)
    │   └── OutputClosedError       the reader of the output went away (``… --out - | head``)
    ├── FetchError                  one URL could not be fetched (keeps the URL)
    │   ├── NetworkError            connection refused, reset, DNS failure
    │   ├── FetchTimeoutError       no complete answer within the timeout
    │   ├── HTTPStatusError         an error status the caller did not accept (keeps the status)
    │   ├── NotHTMLError            the answer is not an HTML page (keeps the content type)
    │   ├── BodyTooLargeError       the body exceeds the size limit
    │   ├── BlockedError            refused before sending: out of scope or disallowed by robots.txt
    │   ├── SitemapError            the answer is no sitemap that can be read (not XML, no urlset)
    │   └── RendererCrashedError    the browser's renderer died while loading this URL
    ├── BrowserError                the browser cannot be found, launched or kept alive
    │   ├── BrowserNotFoundError    no Chromium on this machine
    │   └── BrowserCrashedError     the browser or a renderer died
    ├── FormError                   a form cannot be used as asked
    │   ├── SearchForbiddenError    robots.txt forbids the search (or the start page)
    │   └── UnsafeFormError         the safety policy refuses to submit this form
    └── FixtureError                a local test site cannot be served (unknown name, bad option)

Control flow is never signalled with these exceptions; a crawl records a :class:`FetchError` for
its URL and goes on.
"""

from __future__ import annotations

__all__ = [
    "AccessError",
    "BlockedError",
    "BodyTooLargeError",
    "BrowserCrashedError",
    "BrowserError",
    "BrowserNotFoundError",
    "ConfigError",
    "DeepcrawlError",
    "FetchError",
    "FetchTimeoutError",
    "FixtureError",
    "FormError",
    "HTTPStatusError",
    "InvalidURLError",
    "NetworkError",
    "NoDatabaseError",
    "NotHTMLError",
    "OutputClosedError",
    "OutputError",
    "RendererCrashedError",
    "SchemaVersionError",
    "SearchForbiddenError",
    "SitemapError",
    "StorageError",
    "UnsafeFormError",
]


class DeepcrawlError(Exception):
    """Base class of every error deepcrawl raises on purpose."""


class ConfigError(DeepcrawlError):
    """A setting, option or user-supplied file is invalid; the message names it."""


class InvalidURLError(ConfigError):
    """A URL cannot be parsed or normalised.

    Attributes:
        url: the offending URL, kept verbatim so that it can be recorded.
        reason: what is wrong with it.
    """

    def __init__(self, url: str, reason: str) -> None:
        shown = url if len(url) <= 200 else url[:200] + "…"
        super().__init__(f"invalid URL {shown!r}: {reason}")
        self.url = url
        self.reason = reason


class AccessError(ConfigError):
    """A site-access input (cookie file, storage state, header, proxy) cannot be used; the
    message names the input (the file and line, the header as given)."""


class StorageError(DeepcrawlError):
    """The database cannot be reached, opened or written."""


class SchemaVersionError(StorageError):
    """The database holds a schema newer than this deepcrawl understands."""


class NoDatabaseError(StorageError):
    """A command that only reads (``sites``, ``status``, ``doctor`` …) found no database at the
    URL: nothing was crawled into it yet, and reading must not create it."""


class OutputError(DeepcrawlError):
    """Delivered pages cannot be written to the output (``--out``): the crawl stops, and the
    pages not written stay undelivered for ``--resume``.

    Attributes:
        written: pages written to this output before it failed.
    """

    def __init__(self, message: str, *, written: int) -> None:
        super().__init__(message)
        self.written = written


class OutputClosedError(OutputError):
    """The output's reader went away (a closed pipe): for a pipe reader such as ``head`` this
    is how a crawl is meant to end, not a failure."""


class FetchError(DeepcrawlError):
    """A URL could not be fetched.

    Attributes:
        url: the URL that failed.
    """

    def __init__(self, url: str, message: str) -> None:
        super().__init__(f"{url}: {message}")
        self.url = url


class NetworkError(FetchError):
    """The connection failed (refused, reset, name not resolved)."""


class FetchTimeoutError(FetchError):
    """No complete answer arrived within the timeout."""


class HTTPStatusError(FetchError):
    """The server answered with an error status.

    Attributes:
        status: the HTTP status code.
    """

    def __init__(self, url: str, status: int) -> None:
        super().__init__(url, f"HTTP status {status}")
        self.status = status


class NotHTMLError(FetchError):
    """The answer is not an HTML page.

    Attributes:
        content_type: the Content-Type the server sent.
    """

    def __init__(self, url: str, content_type: str) -> None:
        super().__init__(url, f"not an HTML page (Content-Type: {content_type or 'none'})")
        self.content_type = content_type


class BodyTooLargeError(FetchError):
    """The body is larger than the configured limit."""


class BlockedError(FetchError):
    """The request was refused before sending: out of scope, or disallowed by robots.txt."""


class SitemapError(FetchError):
    """The answer is no sitemap the crawl can read: not XML nor a list of URLs, neither a
    ``urlset`` nor a ``sitemapindex``, or larger than the limit once decompressed."""


class RendererCrashedError(FetchError):
    """The browser's renderer died while loading or probing this URL (the pool goes on)."""


class BrowserError(DeepcrawlError):
    """The browser cannot be found, launched or kept alive."""


class BrowserNotFoundError(BrowserError):
    """No Chromium could be found; the message says how to install one."""


class BrowserCrashedError(BrowserError):
    """The browser process or a page's renderer died."""


class FormError(DeepcrawlError):
    """A form cannot be used as asked."""


class SearchForbiddenError(FormError):
    """robots.txt forbids the search form's action (or the start page it is looked for on): no
    query may be sent; its message says what robots.txt still allows."""


class UnsafeFormError(FormError):
    """The safety policy refuses to submit this form (login, sign-up, order, password, file …)."""


class FixtureError(DeepcrawlError):
    """A local test site cannot be served (unknown name, bad option)."""
