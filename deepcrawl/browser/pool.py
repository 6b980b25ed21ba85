"""A pool of Chromium pages that survives long crawls.

:class:`BrowserPool` owns one Playwright driver and one Chromium. Callers borrow a
:class:`PageLease` with ``async with pool.page() as lease``; each lease is a page in its own browser
context, reused from fetch to fetch (a new context per URL is ~5x slower: docs/ARCHITECTURE.md,
"Measured facts"). The pool keeps the browser healthy:

* a context is replaced after :data:`RECYCLE_CONTEXT_AFTER` pages (frees renderer memory); its
  cookies go to the next context, so the session the site keeps (a renewed login, a consent)
  outlives the recycling, as it does in plain HTTP's client;
* a page that crashed or timed out is discarded, never reused;
* the browser is restarted when it died — Chromium, or the Playwright driver that runs it
  (:meth:`LaunchedBrowser.on_driver_exit
  <deepcrawl.browser.chromium.LaunchedBrowser.on_driver_exit>`): a new driver and browser then —,
  or when its process tree uses more than ``browser.memory_ceiling_mb`` of PSS (checked every
  :data:`MEMORY_CHECK_EVERY` pages); a page asked for while it dies is opened on the new one,
  and :meth:`BrowserPool.outlived` tells a caller whose page died with its browser (the
  fetcher renders that URL again);
* the browser is stopped once no page has been borrowed for :data:`IDLE_CLOSE_S` (a crawl whose
  records come by plain HTTP keeps no idle Chromium), its contexts' cookies kept, and started
  again by the next page borrowed;
* every context carries the crawl's site access (:mod:`deepcrawl.browser.access`): cookies and
  local storage, extra headers, user agent, proxy — the same as plain HTTP's;
* every request goes through the lease's route handler (:mod:`deepcrawl.browser.lease`):
  images, fonts and media are refused, hosts outside the scope are refused, downloads are
  refused, popups are recorded and closed, dialogs never block; what goes to the network
  passes the pool's gate (:mod:`deepcrawl.browser.gate`: in a crawl, the crawl's door —
  robots.txt, the safety rule, the host's rate, the count);
* a page that JavaScript link probing touched is lent again only once it has left the probed
  document behind, cut off the network meanwhile (:meth:`PageLease.leave_probe
  <deepcrawl.browser.lease.PageLease.leave_probe>`): what a click set off never leaves;
* the pages' script requests share one :class:`~deepcrawl.browser.subrequests.Subrequests`:
  documents the crawl stored come from its store, reusable scripts and data from one memory
  cache for the pool's life (a search index is downloaded once per crawl).

The browser's temporary files live in a private folder removed at exit (docs/ARCHITECTURE.md,
"Measured facts").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

import psutil
from playwright.async_api import Error as PlaywrightError

from deepcrawl._resource import AsyncResource
from deepcrawl.browser.access import SiteAccess
from deepcrawl.browser.chromium import LaunchedBrowser, launch_chromium
from deepcrawl.browser.gate import SafetyGate
from deepcrawl.browser.lease import PageLease
from deepcrawl.browser.scope import Scope
from deepcrawl.browser.subrequests import Subrequests
from deepcrawl.errors import BrowserCrashedError

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterable

    from playwright.async_api import Browser

    from deepcrawl.browser.gate import RequestGate
    from deepcrawl.browser.subrequests import DocumentStore
    from deepcrawl.settings import Settings

__all__ = [
    "IDLE_CLOSE_S",
    "MEMORY_CHECK_EVERY",
    "RECYCLE_CONTEXT_AFTER",
    "BrowserPool",
    "PoolStats",
]

logger = logging.getLogger(__name__)

#: Pages a browser context serves before a fresh one replaces it: a long-lived context's
#: renderer grows; a new one costs a few hundred milliseconds, paid once in this many pages.
RECYCLE_CONTEXT_AFTER = 200
#: Pages between two measures of the browser's memory (reading every process's PSS costs a
#: few milliseconds each); 0: never measured, so never restarted for its memory.
MEMORY_CHECK_EVERY = 25
#: Seconds with no page borrowed after which Chromium is stopped (its memory back to the system
#: while plain HTTP does the work); the next page starts it again, in about a second. 0: never.
IDLE_CLOSE_S = 30.0

_CLOSE_TIMEOUT_S = 5.0


@dataclass(slots=True)
class PoolStats:
    """Counters of one pool's life (for logs, tests and benchmarks)."""

    pages: int = 0
    contexts: int = 0
    launches: int = 0
    crashes: int = 0
    discarded: int = 0
    memory_restarts: int = 0
    idle_closes: int = 0
    last_memory_mb: float = 0.0


