"""deepcrawl: crawl a website behind its search form.

The public API is re-exported here; everything else is internal and may change::

    import deepcrawl

    async for page in deepcrawl.crawl("https://example.org/", like=["/book/17"]):
        extract(page["url"], page["body"])

    report = await deepcrawl.crawl_each("https://example.org/", extract_record, like=[...])

``crawl``, ``crawl_each`` and ``Crawl`` load the crawl machinery (browser, scikit-learn) on first
access only, and ``Settings`` and ``load_settings`` pydantic: importing the package is quick, so
that the command line can take Ctrl-C over from its first moments (:mod:`deepcrawl.cli`).
"""

import importlib
import logging
from typing import TYPE_CHECKING, Any

from deepcrawl._version import __version__
from deepcrawl.errors import DeepcrawlError

# A library never decides where its log records go: without a handler of the application's
# (the CLI's ``--verbose`` / ``--log-file``), they are dropped, not printed by logging's
# last-resort handler. https://docs.python.org/3/howto/logging.html#library-config
logging.getLogger(__name__).addHandler(logging.NullHandler())

if TYPE_CHECKING:
    from deepcrawl.crawler import Crawl, CrawlReport, crawl_each
    from deepcrawl.crawler import crawl_pages as crawl
    from deepcrawl.settings import Settings, load_settings

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

#: Public name → (module, name in it), loaded on first access.
_LAZY = {
    "Crawl": ("deepcrawl.crawler", "Crawl"),
    "CrawlReport": ("deepcrawl.crawler", "CrawlReport"),
    "crawl": ("deepcrawl.crawler", "crawl_pages"),
    "crawl_each": ("deepcrawl.crawler", "crawl_each"),
    "Settings": ("deepcrawl.settings", "Settings"),
    "load_settings": ("deepcrawl.settings", "load_settings"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, attribute = _LAZY[name]
        value = getattr(importlib.import_module(module), attribute)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
