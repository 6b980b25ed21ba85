"""What the phases of one crawl share: settings, storage, the gate, the page budget, figures.

:class:`CrawlContext` is made by :class:`~deepcrawl.crawler.engine.Crawl` and handed to the setup
phase (:mod:`deepcrawl.crawler.setup`) and the normal phase (:mod:`deepcrawl.crawler.normal`);
:class:`CrawlStats` holds the figures the progress display and ``stats.json`` show;
:class:`PageBudget` is the one place that says the crawl delivered ``crawl.max_pages``.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Self

from deepcrawl.browser.scope import host_of
from deepcrawl.fetch.gate import Gate
from deepcrawl.fetch.polite import in_scope
from deepcrawl.fetch.politeness import make_limiter
from deepcrawl.fetch.robots import RobotsPolicy
from deepcrawl.records.session_params import LearntSessions

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from deepcrawl.fetch.politeness import HostLimiter
    from deepcrawl.settings import Settings
    from deepcrawl.storage import Repository, SiteRead
    from deepcrawl.storage.state import CrawlState

__all__ = ["CrawlContext", "CrawlStats", "PageBudget"]

logger = logging.getLogger(__name__)


@dataclass
class CrawlStats:
    """The running figures of a crawl (what the progress display and ``stats.json`` show)."""

    phase: str = "starting"
    """What the crawl is doing now: ``starting``, ``robots.txt``, ``finding form``,
    ``discovering form``, ``examples``, ``setup queries``, ``labelling``, ``layout check``,
    ``crawling`` (querying and fetching), ``navigating``, ``finishing``, then ``needs labels``,
    ``done`` or ``stopped at max pages`` (``worker`` in a ``deepcrawl worker``)."""
    queries: int = 0
    """Queries submitted (stored ones of earlier runs included)."""
    records_reached: int = 0
    """Distinct wanted records known: those the result pages showed, and those reached
    otherwise (record pages' links, sitemaps, hubs); one record under two URLs counts once."""
    records_estimated: float | None = None
    """Capture–recapture estimate of the wanted records the form can surface, plus those
    reached otherwise."""
    complete: bool | None = None
    """Whether the crawl believes it holds every record: the querying ended on the evidence
    that every record is known (None while it goes on)."""
    pages_fetched: int = 0
    """Wanted pages fetched in this run."""
    pages_delivered: int = 0
    """Pages handed to the extractor (earlier runs included)."""
    duplicates: int = 0
    """Pages fetched that showed a record stored before under another URL (neither stored as
    a record nor delivered): its canonical link or its main text said so."""
    requests: int = 0
    """Requests sent in this run, each counted once by the crawl's gate: robots.txt, the form's
    page, its submissions and result pages with what their pages load, fetches and retries,
    sitemaps, hubs, samples; the input check's robots.txt and start page too."""
    errors: int = 0
    """URLs failed for good (earlier runs included), failed queries of this run among them."""
    query_failures: dict[str, int] = field(default_factory=dict)
    """Queries of this run that failed or brought nothing, by cause
    (:mod:`deepcrawl.search.causes`: ``timeout``, ``out of scope``, ``robots.txt``,
    ``throttled``, ``blocked``, ``error``, ``no results``); all but ``no results`` are counted
    in ``errors`` and listed by ``deepcrawl failures``."""
    retries: int = 0
    """Fetches retried after a transient failure in this run."""
    accepted: dict[str, int] = field(default_factory=dict)
    """Links the URL classifier accepted, per label."""
    rejected: dict[str, int] = field(default_factory=dict)
    """Links it rejected, per label (``-`` for unlabelled kinds)."""
    unsure: int = 0
    """Links the learned model was unsure of (not fetched)."""
    discovery_pages: int = 0
    """Pages entry-point discovery fetched to find the search form (0: it was on the start page)."""
    nav_requests: int = 0
    """Requests of the ``--navigate`` phase for pages that are not wanted records (navigation)."""
    nav_records: int = 0
    """Wanted records the ``--navigate`` phase fetched that the queries had not returned."""
    sitemaps_read: int = 0
    """Sitemap files read (indexes included; stored ones of earlier runs too)."""
    sitemap_urls: int = 0
    """In-scope URLs the sitemaps listed (the classifier decides which are wanted)."""
    sitemap_accepted: int = 0
    """Of those, the URLs the URL classifier accepted: wanted pages, fetched unless known."""
    hub_pages: int = 0
    """Pages of kinds not wanted the normal phase read as hubs (:mod:`deepcrawl.links.hubs`)."""
    hub_records: int = 0
    """Wanted records those hub pages brought that the crawl did not know yet."""
    like_widened: list[str] = field(default_factory=list)
    """Prototypes (regexes) given a ``--like`` example's label because their pages look like it."""
    picked: dict[str, Any] | None = None
    """With no example: the kind the crawl picked as the records, its evidence and the kinds
    left (:meth:`deepcrawl.records.pick.Pick.to_dict`)."""
    querying: dict[str, Any] = field(default_factory=dict)
    """The querying's rules: by name, the times each was asked and decided (``rules``), and
    the verdict that ended the querying (``verdict``: its rule, reason, whether complete)."""
    stop_reason: str | None = None
    waiting_s: float = 0.0
    """Seconds this run spent waiting for the user (the interactive labelling prompt)."""
    started: float = field(default_factory=time.monotonic)

    @property
    def elapsed_s(self) -> float:
        """Seconds since the crawl started."""
        return time.monotonic() - self.started

    @property
    def active_s(self) -> float:
        """Seconds since the crawl started, less those spent waiting for the user."""
        return max(0.0, self.elapsed_s - self.waiting_s)

    @property
    def rate(self) -> float:
        """Pages fetched per second of this run's work (time at the label prompt left out)."""
        active = self.active_s
        return self.pages_fetched / active if active > 0 else 0.0

    @contextlib.contextmanager
    def waiting(self) -> Iterator[None]:
        """Count the block as time spent waiting for the user, not crawling."""
        began = time.monotonic()
        try:
            yield
        finally:
            self.waiting_s += time.monotonic() - began

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures."""
        data = asdict(self)
        data.pop("started")
        data["elapsed_s"] = round(self.elapsed_s, 3)
        data["waiting_s"] = round(self.waiting_s, 3)
        data["pages_per_s"] = round(self.rate, 2)
        if self.records_estimated is not None:
            data["records_estimated"] = round(self.records_estimated, 1)
        return data


@dataclass(frozen=True, slots=True)
class PageBudget:
    """The crawl's page budget, ``crawl.max_pages`` delivered pages: what every "stop, the
    crawl is full" check asks (the engine, the fetch workers, the delivery point, the
    ``--navigate`` phase).

    Attributes:
        cap: the pages to deliver at most (None: no budget).
        stats: the figures whose ``pages_delivered`` spends it.
    """

    cap: int | None
    stats: CrawlStats

    @property
    def spent(self) -> bool:
        """Whether the budget's pages are delivered (never, without a cap)."""
        return self.cap is not None and self.stats.pages_delivered >= self.cap