class BrowserPool(AsyncResource):
    """Chromium pages for fetching, recycled and restarted as needed.

    Args:
        settings: deepcrawl settings (``browser``, ``access`` and ``http.user_agent`` are
            used).
        scope: hosts pages may load from. None: the scope grows with each URL the crawler
            itself renders (:meth:`Scope.admit`); a set or a :class:`Scope`: fixed, and
            ``settings.browser.allow_hosts`` is added either way.
        store: the crawl's stored documents, which answer the pages' script requests for them
            (None: no store; the memory cache still serves).
        access: cookies, headers and proxy shared with plain HTTP; None: read from
            ``settings`` when the pool opens.
        gate: the door every request of its pages passes on its way to the network (the
            crawl's :class:`~deepcrawl.fetch.gate.Gate` in a crawl); None: the safety rule
            alone (:class:`~deepcrawl.browser.gate.SafetyGate`). Replaceable: each page lent
            from then on passes the new one.
        subrequests: what answers the pages' script requests; None: a
            :class:`~deepcrawl.browser.subrequests.Subrequests` over ``store``.
        recycle_after: pages a context serves before it is replaced.
        memory_check_every: pages between two measures of the browser's memory (0: never).
        idle_close_s: idle seconds after which the browser is stopped (0: never).
    """

    def __init__(
        self,
        settings: Settings,
        scope: Scope | Iterable[str] | None = None,
        *,
        store: DocumentStore | None = None,
        access: SiteAccess | None = None,
        gate: RequestGate | None = None,
        subrequests: Subrequests | None = None,
        recycle_after: int = RECYCLE_CONTEXT_AFTER,
        memory_check_every: int = MEMORY_CHECK_EVERY,
        idle_close_s: float = IDLE_CLOSE_S,
    ) -> None:
        self.settings = settings
        self.access = access
        self.gate: RequestGate = gate or SafetyGate()
        self.subrequests = subrequests or Subrequests(settings.browser.page_timeout_s, store)
        self.recycle_after = recycle_after
        self.memory_check_every = memory_check_every
        self.idle_close_s = idle_close_s
        if isinstance(scope, Scope):
            self.scope = scope
        else:
            self.scope = Scope(tuple(scope or ()), implicit=scope is None)
        for host in settings.browser.allow_hosts:
            self.scope.add(host)
        self.stats = PoolStats()
        self._launched: LaunchedBrowser | None = None
        self._open = False
        self._last_used = 0.0
        self._idle_watch: asyncio.Task[None] | None = None
        self._dead = False
        self._restart_wanted = False
        self._idle: list[PageLease] = []
        self._busy = 0
        self._lock = asyncio.Lock()
        self._slots = asyncio.Semaphore(max(1, settings.browser.pages))
        self._root_pid: int | None = None

    async def open(self) -> None:
        """Launch Chromium.

        Raises:
            AccessError: an access setting (cookie file, header, proxy) cannot be used.
            BrowserError: Chromium cannot be started.
        """
        if self.access is None:
            self.access = SiteAccess.from_settings(self.settings)
        async with self._lock:
            await self._launch()
        self._open = True
        self._last_used = time.monotonic()
        if self.idle_close_s > 0:
            self._idle_watch = asyncio.create_task(self._close_when_idle())

    async def close(self) -> None:
        """Close every page and stop Chromium."""
        self._open = False
        if self._idle_watch is not None:
            self._idle_watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._idle_watch
            self._idle_watch = None
        async with self._lock:
            await self._shutdown()

    async def _close_when_idle(self) -> None:
        """Stop the browser each time no page has been borrowed for ``idle_close_s``."""
        idle_s = self.idle_close_s
        while True:
            # a page in use, or no browser, gives nothing to wait for but the next release
            left = idle_s if self._busy or self._launched is None else 0.0
            await asyncio.sleep(max(0.05, left, self._last_used + idle_s - time.monotonic()))
            async with self._lock:
                if (
                    self._launched is None
                    or self._busy
                    or time.monotonic() - self._last_used < idle_s
                ):
                    continue
                for lease in self._idle:
                    await self._keep_cookies(lease)
                await self._shutdown()
                self.stats.idle_closes += 1
                logger.info("the browser stopped: no page for %g s", idle_s)

    @property
    def version(self) -> str:
        """The running Chromium's version ('' before the first launch)."""
        return self._launched.browser.version if self._launched else ""

    @asynccontextmanager
    async def page(self) -> AsyncIterator[PageLease]:
        """Borrow a page; it goes back to the pool (or is discarded) when the block ends.

        Raises:
            BrowserError: the browser cannot be (re)started.
        """
        async with self._slots:
            lease = await self._acquire()
            try:
                yield lease
            finally:
                await self._release(lease)

    async def _launch(self) -> None:
        self._launched = launched = await launch_chromium(self.settings)
        self._dead = False
        self._restart_wanted = False
        self._root_pid = None
        self.stats.launches += 1
        launched.browser.on("disconnected", self._mark_dead)
        launched.on_driver_exit(lambda: self._mark_dead(launched.browser))

    def _mark_dead(self, browser: Browser | None = None) -> None:
        """The browser died (``browser`` disconnected, or its driver exited: unless it is one
        the pool stopped)."""
        if browser is not None and (
            self._launched is None or browser is not self._launched.browser
        ):
            return
        if not self._dead:
            self._dead = True
            self.stats.crashes += 1

    def outlived(self, lease: PageLease) -> bool:
        """Whether the browser that lent ``lease`` (a page borrowed now) died.

        A page borrowed now outlives its browser only by a death: the pool replaces a browser
        for its memory, or stops it when idle, only while no page is borrowed.
        """
        launched = self._launched
        return launched is None or lease.browser is not launched.browser or self._dead

    async def _shutdown(self) -> None:
        idle, self._idle = self._idle, []
        for lease in idle:
            await lease.close(_CLOSE_TIMEOUT_S)
        if self._launched is not None:
            launched, self._launched = self._launched, None
            await launched.aclose()

    async def _acquire(self) -> PageLease:
        async with self._lock:
            if not self._open:
                raise RuntimeError("BrowserPool used outside its 'async with' block")
            if self._launched is None:  # stopped while idle
                await self._launch()
            if self._dead or (self._restart_wanted and self._busy == 0):
                await self._restart()
            while self._idle:
                lease = self._idle.pop()
                if not lease.page.is_closed():
                    lease.gate = self.gate
                    self._busy += 1
                    return lease
            try:
                lease = await self._new_lease()
            except BrowserCrashedError:
                if not self._dead:
                    raise
                # it died while the page opened: once more, on a new one
                await self._restart()
                lease = await self._new_lease()
            self._busy += 1
            return lease

    async def _restart(self) -> None:
        """Replace the browser (and its driver): it died, or is over its memory ceiling."""
        launched = self._launched
        if self._dead:
            why = "its driver died" if launched and launched.driver_exited else "it died"
        else:
            why = "over its memory ceiling"
        logger.warning("restarting the browser: %s", why)
        await self._shutdown()
        await self._launch()

    async def _new_lease(self) -> PageLease:
        assert self._launched is not None
        assert self.access is not None
        try:
            lease = await PageLease.open(
                self._launched.browser,
                self.settings,
                self.scope,
                self.subrequests,
                access=self.access,
                gate=self.gate,
            )
        except PlaywrightError as exc:
            self._mark_dead()
            raise BrowserCrashedError(f"cannot open a browser page: {exc}") from exc
        self.stats.contexts += 1
        return lease

    async def _release(self, lease: PageLease) -> None:
        self._busy -= 1
        self._last_used = time.monotonic()
        self.stats.pages += 1
        lease.served += 1
        if lease.probing and not (lease.crashed or self._dead or lease.page.is_closed()):
            await lease.leave_probe()  # poisoned when it cannot
        if lease.crashed or lease.poisoned or self._dead or lease.page.is_closed():
            self.stats.discarded += 1
            if lease.crashed:
                self.stats.crashes += 1
                logger.warning("a browser renderer crashed: its page is discarded")
            await lease.close(_CLOSE_TIMEOUT_S)
        elif lease.served >= self.recycle_after:
            await self._keep_cookies(lease)
            await lease.close(_CLOSE_TIMEOUT_S)
        else:
            self._idle.append(lease)
        every = self.memory_check_every
        if every > 0 and self.stats.pages % every == 0:
            used = await asyncio.to_thread(self.memory_mb)
            self.stats.last_memory_mb = used
            if used > self.settings.browser.memory_ceiling_mb:
                logger.info("the browser uses %.0f MB, over browser.memory_ceiling_mb", used)
                self.stats.memory_restarts += 1
                self._restart_wanted = True

    async def _keep_cookies(self, lease: PageLease) -> None:
        """Give the cookies of a context about to be recycled to the contexts opened next."""
        if self.access is None:
            return
        try:
            async with asyncio.timeout(_CLOSE_TIMEOUT_S):
                cookies = await lease.context.cookies()
        except (PlaywrightError, TimeoutError):
            return  # the context is gone: the next one starts from the access's cookies
        self.access = self.access.with_cookies(cookies)

    def browser_processes(self) -> list[psutil.Process]:
        """The running Chromium's process tree (browser, renderers, GPU, utility processes)."""
        if self._launched is None:
            return []
        marker = str(self._launched.tmpdir)
        root: psutil.Process | None = None
        if self._root_pid is not None:
            with contextlib.suppress(psutil.Error):
                root = psutil.Process(self._root_pid)
        if root is None:
            for proc in psutil.Process().children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    cmdline = proc.cmdline()
                    if any(marker in a for a in cmdline) and not any(
                        a.startswith("--type=") for a in cmdline
                    ):
                        root = proc
                        self._root_pid = proc.pid
                        break
        if root is None:
            return []
        try:
            return [root, *root.children(recursive=True)]
        except psutil.Error:
            return []

    def memory_mb(self) -> float:
        """PSS of the browser's process tree in MiB (RSS sums double-count shared pages)."""
        total = 0
        for proc in self.browser_processes():
            with contextlib.suppress(psutil.Error):
                info = proc.memory_full_info()
                total += getattr(info, "pss", info.rss)
        return total / (1024 * 1024)
