"""Item pipelines: a book with an empty field is dropped; the others are written, one JSON line
each (a feed export, ``-O books.json``, works as well: the items are plain Scrapy items).

(``spider`` is optional in each method: Scrapy up to 2.13 passes it, later versions do not.)
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import DropItem

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from books_extract.items import Book


class CheckBook:
    """Drops a book whose title, category, date or description is empty."""

    def process_item(self, item: Book, spider: object = None) -> Book:
        empty = [f.name for f in dataclasses.fields(item) if getattr(item, f.name) in ("", None)]
        if set(empty) - {"query"}:
            raise DropItem(f"{item.url}: empty {', '.join(empty)}")
        return item


class JsonLinesWriter:
    """Writes each book as a line of JSON to the BOOKS_FILE setting's file."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.file: Any = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> JsonLinesWriter:
        return cls(crawler.settings.get("BOOKS_FILE", "books.jsonl"))

    def open_spider(self, spider: object = None) -> None:
        self.file = open(self.path, "w", encoding="utf-8")  # noqa: SIM115 - closed at the end

    def close_spider(self, spider: object = None) -> None:
        self.file.close()

    def process_item(self, item: Book, spider: object = None) -> Book:
        self.file.write(json.dumps(dataclasses.asdict(item), ensure_ascii=False) + "\n")
        return item
