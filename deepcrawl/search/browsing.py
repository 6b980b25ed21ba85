"""Page-level helpers of the form filler: watching traffic, waiting for results, snapshots.

A submission may navigate (a GET or POST form), or stay on the page while a script fetches and
renders the results (an XHR or ``fetch``), or both (the results page itself loads its results by
script). :func:`settle` covers all three with one rule: the page is complete once no request has
been in flight and the DOM has not changed for ``settings.forms.settle_s``. :class:`Traffic`
watches what the page sends meanwhile: what is in flight, where it navigated, which data
requests it made (what the requests cost the server, the pool's gate counts:
:mod:`deepcrawl.browser.gate`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

from deepcrawl.browser._assets import script
from deepcrawl.browser.render import collect_links
from deepcrawl.browser.scope import strip_fragment
from deepcrawl.errors import FetchTimeoutError
from deepcrawl.search.pagination import MORE_TEXT, NEXT_TEXT
from deepcrawl.search.results import Clickable, ResultPage

if TYPE_CHECKING:
    from playwright.async_api import Page, Request, Response

    from deepcrawl.safety import SafetyRule

__all__ = ["Traffic", "before_action", "settle", "snapshot"]

_STATE_JS = "() => [window.__dcMut || 0, document.readyState, !!window.__dcMutObs]"
_POLL_S = 0.05
_DATA_TYPES = frozenset({"xhr", "fetch"})


class Traffic:
    """Watches one page's requests while attached (``with Traffic(page) as traffic:``).

    Attributes:
        inflight: requests started and not yet finished or failed.
        started: requests started.
        pending_documents: main-frame navigations not yet answered.
        nav_status: status of the last main-frame navigation answered (None: no navigation).
        nav_url: its URL.
        navigations: main-frame navigations answered.
        data_urls: URLs of the XHR / fetch requests answered, in order.
        data_statuses: their statuses.
    """

    def __init__(self, page: Page) -> None:
        self.page = page
        self.inflight = 0
        self.started = 0
        self.pending_documents = 0
        self.nav_status: int | None = None
        self.nav_url = ""
        self.navigations = 0
        self.data_urls: list[str] = []
        self.data_statuses: list[int] = []

    def __enter__(self) -> Traffic:
        self.page.on("request", self._started)
        self.page.on("requestfinished", self._ended)
        self.page.on("requestfailed", self._ended)
        self.page.on("response", self._answered)
        return self

    def __exit__(self, *_exc: object) -> None:
        for event, handler in (
            ("request", self._started),
            ("requestfinished", self._ended),
            ("requestfailed", self._ended),
            ("response", self._answered),
        ):
            with contextlib.suppress(Exception):
                self.page.remove_listener(event, handler)

    def mark(self) -> tuple[int, int]:
        """A point to compare with later: (data requests answered, navigations answered)."""
        return len(self.data_urls), self.navigations

    def _is_main_navigation(self, request: Request) -> bool:
        if not request.is_navigation_request():
            return False
        try:
            return request.frame == self.page.main_frame
        except PlaywrightError:  # a popup's request names no frame yet
            return False

    def _started(self, request: Request) -> None:
        self.inflight += 1
        self.started += 1
        if self._is_main_navigation(request):
            self.pending_documents += 1

    def _ended(self, request: Request) -> None:
        self.inflight = max(0, self.inflight - 1)
        if self._is_main_navigation(request):
            self.pending_documents = max(0, self.pending_documents - 1)

    def _answered(self, response: Response) -> None:
        request = response.request
        if self._is_main_navigation(request):
            self.nav_status = response.status
            self.navigations += 1
            self.nav_url = strip_fragment(response.url)
        elif request.resource_type in _DATA_TYPES:
            self.data_urls.append(strip_fragment(response.url))
            self.data_statuses.append(response.status)


async def _state(page: Page, limit_s: float) -> tuple[int, str, bool] | None:
    try:
        async with asyncio.timeout(max(0.05, min(0.5, limit_s))):
            mut, ready, observed = await page.evaluate(_STATE_JS)
    except (PlaywrightError, TimeoutError):
        return None  # the page is navigating: its context went away
    return int(mut), str(ready), bool(observed)


async def before_action(page: Page, traffic: Traffic) -> tuple[int, int | None]:
    """A mark taken just before an action (a click, a key): requests started, DOM changes.

    :func:`settle` given this mark first waits for the action to show an effect — a request,
    a DOM change, a new document — so that a busy machine, slow to start the navigation a
    click asked for, is not mistaken for a quiet page.
    """
    with contextlib.suppress(PlaywrightError):
        await page.evaluate(script("deepcrawl.browser.js", "snapshot.js"))
    state = await _state(page, 2.0)
    return traffic.started, state[0] if state is not None and state[2] else None


async def settle(
    page: Page,
    traffic: Traffic,
    *,
    quiet_s: float,
    timeout_s: float,
    after: tuple[int, int | None] | None = None,
) -> None:
    """Wait until the page is complete: loaded, no request in flight, DOM unchanged.

    Args:
        page: the page.
        traffic: its request counter, attached before the action that changed the page.
        quiet_s: how long the page must stay quiet.
        timeout_s: the longest wait.
        after: the :func:`before_action` mark of the action just taken: wait for its effect
            first (an action without any effect is given up at the timeout, quietly).

    Raises:
        FetchTimeoutError: a navigation was still unanswered, or the document still loading,
            when the time ran out. A page that loaded but never stops changing (a ticker) is
            taken as it is.
    """
    deadline = time.monotonic() + timeout_s
    quiet_since: float | None = None
    last: int | None = None
    loaded = False
    changed = after is None
    while True:
        now = time.monotonic()
        state = await _state(page, deadline - now)
        if not changed and after is not None:
            changed = (
                traffic.started > after[0]
                or state is None
                or not state[2]
                or after[1] is None
                or state[0] != after[1]
            )
            if not changed:
                if now >= deadline:
                    return
                await asyncio.sleep(_POLL_S)
                continue
        if state is not None and not state[2]:
            with contextlib.suppress(PlaywrightError):
                await page.evaluate(script("deepcrawl.browser.js", "snapshot.js"))
            state = await _state(page, deadline - now)
        busy = state is None or state[1] != "complete" or traffic.pending_documents > 0
        loaded = not busy
        if not busy and traffic.inflight == 0 and state is not None and state[0] == last:
            quiet_since = quiet_since or now
            if now - quiet_since >= quiet_s:
                return
        else:
            quiet_since = None
            last = state[0] if state is not None else None
        if time.monotonic() >= deadline:
            if loaded and traffic.pending_documents == 0:
                return
            raise FetchTimeoutError(page.url, f"no complete result page within {timeout_s:.0f} s")
        await asyncio.sleep(_POLL_S)


async def snapshot(
    page: Page,
    *,
    status: int,
    rule: SafetyRule,
    fetched_url: str = "",
) -> ResultPage:
    """The page as a :class:`ResultPage`: links, short texts, and result-bringing controls.

    Args:
        page: a settled page.
        status: the status to record for it.
        rule: the safety rule; a control whose text it refuses is never offered for clicking.
        fetched_url: what to record as fetched for it (default: the page URL).

    Raises:
        playwright.async_api.Error: the page went away (the caller translates it).
    """
    found = await page.evaluate(script("deepcrawl.browser.js", "snapshot.js"))
    links = await collect_links(page)
    controls: list[Clickable] = []
    for locator, text in found["controls"]:
        if rule.text_reason(text):
            continue
        if MORE_TEXT.match(text):
            controls.append(Clickable(locator, text, "more"))
        elif NEXT_TEXT.match(text):
            controls.append(Clickable(locator, text, "next"))
    url = strip_fragment(page.url)
    return ResultPage(
        url=url,
        status=status,
        title=found["title"],
        blocks=list(found["blocks"]),
        links=links,
        clickables=controls,
        fetched_url=fetched_url or url,
    )
