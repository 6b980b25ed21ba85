"""Crawling: the crawl engine and its phases, strategies, politeness (robots.txt).

* :mod:`~deepcrawl.crawler.engine` — :class:`Crawl`, which drives the rest in order: setup phase
  (:mod:`~deepcrawl.crawler.setup`), labels, normal phase (:mod:`~deepcrawl.crawler.normal`),
  delivery (:mod:`~deepcrawl.crawler.deliver`), all state in the database
  (:mod:`~deepcrawl.storage.state`);
* strategies compared by ``deepcrawl bench``: the whole crawl (``deepcrawl``), the breadth-first
  baseline and the link learners.

Importing this package registers the built-in strategies in :data:`STRATEGIES`. The public
entry point ``deepcrawl.crawl(url, like=[...])`` is :func:`crawl_pages`.
"""

from deepcrawl.crawler.ache import AcheCrawler
from deepcrawl.crawler.apprentice import ApprenticeCrawler
from deepcrawl.crawler.bfs import BreadthFirst
from deepcrawl.crawler.context import CrawlStats
from deepcrawl.crawler.deliver import CallbackSink, JsonlSink, QueueSink, Sink, TeeSink, WarcSink
from deepcrawl.crawler.engine import Crawl, CrawlReport, crawl_each, crawl_pages
from deepcrawl.crawler.focused import FocusedStrategy, form_target, pattern_target
from deepcrawl.crawler.politeness import HostLimiter, backoff_delay, parse_retry_after
from deepcrawl.crawler.robots import RobotsPolicy
from deepcrawl.crawler.strategy import STRATEGIES, Strategy, register
from deepcrawl.crawler.strategy_deepcrawl import DeepcrawlStrategy
from deepcrawl.crawler.xcrawl import XCrawler

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
    "TeeSink",
    "WarcSink",
    "XCrawler",
    "backoff_delay",
    "crawl_each",
    "crawl_pages",
    "form_target",
    "parse_retry_after",
    "pattern_target",
    "register",
]
