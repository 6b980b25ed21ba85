"""deepcrawl: crawl a website behind its search form.

The public API is re-exported here; everything else is internal and may change.
"""

from deepcrawl.errors import DeepcrawlError
from deepcrawl.settings import Settings, load_settings

__all__ = ["DeepcrawlError", "Settings", "__version__", "load_settings"]

__version__ = "0.1.0"
