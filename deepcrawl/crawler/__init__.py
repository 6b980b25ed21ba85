"""Crawling: the crawl engine and its phases.

* :mod:`~deepcrawl.crawler.engine` — :class:`Crawl`, which drives the rest in order: setup phase
  (:mod:`~deepcrawl.crawler.setup`), labels, normal phase (:mod:`~deepcrawl.crawler.normal`),
  delivery (:mod:`~deepcrawl.crawler.deliver`), all state in the database
  (:mod:`~deepcrawl.storage.state`);
* the navigate phase (:mod:`~deepcrawl.crawler.navigate`) follows links with a strategy of
  :mod:`deepcrawl.links` to reach records no query returns;
* the phases' collaborators: which links are wanted (:mod:`~deepcrawl.crawler.admission`), the
  fetch workers (:mod:`~deepcrawl.crawler.fetching`, :mod:`~deepcrawl.crawler.batch`), a
  worker process (:mod:`~deepcrawl.crawler.worker`), sitemaps
  (:mod:`~deepcrawl.crawler.sitemaps`).

What a record is — its identity, the parameters that carry a session or echo the query, its
kind, a ``--like`` example, the no-example pick — is the floor below, :mod:`deepcrawl.records`.

The public entry point ``deepcrawl.crawl(url, like=[...])`` is :func:`crawl_pages`. Its members
are imported on first use: checking a crawl's inputs (:mod:`~deepcrawl.crawler.inputs`) needs
none of the engine's scikit-learn and browser stack.
"""

from typing import TYPE_CHECKING

from deepcrawl._lazy import lazy_getattr

if TYPE_CHECKING:
    from deepcrawl.crawler.context import CrawlStats
    from deepcrawl.crawler.deliver import (
        CallbackSink,
        JsonlSink,
        QueueSink,
        Sink,
        TeeSink,
        WarcSink,
    )
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

_LAZY = {
    "CallbackSink": "deepcrawl.crawler.deliver",
    "Crawl": "deepcrawl.crawler.engine",
    "CrawlReport": "deepcrawl.crawler.engine",
    "CrawlStats": "deepcrawl.crawler.context",
    "JsonlSink": "deepcrawl.crawler.deliver",
    "QueueSink": "deepcrawl.crawler.deliver",
    "Sink": "deepcrawl.crawler.deliver",
    "TeeSink": "deepcrawl.crawler.deliver",
    "WarcSink": "deepcrawl.crawler.deliver",
    "crawl_each": "deepcrawl.crawler.engine",
    "crawl_pages": "deepcrawl.crawler.engine",
}

__getattr__ = lazy_getattr(__name__, globals(), _LAZY)
