"""Crawling: strategies, politeness (robots.txt), and — in time — the setup and normal phases.

Importing this package registers the built-in strategies in :data:`STRATEGIES`.
"""

from deepcrawl.crawl.bfs import BreadthFirst
from deepcrawl.crawl.robots import RobotsPolicy
from deepcrawl.crawl.strategy import STRATEGIES, Strategy, register

__all__ = ["STRATEGIES", "BreadthFirst", "RobotsPolicy", "Strategy", "register"]
