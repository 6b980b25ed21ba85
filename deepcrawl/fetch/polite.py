"""The one polite fetch path: scope → robots.txt → the host's rate → fetch → retry or back-off.

Every request a crawl sends to a site takes the same steps, in this order, each decision logged:

1. **scope** — a URL outside the crawl's scope is refused, not sent;
2. **robots.txt** — nor one its host's robots.txt disallows (robots.txt itself is always allowed,
   RFC 9309 §2.2.2);
3. **rate** — the request waits for a slot of its host (:class:`~deepcrawl.fetch.politeness
   .HostLimiter`: the per-host rate, Crawl-delay and concurrency);
4. **fetch** — the wrapped :class:`~deepcrawl.browser.base.Fetcher` sends it;
5. **retry or back-off** — a transient failure (a network error, a timeout, 408/425/429/5xx) is
   tried again after :func:`~deepcrawl.fetch.politeness.backoff_delay` (``Retry-After`` when the
   server sent one), up to ``politeness.retries`` times; on 429 and 503 the whole host waits that
   long, not only the URL.

It is Scrapy's downloader-middleware idea without its plug-in machinery: the steps are fixed, and
what callers need differently are parameters. :class:`FetchPolicy` holds the decisions (scope,
robots.txt, limiter, settings) and is made once for a crawl — by the crawl's context, or by
:func:`open_policy` for a link strategy run alone — with robots.txt loaded and its Crawl-delay
applied once (:meth:`FetchPolicy.open`). :class:`PoliteFetcher` is any fetcher behind that policy;
several fetchers of one crawl (the browser, a plain-HTTP one for sitemaps) share one policy, so
one host's rate holds across them. Three ways to ask:

* :meth:`PoliteFetcher.fetch` — the :class:`~deepcrawl.browser.base.Fetcher` contract: a refused
  URL raises :class:`~deepcrawl.errors.BlockedError`, any answer is returned, nothing is retried
  (what a link strategy, the setup phase and the ``--navigate`` phase want);
* :meth:`PoliteFetcher.attempt` — one try, and the retry decision as an :class:`Attempt` (the
  normal phase retries through its frontier, by the lease's attempt count);
* :meth:`PoliteFetcher.fetch_retrying` — tries until an answer or the retries are spent, waiting
  the back-off in between (sitemaps).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol
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
from deepcrawl.fetch.politeness import TRANSIENT_STATUSES, HostLimiter, backoff_delay
from deepcrawl.fetch.robots import RobotsPolicy

if TYPE_CHECKING:
    from collections.abc import Callable

    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.settings import PolitenessSettings, Settings

__all__ = [
    "Attempt",
    "FetchPolicy",
    "PoliteFetcher",
    "Tally",
    "in_scope",
    "open_policy",
    "same_host",
]

logger = logging.getLogger(__name__)

#: Statuses after which the whole host waits out the back-off: it said it is overloaded.
_HOST_WAITS = frozenset({429, 503})


class Tally(Protocol):
    """Where the polite path counts what it sends (a crawl's running figures)."""

    requests: int
    """Requests sent (each try counts)."""
    retries: int
    """Tries scheduled again after a transient failure."""


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


class FetchPolicy:
    """The polite decisions of one crawl: scope, robots.txt, the hosts' rate, retries.

    Args:
        settings: the politeness settings (rate, concurrency, retries, back-off).
        robots: the crawl's robots.txt rules (loaded by :meth:`open`).
        limiter: the per-host rate and concurrency (shared by every process on PostgreSQL:
            :func:`~deepcrawl.fetch.politeness.make_limiter`).
        in_scope: whether a URL belongs to the crawl.
        tally: where requests and retries are counted; None counts nothing.
    """

    def __init__(
        self,
        settings: PolitenessSettings,
        robots: RobotsPolicy,
        limiter: HostLimiter,
        in_scope: Callable[[str], bool],
        *,
        tally: Tally | None = None,
    ) -> None:
        self.settings = settings
        self.robots = robots
        self.limiter = limiter
        self.in_scope = in_scope
        self.tally = tally

    async def open(self, start_url: str, fetcher: Fetcher) -> None:
        """Read the robots.txt of the start URL's host (once) and honour its Crawl-delay."""
        await self.robots.load(start_url, fetcher)
        if (delay := self.robots.crawl_delay(start_url)) is not None:
            logger.info("robots.txt asks for a Crawl-delay of %g s: honoured", delay)
            self.limiter.set_crawl_delay(urlsplit(start_url).netloc, delay)

    def refusal(self, url: str) -> str | None:
        """Why ``url`` may not be requested (scope, then robots.txt), or None when it may."""
        if not self.in_scope(url):
            return "out of the crawl's scope (not fetched)"
        if not self.robots.allowed(url) and urlsplit(url).path != "/robots.txt":
            return "disallowed by robots.txt (not fetched)"
        return None

    def allowed(self, url: str) -> bool:
        """Whether ``url`` may be requested (in scope and allowed by robots.txt)."""
        return self.refusal(url) is None

    def wrap(self, fetcher: Fetcher) -> PoliteFetcher:
        """``fetcher`` behind this policy."""
        return PoliteFetcher(fetcher, self)


class PoliteFetcher(Fetcher):
    """A fetcher behind a crawl's :class:`FetchPolicy`; see the module docstring.

    It does not own ``inner``: entering and leaving it leaves ``inner`` as it was.

    Args:
        inner: the fetcher that sends the requests (entered by its owner).
        policy: the crawl's policy.
    """

    def __init__(self, inner: Fetcher, policy: FetchPolicy) -> None:
        #: The wrapped fetcher (``inner``, as other wrappers name it: see ``teach_fetcher``).
        self.inner = inner
        self.policy = policy

    async def fetch(self, url: str) -> FetchedPage:
        """Fetch ``url`` politely, once; any answer is returned (error statuses included).

        Raises:
            BlockedError: out of scope or disallowed by robots.txt (nothing was sent).
            FetchError: as the wrapped fetcher's ``fetch``.
        """
        if (why := self.policy.refusal(url)) is not None:
            logger.info("%s: %s", url, why)
            raise BlockedError(url, why)
        return await self._send(url)

    async def attempt(self, url: str, *, attempt: int = 1) -> Attempt:
        """One polite try at ``url`` (its ``attempt``-th), and whether to try again.

        A refusal, a non-transient error or any answer but a transient status is final; a
        transient failure carries the back-off before the next try (``retry_in``) while retries
        are left, and is final after them.
        """
        if (why := self.policy.refusal(url)) is not None:
            logger.info("%s: %s", url, why)
            return Attempt(url, reason=why, kind=BlockedError, attempt=attempt)
        try:
            page = await self._send(url)
        except (NetworkError, FetchTimeoutError) as exc:
            return self._transient(url, attempt, str(exc), kind=type(exc))
        except FetchError as exc:
            logger.info("%s: %s", url, exc)
            return Attempt(url, reason=str(exc), kind=type(exc), attempt=attempt)
        if page.status in TRANSIENT_STATUSES:
            reason = f"HTTP status {page.status}"
            return self._transient(
                url, attempt, reason, kind=HTTPStatusError, status=page.status, page=page
            )
        return Attempt(url, page, attempt=attempt)

    async def fetch_retrying(self, url: str) -> Attempt:
        """Try ``url`` until it is answered or its retries are spent, waiting each back-off
        (on the limiter's clock); the last :class:`Attempt` (``retry_in`` None)."""
        attempt = 0
        while True:
            attempt += 1
            tried = await self.attempt(url, attempt=attempt)
            if tried.retry_in is None:
                return tried
            await self.policy.limiter.clock.sleep(tried.retry_in)

    def _counted(self, *, retry: bool = False) -> None:
        if self.policy.tally is None:
            return
        if retry:
            self.policy.tally.retries += 1
        else:
            self.policy.tally.requests += 1

    def _transient(
        self,
        url: str,
        attempt: int,
        reason: str,
        *,
        kind: type[FetchError],
        status: int = 0,
        page: FetchedPage | None = None,
    ) -> Attempt:
        """The retry decision after a transient failure (pausing the host on 429/503)."""
        retry_after = page.headers.get("retry-after") if page is not None else None
        delay = backoff_delay(attempt, self.policy.settings, retry_after=retry_after)
        if delay is None:
            reason = f"{reason} (after {attempt} attempts)"
            logger.info("%s: %s; not retried", url, reason)
            return Attempt(url, page, reason, kind, status, None, attempt)
        if status in _HOST_WAITS:  # the host is overloaded: every request to it waits
            host = urlsplit(url).netloc
            logger.info("%s answers %d: backing off %s for %.1f s", url, status, host, delay)
            self.policy.limiter.pause(host, delay)
        self._counted(retry=True)
        logger.info("%s: %s; retry %d in %.1f s", url, reason, attempt, delay)
        return Attempt(url, page, reason, kind, status, delay, attempt)

    async def _send(self, url: str) -> FetchedPage:
        self._counted()
        async with self.policy.limiter.slot(url):
            page = await self.inner.fetch(url)
        logger.debug("%s: HTTP %d in %.2f s (%s)", url, page.status, page.elapsed_s, page.via)
        return page


async def open_policy(
    settings: Settings,
    start_url: str,
    fetcher: Fetcher,
    *,
    in_scope: Callable[[str], bool] | None = None,
) -> FetchPolicy:
    """The policy of a crawl from ``start_url`` that has no crawl context (a link strategy run
    alone, or under ``--navigate`` behind the crawl's own): its own robots.txt rules read through
    ``fetcher`` (one request when obeyed), their Crawl-delay applied, an in-process limiter.

    Args:
        settings: deepcrawl settings (``politeness``; ``http.user_agent`` for robots.txt).
        start_url: where the crawl starts (its host's robots.txt is read).
        fetcher: an entered fetcher.
        in_scope: the crawl's scope; default :func:`same_host` of ``start_url``.
    """
    politeness = settings.politeness
    policy = FetchPolicy(
        politeness,
        RobotsPolicy(settings.http.user_agent, obey=politeness.obey_robots),
        HostLimiter(politeness),
        in_scope or same_host(start_url),
    )
    await policy.open(start_url, fetcher)
    return policy
