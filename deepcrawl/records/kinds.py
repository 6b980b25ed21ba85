"""The kinds of a site's pages, shared by the crawl's phases: the site's URL classifier (its
prototypes, labels and the links seen so far), the canonical key of a wanted URL, and the kind of
any URL (its prototype, else its shape)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl.classify.url import URLClassifier
from deepcrawl.prototypes._labelling import from_row
from deepcrawl.urls import drop_query_keys

if TYPE_CHECKING:
    import re
    from collections.abc import Iterable

    from deepcrawl.classify.url import Decision
    from deepcrawl.storage import Repository

__all__ = ["canonical_url", "make_classifier", "page_kind"]


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


def make_classifier(repo: Repository, site_id: int, links: Iterable[str]) -> URLClassifier:
    """The URL-only classifier of a site: its stored prototypes and labels, fitted on the
    ``links`` its result pages showed so far."""
    prototypes = [from_row(r) for r in repo.prototypes(site_id)]
    labels = {r.prototype_key: (r.name, r.relevant) for r in repo.labels(site_id)}
    return URLClassifier(prototypes, labels).fit(list(links))
