"""The fetchers inside a wrapped fetcher, reached to tell them what the crawl learnt.

A crawl's fetcher comes wrapped (behind the polite fetcher, or a bench's counting wrapper), each
wrapper holding the next as its ``inner``. Two things the crawl tells the fetchers inside: the
kinds of URL it knows (an adaptive fetcher chooses plain HTTP or the browser per kind), and the
gate every request of the pages a browser renders passes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl.browser.adaptive import AdaptiveFetcher
from deepcrawl.browser.fetcher import BrowserFetcher

if TYPE_CHECKING:
    from collections.abc import Callable

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.browser.gate import RequestGate

__all__ = ["gate_fetcher", "teach_fetcher"]

#: Wrappers a chain is walked through at most (a polite fetcher, a bench's counter, …).
_MAX_DEPTH = 4


def teach_fetcher(fetcher: Fetcher, key: Callable[[str], str]) -> None:
    """Let an adaptive fetcher (possibly wrapped) decide per kind of URL by ``key``.

    :class:`~deepcrawl.browser.AdaptiveFetcher` samples each kind of URL both ways before it
    trusts plain HTTP for it; by default a kind is a crude URL shape, under which every dated
    slug is a kind of its own. The crawl knows the real kinds: its prototypes.
    """
    for inner in _unwrapped(fetcher):
        if isinstance(inner, AdaptiveFetcher):
            inner.key = key
            return


def gate_fetcher(fetcher: Fetcher, gate: RequestGate) -> None:
    """Let the requests of the pages a fetcher renders (possibly wrapped) pass ``gate``: its
    browser pool's gate becomes ``gate``. A plain-HTTP fetcher's requests pass the gate through
    the polite fetcher the crawl wraps it in."""
    for inner in _unwrapped(fetcher):
        if isinstance(inner, AdaptiveFetcher):
            inner.browser.pool.gate = gate
            return
        if isinstance(inner, BrowserFetcher):
            inner.pool.gate = gate
            return


def _unwrapped(fetcher: Fetcher) -> list[object]:
    """``fetcher`` and the fetchers it wraps (their ``inner``), outermost first."""
    chain: list[object] = []
    inner: object = fetcher
    while inner is not None and len(chain) < _MAX_DEPTH:
        chain.append(inner)
        inner = getattr(inner, "inner", None)
    return chain
