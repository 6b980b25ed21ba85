"""deepcrawl: crawl a website behind its search form.

The public API is re-exported here; everything else is internal and may change::

    import deepcrawl

    async for page in deepcrawl.crawl("https://example.org/", like=["/book/17"]):
        extract(page["url"], page["body"])

    report = await deepcrawl.crawl_each("https://example.org/", extract_record, like=[...])

``crawl``, ``crawl_each`` and ``Crawl`` load the crawl machinery (browser, scikit-learn) on first
access only.
"""

import importlib
from typing import TYPE_CHECKING, Any

from deepcrawl.errors import DeepcrawlError
from deepcrawl.settings import Settings, load_settings

if TYPE_CHECKING:
    from deepcrawl.crawl import Crawl, CrawlReport, crawl_each
    from deepcrawl.crawl import crawl_pages as crawl

__all__ = [
    "Crawl",
    "CrawlReport",
    "DeepcrawlError",
    "Settings",
    "__version__",
    "crawl",
    "crawl_each",
    "load_settings",
]

_LAZY = {"Crawl", "CrawlReport", "crawl_each"}


def __getattr__(name: str) -> Any:
    if name == "crawl":  # the package deepcrawl.crawl is callable: it is the entry point
        return importlib.import_module("deepcrawl.crawl")
    if name in _LAZY:
        value = getattr(importlib.import_module("deepcrawl.crawl"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__version__ = "0.1.0"
