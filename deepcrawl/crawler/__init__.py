"""Crawling: the crawl engine and its phases.

* :mod:`~deepcrawl.crawler.engine` — :class:`Crawl`, which drives the rest in order: setup phase
  (:mod:`~deepcrawl.crawler.setup`), labels, normal phase (:mod:`~deepcrawl.crawler.normal`),
  delivery (:mod:`~deepcrawl.crawler.deliver`), all state in the database
  (:mod:`~deepcrawl.storage.state`);
* the navigate phase (:mod:`~deepcrawl.crawler.navigate`) follows links with a strategy of
  :mod:`deepcrawl.links` to reach records no query returns;
* the ``--like`` layout check (:mod:`~deepcrawl.crawler.like`) is the setup phase's, and
  ``deepcrawl prototypes --from-file URLS --like U`` runs it on a URL list.

The public entry point ``deepcrawl.crawl(url, like=[...])`` is :func:`crawl_pages`.
"""

from deepcrawl.crawler.context import CrawlStats
from deepcrawl.crawler.deliver import CallbackSink, JsonlSink, QueueSink, Sink, TeeSink, WarcSink
from deepcrawl.crawler.engine import Crawl, CrawlReport, crawl_each, crawl_pages

__all__ = [
    "CallbackSink",
    "Crawl",
    "CrawlReport",
    "CrawlStats",
    "JsonlSink",
    "QueueSink",
    "Sink",
    "TeeSink",
    "WarcSink",
    "crawl_each",
    "crawl_pages",
]
