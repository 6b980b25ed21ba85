"""Waiting for a rendered page to stop growing before it is read.

The ``load`` event does not mean the page is complete: a client-side search appends its results
one by one after it (Sphinx's ``searchtools.js`` adds one every few milliseconds, and fetches
each result's page meanwhile), so a page read at ``load`` shows its first few results only.
:func:`wait_until_still` measures the page (links, elements, text length) every
``browser.growth_poll_s`` and returns once the measure and the page's script requests have been
still for ``browser.growth_quiet_s`` — or after ``browser.growth_max_s``, taking a page that never
stops (a ticker) as it is. A page that cannot grow is read sooner: one without scripts at once,
one with no request in flight and no timer due soon (``js/timers.js`` counts them) once it did
not change over one poll — so an ordinary scripted page pays one poll, not a quiet period.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

if TYPE_CHECKING:
    from playwright.async_api import Page, Request

    from deepcrawl.settings import BrowserSettings

__all__ = ["ScriptRequests", "wait_until_still"]

#: Requests a page's scripts make that may bring it more content.
_WATCHED = frozenset({"fetch", "xhr", "script", "eventsource"})
#: The page's measure, then its script count and its pending short timers (not compared).
_MEASURE_JS = """() => [
  document.links.length,
  document.getElementsByTagName('*').length,
  document.body ? document.body.textContent.length : 0,
  document.scripts.length,
  window.__dcTimers || 0,
]"""


class ScriptRequests:
    """Counts a page's script and data requests in flight (``with ScriptRequests(page):``).

    Attach it before the navigation, so that every request it counts as started it also sees end.
    """

    def __init__(self, page: Page) -> None:
        self.page = page
        self.inflight = 0

    def __enter__(self) -> ScriptRequests:
        self.page.on("request", self._started)
        self.page.on("requestfinished", self._ended)
        self.page.on("requestfailed", self._ended)
        return self

    def __exit__(self, *_exc: object) -> None:
        for event, handler in (
            ("request", self._started),
            ("requestfinished", self._ended),
            ("requestfailed", self._ended),
        ):
            with contextlib.suppress(Exception):
                self.page.remove_listener(event, handler)

    def _started(self, request: Request) -> None:
        if request.resource_type in _WATCHED:
            self.inflight += 1

    def _ended(self, request: Request) -> None:
        if request.resource_type in _WATCHED:
            self.inflight = max(0, self.inflight - 1)


async def _measure(page: Page) -> tuple[tuple[int, int, int], int, int] | None:
    """(links, elements, text length), scripts, pending short timers; None while navigating."""
    try:
        async with asyncio.timeout(1.0):
            links, elements, text, scripts, timers = await page.evaluate(_MEASURE_JS)
    except (PlaywrightError, TimeoutError):
        return None  # the measure is taken again at the next poll
    return (int(links), int(elements), int(text)), int(scripts), int(timers)


async def wait_until_still(
    page: Page, settings: BrowserSettings, requests: ScriptRequests, *, deadline: float
) -> float:
    """Wait until ``page`` has stopped growing (see the module docstring).

    Args:
        page: a page past its ``load`` event.
        settings: the ``browser`` section (``growth_poll_s``, ``growth_quiet_s``,
            ``growth_max_s``).
        requests: the page's request counter, attached before its navigation.
        deadline: a ``time.monotonic()`` time never to wait past (the page's own timeout).

    Returns:
        Seconds waited.
    """
    started = time.monotonic()
    end = min(deadline, started + settings.growth_max_s)
    first = await _measure(page)
    if first is not None and first[1] == 0 and requests.inflight == 0:
        return time.monotonic() - started  # no script: nothing can change the page
    last = first[0] if first is not None else None
    still_since = started
    while time.monotonic() < end:
        await asyncio.sleep(settings.growth_poll_s)
        now = time.monotonic()
        current = await _measure(page)
        if current is None or current[0] != last or requests.inflight > 0:
            last, still_since = (current[0] if current else None), now
        elif current[2] == 0 or now - still_since >= settings.growth_quiet_s:
            break  # nothing due that could change it, or still for the quiet period
    return time.monotonic() - started
