"""A doorway into Scrapy: a crawl's pages handed to a Scrapy project's callbacks, item pipelines
and feed exports, without Scrapy fetching them again (the ``scrapy`` extra).

Many extractors are Scrapy projects. Subclass :class:`DeepcrawlSpider` instead of
``scrapy.Spider``, name a source — a ``pages.jsonl`` file, a WARC file, or a site to crawl now —
and write the callbacks as for any spider::

    from deepcrawl.scrapy import DeepcrawlSpider

    class BooksSpider(DeepcrawlSpider):
        name = "books"
        pages = "crawl-out/pages.jsonl"

        def parse(self, response):
            yield {"title": response.css("h1::text").get(), "url": response.url}

Each delivered page reaches the callback as the response Scrapy would have downloaded (an
``HtmlResponse`` with the page's URL, status, headers and body), its deepcrawl record under
``response.meta["deepcrawl"]``. The readers of the three sources (:func:`jsonl_pages`,
:func:`warc_pages`, :func:`crawl_pages`) need no Scrapy and serve any extractor.
"""

from deepcrawl.scrapy._pages import DeliveredPage, crawl_pages, jsonl_pages, warc_pages
from deepcrawl.scrapy._spider import (
    META_KEY,
    MIDDLEWARE_ORDER,
    DeepcrawlSpider,
    DeliveredPageMiddleware,
    response_for,
)

__all__ = [
    "META_KEY",
    "MIDDLEWARE_ORDER",
    "DeepcrawlSpider",
    "DeliveredPage",
    "DeliveredPageMiddleware",
    "crawl_pages",
    "jsonl_pages",
    "response_for",
    "warc_pages",
]
