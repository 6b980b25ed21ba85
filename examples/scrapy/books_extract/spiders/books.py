"""The books spider: deepcrawl's pages in, one ``Book`` per book page out.

Run it over a crawl's output::

    deepcrawl crawl http://127.0.0.1:8000/ --like /book/1 --out crawl-out
    scrapy crawl books -a pages=crawl-out/pages.jsonl          # or: -a warc=crawl.warc.gz

or let it crawl the site itself (``-a crawl_url=http://127.0.0.1:8000/ -a like=/book/1``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from books_extract.items import Book
from deepcrawl.scrapy import DeepcrawlSpider

if TYPE_CHECKING:
    from collections.abc import Iterator

    from scrapy.http import Response


class BooksSpider(DeepcrawlSpider):
    """Extracts each book's fields from the pages deepcrawl delivered."""

    name = "books"

    def parse(self, response: Response) -> Iterator[Book]:
        article = response.css("article.book")
        if not article:  # another kind of page: nothing to extract
            return
        meta = " ".join(article.css("p.meta ::text").getall())
        published = re.search(r"Published (\d{4}-\d{2}-\d{2})", meta)
        pages = re.search(r"(\d+) pages", meta)
        yield Book(
            id=int(article.attrib["data-id"]),
            url=response.url,
            title=(response.css("h1::text").get() or "").strip(),
            category=(article.css("p.meta a::text").get() or "").strip(),
            published=published[1] if published else "",
            pages=int(pages[1]) if pages else 0,
            description=(article.css("p.description::text").get() or "").strip(),
            query=response.meta["deepcrawl"].get("query"),
        )
