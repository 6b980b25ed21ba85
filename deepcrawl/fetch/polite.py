"""The polite fetch path: any fetcher behind the crawl's gate, with one retry and back-off policy.

A :class:`PoliteFetcher` sends every URL it is asked for through the crawl's
:class:`~deepcrawl.fetch.gate.Gate` — scope, robots.txt, safety, the host's rate slot, the
count — and then:

* **fetch** — the wrapped :class:`~deepcrawl.browser.base.Fetcher` sends it;
* **retry or back-off** — a transient failure (a network error, a timeout, 408/425/429/5xx) is
  tried again after :func:`~deepcrawl.fetch.politeness.backoff_delay` (``Retry-After`` when the
  server sent one), up to ``politeness.retries`` times; on 429 and 503 the whole host is paused
  that long (:data:`~deepcrawl.fetch.politeness.HOST_WAITS`), not only the URL, before the
  request gives back its seat: no request of any process sharing the host's schedule starts
  inside the pause, one that had its turn reserved already included.

It is Scrapy's downloader-middleware idea without its plug-in machinery: the steps are fixed, and
what callers need differently are parameters. Several fetchers of one crawl (the browser, a
plain-HTTP one for sitemaps, the form search's) share one gate, so one host's rate holds across
them. Every way to ask follows the same policy:

* :meth:`PoliteFetcher.fetch` and :meth:`PoliteFetcher.submit` — the
  :class:`~deepcrawl.browser.base.Fetcher` contract: a refused URL raises
  :class:`~deepcrawl.errors.BlockedError`; a transient failure is retried, waiting the back-off;
  the last answer is returned (an error status included) or the last error raised (what the
  form search's submissions and result pages, the examples, a link strategy and the
  ``--navigate`` phase want);
* :meth:`PoliteFetcher.attempt` — one try, and the retry decision as an :class:`Attempt` (the
  normal phase retries through its frontier, by the lease's attempt count);
* :meth:`PoliteFetcher.fetch_retrying` — tries until an answer or the retries are spent, waiting
  the back-off in between, and says what came of it as an :class:`Attempt` (sitemaps).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from deepcrawl.browser.base import Fetcher
from deepcrawl.browser.scope import host_of
from deepcrawl.errors import (
    BlockedError,
    FetchError,
    FetchTimeoutError,
    HTTPStatusError,
    NetworkError,
)
from deepcrawl.fetch.politeness import HOST_WAITS, TRANSIENT_STATUSES, backoff_delay

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from deepcrawl.fetch.gate import Gate
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.page.submission import Submission

__all__ = ["Attempt", "PoliteFetcher", "in_scope", "same_host"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Attempt:
    """What one polite try at a URL came to.

    Attributes:
        url: the URL tried.
        page: the server's answer, any status (the caller decides what a 404 means); None when
            the URL was refused or no answer came.
        reason: why the URL failed ("" when it did not): the refusal, the error, or the transient
            status, with ``(after N attempts)`` once the retries are spent.
        kind: the error class of the failure (:class:`~deepcrawl.errors.BlockedError` for a
            refusal); None when an answer came that is no transient failure.
        status: the failing answer's status; 0 when no answer came.
        retry_in: seconds to wait before trying again; None when this try is final.
        attempt: which try this was (1-based).
    """

    url: str
    page: FetchedPage | None = None
    reason: str = ""
    kind: type[FetchError] | None = None
    status: int = 0
    retry_in: float | None = None
    attempt: int = 1


def in_scope(url: str, start_url: str, *, prefix: str | None = None) -> bool:
    """Whether a crawl from ``start_url`` may request ``url``: under ``prefix`` when one is
    set, else an http(s) URL on the start URL's host (and port; compared as :func:`~deepcrawl
    .browser.scope.host_of` spells them: lower-cased, punycode)."""
    if prefix:
        return url.startswith(prefix)
    return urlsplit(url).scheme in {"http", "https"} and host_of(url) == host_of(start_url)


def same_host(start_url: str) -> Callable[[str], bool]:
    """The scope of a link strategy: :func:`in_scope` of ``start_url``, without a prefix."""

    def on_host(url: str) -> bool:
        return in_scope(url, start_url)

    return on_host


class PoliteFetcher(Fetcher):
    """A fetcher behind a crawl's :class:`~deepcrawl.fetch.gate.Gate`; see the module docstring.

    It does not own ``inner``: entering and leaving it leaves ``inner`` as it was.

    Args:
        inner: the fetcher that sends the requests (entered by its owner).
        gate: the crawl's gate.
        vouched: the URLs the caller judged safe already, which the gate's safety step leaves
            alone — the frontier's, judged with the link that led to them as they were queued;
            those the user gave; the form search's own. None: every URL is judged by its words.
    """

    def __init__(
        self, inner: Fetcher, gate: Gate, *, vouched: Callable[[str], bool] | None = None
    ) -> None:
        #: The wrapped fetcher (``inner``, as other wrappers name it: see ``teach_fetcher``).
        self.inner = inner
        self.gate = gate
        self.vouched = vouched

    def refusal(self, url: str) -> str | None:
        """Why the gate refuses ``url`` to this fetcher, or None."""
        vouched = self.vouched is not None and self.vouched(url)
        return self.gate.refusal(url, vouched=vouched)

    async def fetch(self, url: str) -> FetchedPage:
        """Fetch ``url`` politely, its transient failures retried after their back-off; the
        last answer is returned (error statuses included).

        Raises:
            BlockedError: refused by the gate (scope, robots.txt, safety; nothing was sent).
            FetchError: as the wrapped fetcher's ``fetch``, on the last try.
        """
        if (why := self.refusal(url)) is not None:
            logger.info("%s: %s", url, why)
            raise BlockedError(url, why)
        return await self._retrying(url, lambda: self._send(url))

    async def submit(self, submission: Submission) -> FetchedPage:
        """Send a form ``submission`` politely, if the gate lets it go out
        (:meth:`Gate.submission_refusal <deepcrawl.fetch.gate.Gate.submission_refusal>`), its
        transient failures retried as :meth:`fetch`'s.

        Raises:
            BlockedError: refused by the gate (nothing was sent).
            FetchError: as the wrapped fetcher's ``submit``, on the last try.
        """
        url = submission.action
        if (why := self.gate.submission_refusal(submission)) is not None:
            logger.info("%s: %s", url, why)
            raise BlockedError(url, why)

        async def send() -> FetchedPage:
            async with self.gate.passage(url):
                page = await self.inner.submit(submission)
                self._pause_if_asked(url, page)
            logger.debug("POST %s: HTTP %d in %.2f s", url, page.status, page.elapsed_s)
            return page

        return await self._retrying(url, send)

    async def _retrying(self, url: str, send: Callable[[], Awaitable[FetchedPage]]) -> FetchedPage:
        """``send`` until it brings an answer that is no transient failure, or the retries are
        spent (the last answer returned, the last error raised), waiting each back-off."""
        attempt = 0
        while True:
            attempt += 1
            try:
                page = await send()
            except (NetworkError, FetchTimeoutError) as exc:
                tried = self._transient(url, attempt, str(exc), kind=type(exc))
                if tried.retry_in is None:
                    raise
            else:
                if page.status not in TRANSIENT_STATUSES:
                    return page
                reason = f"HTTP status {page.status}"
                tried = self._transient(
                    url, attempt, reason, kind=HTTPStatusError, status=page.status, page=page
                )
                if tried.retry_in is None:
                    return page
            await self.gate.limiter.clock.sleep(tried.retry_in)

    async def attempt(
        self, url: str, *, attempt: int = 1, again: Callable[[], bool] | None = None
    ) -> Attempt:
        """One polite try at ``url`` (its ``attempt``-th), and whether to try again.

        A refusal, a non-transient error or any answer but a transient status is final; a
        transient failure carries the back-off before the next try (``retry_in``) while retries
        are left and ``again`` (asked only then: a caller's budget of requests) allows one, and
        is final after them.
        """
        if (why := self.refusal(url)) is not None:
            logger.info("%s: %s", url, why)
            return Attempt(url, reason=why, kind=BlockedError, attempt=attempt)
        try:
            page = await self._send(url)
        except (NetworkError, FetchTimeoutError) as exc:
            return self._transient(url, attempt, str(exc), kind=type(exc), again=again)
        except FetchError as exc:
            logger.info("%s: %s", url, exc)
            return Attempt(url, reason=str(exc), kind=type(exc), attempt=attempt)
        if page.status in TRANSIENT_STATUSES:
            reason = f"HTTP status {page.status}"
            return self._transient(
                url, attempt, reason, kind=HTTPStatusError, status=page.status, page=page,
                again=again,
            )  # fmt: skip
        return Attempt(url, page, attempt=attempt)

    async def fetch_retrying(self, url: str, *, again: Callable[[], bool] | None = None) -> Attempt:
        """Try ``url`` until it is answered or its retries are spent, waiting each back-off
        (on the limiter's clock); the last :class:`Attempt` (``retry_in`` None).

        ``again``, when given, is asked before each try after the first and may refuse it (a
        link strategy's request budget: every try is a request sent).
        """
        attempt = 0
        while True:
            attempt += 1
            tried = await self.attempt(url, attempt=attempt, again=again)
            if tried.retry_in is None:
                return tried
            await self.gate.limiter.clock.sleep(tried.retry_in)

    def _transient(
        self,
        url: str,
        attempt: int,
        reason: str,
        *,
        kind: type[FetchError],
        status: int = 0,
        page: FetchedPage | None = None,
        again: Callable[[], bool] | None = None,
    ) -> Attempt:
        """The retry decision after a transient failure (the host was paused on 429/503 as the
        answer came: :meth:`_pause_if_asked`); ``again`` may refuse the retry."""
        retry_after = page.headers.get("retry-after") if page is not None else None
        delay = backoff_delay(attempt, self.gate.settings, retry_after=retry_after)
        if delay is not None and again is not None and not again():
            reason = f"{reason} (no request left to try again)"
            logger.info("%s: %s", url, reason)
            return Attempt(url, page, reason, kind, status, None, attempt)
        if delay is None:
            reason = f"{reason} (after {attempt} attempts)"
            logger.info("%s: %s; not retried", url, reason)
            return Attempt(url, page, reason, kind, status, None, attempt)
        self.gate.retried()
        logger.info("%s: %s; retry %d in %.1f s", url, reason, attempt, delay)
        return Attempt(url, page, reason, kind, status, delay, attempt)

    async def _send(self, url: str) -> FetchedPage:
        # admitted within its passage: a browser page's navigation to it is this request
        async with self.gate.passage(url):
            with self.gate.admitted(url):
                page = await self.inner.fetch(url)
            self._pause_if_asked(url, page)
        logger.debug("%s: HTTP %d in %.2f s (%s)", url, page.status, page.elapsed_s, page.via)
        return page

    def _pause_if_asked(self, url: str, page: FetchedPage) -> None:
        """Pause ``url``'s host after a 429 or 503 — within the request's passage, so that
        no request waiting for the host's seat goes out before the pause is in force."""
        if page.status in HOST_WAITS:
            self.gate.throttled(url, page.status, page.headers.get("retry-after"))
