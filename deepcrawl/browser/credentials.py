"""The access headers in the browser: on requests to the credential origins, and nowhere else.

The same holds for an origin's HTTP Basic ``Authorization`` (from a URL's userinfo): it is one
more header of that origin's (:meth:`SiteAccess.headers_for`), sent by these routes before the
site asks — as httpx sends a URL's credentials — so that Chromium never meets a 401 challenge it
would have to answer (headless, it cannot ask anyone).

Playwright's ``extra_http_headers`` cannot do this: Chromium adds them to every request of the
context, whatever its origin (a CDN's script, a frame, a redirect's next hop). Adding them per
request in a route is not enough either: Chromium carries the headers of a continued request
over to each hop of its redirects, and routes none of those hops
(docs/ARCHITECTURE.md, "Measured facts"). :func:`route_context` therefore installs two routes
around the caller's own (Playwright runs a context's routes last-registered first, each handing
on with ``route.fallback()``):

1. *sign* — a request for a credential origin (:meth:`SiteAccess.headers_for`) gets its
   headers as a fallback override, so the caller's handler sees them and what it sends itself
   (``route.fetch``: the sub-request cache) carries them;
2. the caller's handler decides: refuses, answers, or hands on with ``route.fallback()``;
3. *send* — what was handed on goes out. A request that carries the headers is sent from here
   with redirects unfollowed and its answer, a redirect included, given to the page: the browser
   then follows a redirect as a new request, which carries none of the headers. Any other
   request continues as the browser made it.

A request sent from here goes out through Playwright's request client, not Chromium's network
stack: it carries the headers the page's request had (user agent, client hints, ``Accept``,
``Referer``) and the context's cookies, but no ``Sec-Fetch-*`` metadata, and through a proxy it
is a ``CONNECT`` tunnel — the price of keeping the headers off a redirect's next hop, paid only
by the requests that carry them. An event stream to a credential origin goes without the
headers: its answer never ends, so it cannot be read whole before the page gets it.

Cookies need none of this: they are in the context's cookie jar, which sends them by RFC 6265's
rules on every hop.

Without headers or logins, only the caller's handler is installed: the routes cost nothing then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from playwright.async_api import Error as PlaywrightError

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from playwright.async_api import BrowserContext, Request, Route

    from deepcrawl.browser.access import SiteAccess

    RouteHandler = Callable[[Route, Request], Awaitable[None]]

__all__ = ["route_context"]

#: Resource types never sent from here (see the module docstring).
_STREAMED = frozenset({"eventsource"})

AbortCode = Literal["connectionrefused", "connectionreset", "namenotresolved", "timedout", "failed"]

#: What the request client's error says → the network error the page sees (so that a failed
#: navigation reads as the browser's own: ``net::ERR_CONNECTION_REFUSED`` …).
_ABORT_CODES: tuple[tuple[str, AbortCode], ...] = (
    ("ECONNREFUSED", "connectionrefused"),
    ("ECONNRESET", "connectionreset"),
    ("ENOTFOUND", "namenotresolved"),
    ("EAI_AGAIN", "namenotresolved"),
    ("Timeout", "timedout"),
    ("ETIMEDOUT", "timedout"),
)


async def route_context(
    context: BrowserContext,
    access: SiteAccess,
    handler: RouteHandler | None = None,
    *,
    timeout_s: float,
) -> None:
    """Route every request of ``context`` through ``handler`` with the access's headers on the
    requests to its credential origins only (see the module docstring).

    Args:
        context: a fresh browser context.
        access: the site access (its headers and credential origins).
        handler: the caller's route handler; it hands a request on with ``route.fallback()``
            (``route.continue_()`` would send it past the headers' rule). None: no rules of
            the caller's.
        timeout_s: how long a request sent from here may take.
    """
    if not access.signs:
        if handler is not None:
            await context.route("**/*", handler)
        return
    routes = _Routes(access, timeout_s * 1000)
    await context.route("**/*", routes.send)
    if handler is not None:
        await context.route("**/*", handler)
    await context.route("**/*", routes.sign)


class _Routes:
    """The two routes of one context (see the module docstring)."""

    def __init__(self, access: SiteAccess, timeout_ms: float) -> None:
        self.access = access
        self.timeout_ms = timeout_ms

    def _headers(self, request: Request) -> dict[str, str]:
        """The access's headers of this request (none for a streamed one), named in lower case
        as Playwright names a request's, so that they replace the browser's own."""
        if request.resource_type in _STREAMED:
            return {}
        return {name.lower(): value for name, value in self.access.headers_for(request.url).items()}

    def _signed(self, request: Request) -> bool:
        return bool(self._headers(request))

    async def sign(self, route: Route, request: Request) -> None:
        """The headers on a request for a credential origin, as a fallback override."""
        if headers := self._headers(request):
            await route.fallback(headers={**request.headers, **headers})
        else:
            await route.fallback()

    async def send(self, route: Route, request: Request) -> None:
        """Send a signed request from here, its redirects unfollowed; continue any other."""
        try:
            if not self._signed(request):
                await route.continue_()
                return
            try:
                response = await route.fetch(max_redirects=0, timeout=self.timeout_ms)
            except PlaywrightError as exc:
                await route.abort(_abort_code(str(exc)))
                return
            await route.fulfill(response=response)
        except PlaywrightError:
            return  # the page went away meanwhile


def _abort_code(message: str) -> AbortCode:
    return next((code for mark, code in _ABORT_CODES if mark in message), "failed")
