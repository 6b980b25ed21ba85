"""The spider base class and the downloader middleware that answer its requests from the crawl.

How a page reaches a callback: :meth:`DeepcrawlSpider.start` yields, for each delivered page, a
plain ``scrapy.Request`` for the page's own URL with the page in its ``meta``. The request goes
through Scrapy as any other — the scheduler, its duplicate filter, the spider middlewares — and
meets :class:`DeliveredPageMiddleware` first among the downloader middlewares, which answers it
with the stored page built into a response (``HtmlResponse``, ``XmlResponse``, ``TextResponse``
… by its content type, as Scrapy's download handlers choose), so Scrapy sends nothing.

This is the mechanism Scrapy's own HTTP cache uses (``HttpCacheMiddleware`` returns the cached
response from ``process_request``), chosen over the two others Scrapy allows for these reasons:

* the spider's callbacks, item pipelines, feed exports and every middleware run unchanged: the
  response goes back through each downloader middleware's ``process_response`` and the spider
  middlewares, and ``response.url``, ``response.request`` and ``response.follow`` behave as
  after a download (a request the callback yields for another page is downloaded as usual);
* a download handler for a made-up scheme (``deepcrawl://…``) would give every response that
  scheme's URL, and one for ``http``/``https`` would replace the project's real downloader;
* a page cannot be passed to a callback straight from ``start()`` (it yields requests and items
  only), and calling the callback by hand would bypass the spider middlewares and Scrapy's
  handling of what the callback yields.

The middleware stands before ``RobotsTxtMiddleware`` (order 100), so no robots.txt is fetched
for a page deepcrawl already fetched under its own robots.txt rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import scrapy
from scrapy.http import Response, TextResponse
from scrapy.http.headers import Headers
from scrapy.responsetypes import responsetypes

from deepcrawl.errors import ConfigError
from deepcrawl.scrapy._pages import DeliveredPage, crawl_pages, jsonl_pages, warc_pages

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterable

    from scrapy.settings import BaseSettings

__all__ = [
    "META_KEY",
    "MIDDLEWARE_ORDER",
    "DeepcrawlSpider",
    "DeliveredPageMiddleware",
    "response_for",
]

#: The key of ``request.meta`` holding the :class:`DeliveredPage` until the middleware answers.
PAGE_KEY = "deepcrawl_page"
#: The key of ``response.meta`` holding the page's delivered record, less its body: ``label``,
#: ``prototype``, ``query``, ``title``, ``fetched_at``, ``via``, ``canonical_url`` ….
META_KEY = "deepcrawl"
#: The middleware's place among the downloader middlewares: before every one of Scrapy's own.
MIDDLEWARE_ORDER = 50
#: The response flag Scrapy's log shows beside the page (``Crawled (200) <GET …> ['deepcrawl']``).
FLAG = "deepcrawl"


def response_for(page: DeliveredPage, request: scrapy.Request) -> Response:
    """The Scrapy response of a delivered page, answering ``request``.

    The class comes from the page's headers, URL and body as Scrapy chooses it for a download
    (``HtmlResponse`` for ``text/html`` …); a text response is decoded by the page's own
    encoding where the source knows it.
    """
    headers = Headers(list(page.headers))
    cls = responsetypes.from_args(headers=headers, url=page.final_url, body=page.body)
    options: dict[str, Any] = {}
    if issubclass(cls, TextResponse) and page.encoding:
        options["encoding"] = page.encoding
    return cls(
        url=page.final_url,
        status=page.status,
        headers=headers,
        body=page.body,
        request=request,
        flags=[FLAG],
        **options,
    )


class DeliveredPageMiddleware:
    """A downloader middleware answering a :class:`DeepcrawlSpider`'s requests with the pages
    the crawl delivered; every other request goes on to the network as usual."""

    def process_request(self, request: scrapy.Request, spider: object = None) -> Response | None:
        """The page ``request`` carries, as a response; None for any other request.

        (``spider`` is optional: Scrapy up to 2.13 passes it, later versions do not.)
        """
        page = request.meta.pop(PAGE_KEY, None)
        if not isinstance(page, DeliveredPage):
            return None
        request.meta[META_KEY] = dict(page.meta)
        return response_for(page, request)


class DeepcrawlSpider(scrapy.Spider):
    """A spider whose pages are a deepcrawl crawl's, handed to its callbacks as Scrapy responses.

    Set one source, as a class attribute or a spider argument (``scrapy crawl NAME -a
    pages=out/pages.jsonl``):

    * ``pages``: a ``pages.jsonl`` file (``deepcrawl crawl --out DIR``, ``deepcrawl export``);
    * ``warc``: a WARC file (``deepcrawl crawl --warc FILE``; gzipped or not);
    * ``crawl_url``: a site to crawl now, through the Python iterator, with ``like`` (one URL,
      or a list), ``db``, ``max_pages`` and ``max_queries`` (needs Scrapy's asyncio reactor,
      its default).

    Each page becomes a request for its own URL, answered with the stored page (no download:
    :class:`DeliveredPageMiddleware`, added to the project's downloader middlewares), and
    reaches :meth:`parse` — or the method :meth:`callback_for` names — as an ``HtmlResponse``
    (a ``TextResponse``, ``XmlResponse`` … by its content type) with the page's URL, status,
    headers and body, its delivered record under ``response.meta["deepcrawl"]``. Item pipelines,
    feed exports and middlewares run unchanged.
    """

    pages: str | None = None
    warc: str | None = None
    crawl_url: str | None = None
    like: str | list[str] | tuple[str, ...] = ()
    db: str | None = None
    max_pages: int | str | None = None
    max_queries: int | str | None = None
    #: With ``warc``: hand on the rendered DOM of a page fetched in the browser (what
    #: pages.jsonl delivers); False: the bytes the server sent.
    rendered: bool | str = True

    @classmethod
    def update_settings(cls, settings: BaseSettings) -> None:
        """Apply the spider's ``custom_settings``, then add :class:`DeliveredPageMiddleware`
        to the downloader middlewares (unless the project names it itself)."""
        super().update_settings(settings)
        middlewares = dict(settings.getdict("DOWNLOADER_MIDDLEWARES"))
        path = f"{DeliveredPageMiddleware.__module__}.{DeliveredPageMiddleware.__qualname__}"
        public = "deepcrawl.scrapy.DeliveredPageMiddleware"
        if path not in middlewares and public not in middlewares:
            middlewares[public] = MIDDLEWARE_ORDER
            settings.set("DOWNLOADER_MIDDLEWARES", middlewares, priority="spider")

    async def start(self) -> AsyncIterator[Any]:
        """Yield a request for each page of the source, in its order (Scrapy ≥ 2.13's start)."""
        async for page in self.delivered_pages():
            yield self.request_for(page)

    async def delivered_pages(self) -> AsyncIterator[DeliveredPage]:
        """The source's pages; override to read pages from elsewhere.

        Raises:
            ConfigError: no source, or more than one, is set.
        """
        given = [name for name in ("pages", "warc", "crawl_url") if getattr(self, name)]
        if len(given) != 1:
            raise ConfigError(
                f"spider {self.name!r}: set exactly one of pages, warc and crawl_url "
                f"(got {', '.join(given) or 'none'})"
            )
        if self.pages:
            for page in jsonl_pages(self.pages):
                yield page
        elif self.warc:
            for page in warc_pages(self.warc, rendered=_truth(self.rendered)):
                yield page
        else:
            assert self.crawl_url is not None
            options = {
                "db": self.db,
                "max_pages": _number(self.max_pages),
                "max_queries": _number(self.max_queries),
            }
            async for page in crawl_pages(self.crawl_url, like=_urls(self.like), **options):
                yield page

    def request_for(self, page: DeliveredPage) -> scrapy.Request:
        """The request that brings ``page`` to its callback (override to add meta or a
        priority)."""
        return scrapy.Request(
            page.url,
            callback=self.callback_for(page),
            meta={PAGE_KEY: page},
        )

    def callback_for(self, page: DeliveredPage) -> Any:
        """The callback of ``page``: ``parse_<label>`` when the spider has one (``parse_book``
        for pages labelled ``book``), else :meth:`parse`."""
        label = page.meta.get("label")
        if isinstance(label, str):
            method = getattr(self, f"parse_{label.replace('-', '_')}", None)
            if callable(method):
                return method
        return self.parse


def _urls(value: str | Iterable[str]) -> list[str]:
    if isinstance(value, str):  # a spider argument: one URL, or several separated by commas
        return [part.strip() for part in value.split(",") if part.strip()]
    return list(value)


def _number(value: int | str | None) -> int | None:
    if value is None or isinstance(value, int):
        return value
    try:
        return int(value)
    except ValueError as exc:
        raise ConfigError(f"spider argument {value!r}: expected a whole number") from exc


def _truth(value: bool | str) -> bool:
    if isinstance(value, bool):
        return value
    return value.strip().lower() not in {"0", "false", "no", "off"}
