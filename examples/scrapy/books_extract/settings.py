"""Scrapy settings of the example project: a pipeline that checks each book and writes it.

Nothing deepcrawl-specific is needed here: ``DeepcrawlSpider`` adds the middleware that answers
its requests with the crawl's pages. The rest is a plain Scrapy project's.
"""

BOT_NAME = "books_extract"
SPIDER_MODULES = ["books_extract.spiders"]
NEWSPIDER_MODULE = "books_extract.spiders"

# Scrapy's own politeness for any page the spider fetches itself (deepcrawl's pages are not
# fetched again: they come from the crawl's output).
ROBOTSTXT_OBEY = True
ITEM_PIPELINES = {
    "books_extract.pipelines.CheckBook": 100,
    "books_extract.pipelines.JsonLinesWriter": 800,
}
#: Where JsonLinesWriter writes the books (override with -s BOOKS_FILE=...).
BOOKS_FILE = "books.jsonl"
LOG_LEVEL = "INFO"
