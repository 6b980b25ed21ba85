"""Waiting for a live page to settle: loaded, no request in flight, its DOM unchanged a while.

A page goes on changing after the event a caller waited for. A rendered page's scripts may
append a result list item by item after ``load``; a form submission may navigate (a GET or POST
form), or stay on the page while a script fetches and renders the results, or both; a click or
a key may start a request or change the DOM. One rule covers them all (:func:`settle`): the
page has settled once its document is loaded (``readyState`` complete, no main-frame navigation
pending), no request of any kind has been in flight, and its DOM has not changed (a
MutationObserver counts every change to elements, text and attributes: ``js/settle.js``) for
:data:`SETTLE_QUIET_S`, looked at every :data:`SETTLE_POLL_S`. :class:`Traffic` watches
the page's requests meanwhile: what is in flight, where it navigated, which data requests it made
(what they cost the server, the pool's gate counts: :mod:`deepcrawl.browser.gate`).

Two callers know more, and say so:

* after an action, the mark :func:`before_action` took makes the wait first see the action's
  effect — a request, a DOM change, a new document — so that a busy machine, slow to start the
  navigation a click asked for, is not mistaken for a quiet page;
* after a load (``quick=True``: :func:`~deepcrawl.browser.render.render_page`), a page that
  cannot change any more is read at once: one without scripts and with nothing in flight, or
  one with no request in flight and no short timer pending (``js/timers.js``) that did not
  change over one poll. An ordinary scripted page then costs one poll, not a quiet period.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

from deepcrawl.browser._assets import script
from deepcrawl.browser.scope import strip_fragment
from deepcrawl.errors import FetchTimeoutError

if TYPE_CHECKING:
    from playwright.async_api import Page, Request, Response

__all__ = [
    "SETTLE_POLL_S",
    "SETTLE_QUIET_S",
    "ActionMark",
    "PageState",
    "Traffic",
    "before_action",
    "settle",
]

#: A page has settled once no request has been in flight and its DOM has not changed for this
#: long: longer than the pause between two steps of a script that builds a list a piece at a
#: time, short against a request's own time.
SETTLE_QUIET_S = 0.3
#: How often a page that may still change is looked at while it settles (one evaluation of a
#: small script a time).
SETTLE_POLL_S = 0.05

_DATA_TYPES = frozenset({"xhr", "fetch"})
#: Longest a look at the page may take (a page that does not answer is navigating).
_LOOK_S = 0.5


class Traffic:
    """Watches one page's requests while attached (``with Traffic(page) as traffic:``).

    Attach it before the navigation or action to wait for, so that every request it sees start
    it also sees end.

    Attributes:
        inflight: requests started and not yet finished or failed (every resource type).
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


@dataclass(frozen=True, slots=True)
class PageState:
    """One look at a page (``js/settle.js``).

    Attributes:
        changes: DOM changes counted since the observer was installed.
        ready: ``document.readyState``.
        fresh: the observer was installed by this look: a document not looked at before.
        scripts: ``<script>`` elements in the document.
        timers: ``setTimeout`` callbacks due within a second, pending.
    """

    changes: int
    ready: str
    fresh: bool
    scripts: int
    timers: int


@dataclass(frozen=True, slots=True)
class ActionMark:
    """The page just before an action (:func:`before_action`), to see the action's effect.

    Attributes:
        started: requests the page had started.
        changes: DOM changes counted (None: the page had no observer, a new document).
    """

    started: int
    changes: int | None


async def _look(page: Page, limit_s: float) -> PageState | None:
    """The page's state (installing the change observer); None while it is navigating."""
    try:
        async with asyncio.timeout(max(0.05, min(_LOOK_S, limit_s))):
            changes, ready, fresh, observed, scripts, timers = await page.evaluate(
                script("deepcrawl.browser.js", "settle.js")
            )
    except (PlaywrightError, TimeoutError):
        return None  # the page is navigating: its context went away
    if not observed:  # no document element yet: nothing to watch, so nothing settled
        return None
    return PageState(int(changes), str(ready), bool(fresh), int(scripts), int(timers))


async def before_action(page: Page, traffic: Traffic) -> ActionMark:
    """A mark taken just before an action (a click, a key): requests started, DOM changes.

    :func:`settle` given this mark first waits for the action to show an effect — a request,
    a DOM change, a new document — before it waits for the page to be quiet.
    """
    state = await _look(page, 2.0)
    return ActionMark(traffic.started, state.changes if state is not None else None)


def _acted(mark: ActionMark, traffic: Traffic, state: PageState | None) -> bool:
    """Whether the action marked has shown an effect."""
    return (
        traffic.started > mark.started
        or state is None
        or state.fresh
        or mark.changes is None
        or state.changes != mark.changes
    )


async def settle(
    page: Page,
    traffic: Traffic,
    *,
    timeout_s: float,
    after: ActionMark | None = None,
    effect_s: float | None = None,
    quick: bool = False,
) -> None:
    """Wait until the page has settled: loaded, no request in flight, DOM unchanged.

    Args:
        page: the page.
        traffic: its request counter, attached before the load or action waited for.
        timeout_s: the longest wait.
        after: the :func:`before_action` mark of the action just taken: wait for its effect
            first (an action without any effect is given up at the timeout, quietly).
        effect_s: the longest wait for that effect, where an action may well have none (a
            scroll at a list's end); None: up to ``timeout_s``.
        quick: read a page that cannot change any more at once (see the module docstring):
            for a page just loaded, not one an action is changing.

    Raises:
        FetchTimeoutError: a navigation was still unanswered, or the document still loading,
            when the time ran out. A page that loaded but never stops changing (a ticker) is
            taken as it is.
    """
    poll_s = SETTLE_POLL_S
    deadline = time.monotonic() + timeout_s
    effect_by = deadline if effect_s is None else min(deadline, time.monotonic() + effect_s)
    quiet_since: float | None = None
    last: int | None = None
    loaded = False
    first = True
    while True:
        now = time.monotonic()
        state = await _look(page, deadline - now)
        if after is not None:
            if not _acted(after, traffic, state):
                if now >= effect_by:
                    return
                await asyncio.sleep(poll_s)
                continue
            after = None
        loaded = state is not None and state.ready == "complete" and traffic.pending_documents == 0
        idle = loaded and traffic.inflight == 0
        if quick and first and idle and state is not None and state.scripts == 0:
            return  # no script: nothing can change the page
        first = False
        if idle and state is not None and state.changes == last:
            quiet_since = quiet_since or now
            if now - quiet_since >= SETTLE_QUIET_S or (quick and state.timers == 0):
                return
        else:
            quiet_since = None
            last = state.changes if state is not None else None
        if time.monotonic() >= deadline:
            if loaded or (state is None and await _loaded(page, traffic)):
                return
            raise FetchTimeoutError(page.url, f"the page did not load within {timeout_s:.0f} s")
        await asyncio.sleep(poll_s)


async def _loaded(page: Page, traffic: Traffic) -> bool:
    """Whether the page is loaded, given the time a look normally has: at the deadline a look
    has almost none left, and a busy machine's slow answer is not a navigation under way."""
    state = await _look(page, _LOOK_S)
    return state is not None and state.ready == "complete" and traffic.pending_documents == 0
