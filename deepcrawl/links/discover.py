"""Entry-point discovery: find a site's search forms when the start page has none (issue 8).

A learning strategy (ACHE by default, the paper written for this job) crawls from the start URL
with the form critic as its critic, until it found ``max_forms`` pages with a searchable form or
spent its budget. :func:`discover_forms` returns what ``deepcrawl discover --json`` prints: the
accepted forms (the page holding each, its action, method and the critic's score) and the
number of pages fetched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from deepcrawl.errors import ConfigError
from deepcrawl.links.ache import AcheCrawler
from deepcrawl.links.apprentice import ApprenticeCrawler
from deepcrawl.links.focused import FocusedStrategy
from deepcrawl.links.prior import PATH_DISCOUNT, load_prior
from deepcrawl.links.strategy import STRATEGIES, Strategy
from deepcrawl.links.xcrawl import XCrawler
from deepcrawl.urls import MAX_START_URL_LENGTH

if TYPE_CHECKING:
    from deepcrawl.browser.base import Fetcher
    from deepcrawl.browser.scope import Scope
    from deepcrawl.fetch.gate import Gate
    from deepcrawl.links.focused import Target
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.settings import Settings

__all__ = ["Discovery", "discover_forms", "discover_site"]


@dataclass
class Discovery:
    """What entry-point discovery found.

    Attributes:
        forms: one dict per accepted form: ``page`` (URL of the page holding it), ``action``,
            ``method``, ``score`` (the critic's searchability score).
        pages_fetched: pages the strategy fetched.
        strategy: the strategy's name.
    """

    forms: list[dict[str, Any]] = field(default_factory=list)
    pages_fetched: int = 0
    strategy: str = "ache"

    def as_dict(self) -> dict[str, Any]:
        """The JSON object of ``deepcrawl discover --json``."""
        return {"forms": self.forms, "pages_fetched": self.pages_fetched, "strategy": self.strategy}


async def discover_forms(
    start_url: str,
    settings: Settings,
    *,
    fetcher: Fetcher,
    strategy: str | None = None,
    max_requests: int | None = None,
    max_forms: int = 1,
    gate: Gate | None = None,
) -> Discovery:
    """Crawl from ``start_url`` with a learning strategy until searchable forms are found.

    Args:
        start_url: where to start.
        settings: deepcrawl settings (``forms`` for the critic, ``links`` for the strategy).
        fetcher: an entered fetcher (behind ``gate``, when one is given).
        strategy: ``ache``, ``apprentice``, ``xcrawl`` (or ``bfs``); default
            ``settings.links.discovery_strategy``.
        max_requests: the request budget; default ``settings.links.discovery_max_requests``.
        max_forms: stop after this many pages with a searchable form.
        gate: the crawl's gate, when discovery runs inside a crawl (:attr:`Strategy.gate
            <deepcrawl.links.strategy.Strategy.gate>`); None: the strategy opens its own.

    The learners start from the prior ``settings.links.prior`` names (paths to the forms of
    other sites, :mod:`deepcrawl.links.prior`): ACHE's and xCrawl's ``(link, level)``
    examples, the apprentice's discounted rewards; bfs has none.

    Raises:
        ConfigError: an unknown strategy, or a prior that cannot be read.
    """
    from deepcrawl.forms import load_critic
    from deepcrawl.page import parse_forms

    cls = _strategy_class(strategy or settings.links.discovery_strategy)
    budget = max_requests or settings.links.discovery_max_requests
    critic = load_critic(settings.forms)
    found: dict[str, list[dict[str, Any]]] = {}

    def accepted(page: FetchedPage) -> list[dict[str, Any]]:
        if page.status != 200 or not page.is_html:
            return []
        forms = page.forms or parse_forms(page.body, page.final_url)
        return [
            {"page": page.final_url, "action": form.action, "method": form.method,
             "score": round(verdict.score, 4)}
            for form, verdict in zip(forms, critic.judge(forms) if forms else [], strict=True)
            if verdict.searchable
        ]  # fmt: skip

    def is_target(page: FetchedPage) -> bool:
        forms = accepted(page)
        if forms:
            found.setdefault(page.final_url, forms)
        return bool(forms)

    crawler = _learner(cls, settings, is_target)
    crawler.gate = gate
    result = Discovery(strategy=cls.name)
    async for page in crawler.crawl(start_url, fetcher=fetcher, max_requests=budget):
        result.pages_fetched += 1
        if not isinstance(crawler, FocusedStrategy):
            is_target(page)
        if len(found) >= max_forms:
            break
    result.forms = [form for forms in found.values() for form in forms]
    return result


async def discover_site(
    start_url: str,
    settings: Settings,
    *,
    scope: Scope | None = None,
    strategy: str | None = None,
    max_requests: int | None = None,
    browser: bool = False,
    gate: Gate | None = None,
) -> Discovery:
    """:func:`discover_forms` with a fetcher of its own, in the start URL's host.

    Plain HTTP by default: the learners read links and static forms, and a page the browser
    is needed for is rendered once its form is submitted. ``browser`` renders every page (for
    sites whose search form a script builds). With ``gate`` (a crawl's), the fetcher is put
    behind it, its pages' requests too: the crawl's robots.txt, rate and count.

    Raises:
        InvalidURLError: ``start_url`` fails :func:`~deepcrawl.browser.scope.check_url`.
        ConfigError: an unknown strategy.
        BrowserError: ``browser`` and Chromium cannot be started.
    """
    from deepcrawl.browser import BrowserFetcher, make_fetcher
    from deepcrawl.browser.access import check_user_url
    from deepcrawl.browser.scope import Scope, host_of

    _strategy_class(strategy or settings.links.discovery_strategy)  # before any fetcher starts

    limit = MAX_START_URL_LENGTH
    start_url, settings = check_user_url(settings, start_url, max_length=limit, what="start URL")
    chosen = scope or Scope((host_of(start_url),), implicit=False)
    made = make_fetcher(settings, chosen, render="always" if browser else "never", forms=browser)
    async with made:
        fetcher: Fetcher = made
        if gate is not None:
            if isinstance(made, BrowserFetcher):
                made.pool.gate = gate
            fetcher = gate.wrap(made, vouched=lambda _url: True)  # judged as they are queued
        return await discover_forms(
            start_url, settings, fetcher=fetcher, strategy=strategy, max_requests=max_requests,
            gate=gate,
        )  # fmt: skip


def _learner(cls: type[Strategy], settings: Settings, is_target: Target) -> Strategy:
    """The strategy with the form critic as its critic and the prior its paper gives it."""
    if not issubclass(cls, FocusedStrategy):
        return cls(settings)
    prior = load_prior(settings.links.prior)
    if prior is None:
        return cls(settings, is_target=is_target)
    if issubclass(cls, AcheCrawler):
        return cls(settings, is_target=is_target, prior=prior.ache_examples())
    if issubclass(cls, ApprenticeCrawler):
        lessons = prior.apprentice_lessons(PATH_DISCOUNT)
        return cls(settings, is_target=is_target, prior=lessons)
    if issubclass(cls, XCrawler):
        return cls(settings, is_target=is_target, prior=prior.ache_examples())
    return cls(settings, is_target=is_target)


def _strategy_class(name: str) -> type[Strategy]:
    cls = STRATEGIES.get(name)
    if cls is None:
        raise ConfigError(f"unknown strategy {name!r}; known: {', '.join(sorted(STRATEGIES))}")
    return cls
