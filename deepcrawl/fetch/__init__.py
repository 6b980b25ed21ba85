"""The fetch floor: the crawl's one door, and the polite path that sends through it.

* :mod:`~deepcrawl.fetch.gate` — :class:`Gate`, the one door every request of a crawl passes:
  scope → robots.txt → safety → the host's rate slot → the count (made once per crawl, or by
  :func:`open_gate` for a link strategy run alone); the browser's pages ask it too, through
  the browser's :class:`~deepcrawl.browser.gate.RequestGate`;
* :mod:`~deepcrawl.fetch.polite` — :class:`PoliteFetcher`, any fetcher behind the gate, with
  retries and back-off;
* :mod:`~deepcrawl.fetch.robots` — robots.txt, fetched once per host and consulted before
  every request;
* :mod:`~deepcrawl.fetch.politeness` — the per-host request rate and concurrency, shared by
  every process of a crawl, and the back-off after a transient failure;
* :mod:`~deepcrawl.fetch.held` — answers fetched earlier, given once instead of asking again.
"""

from deepcrawl.fetch.gate import Count, Gate, Tally, open_gate
from deepcrawl.fetch.polite import Attempt, PoliteFetcher
from deepcrawl.fetch.politeness import HostLimiter, backoff_delay, parse_retry_after
from deepcrawl.fetch.robots import RobotsPolicy

__all__ = [
    "Attempt",
    "Count",
    "Gate",
    "HostLimiter",
    "PoliteFetcher",
    "RobotsPolicy",
    "Tally",
    "backoff_delay",
    "open_gate",
    "parse_retry_after",
]
