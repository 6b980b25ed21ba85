"""The Python API: ``deepcrawl.crawl`` yields each wanted page, ``deepcrawl.crawl_each`` calls a
callback. Runs as is in a source checkout: it serves the bundled "books" test site (the tests
run it too, ``tests/integration/cli/test_crawl.py``)."""

import asyncio
import tempfile

from deepcrawl_fixtures import FixtureServer

import deepcrawl


async def main(url: str, db: str) -> None:
    titles = []
    async for page in deepcrawl.crawl(url, like=["/book/1"], db=db, max_pages=20):
        titles.append(page["title"])  # page["body"] holds the HTML for your extractor
    print(f"{len(titles)} pages, e.g. {titles[0]!r}")

    def count(page: dict) -> None:  # the callback form; pages already delivered are skipped
        print("new page:", page["url"])

    report = await deepcrawl.crawl_each(url, count, like=["/book/1"], db=db)
    print(report.status, report.stats.pages_delivered, "pages delivered in all")


with tempfile.TemporaryDirectory() as tmp, FixtureServer("books", records=40) as site:
    asyncio.run(main(site.url + "/", f"sqlite:///{tmp}/crawl.db"))
