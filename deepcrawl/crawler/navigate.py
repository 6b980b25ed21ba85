"""The ``--navigate`` phase (issue 8): wanted records the search form did not return.

Once the normal phase has queried the form to saturation, a link strategy (ACHE by default,
``--strategy``) crawls the site from the start URL looking for wanted records by following
links: category pages, A–Z indexes, "related" lists. The URL-only classifier still decides what
is downloaded, through :class:`GatedFetcher`, the fetcher the strategy is given:

* a URL a labelled prototype wants is a **record**: one stored already (the queries returned it) is
  read back from storage without a request; a new one goes to the normal phase's frontier and
  is fetched, stored and delivered by the normal phase's fetch workers
  (:meth:`~deepcrawl.crawler.fetching.FetchWorkers.fetch_leased`: the crawl's gate, retries,
  storage, the extractor) — ``stats.nav_records`` counts the records this phase stored;
* a URL a labelled prototype rejects (result pages …) is **not fetched**, nor one that only
  the learned model wants (print and export views of a record look like it);
* any other URL is a **navigation** request, fetched only for its links through the crawl's gate
  — ``stats.nav_requests`` is what the gate counted of them — unless the gate refuses it:
  out of scope, disallowed by robots.txt, or refused by the safety rule (the strategy never
  follows a logout, delete or cart link: it trusts only the records of a labelled kind, whose
  titles may read like anything).

The phase ends when the strategy stops or its budget (``links.navigate_max_requests``) is
spent; a browse's (``patient``: the lists read to their end before it) also once its last
navigation requests — a tenth of the records held, :data:`PATIENCE_SHARE` — reached no new
record.

The strategy keeps to the crawl's gate (:attr:`Strategy.gate
<deepcrawl.links.strategy.Strategy.gate>`): the crawl's robots.txt (not read again), one rate
per host, one count. Its target (its critic) is the same classifier: a page is a target when
its URL is a wanted record's.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from deepcrawl.browser.base import Fetcher
from deepcrawl.errors import ConfigError, FetchError
from deepcrawl.fetch.gate import Count
from deepcrawl.links.focused import FocusedStrategy
from deepcrawl.links.strategy import STRATEGIES
from deepcrawl.page.fetched import FetchedPage
from deepcrawl.safety import SafetyRule
from deepcrawl.storage.frontier import NewURL

if TYPE_CHECKING:
    from deepcrawl.crawler.normal import NormalPhase
    from deepcrawl.links.strategy import Strategy
    from deepcrawl.storage import PageRead

__all__ = ["PATIENCE_MIN", "PATIENCE_SHARE", "GatedFetcher", "NavigatePhase"]

logger = logging.getLogger(__name__)

#: The navigation stops once its last navigation requests, as many as this share of the records
#: the crawl holds (:data:`PATIENCE_MIN` at least), reached no record it did not hold: past the
#: records the site's lists and links lead to, following links costs requests for none.
PATIENCE_SHARE = 0.1
#: The fewest navigation requests without a new record that end the navigation.
PATIENCE_MIN = 20

#: How long a record fetch waits before it looks at the frontier again (another coroutine
#: may hold the lease of the URL it waits for).
_POLL_S = 0.02


class GatedFetcher(Fetcher):
    """The fetcher a ``--navigate`` strategy crawls through (see the module docstring)."""

    def __init__(self, phase: NavigatePhase) -> None:
        self.phase = phase

    async def fetch(self, url: str) -> FetchedPage:
        try:
            return await self._fetch(url)
        except FetchError as exc:  # the strategy moves on; the log says why
            logger.debug("navigate: %s", exc)
            raise

    async def _fetch(self, url: str) -> FetchedPage:
        admission = self.phase.normal.admission
        decision = admission.decide(url)
        if decision.source == "prototype":
            key = admission.record_id(url)
            if decision.relevant and key is not None:
                # no results area vouches for a link met while navigating: its URL is judged
                # even when a (perhaps too general) labelled prototype matches it
                if why := self.phase.refused(url):
                    raise FetchError(url, f"{why} (not fetched)")
                return await self.phase.record(url, key)
            raise FetchError(url, "a kind of page not wanted (URL classifier; not fetched)")
        if decision.relevant:
            # As for the links of record pages in the normal phase: only a labelled prototype
            # vouches for a record here (the model accepts print and export variants too).
            raise FetchError(url, "wanted by the model alone, no labelled prototype (not fetched)")
        return await self.phase.navigation(url)


class NavigatePhase:
    """Look for the wanted records the queries missed with a link strategy.

    Args:
        normal: the normal phase that ran before (its admission of links, frontier, fetch
            workers and fetcher).
        strategy: a strategy name; default ``settings.links.navigate_strategy``.
        max_requests: the phase's request budget; default ``links.navigate_max_requests``.

    Raises:
        ConfigError: an unknown strategy.
    """

    def __init__(
        self,
        normal: NormalPhase,
        *,
        strategy: str | None = None,
        max_requests: int | None = None,
        patient: bool = False,
    ) -> None:
        settings = normal.ctx.settings
        self.normal = normal
        self.ctx = normal.ctx
        #: End on a lull (:data:`PATIENCE_SHARE`): a browse's navigation, past lists read to their
        #: end; after a search, the records the form missed may lie deep, and the budget ends it.
        self.patient = patient
        self.name = strategy or settings.links.navigate_strategy
        self.budget = max_requests or settings.links.navigate_max_requests
        if self.name not in STRATEGIES:
            raise ConfigError(
                f"unknown strategy {self.name!r}; known: {', '.join(sorted(STRATEGIES))}"
            )
        self._in_flight = 0
        #: Why :meth:`run` ended, in words (``stopped: its last 30 requests brought no new
        #: record``).
        self.ended = ""
        self._safety = SafetyRule()
        #: What the navigation requests cost: counted by the crawl's gate.
        self.sent = Count()
        start = self.ctx.start_url  # the user's: judged no more than the crawl's start
        self._polite = self.ctx.gate.counting(self.sent).wrap(
            normal.fetcher, vouched=lambda url: url == start
        )

    def _strategy(self) -> Strategy:
        strategy = self._make_strategy()
        # A wanted record's link text is its title, and its path may be a slug of it: the
        # records of a kind the user labelled are trusted, every other link is judged.
        strategy.safety = strategy.safety.with_trusted(self._labelled_record)
        return strategy

    def _labelled_record(self, url: str) -> bool:
        return self.normal.admission.labelled_record(url)

    def _make_strategy(self) -> Strategy:
        cls = STRATEGIES[self.name]
        settings = self.ctx.settings
        if not issubclass(cls, FocusedStrategy):
            return cls(settings)

        def wanted(page: FetchedPage) -> bool:
            return page.status == 200 and self._labelled_record(page.final_url)

        if cls.name == "xcrawl":  # the records the form returned are xCrawl's first authorities
            from deepcrawl.links.xcrawl import XCrawler

            known = [p.final_url or p.url for p in self.ctx.repo.pages(self.ctx.site.id,
                                                                       kind="record")]  # fmt: skip
            return XCrawler(settings, is_target=wanted, known_records=known)
        return cls(settings, is_target=wanted)

    async def run(self) -> Strategy:
        """Crawl until the strategy stops, the budget is spent or ``max_pages`` is reached.

        Returns:
            The strategy, for its figures (targets, loss rate, failures).
        """
        ctx = self.ctx
        ctx.enter("navigating")
        strategy = self._strategy()
        strategy.gate = ctx.gate  # its fetcher (``GatedFetcher``) sends through it
        start = ctx.stats.pages_fetched
        held, since = start, self.sent.requests  # the records held, and when the last came
        self.ended = ""
        async with GatedFetcher(self) as fetcher:
            async for _page in strategy.crawl(
                ctx.start_url, fetcher=fetcher, max_requests=self.budget
            ):
                ctx.stats.nav_records = ctx.stats.pages_fetched - start
                if ctx.stats.pages_fetched > held:
                    held, since = ctx.stats.pages_fetched, self.sent.requests
                if ctx.budget.spent:
                    self.ended = "stopped at the crawl's page budget"
                    break
                if self.patient and (idle := self.sent.requests - since) >= _patience(held):
                    self.ended = f"stopped: its last {idle} requests brought no new record"
                    break
        if not self.ended:
            spent = self.sent.requests >= self.budget
            self.ended = (
                f"spent its budget of {self.budget} requests" if spent else "had no link left"
            )
        # the links of the records fetched here that the normal phase queued (related records)
        workers, lease_s = self.normal.workers, ctx.settings.crawl.worker_lease_s
        while not ctx.budget.spent and (leases := self.normal.frontier.lease(1, lease_s=lease_s)):
            await workers.fetch_leased(leases[0])
        ctx.stats.nav_records = ctx.stats.pages_fetched - start
        ctx.changed()
        return strategy

    async def navigation(self, url: str) -> FetchedPage:
        """Fetch a page for its links only (not stored: it is no wanted record), through the
        crawl's gate: scope, robots.txt, the safety rule (the start URL aside: the user's), the
        host's rate; ``stats.nav_requests`` is what the gate counted of these.

        Raises:
            FetchError: refused by the gate (:class:`~deepcrawl.errors.BlockedError`: out of
                scope, disallowed by robots.txt, refused by the safety rule), or the fetch failed.
        """
        try:
            return await self._polite.fetch(url)
        finally:
            self.ctx.stats.nav_requests = self.sent.requests

    def refused(self, url: str) -> str | None:
        """Why the safety rule refuses a request for ``url`` (its URL alone), or None."""
        return self._safety.reason(url)

    async def record(self, url: str, key: str) -> FetchedPage:
        """A wanted record: read back when stored, else fetched by the normal phase's path.

        Raises:
            FetchError: the record could not be fetched (its failure is stored).
        """
        ctx, normal = self.ctx, self.normal
        row = ctx.repo.page(ctx.site.id, key)
        if row is None:
            normal.frontier.add([NewURL(key, priority=1.0, source=f"navigate from {url}")])
            row = await self._stored(key)
        if row is None or row.error or row.status >= 400:
            reason = row.error if row is not None and row.error else "not stored"
            raise FetchError(url, reason)
        raw = ctx.repo.body(row.id) or b""
        return FetchedPage(
            url=url,
            final_url=row.final_url or key,
            status=row.status,
            content_type=row.content_type,
            body=raw.decode("utf-8", "replace"),
        )

    async def _stored(self, key: str) -> PageRead | None:
        """Work the frontier until ``key`` is stored (or failed); None if it never will be."""
        ctx, normal = self.ctx, self.normal
        lease_s = ctx.settings.crawl.worker_lease_s
        while (row := ctx.repo.page(ctx.site.id, key)) is None:
            leases = normal.frontier.lease(1, lease_s=lease_s)
            if leases:
                self._in_flight += 1
                try:
                    await normal.workers.fetch_leased(leases[0])
                finally:
                    self._in_flight -= 1
                continue
            if self._in_flight == 0 and normal.frontier.pending() == 0:
                return None  # known to the frontier already, settled without a stored page
            await asyncio.sleep(_POLL_S)  # a back-off, or another coroutine's lease
        return row


def _patience(records: int) -> int:
    """The navigation requests in a row without a new record that end the navigation."""
    return max(PATIENCE_MIN, round(PATIENCE_SHARE * records))