@dataclass
class CrawlContext:
    """One crawl's shared objects.

    Attributes:
        start_url: the URL the user gave.
        settings: deepcrawl settings.
        repo: the crawl's repository.
        site: the site's row.
        state: the crawl-state reads and writes.
        limiter: per-host rate and concurrency.
        robots: robots.txt rules (loaded by the engine).
        stats: the running figures.
        notify: called whenever the figures change (progress display).
        gate: the crawl's one door (scope, ``robots``, the safety rule, ``limiter``; every
            request and retry counted in ``stats``), made here once: every phase fetches
            through ``gate.wrap(fetcher)``, and the crawl's browser pages ask it for each
            request they send.
        budget: the page budget (``crawl.max_pages``).
    """

    start_url: str
    settings: Settings
    repo: Repository
    site: SiteRead
    state: CrawlState
    limiter: HostLimiter
    robots: RobotsPolicy
    stats: CrawlStats
    notify: Callable[[CrawlStats], None] | None = None
    gate: Gate = field(init=False, repr=False)
    budget: PageBudget = field(init=False, repr=False)

    @classmethod
    def create(
        cls,
        start_url: str,
        settings: Settings,
        repo: Repository,
        site: SiteRead,
        state: CrawlState,
        *,
        notify: Callable[[CrawlStats], None] | None = None,
        sent: int = 0,
        limiter: HostLimiter | None = None,
    ) -> Self:
        """A process's context for the crawl of ``site``: the limiter of its database (shared
        by every process on PostgreSQL) unless ``limiter`` gives the one this process shares
        between the sites it crawls (a harvest), robots.txt rules still to be read
        (``gate.open``), and figures from zero — but for the ``sent`` requests a gate counted
        for the crawl before it started (the input check's:
        :class:`~deepcrawl.crawler.inputs.StartPage`)."""
        return cls(
            start_url=start_url,
            settings=settings,
            repo=repo,
            site=site,
            state=state,
            limiter=limiter or make_limiter(settings.politeness, repo.engine, site.id),
            robots=RobotsPolicy(settings.http.user_agent, obey=settings.politeness.obey_robots),
            stats=CrawlStats(requests=sent),
            notify=notify,
        )

    def __post_init__(self) -> None:
        self.gate = Gate(
            self.settings.politeness,
            self.robots,
            self.limiter,
            self.in_scope,
            tally=self.stats,
            form_words=self.settings.forms.refused_words,
        )
        self.budget = PageBudget(self.settings.crawl.max_pages, self.stats)

    @functools.cached_property
    def sessions(self) -> LearntSessions:
        """The parameters this crawl learnt to carry a session (those stored by an earlier run
        or another process first): no part of any URL's identity."""
        return LearntSessions(
            self.state.session_params(),
            anyway=self.state.session_params(anyway=True),
            store=self.state.add_session_params,
            learn=self.settings.crawl.learn_session_params,
        )

    @property
    def host(self) -> str:
        """``host[:port]`` of the start URL: the default scope."""
        return host_of(self.start_url)

    def in_scope(self, url: str) -> bool:
        """Whether ``url`` may be fetched: the scope prefix if one is set, else the host."""
        return in_scope(url, self.start_url, prefix=self.settings.crawl.scope_prefix)

    def changed(self) -> None:
        """Tell the progress display that the figures moved."""
        if self.notify is not None:
            self.notify(self.stats)

    def enter(self, phase: str) -> None:
        """Name what the crawl does from now on (``stats.phase``), log it and show it."""
        if phase != self.stats.phase:
            logger.info("site %d: %s", self.site.id, phase)
        self.stats.phase = phase
        self.changed()
