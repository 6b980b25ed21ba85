"""Render one URL in a pooled page: status, live DOM, links, forms, probe links.

The navigation waits for the response headers first (``wait_until="commit"``) so that a
non-HTML answer or an announced oversized body is refused before Chromium spends time on it,
then for the ``load`` event, then for the page to settle (a result list a script appends item
by item: :mod:`deepcrawl.browser.settle`). Links come from the live DOM (anchors, areas,
``link rel=next/prev``, the links inside same-site iframes) with their text and DOM path.
Playwright errors are translated here into :mod:`deepcrawl.errors`; a page that timed out or
crashed is marked so the pool never reuses it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import re
import time
from http import HTTPStatus
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from deepcrawl.browser._assets import script
from deepcrawl.browser.scope import host_of, strip_fragment
from deepcrawl.browser.settle import Traffic, settle
from deepcrawl.errors import (
    BlockedError,
    BodyTooLargeError,
    FetchError,
    FetchTimeoutError,
    NetworkError,
    NotHTMLError,
    RendererCrashedError,
)
from deepcrawl.page.fetched import Exchange, FetchedPage, Link, LinkOrigin

if TYPE_CHECKING:
    from playwright.async_api import Frame, Page, Response

    from deepcrawl.browser.lease import PageLease

__all__ = ["SETTLE_MAX_S", "collect_links", "media_type", "render_page"]

#: Longest wait for a rendered page, past its ``load`` event, to settle
#: (:func:`~deepcrawl.browser.settle.settle`); it is then read as it is (a ticker never
#: settles). A submission's page may take up to ``browser.page_timeout_s``.
SETTLE_MAX_S = 5.0

_JS = "deepcrawl.browser.js"
_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_NETWORK_CODES = (
    "ERR_CONNECTION",
    "ERR_NAME_NOT_RESOLVED",
    "ERR_ADDRESS",
    "ERR_EMPTY_RESPONSE",
    "ERR_INTERNET_DISCONNECTED",
    "ERR_NETWORK",
    "ERR_SOCKET",
    "ERR_TIMED_OUT",
    "ERR_INVALID_RESPONSE",
    "ERR_HTTP2",
)


def media_type(value: str) -> str:
    """``text/html; charset=utf-8`` → ``text/html``."""
    return value.split(";", 1)[0].strip().lower()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    line = text.splitlines()[0] if text else type(exc).__name__
    line = re.sub(r"^(Page|Frame|Response)\.\w+: ", "", line)  # Playwright's call name
    return re.sub(r" at https?://\S+$", "", line)  # the URL is in the error already


def translate(exc: PlaywrightError, url: str, lease: PageLease) -> FetchError:
    """Turn a Playwright error from a navigation of ``url`` into a FetchError."""
    message = _first_line(exc)
    if isinstance(exc, PlaywrightTimeoutError):
        lease.poisoned = True
        return FetchTimeoutError(url, f"no complete page within the timeout ({message})")
    if lease.crashed or "crash" in message.lower() or "has been closed" in message:
        lease.poisoned = True
        return RendererCrashedError(url, f"the renderer died ({message})")
    if lease.blocked_navigation is not None:
        lease.poisoned = True  # the tab now shows Chromium's error page
        return BlockedError(url, f"refused: {lease.blocked_navigation}")
    if "Download is starting" in message or "ERR_ABORTED" in message:
        return NotHTMLError(url, "unknown: a download (refused) or an empty answer")
    if "ERR_TOO_MANY_REDIRECTS" in message:
        return FetchError(url, "too many redirects")
    if any(code in message for code in _NETWORK_CODES):
        return NetworkError(url, message)
    return NetworkError(url, message)


async def _frame_links(frame: Frame, origin_frame: bool) -> list[Link]:
    rows: list[list[str]] = await frame.evaluate(script(_JS, "links.js"))
    links: list[Link] = []
    for url, text, path, rel, kind in rows:
        origin: LinkOrigin = (
            "probe" if kind == "open" else "iframe" if origin_frame or kind == "frame" else "html"
        )
        links.append(Link(url=url, text=text, origin=origin, dom_path=path, rel=rel))
    return links


async def collect_links(page: Page, *, same_site: str | None = None) -> list[Link]:
    """Every link of the page's live DOM, and of its iframes on the same host.

    Args:
        page: a loaded page.
        same_site: ``host:port`` whose frames are read (default: the page's own).

    Returns:
        Links in document order (main frame first, then each same-site frame's).
    """
    links = await _frame_links(page.main_frame, False)
    site = same_site or host_of(page.url)
    for frame in page.frames[1:]:
        if frame.is_detached() or host_of(frame.url) != site:
            continue
        try:
            links.extend(await _frame_links(frame, True))
        except PlaywrightError:
            continue  # the frame navigated or went away meanwhile
    return links


async def _navigate(lease: PageLease, url: str, deadline: float) -> Response:
    page = lease.page
    timeout_ms = max(100.0, (deadline - time.monotonic()) * 1000)
    try:
        try:
            response = await page.goto(url, wait_until="commit", timeout=timeout_ms)
        except PlaywrightError as exc:
            if "interrupted by another navigation" not in str(exc):
                raise
            # a navigation left over from the previous page (a late redirect): go again
            timeout_ms = max(100.0, (deadline - time.monotonic()) * 1000)
            response = await page.goto(url, wait_until="commit", timeout=timeout_ms)
    except PlaywrightError as exc:
        raise translate(exc, url, lease) from exc
    if response is None:
        raise NotHTMLError(url, "none (no response)")
    return response


async def render_page(
    lease: PageLease,
    url: str,
    *,
    forms: bool = True,
    probe: bool = False,
    probe_skip: set[str] | None = None,
    settle_s: float = SETTLE_MAX_S,
) -> FetchedPage:
    """Load ``url`` in the lease's page and read what the live DOM shows.

    Args:
        lease: a page borrowed from the pool.
        url: the URL to render.
        forms: also discover the page's forms (:mod:`deepcrawl.browser.live_forms`).
        probe: also run JavaScript link probing (:mod:`deepcrawl.browser.probe`).
        probe_skip: elements probed on earlier pages, shared and extended (see
            :func:`deepcrawl.browser.probe.probe_page`).
        settle_s: the longest wait, past ``load``, for the page to settle (0: read it at
            ``load``).

    Returns:
        The page; ``body`` is empty and there are no links for a non-HTML answer.

    Raises:
        FetchError: the subclass saying why there is no page (timeout, crash, too large,
            blocked, network).
    """
    settings = lease.settings
    lease.begin()
    started = time.monotonic()
    deadline = started + settings.browser.page_timeout_s
    with Traffic(lease.page) as traffic:
        return await _render(
            lease,
            url,
            traffic,
            started=started,
            deadline=deadline,
            forms=forms,
            probe=probe,
            probe_skip=probe_skip,
            settle_s=settle_s,
        )


async def _render(
    lease: PageLease,
    url: str,
    traffic: Traffic,
    *,
    started: float,
    deadline: float,
    forms: bool,
    probe: bool,
    probe_skip: set[str] | None,
    settle_s: float,
) -> FetchedPage:
    """:func:`render_page` once the page's requests are being counted."""
    settings = lease.settings
    response = await _navigate(lease, url, deadline)
    headers = dict(response.headers)
    content_type = media_type(headers.get("content-type", "text/html"))
    limit = settings.http.max_body_bytes
    declared = headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        lease.poisoned = True  # Chromium may still be chewing on it; start afresh
        raise BodyTooLargeError(url, f"body of {int(declared)} bytes exceeds {limit}")
    final_status = response.status
    if content_type not in _HTML_TYPES:
        return FetchedPage(
            url=url,
            final_url=strip_fragment(response.url),
            status=final_status,
            content_type=content_type,
            body="",
            via="browser",
            elapsed_s=time.monotonic() - started,
            headers=headers,
        )
    page = lease.page
    try:
        await page.wait_for_load_state(
            "load", timeout=max(100.0, (deadline - time.monotonic()) * 1000)
        )
        wait = min(settle_s, deadline - time.monotonic())
        try:
            await settle(page, traffic, timeout_s=max(0.0, wait), quick=True)
        except FetchTimeoutError:
            lease.poisoned = True  # a navigation the page started is still under way
            raise
        html = await page.content()
        exchange = await _exchange(page, response, limit)
        if lease.blocked_navigation is not None:  # a late redirect (a refresh) was refused
            lease.poisoned = True  # the tab now shows Chromium's error page
            raise BlockedError(url, f"refused: {lease.blocked_navigation}")
        if len(html) > limit or len(html.encode("utf-8", "replace")) > limit:
            lease.poisoned = True
            raise BodyTooLargeError(url, f"page of over {limit} bytes")
        final_url = strip_fragment(page.url)
        links = await collect_links(page)
        found_forms = []
        if forms:
            from deepcrawl.browser.live_forms import discover_forms

            server_html = await _server_html(response)
            found_forms = await discover_forms(
                page, server_html=server_html, session=await lease.cdp()
            )
        if probe:
            from deepcrawl.browser.probe import probe_links

            links.extend(await probe_links(lease, known=links, skip=probe_skip))
    except PlaywrightError as exc:
        raise translate(exc, url, lease) from exc
    links.extend(
        Link(url=strip_fragment(u), text="", origin="probe")
        for how, u in lease.captured
        if how == "popup" and u.startswith("http") and lease.rule.allows(u)
    )
    return FetchedPage(
        url=url,
        final_url=final_url,
        status=final_status,
        content_type=content_type,
        body=html,
        links=links,
        forms=found_forms,
        via="browser",
        elapsed_s=time.monotonic() - started,
        headers=headers,
        exchange=exchange,
    )


async def _exchange(page: Page, response: Response, limit: int) -> Exchange | None:
    """The navigation's response as Chromium received it: the server's bytes, not the DOM.

    None when Chromium no longer holds the body (evicted, or a body over ``limit``). Chromium
    hands a text document's body over decoded (the DevTools protocol returns it as a string,
    which Playwright encodes in UTF-8), so a body in another character set is encoded back with
    the one Chromium decoded it with (``document.characterSet``): the server's bytes, for every
    byte that character set maps. The redirects before it come with their headers (Chromium
    keeps no redirect body). Playwright does not say which protocol carried a response; an
    HTTP/2 answer is recorded in HTTP/1.1 form, as web archives do, with the standard reason
    phrase (HTTP/2 has none).
    """
    try:
        async with asyncio.timeout(5):
            body = await response.body()
            charset: str = await page.evaluate("document.characterSet")
            final = await _wire(response, body)
            hops = []
            request = response.request.redirected_from
            while request is not None:
                earlier = await request.response()
                if earlier is not None:
                    hops.append(await _wire(earlier, b""))
                request = request.redirected_from
    except (PlaywrightError, TimeoutError):
        return None
    if charset.lower() != "utf-8":
        with contextlib.suppress(LookupError, UnicodeError):
            body = body.decode("utf-8").encode(charset)
    if len(body) > limit:
        return None
    return dataclasses.replace(final, body=body, redirects=tuple(reversed(hops)))


async def _wire(response: Response, body: bytes) -> Exchange:
    """One response of a navigation and its request, headers as Chromium received them."""
    reason = response.status_text
    if not reason:
        with contextlib.suppress(ValueError):
            reason = HTTPStatus(response.status).phrase
    return Exchange(
        method=response.request.method,
        url=response.url,
        request_headers=tuple(
            (h["name"], h["value"]) for h in await response.request.headers_array()
        ),
        protocol="HTTP/1.1",
        status=response.status,
        reason=reason,
        headers=tuple((h["name"], h["value"]) for h in await response.headers_array()),
        body=body,
    )


async def _server_html(response: Response) -> str | None:
    """The HTML the server sent (None when Chromium no longer holds it)."""
    try:
        async with asyncio.timeout(5):
            return await response.text()
    except (PlaywrightError, TimeoutError, UnicodeDecodeError):
        return None
