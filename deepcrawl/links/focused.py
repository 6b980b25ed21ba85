"""What the learning strategies (ACHE, apprentice, xCrawl) share: targets and polite fetching.

A *target* is the page a focused crawl looks for, judged by a critic after the fetch — the
critic of ACHE and the apprentice, the validator of xCrawl. Two jobs use them:

* finding the search form when it is not on the start page: a page with a form the form critic
  (:class:`deepcrawl.forms.FormCritic`) accepts as searchable — :func:`form_target`;
* reaching records the form does not surface: a page the record validator accepts — for now a
  regular expression over the URL's path and query (:func:`pattern_target`); the URL-only
  classifier can take its place, since a target is any ``Callable[[FetchedPage], bool]``.

:class:`FocusedStrategy` holds the target, the crawl's bookkeeping and the loop the learners
share — lease a batch from the frontier, fetch it, let the learner score the pages' links and
add them, settle the leases (:meth:`FocusedStrategy.leased_batches`); :class:`PoliteSession`
fetches for it through the strategy's gate (:meth:`Strategy.door
<deepcrawl.links.strategy.Strategy.door>`), as :class:`~deepcrawl.links.bfs.BreadthFirst` does:
robots.txt rules and Crawl-delay, the per-host rate and concurrency; and it keeps the request
budget, records failures, and requests no link the strategy's safety rule refuses.
"""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING
from urllib.parse import urldefrag, urlsplit

from deepcrawl._tasks import supervised
from deepcrawl.errors import ConfigError, FetchError
from deepcrawl.fetch.polite import PoliteFetcher
from deepcrawl.links.context import LinkContext, page_links
from deepcrawl.links.strategy import LEASE_S, Strategy

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Sequence

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.fetch.gate import Gate
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.settings import Settings
    from deepcrawl.storage.frontier import Frontier, Lease

    Target = Callable[[FetchedPage], bool]

__all__ = [
    "FocusedStrategy",
    "PoliteSession",
    "form_target",
    "pattern_target",
    "url_key",
]


def url_key(url: str) -> str:
    """The path and query of a URL, as target patterns and the bench see it."""
    parts = urlsplit(url)
    return (parts.path or "/") + ("?" + parts.query if parts.query else "")


def pattern_target(pattern: str) -> Target:
    """A record validator: a successful HTML page whose path and query fully match ``pattern``.

    Raises:
        ConfigError: ``pattern`` is not a regular expression.
    """
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise ConfigError(f"record pattern {pattern!r}: {exc}") from exc

    def is_record(page: FetchedPage) -> bool:
        return page.status == 200 and bool(regex.fullmatch(url_key(page.final_url)))

    return is_record


def form_target(settings: Settings) -> Target:
    """ACHE's critic: a page holding a form the form critic accepts as searchable.

    The critic is loaded (or trained and cached) at the first page judged. Forms come from the
    fetcher when it found some (the browser sees scripted forms), else from the static parser.
    """
    from deepcrawl.forms import load_critic
    from deepcrawl.page import parse_forms

    critic = None

    def has_search_form(page: FetchedPage) -> bool:
        nonlocal critic
        if page.status != 200 or not page.is_html:
            return False
        forms = page.forms or parse_forms(page.body, page.final_url)
        if not forms:
            return False
        if critic is None:
            critic = load_critic(settings.forms)
        return any(verdict.searchable for verdict in critic.judge(forms))

    return has_search_form


