"""Classifiers that decide what the crawl downloads and where it goes.

* :mod:`deepcrawl.classify.url` — the URL-only classifier: labelled prototypes, then a learned
  model, decide from a URL alone whether its page is wanted;
* :mod:`deepcrawl.classify.dom` — a page's DOM leaves and its links in context;
* :mod:`deepcrawl.classify.ache` — ACHE's multi-level link classifier and feature selection;
* :mod:`deepcrawl.classify.apprentice` — the apprentice over ``<token, DOM offset>`` features;
* :mod:`deepcrawl.classify.xcrawl` — xCrawl's web graph, HITS hubs and topic-sensitive PageRank.

Every learner is a scikit-learn estimator; the learners load (with scikit-learn) on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl._lazy import lazy_getattr
from deepcrawl.classify.dom import DomLeaf, LinkContext, dom_leaves, page_links

if TYPE_CHECKING:
    from deepcrawl.classify.ache import (
        SPACES,
        AutomaticFeatureSelector,
        MultiLevelLinkClassifier,
        space_terms,
    )
    from deepcrawl.classify.apprentice import Apprentice, DomOffsetVectorizer
    from deepcrawl.classify.url import Decision, LabelStats, URLClassifier, URLFeatures
    from deepcrawl.classify.xcrawl import (
        HitsHubs,
        TopicSensitivePageRank,
        WebGraph,
        hub_subtree_links,
    )

__all__ = [
    "SPACES",
    "Apprentice",
    "AutomaticFeatureSelector",
    "Decision",
    "DomLeaf",
    "DomOffsetVectorizer",
    "HitsHubs",
    "LabelStats",
    "LinkContext",
    "MultiLevelLinkClassifier",
    "TopicSensitivePageRank",
    "URLClassifier",
    "URLFeatures",
    "WebGraph",
    "dom_leaves",
    "hub_subtree_links",
    "page_links",
    "space_terms",
]

_LAZY = {
    "SPACES": "deepcrawl.classify.ache",
    "Apprentice": "deepcrawl.classify.apprentice",
    "AutomaticFeatureSelector": "deepcrawl.classify.ache",
    "Decision": "deepcrawl.classify.url",
    "DomOffsetVectorizer": "deepcrawl.classify.apprentice",
    "HitsHubs": "deepcrawl.classify.xcrawl",
    "LabelStats": "deepcrawl.classify.url",
    "MultiLevelLinkClassifier": "deepcrawl.classify.ache",
    "TopicSensitivePageRank": "deepcrawl.classify.xcrawl",
    "URLClassifier": "deepcrawl.classify.url",
    "URLFeatures": "deepcrawl.classify.url",
    "WebGraph": "deepcrawl.classify.xcrawl",
    "hub_subtree_links": "deepcrawl.classify.xcrawl",
    "space_terms": "deepcrawl.classify.ache",
}

__getattr__ = lazy_getattr(__name__, globals(), _LAZY)
