"""The polite fetch path: what stands between a crawl and a site's server.

* :mod:`~deepcrawl.fetch.polite` — the one path every request takes: scope → robots.txt → the
  host's rate → fetch → retry or back-off (:class:`FetchPolicy`, made once per crawl, and
  :class:`PoliteFetcher`, any fetcher behind it);
* :mod:`~deepcrawl.fetch.robots` — robots.txt, fetched once per host and consulted before
  every request;
* :mod:`~deepcrawl.fetch.politeness` — the per-host request rate and concurrency, shared by
  every process of a crawl, and the back-off after a transient failure.
"""

from deepcrawl.fetch.polite import Attempt, FetchPolicy, PoliteFetcher, open_policy
from deepcrawl.fetch.politeness import HostLimiter, backoff_delay, parse_retry_after
from deepcrawl.fetch.robots import RobotsPolicy

__all__ = [
    "Attempt",
    "FetchPolicy",
    "HostLimiter",
    "PoliteFetcher",
    "RobotsPolicy",
    "backoff_delay",
    "open_policy",
    "parse_retry_after",
]
