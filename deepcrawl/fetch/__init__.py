"""The polite fetch path: what stands between a crawl and a site's server.

* :mod:`~deepcrawl.fetch.robots` — robots.txt, fetched once per host and consulted before
  every request;
* :mod:`~deepcrawl.fetch.politeness` — the per-host request rate and concurrency, shared by
  every process of a crawl, and the back-off after a transient failure.
"""

from deepcrawl.fetch.politeness import HostLimiter, backoff_delay, parse_retry_after
from deepcrawl.fetch.robots import RobotsPolicy

__all__ = ["HostLimiter", "RobotsPolicy", "backoff_delay", "parse_retry_after"]
