"""One pooled page, its browser context, and the rules every request of it goes through.

A :class:`PageLease` is what :meth:`BrowserPool.page` lends. Its route handler is in place on the
context before the context has a page, so it sees every request the page (or a popup of it)
makes, and decides:

* images, fonts and media (:data:`BLOCKED_RESOURCES`) → refused;
* a navigation a probed page starts (any other than the crawler's own) → never sent: recorded
  when the safety rule (:class:`~deepcrawl.safety.SafetyRule`) allows it, and answered with an
  empty 204, which leaves the page where it is (``route.abort`` does not:
  docs/ARCHITECTURE.md);
* a host outside the scope → refused (a refused main-frame navigation is remembered, so the
  fetch can say "blocked" rather than "network error");
* a popup's navigation → recorded and answered with 204; the popup is closed;
* the pool's :class:`~deepcrawl.browser.gate.RequestGate` — the crawl's door, robots.txt and the
  safety rule: a script's request (``fetch``, XHR, beacon, event source, web socket) judged by
  its URL, and every request of a probed page too, a GET or refused
  (:meth:`~deepcrawl.safety.SafetyRule.request_reason`) → refused when it says so;
* a script's request for a document the crawl stored, or for a script, style sheet or data the
  pool already holds → answered without the network (:mod:`deepcrawl.browser.subrequests`);
* everything else goes out through the gate's passage (the host's rate, the count), handed on
  to the site access's route, which sends the access's headers to its credential origins only
  (:mod:`deepcrawl.browser.credentials`).

A page that JavaScript link probing touched (:attr:`PageLease.probing`) stays under the probe's
rules as long as it shows the probed document — a click's effect may come after the probe
returned (a timer, a beacon as the page unloads, a request the browser hands over late) — and
the pool lends it again only once that document is left behind (:meth:`PageLease.leave_probe`).

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
from deepcrawl.browser.gate import SafetyGate
from deepcrawl.browser.scope import strip_fragment
from deepcrawl.safety import SafetyRule

if TYPE_CHECKING:
    from collections.abc import Coroutine
    from contextlib import AbstractAsyncContextManager

    from playwright.async_api import (
        Browser,
        BrowserContext,
        CDPSession,
        Dialog,
        Page,
        Request,
        Response,
        Route,
    )

    from deepcrawl.browser.access import SiteAccess
    from deepcrawl.browser.gate import RequestGate
    from deepcrawl.browser.scope import Scope
    from deepcrawl.browser.subrequests import Subrequests
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.safety import Sender
    from deepcrawl.settings import Settings

__all__ = ["BLOCKED_RESOURCES", "PROBE_REFUSED_WORDS", "PageLease"]

#: Playwright resource types a pooled page never loads: a crawler reads the DOM, not the
#: pixels, and these are most of a page's bytes.
BLOCKED_RESOURCES = frozenset({"image", "font", "media"})
#: Words that keep probing from clicking an element or sending a request, on top of the safety
#: rule's (:mod:`deepcrawl.safety`) and ``forms.refused_words``: a click may vote or fill a
#: basket where following a link only reads.
PROBE_REFUSED_WORDS = ("vote", "add to", "wishlist")

_JS = "deepcrawl.browser.js"
#: Longest time a probed page may take to leave its document behind (:meth:`PageLease
#: .leave_probe`) before it is closed instead.
_LEAVE_S = 5.0
#: How often leaving a probed document looks whether its last requests were failed.
_LEAVE_POLL_S = 0.01
#: Resource types of the requests a page's scripts make (judged by the safety rule always).
#: Answers from this status up are shown to the gate (:meth:`PageLease._on_response`).
_ERROR_STATUS = 400
_SCRIPTED = frozenset({"fetch", "xhr", "ping", "eventsource", "websocket"})


@dataclass(eq=False)
class PageLease:
    """A page of the pool with its context and per-fetch records.

    Attributes:
        page: the Playwright page.
        context: its own browser context.
        browser: the browser the context is open in (None: a lease not made by :meth:`open`).
        served: pages fetched with it so far.
        rule: the safety rule every request is judged by (URL and link text).
        click_rule: the stricter rule probed elements are judged by (the request rule's words
            plus ``forms.refused_words`` and :data:`PROBE_REFUSED_WORDS`: a click may
            submit or post where following a link only reads).
        probing: JS link probing has touched the page: from then on, until the pool leaves the
            probed document behind (:meth:`leave_probe`), its navigations are captured and its
            requests judged as a probe's (GETs only, each URL judged).
        own_navigation: a URL the crawler itself navigates to while probing (restores).
        gate: the door every request to the network passes (the pool's; the crawl's gate in a
            crawl).
        captured: ``(how, url)`` navigations captured since :meth:`begin` (``route``,
            ``popup``).
        blocked: ``(method, url, why)`` requests refused since :meth:`begin`.
        blocked_navigation: the main-frame navigation refused (out of scope, or by the gate),
            with why, if any.
        crashed: the renderer crashed.
        poisoned: the page must not be reused (a timeout left it in an unknown state).
        inflight: requests started and not finished (counted while probing).
        subrequests: the pool's answers to script requests (None: every request goes out).
        documents: ``url -> (status, content type, body, sets cookies)``: the answer to a
            main-frame navigation to ``url`` that the crawl fetched a moment ago (the adaptive
            fetcher renders the very page it compares with; the form finder the start page the
            crawl's input check fetched): given without a request (:meth:`hold`).
        foreign_session: the page shows a held document whose answer set cookies the browser
            never received: a form on it may carry a token of another session (a CSRF token
            bound to plain HTTP's cookie), so it is no page to submit from.
        fetched_before: the URL being rendered was fetched a moment ago (:meth:`hold` was
            offered its answer): should the page ask for it all the same, that navigation is
            a request of its own, not the fetch the gate admitted.
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
    gate: RequestGate = field(default_factory=SafetyGate)
    documents: dict[str, tuple[int, str, bytes, bool]] = field(default_factory=dict)
    foreign_session: bool = False
    fetched_before: bool = False
    browser: Browser | None = None
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
        gate: RequestGate | None = None,
    ) -> PageLease:
        """Open a fresh context and page on ``browser`` with deepcrawl's rules installed and the
        site access (cookies and local storage, headers, user agent, proxy).

        The rules (init scripts, the route) are in place before the context has a page: no
        request of it goes out before its route can judge it.
        """
        context = await browser.new_context(
            accept_downloads=False,
            service_workers="block",
            viewport={"width": 1280, "height": 900},
            **access.context_options(),
        )
        ready: asyncio.Future[PageLease] = asyncio.get_running_loop().create_future()

        async def route(route: Route, request: Request) -> None:
            # the lease exists before any page can send a request (there is no page yet)
            lease = await ready
            await lease._route(route, request)

        try:
            await context.add_init_script(script=script(_JS, "init.js"))
            await context.add_init_script(script=script(_JS, "timers.js"))
            # the access's headers go to its credential origins only: routes around this one's
            timeout_s = settings.browser.page_timeout_s
            await route_context(context, access, route, timeout_s=timeout_s)
            page = await context.new_page()
        except PlaywrightError:
            ready.cancel()
            with contextlib.suppress(PlaywrightError):
                await context.close()
            raise
        lease = cls(
            page=page,
            context=context,
            settings=settings,
            scope=scope,
            rule=SafetyRule(),
            click_rule=SafetyRule((*settings.forms.refused_words, *PROBE_REFUSED_WORDS)),
            subrequests=subrequests,
            gate=gate or SafetyGate(),
            browser=browser,
        )
        ready.set_result(lease)
        timeout_ms = settings.browser.page_timeout_s * 1000
        page.set_default_timeout(timeout_ms)
        page.set_default_navigation_timeout(timeout_ms)
        page.on("crash", lambda _page: lease._on_crash())
        page.on("dialog", lease._on_dialog)
        page.on("response", lease._on_response)
        context.on("page", lease._on_popup)
        return lease

    def hold(self, url: str, document: FetchedPage | None) -> bool:
        """Answer the next navigation to ``url`` with ``document`` when it is the HTML answer
        of ``url`` itself (status 200, no redirect): the page then renders these bytes rather
        than ask the server again (its scripts, styles and data still load as usual). The
        caller clears :attr:`documents` once the page is rendered.

        Returns:
            Whether ``document`` is held.
        """
        self.fetched_before = document is not None
        if not _reusable(url, document):
            return False
        assert document is not None
        content_type = f"{document.content_type}; charset=utf-8"
        sets_cookies = "set-cookie" in document.headers
        self.documents[url] = (200, content_type, document.body.encode(), sets_cookies)
        return True

    def begin(self) -> None:
        """Forget the records of the previous fetch (a probed page stays under the probe's
        rules: see :attr:`probing`)."""
        self.captured = []
        self.blocked = []
        self.blocked_navigation = None
        self.own_navigation = None

    def _on_crash(self) -> None:
        self.crashed = True
        self.poisoned = True

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _on_response(self, response: Response) -> None:
        # an error answer is the gate's to judge: a 429 or a 503 pauses its host for every
        # sender (RequestGate.page_answer), whichever request of the page it answered
        if response.status >= _ERROR_STATUS:
            with contextlib.suppress(PlaywrightError):
                retry_after = response.headers.get("retry-after")
                self.gate.page_answer(response.url, response.status, retry_after)

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
        url, method = request.url, request.method
        if request.resource_type in BLOCKED_RESOURCES:
            await route.abort("blockedbyclient")
            return
        navigation = request.is_navigation_request()
        where = self._frame_is_main(request) if navigation else False
        held = self.documents.get(url) if navigation and where and method == "GET" else None
        if held is not None:  # the page the crawl has just fetched: its bytes, not the server's
            status, content_type, body, self.foreign_session = held
            await route.fulfill(status=status, content_type=content_type, body=body)
            return
        own = navigation and url == self.own_navigation
        if self.probing and navigation and where is not False and not own:
            # never sent: a link when the rule allows it, the page kept where it is either way
            if why := self.rule.request_reason(url, method=method, sender="probe"):
                self.blocked.append((method, url, why))
            else:
                self.captured.append(("route" if where else "popup", url))
            await route.fulfill(status=204, body="")
            return
        if not self.scope.allows(url):
            self._refuse(request, "out of scope", main=bool(navigation and where))
            await route.abort("blockedbyclient")
            return
        if navigation and where is None:
            self.captured.append(("popup", url))
            await route.fulfill(status=204, body="")
            return
        sender: Sender = "page"
        if self.probing and not own:
            sender = "probe"
        elif request.resource_type in _SCRIPTED:
            sender = "script"
        if why := self.gate.page_refusal(url, method=method, sender=sender):
            self._refuse(request, why, main=bool(navigation and where))
            await route.abort("blockedbyclient")
            return

        # the main-frame navigation may be the very fetch the gate admitted (and counted)
        admitted = bool(navigation and where) and not self.fetched_before

        def passage() -> AbstractAsyncContextManager[None]:
            return self.gate.page_passage(url, navigation=admitted)

        if self.subrequests is not None and await self.subrequests.answer(route, request, passage):
            return  # answered from the store or the cache, refused, or sent from there
        if navigation and where:
            self.foreign_session = False  # the server's answer comes with its cookies
        async with passage():
            await route.fallback()  # sent by the access's route (deepcrawl.browser.credentials)

    def _refuse(self, request: Request, why: str, *, main: bool) -> None:
        """Record a request refused before it went out (a main-frame navigation's URL too)."""
        self.blocked.append((request.method, request.url, why))
        if main:
            self.blocked_navigation = f"{request.url} ({why})"

    async def leave_probe(self) -> None:
        """Leave a probed page's document behind, so that the page may be lent again.

        The page is sent to ``about:blank`` with every request it makes meanwhile failed in the
        browser (a DevTools ``Fetch`` interception of its own, which sees what the route does
        not): the probed document's timers die with it, a request it had started is cancelled
        (a request whose document is gone never reaches the server, however late its route is
        answered), and what its unload handlers send as it goes — a beacon, a keepalive fetch,
        which outlive their page and pass no route — goes nowhere. The interception ends only
        once every request the document announced as it went (``Network.requestWillBeSent``)
        was failed or ended: a request the browser hands to the interception after the new
        document loaded, on a busy machine, would otherwise be let through by its end. Then
        the probe's rules are lifted. A page that cannot be led so far is poisoned — closed,
        never lent again, its requests failed until it is gone.
        """
        session = await self.cdp()
        failing: set[asyncio.Task[object]] = set()
        announced: set[str] = set()
        settled: set[str] = set()

        def fail(event: dict[str, Any]) -> None:
            settled.add(event.get("networkId") or event["requestId"])
            params = {"requestId": event["requestId"], "errorReason": "BlockedByClient"}
            task = asyncio.ensure_future(session.send("Fetch.failRequest", params))
            failing.add(task)

        def announce(event: dict[str, Any]) -> None:
            if not str(event["request"]["url"]).startswith(("about:", "data:")):
                announced.add(event["requestId"])

        def end(event: dict[str, Any]) -> None:
            settled.add(event["requestId"])

        listeners = {
            "Fetch.requestPaused": fail,
            "Network.requestWillBeSent": announce,
            "Network.loadingFinished": end,
            "Network.loadingFailed": end,
        }
        for name, listener in listeners.items():
            session.on(name, listener)
        try:
            async with asyncio.timeout(_LEAVE_S):
                await session.send("Network.enable")
                await session.send("Fetch.enable", {"patterns": [{"urlPattern": "*"}]})
                await self.page.goto("about:blank")
                # a round trip on this session: the events it sent before are in by its answer
                await session.send("Runtime.evaluate", {"expression": "0"})
                while announced - settled:  # paused and failed, or ended, before it is lifted
                    await asyncio.sleep(_LEAVE_POLL_S)
                await session.send("Fetch.disable")
                await session.send("Network.disable")
                await asyncio.gather(*failing, return_exceptions=True)
        except (PlaywrightError, TimeoutError):
            self.poisoned = True  # the interception stays, failing what it sends until closed
            return
        for name, listener in listeners.items():
            session.remove_listener(name, listener)
        self.probing = False

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
