"""Crawling: the crawl engine and its phases, strategies, politeness (robots.txt).

* :mod:`~deepcrawl.crawl.engine` — :class:`Crawl`, which drives the rest in order: setup phase
  (:mod:`~deepcrawl.crawl.setup`), labels, normal phase (:mod:`~deepcrawl.crawl.normal`),
  delivery (:mod:`~deepcrawl.crawl.deliver`), all state in the database
  (:mod:`~deepcrawl.crawl.state`);
* strategies compared by ``deepcrawl bench``: the whole crawl (``deepcrawl``), the breadth-first
  baseline and the link learners.

Importing this package registers the built-in strategies in :data:`STRATEGIES`.

The package is callable: ``deepcrawl.crawl(url, like=[...])`` is :func:`crawl_pages` (the name
``deepcrawl.crawl`` is both this package and the public API's entry point, so the package object
answers the call).
"""

import sys
import types
from typing import Any

from deepcrawl.crawl.ache import AcheCrawler
from deepcrawl.crawl.apprentice import ApprenticeCrawler
from deepcrawl.crawl.bfs import BreadthFirst
from deepcrawl.crawl.context import CrawlStats
from deepcrawl.crawl.deliver import CallbackSink, JsonlSink, QueueSink, Sink
from deepcrawl.crawl.engine import Crawl, CrawlReport, crawl_each, crawl_pages
from deepcrawl.crawl.focused import FocusedStrategy, form_target, pattern_target
from deepcrawl.crawl.politeness import HostLimiter, backoff_delay, parse_retry_after
from deepcrawl.crawl.robots import RobotsPolicy
from deepcrawl.crawl.strategy import STRATEGIES, Strategy, register
from deepcrawl.crawl.strategy_deepcrawl import DeepcrawlStrategy
from deepcrawl.crawl.xcrawl import XCrawler

__all__ = [
    "STRATEGIES",
    "AcheCrawler",
    "ApprenticeCrawler",
    "BreadthFirst",
    "CallbackSink",
    "Crawl",
    "CrawlReport",
    "CrawlStats",
    "DeepcrawlStrategy",
    "FocusedStrategy",
    "HostLimiter",
    "JsonlSink",
    "QueueSink",
    "RobotsPolicy",
    "Sink",
    "Strategy",
    "XCrawler",
    "backoff_delay",
    "crawl_each",
    "crawl_pages",
    "form_target",
    "parse_retry_after",
    "pattern_target",
    "register",
]


class _CallablePackage(types.ModuleType):
    """``deepcrawl.crawl(...)`` calls :func:`crawl_pages`."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return crawl_pages(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
