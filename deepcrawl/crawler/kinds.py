"""What the crawl knows of its kinds of URL, shared by its phases: the site's URL classifier, the
canonical key of a wanted URL, the kind of any URL, and an adaptive fetcher taught the
prototypes as its kinds — and the crawl's fetcher, however wrapped, given the crawl's gate for
its browser pages' requests."""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl.classify.url import URLClassifier
from deepcrawl.prototypes._labelling import from_row
from deepcrawl.urls import drop_query_keys

if TYPE_CHECKING:
    import re
    from collections.abc import Callable

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.browser.gate import RequestGate
    from deepcrawl.classify.url import Decision
    from deepcrawl.crawler.context import CrawlContext

__all__ = ["canonical_url", "gate_fetcher", "make_classifier", "page_kind", "teach_fetcher"]


def canonical_url(normal_url: str, drop: re.Pattern[str]) -> str:
    """A normalised URL without the query keys ``drop`` matches (near-duplicates collapse).

    The kept items stay as the normal form spells them, so the key is a normal form too.
    """
    return drop_query_keys(normal_url, drop.match)


def page_kind(decision: Decision) -> str:
    """The kind of page the classifier's ``decision`` is about: its prototype, else its URL's
    shape (the unit of the adaptive fetcher's choice and of the hub scout's trials)."""
    from deepcrawl.browser.adaptive import url_shape

    return decision.prototype or url_shape(decision.url)


def make_classifier(ctx: CrawlContext) -> URLClassifier:
    """The URL-only classifier of the site: its prototypes, labels, and the links seen so far."""
    prototypes = [from_row(r) for r in ctx.repo.prototypes(ctx.site.id)]
    labels = {r.prototype_key: (r.name, r.relevant) for r in ctx.repo.labels(ctx.site.id)}
    return URLClassifier(prototypes, labels).fit(ctx.state.link_urls())


def teach_fetcher(fetcher: Fetcher, key: Callable[[str], str]) -> None:
    """Let an adaptive fetcher (possibly wrapped, as the bench wraps it) decide per prototype.

    :class:`~deepcrawl.browser.AdaptiveFetcher` samples each kind of URL both ways before it
    trusts plain HTTP for it; by default a kind is a crude URL shape, under which every dated
    slug is a kind of its own. The crawl knows the real kinds: its prototypes.
    """
    from deepcrawl.browser.adaptive import AdaptiveFetcher

    for inner in _unwrapped(fetcher):
        if isinstance(inner, AdaptiveFetcher):
            inner.key = key
            return


def gate_fetcher(fetcher: Fetcher, gate: RequestGate) -> None:
    """Let the requests of the pages a fetcher renders (possibly wrapped, as the bench wraps it)
    pass the crawl's gate: its browser pool's gate becomes ``gate``. A plain-HTTP fetcher's
    requests pass the gate through the polite fetcher the crawl wraps it in."""
    from deepcrawl.browser.adaptive import AdaptiveFetcher
    from deepcrawl.browser.fetcher import BrowserFetcher

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
    while inner is not None and len(chain) < 4:
        chain.append(inner)
        inner = getattr(inner, "inner", None)
    return chain
