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

from deepcrawl.crawler.focused import FocusedStrategy
from deepcrawl.crawler.strategy import STRATEGIES
from deepcrawl.errors import ConfigError

if TYPE_CHECKING:
    from deepcrawl.browser.base import FetchedPage, Fetcher
    from deepcrawl.settings import Settings

__all__ = ["Discovery", "discover_forms"]


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
    strategy: str = "ache",
    max_requests: int = 500,
    max_forms: int = 1,
) -> Discovery:
    """Crawl from ``start_url`` with a learning strategy until searchable forms are found.

    Args:
        start_url: where to start.
        settings: deepcrawl settings (``forms`` for the critic, ``links`` for the strategy).
        fetcher: an entered fetcher.
        strategy: ``ache``, ``apprentice``, ``xcrawl`` (or ``bfs``).
        max_requests: the request budget.
        max_forms: stop after this many pages with a searchable form.

    Raises:
        ConfigError: an unknown strategy.
    """
    from deepcrawl.forms import load_critic, parse_forms

    cls = STRATEGIES.get(strategy)
    if cls is None:
        raise ConfigError(f"unknown strategy {strategy!r}; known: {', '.join(sorted(STRATEGIES))}")
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

    crawler = (
        cls(settings, is_target=is_target) if issubclass(cls, FocusedStrategy) else cls(settings)
    )
    result = Discovery(strategy=strategy)
    async for page in crawler.crawl(start_url, fetcher=fetcher, max_requests=max_requests):
        result.pages_fetched += 1
        if not isinstance(crawler, FocusedStrategy):
            is_target(page)
        if len(found) >= max_forms:
            break
    result.forms = [form for forms in found.values() for form in forms]
    return result
