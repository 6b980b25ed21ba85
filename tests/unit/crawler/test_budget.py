"""The crawl's one page budget (``crawl.max_pages``), which every "the crawl is full" check asks."""

from __future__ import annotations

from deepcrawl.crawler.context import CrawlStats, PageBudget


def test_the_budget_is_spent_once_its_pages_are_delivered() -> None:
    stats = CrawlStats()
    budget = PageBudget(3, stats)
    assert not budget.spent
    stats.pages_delivered = 2
    assert not budget.spent
    stats.pages_delivered = 3  # delivered, not fetched: what the extractor got
    assert budget.spent
    stats.pages_fetched = 10
    stats.pages_delivered = 0
    assert not budget.spent


def test_no_cap_is_never_spent() -> None:
    stats = CrawlStats(pages_delivered=10**9)
    assert not PageBudget(None, stats).spent