class PoliteSession:
    """Fetch for one crawl of one site through the strategy's gate (scope, robots.txt, rate and
    concurrency: :meth:`Strategy.door <deepcrawl.links.strategy.Strategy.door>`), within the
    request budget."""

    def __init__(self, strategy: Strategy, start_url: str, fetcher: Fetcher, budget: int) -> None:
        settings = strategy.settings
        self.strategy = strategy
        self.fetcher = fetcher
        #: The gate and the fetcher behind it; set by :meth:`open`.
        self.gate: Gate | None = None
        self.polite: Fetcher | None = None
        self.concurrency = max(1, settings.politeness.concurrency_per_host)
        self.budget = budget
        self.start_url = start_url
        #: Every URL requested or queued for request (so that none is fetched twice).
        self.seen: set[str] = set()
        #: URLs whose fetch failed.
        self.failed: set[str] = set()

    async def open(self) -> None:
        """Open the strategy's gate (one request of the budget when the strategy opens its own
        and robots.txt is obeyed)."""
        self.gate, self.polite, spent = await self.strategy.door(self.start_url, self.fetcher)
        self.budget -= spent

    def _polite(self) -> Fetcher:
        if self.polite is None:
            raise RuntimeError("open the PoliteSession before fetching")
        return self.polite

    def allowed(self, url: str) -> bool:
        """In scope (same host, http/https) and allowed by robots.txt."""
        if self.gate is None:
            raise RuntimeError("open the PoliteSession before fetching")
        return self.gate.allowed(url)

    async def fetch_many(self, urls: Sequence[str]) -> list[FetchedPage]:
        """Fetch up to the budget of ``urls`` concurrently; failures are recorded, not raised.

        A URL the strategy's safety rule refuses (the start URL aside: the user chose it) is
        skipped, however it was queued.
        """
        safe = self.strategy.safe
        chosen = [u for u in urls if u == self.start_url or safe(u)][: max(0, self.budget)]
        self.budget -= len(chosen)
        self.seen.update(chosen)
        slots = asyncio.Semaphore(self.concurrency)
        polite = self._polite()

        async def one(url: str) -> FetchedPage | None:
            async with slots:
                try:
                    page = await self._fetch(polite, url)
                except FetchError as exc:
                    self.strategy.failures[url] = str(exc)
                    self.failed.add(url)
                    return None
            self.seen.add(urldefrag(page.final_url).url)
            return page

        # supervised: an error that is no failed fetch (storage, the sink) stops the others
        async with supervised() as tasks:
            fetches = [tasks.start(one(u)) for u in chosen]
        return [page for task in fetches if (page := task.result()) is not None]

    async def _fetch(self, polite: Fetcher, url: str) -> FetchedPage:
        """``url`` through ``polite``; behind the strategy's own gate every retry of a transient
        failure is a request of the budget too, and none is tried once the budget is spent.

        Raises:
            FetchError: no answer came (the last try's error, or the gate's refusal).
        """
        if not isinstance(polite, PoliteFetcher):  # a crawl's fetcher: the crawl counts its tries
            return await polite.fetch(url)
        tried = await polite.fetch_retrying(url, again=self._spend)
        if tried.page is None:
            raise (tried.kind or FetchError)(url, tried.reason)
        return tried.page

    def _spend(self) -> bool:
        """Take one request of the budget for a retry; False when none is left."""
        if self.budget <= 0:
            return False
        self.budget -= 1
        return True

    def new_links(self, page: FetchedPage, d_max: int, around_terms: int) -> list[LinkContext]:
        """The page's in-scope links not seen yet, one context each (first occurrence)."""
        return [c for c in self.links(page, d_max, around_terms) if c.url not in self.seen]

    def links(self, page: FetchedPage, d_max: int, around_terms: int) -> list[LinkContext]:
        """The page's in-scope links, one context each (first occurrence)."""
        if not page.is_html or page.status >= 400:
            return []
        contexts = page_links(page.body, page.final_url, around_terms=around_terms, d_max=d_max)
        known = {c.url for c in contexts}
        # Links the fetcher found that are not in the HTML (JavaScript probing).
        for link in page.links:
            url = urldefrag(link.url).url
            if url not in known:
                known.add(url)
                contexts.append(LinkContext(url=url, source=page.final_url, anchor=link.text))
        out: dict[str, LinkContext] = {}
        for ctx in contexts:
            if (
                ctx.url not in out
                and self.allowed(ctx.url)
                and self.strategy.safe(ctx.url, ctx.anchor)
            ):
                out[ctx.url] = ctx
        return list(out.values())


