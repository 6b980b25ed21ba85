"""Crawling: strategies, politeness (robots.txt), and — in time — the setup and normal phases.

Importing this package registers the built-in strategies in :data:`STRATEGIES`.
"""

from deepcrawl.crawl.bfs import BreadthFirst
from deepcrawl.crawl.politeness import HostLimiter, backoff_delay, parse_retry_after
from deepcrawl.crawl.robots import RobotsPolicy
from deepcrawl.crawl.strategy import STRATEGIES, Strategy, register

__all__ = [
    "STRATEGIES",
    "BreadthFirst",
    "HostLimiter",
    "RobotsPolicy",
    "Strategy",
    "backoff_delay",
    "parse_retry_after",
    "register",
]
