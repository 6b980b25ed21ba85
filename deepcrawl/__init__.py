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
    from deepcrawl.crawler import Crawl, CrawlReport, crawl_each
    from deepcrawl.crawler import crawl_pages as crawl

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

#: Public name → name in :mod:`deepcrawl.crawler`, loaded on first access.
_LAZY = {"Crawl": "Crawl", "CrawlReport": "CrawlReport", "crawl": "crawl_pages",
         "crawl_each": "crawl_each"}  # fmt: skip


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module("deepcrawl.crawler"), _LAZY[name])
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__version__ = "0.1.0"