class FocusedStrategy(Strategy):
    """Base of the learning strategies: a target predicate and what the crawl found.

    Args:
        settings: deepcrawl settings (politeness, the forms critic's words).
        is_target: the critic / validator; default :func:`form_target`.
        frontier: where the crawl queues its links; default a new
            :class:`~deepcrawl.storage.frontier.MemoryFrontier` for each crawl.
        max_targets: ACHE's per-site stopping criterion (section 2): stop after this many
            distinct targets (0: only the request budget stops the crawl).

    Attributes:
        targets: URLs of the target pages found, in fetch order.
        judged: the verdict on every page fetched (by final URL).
        resolved: the final URL of every URL requested.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        is_target: Target | None = None,
        frontier: Frontier | None = None,
        max_targets: int = 0,
    ) -> None:
        super().__init__(settings, frontier=frontier)
        self.is_target: Target = is_target or form_target(settings)
        self.max_targets = max_targets
        self.targets: list[str] = []
        self.judged: dict[str, bool] = {}
        #: Requested URL -> final URL (after redirects) of every page fetched.
        self.resolved: dict[str, str] = {}

    def judge(self, page: FetchedPage) -> bool:
        """Ask the critic about ``page`` and remember the verdict."""
        url = urldefrag(page.final_url).url
        verdict = bool(self.is_target(page))
        if verdict and url not in self.judged:
            self.targets.append(url)
        self.judged[url] = verdict
        self.resolved[urldefrag(page.url).url] = url
        return verdict

    @property
    def loss_rate(self) -> float:
        """Share of fetched pages the critic threw away (the apprentice paper's measure)."""
        return 1 - len(self.targets) / len(self.judged) if self.judged else 0.0

    def done(self) -> bool:
        """ACHE's per-site stopping criterion: enough distinct targets found."""
        limit = self.max_targets
        return limit > 0 and len(self.targets) >= limit

    def lease(self, frontier: Frontier, n: int) -> list[Lease]:
        """Lease up to ``n`` URLs, held as long as :data:`~deepcrawl.links.strategy.LEASE_S`."""
        return frontier.lease(n, lease_s=LEASE_S)

    async def leased_batches(
        self,
        session: PoliteSession,
        frontier: Frontier,
        *,
        stop: Callable[[], bool],
        size: int = 0,
        held: list[Lease] | None = None,
        lease: Callable[[int], list[Lease]] | None = None,
    ) -> AsyncIterator[list[FetchedPage]]:
        """The loop the learners share: lease, fetch, hand the pages over, settle; again.

        When no leased URL is held, up to ``size`` (default: the concurrency) are leased, best
        first; they are fetched ``concurrency`` at a time, and each batch's pages are yielded.
        The next batch is fetched only when the caller asks for it, so the links it added and
        the priorities it changed meanwhile already count. The loop ends when the budget is
        spent, ``stop()`` is true or the frontier has nothing ready.

        Args:
            session: the crawl's polite session.
            frontier: the crawl's frontier.
            stop: the strategy's stopping criterion, asked before each batch.
            size: URLs leased at a time (ACHE's crawling frontier).
            held: the list of leased URLs not fetched yet, for a caller that reorders them
                (ACHE, after learning).
            lease: leases up to ``n`` URLs, for a caller with bookkeeping to do on leasing
                (default :meth:`lease`).
        """
        held = held if held is not None else []
        take = lease or (lambda n: self.lease(frontier, n))
        try:
            while session.budget > 0 and not stop():
                if not held:
                    held.extend(take(size or session.concurrency))
                    if not held:
                        return
                batch = held[: session.concurrency]
                del held[: session.concurrency]
                yield await self.fetch_leases(session, frontier, batch)
        finally:  # the budget ran out, the strategy stopped or its caller did: given back
            for unfetched in held:
                frontier.retry(unfetched.id, after_s=0.0)
            held.clear()

    async def fetch_leases(
        self, session: PoliteSession, frontier: Frontier, leases: Sequence[Lease]
    ) -> list[FetchedPage]:
        """Fetch the leased URLs and settle each lease: done, failed (the fetch's error, or the
        safety rule's refusal), or given back when the budget ran out before it."""
        pages = await session.fetch_many([lease.url for lease in leases])
        fetched = {page.url for page in pages}
        for lease in leases:
            if lease.url in session.failed and lease.url not in fetched:
                frontier.fail(lease.id, self.failures.get(lease.url, ""))
            elif lease.url in fetched or lease.url in session.seen:  # seen: it was requested
                frontier.complete(lease.id)
            elif lease.url in self.refused:
                frontier.fail(lease.id, self.refused[lease.url])
            else:
                frontier.retry(lease.id, after_s=0.0)
        return pages

    def unseen(self, session: PoliteSession, frontier: Frontier, url: str) -> bool:
        """Neither queued before nor fetched, under its own URL or as where a redirect ended."""
        return url not in session.seen and not frontier.seen(url)
