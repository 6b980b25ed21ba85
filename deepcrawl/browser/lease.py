"""One pooled page, its browser context, and the rules every request of it goes through.

A :class:`PageLease` is what :meth:`BrowserPool.page` lends. Its route handler sees every
request the page (or a popup of it) makes and decides:

* images, fonts and media (``browser.block_resources``) → refused;
* while probing: any non-GET request → refused (a probe never POSTs); any request the safety
  rule (:class:`~deepcrawl.safety.SafetyRule`) refuses, whatever its method → refused (a
  navigation among them answered with an empty 204, which leaves the page where it is —
  ``route.abort`` does not: docs/ARCHITECTURE.md); any other navigation than the crawler's own →
  recorded and answered with 204;
* at any time: a script's request (``fetch``, XHR, beacon, event source, web socket) the safety
  rule refuses → refused;
* a host outside the scope → refused (a refused main-frame navigation is remembered, so the
  fetch can say "blocked" rather than "network error");
* a popup's navigation → recorded and answered with 204; the popup is closed;
* a script's request for a document the crawl stored, or for a script, style sheet or data the
  pool already holds → answered without the network (:mod:`deepcrawl.browser.subrequests`).
* anything else → handed on to the site access's route, which sends the access's headers to
  its credential origins only (:mod:`deepcrawl.browser.credentials`).

Per-fetch records (:attr:`captured`, :attr:`blocked`, :attr:`crashed`) are reset by
:meth:`begin`.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

from deepcrawl.browser._assets import script
from deepcrawl.browser.credentials import route_context
from deepcrawl.browser.scope import strip_fragment
from deepcrawl.safety import SafetyRule

if TYPE_CHECKING:
    from collections.abc import Coroutine

    from playwright.async_api import (
        Browser,
        BrowserContext,
        CDPSession,
        Dialog,
        Page,
        Request,
        Route,
    )

    from deepcrawl.browser.access import SiteAccess
    from deepcrawl.browser.scope import Scope
    from deepcrawl.browser.subrequests import Subrequests
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.settings import Settings

__all__ = ["PageLease"]

_JS = "deepcrawl.browser.js"
#: Resource types of the requests a page's scripts make (judged by the safety rule always).
_SCRIPTED = frozenset({"fetch", "xhr", "ping", "eventsource", "websocket"})


@dataclass(eq=False)
class PageLease:
    """A page of the pool with its context and per-fetch records.

    Attributes:
        page: the Playwright page.
        context: its own browser context.
        served: pages fetched with it so far.
        rule: the safety rule every request is judged by (URL and link text).
        click_rule: the stricter rule probed elements are judged by (the request rule's words
            plus ``forms.refused_words`` and ``browser.probe_refused_words``: a click may
            submit or post where following a link only reads).
        probing: True while JS link probing runs (navigations are captured, POSTs refused).
        own_navigation: a URL the crawler itself navigates to while probing (restores).
        captured: ``(how, url)`` navigations captured since :meth:`begin` (``route``,
            ``popup``).
        blocked: ``(method, url, why)`` requests refused since :meth:`begin`.
        blocked_navigation: the main-frame navigation refused as out of scope, if any.
        crashed: the renderer crashed.
        poisoned: the page must not be reused (a timeout left it in an unknown state).
        inflight: requests started and not finished (counted while probing).
        subrequests: the pool's answers to script requests (None: every request goes out).
        answered_locally: responses the server never sent (from the store or the pool's cache),
            counted over the lease's life.
        documents: ``url -> (status, content type, body, sets cookies)``: the answer to a
            main-frame navigation to ``url`` that the crawl fetched a moment ago (the adaptive
            fetcher renders the very page it compares with; the form finder the start page the
            crawl's input check fetched): given without a request (:meth:`hold`).
        foreign_session: the page shows a held document whose answer set cookies the browser
            never received: a form on it may carry a token of another session (a CSRF token
            bound to plain HTTP's cookie), so it is no page to submit from.
    """

    page: Page
    context: BrowserContext
    settings: Settings
    scope: Scope
    rule: SafetyRule
    click_rule: SafetyRule
    served: int = 0
    probing: bool = False
    own_navigation: str | None = None
    captured: list[tuple[str, str]] = field(default_factory=list)
    blocked: list[tuple[str, str, str]] = field(default_factory=list)
    blocked_navigation: str | None = None
    crashed: bool = False
    poisoned: bool = False
    inflight: int = 0
    subrequests: Subrequests | None = None
    answered_locally: int = 0
    documents: dict[str, tuple[int, str, bytes, bool]] = field(default_factory=dict)
    foreign_session: bool = False
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)
    _cdp: CDPSession | None = None

    async def cdp(self) -> CDPSession:
        """A DevTools-protocol session on the page, opened once and kept with it."""
        if self._cdp is None:
            self._cdp = await self.context.new_cdp_session(self.page)
        return self._cdp

    @classmethod
    async def open(
        cls,
        browser: Browser,
        settings: Settings,
        scope: Scope,
        subrequests: Subrequests | None = None,
        *,
        access: SiteAccess,
    ) -> PageLease:
        """Open a fresh context and page on ``browser`` with deepcrawl's rules installed and the
        site access (cookies and local storage, headers, user agent, proxy)."""
        context = await browser.new_context(
            accept_downloads=False,
            service_workers="block",
            viewport={"width": 1280, "height": 900},
            **access.context_options(),
        )
        try:
            await context.add_init_script(script=script(_JS, "init.js"))
            await context.add_init_script(script=script(_JS, "timers.js"))
            page = await context.new_page()
        except PlaywrightError:
            with contextlib.suppress(PlaywrightError):
                await context.close()
            raise
        lease = cls(
            page=page,
            context=context,
            settings=settings,
            scope=scope,
            rule=SafetyRule(),
            click_rule=SafetyRule(
                (*settings.forms.refused_words, *settings.browser.probe_refused_words)
            ),
            subrequests=subrequests,
        )
        timeout_ms = settings.browser.page_timeout_s * 1000
        page.set_default_timeout(timeout_ms)
        page.set_default_navigation_timeout(timeout_ms)
        page.on("crash", lambda _page: lease._on_crash())
        page.on("dialog", lease._on_dialog)
        context.on("page", lease._on_popup)
        # the access's headers go to its credential origins only: routes around this one's
        await route_context(
            context, access, lease._route, timeout_s=settings.browser.page_timeout_s
        )
        return lease

    def hold(self, url: str, document: FetchedPage | None) -> bool:
        """Answer the next navigation to ``url`` with ``document`` when it is the HTML answer
        of ``url`` itself (status 200, no redirect): the page then renders these bytes rather
        than ask the server again (its scripts, styles and data still load as usual). The
        caller clears :attr:`documents` once the page is rendered.

        Returns:
            Whether ``document`` is held.
        """
        if not _reusable(url, document):
            return False
        assert document is not None
        content_type = f"{document.content_type}; charset=utf-8"
        sets_cookies = "set-cookie" in document.headers
        self.documents[url] = (200, content_type, document.body.encode(), sets_cookies)
        return True

    def begin(self) -> None:
        """Forget the records of the previous fetch."""
        self.captured = []
        self.blocked = []
        self.blocked_navigation = None
        self.own_navigation = None
        self.probing = False

    def _on_crash(self) -> None:
        self.crashed = True
        self.poisoned = True

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _on_dialog(self, dialog: Dialog) -> None:
        async def answer() -> None:
            with contextlib.suppress(PlaywrightError):
                if dialog.type == "beforeunload":
                    await dialog.accept()
                else:
                    await dialog.dismiss()

        self._spawn(answer())

    def _on_popup(self, popup: Page) -> None:
        if popup is self.page:
            return

        async def close() -> None:
            url = popup.url
            if url and url != "about:blank":
                self.captured.append(("popup", url))
            with contextlib.suppress(PlaywrightError):
                await popup.close()

        self._spawn(close())

    def _frame_is_main(self, request: Request) -> bool | None:
        """True: the request belongs to this page's main frame; False: a sub-frame of it;
        None: another page (a popup, whose frame Playwright cannot even name yet)."""
        try:
            frame = request.frame
        except PlaywrightError:
            return None
        try:
            if frame.page is not self.page:
                return None
        except PlaywrightError:
            return None
        return frame.parent_frame is None

    async def _route(self, route: Route, request: Request) -> None:
        with contextlib.suppress(PlaywrightError):  # the page may have gone meanwhile
            await self._decide(route, request)

    async def _decide(self, route: Route, request: Request) -> None:
        url = request.url
        if request.resource_type in self.settings.browser.block_resources:
            await route.abort("blockedbyclient")
            return
        navigation = request.is_navigation_request()
        where = self._frame_is_main(request) if navigation else False
        held = self.documents.get(url) if navigation and where and request.method == "GET" else None
        if held is not None:  # the page the crawl has just fetched: its bytes, not the server's
            status, content_type, body, self.foreign_session = held
            await route.fulfill(status=status, content_type=content_type, body=body)
            self.answered_locally += 1
            return
        if self.probing:
            if request.method != "GET":
                self.blocked.append((request.method, url, "probe sends no " + request.method))
                await route.abort("blockedbyclient")
                return
            own = url == self.own_navigation
            if not own and (why := self.rule.reason(url)):
                self.blocked.append((request.method, url, why))
                if navigation and where is not False:
                    await route.fulfill(status=204, body="")
                else:
                    await route.abort("blockedbyclient")
                return
            if navigation and where is not False and not own:
                self.captured.append(("route" if where else "popup", url))
                await route.fulfill(status=204, body="")
                return
        elif request.resource_type in _SCRIPTED and (why := self.rule.reason(url)):
            self.blocked.append((request.method, url, why))
            await route.abort("blockedbyclient")
            return
        if not self.scope.allows(url):
            self.blocked.append((request.method, url, "out of scope"))
            if navigation and where:
                self.blocked_navigation = url
            await route.abort("blockedbyclient")
            return
        if navigation and where is None:
            self.captured.append(("popup", url))
            await route.fulfill(status=204, body="")
            return
        if self.subrequests is not None and (how := await self.subrequests.answer(route, request)):
            if how in {"store", "cache"}:
                self.answered_locally += 1
            return
        if navigation and where:
            self.foreign_session = False  # the server's answer comes with its cookies
        await route.fallback()  # sent by the access's route (deepcrawl.browser.credentials)

    def on_request(self, _request: Request) -> None:
        """Count a started request (attached while probing)."""
        self.inflight += 1

    def on_request_done(self, _request: Request) -> None:
        """Count a finished or failed request (attached while probing)."""
        self.inflight = max(0, self.inflight - 1)

    async def close(self, timeout_s: float) -> None:
        """Close the page and its context; never raises, never hangs longer than ``timeout_s``."""
        for task in list(self._tasks):
            task.cancel()
        with contextlib.suppress(PlaywrightError, TimeoutError, asyncio.TimeoutError):
            async with asyncio.timeout(timeout_s):
                await self.page.close(run_before_unload=False)
        with contextlib.suppress(PlaywrightError, TimeoutError, asyncio.TimeoutError):
            async with asyncio.timeout(timeout_s):
                await self.context.close()


def _reusable(url: str, document: FetchedPage | None) -> bool:
    """Whether ``document`` is the HTML answer of ``url`` itself, fit to be rendered again."""
    return (
        document is not None
        and document.status == 200
        and document.is_html
        and strip_fragment(document.final_url) == strip_fragment(url)
    )
