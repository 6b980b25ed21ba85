"""Link strategies: how a crawl that has no search form to fill decides which link to follow.

* :mod:`~deepcrawl.links.strategy` — the :class:`Strategy` contract and its registry
  :data:`STRATEGIES` (a name → class map that ``deepcrawl bench`` and the navigate phase read);
* :mod:`~deepcrawl.links.bfs` — the breadth-first baseline;
* :mod:`~deepcrawl.links.focused` — the focused-crawl base the learners share (a target, a
  polite session, the loop that leases their links from a
  :class:`~deepcrawl.storage.frontier.Frontier`, fetches them and settles the leases);
* :mod:`~deepcrawl.links.ache`, :mod:`~deepcrawl.links.apprentice`,
  :mod:`~deepcrawl.links.xcrawl` — the three link learners, each beside its model
  (``_ache_model``, ``_apprentice_model``, ``_xcrawl_model``: scikit-learn estimators);
* :mod:`~deepcrawl.links.context` — what the learners see of a link (anchor, words around it,
  DOM offsets);
* :mod:`~deepcrawl.links.prior` — the link prior learnt from crawls of other sites;
* :mod:`~deepcrawl.links.discover` — finding a site's search forms by following links;
* :mod:`~deepcrawl.links.hubs` — which pages of the kinds not wanted a crawl's normal phase
  reads as hubs beside its queries (xCrawl's hubs, weighed against the queries' yield).

Importing this package registers the built-in strategies. The models load (with scikit-learn)
on first access to their names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl._lazy import lazy_getattr
from deepcrawl.links.ache import AcheCrawler
from deepcrawl.links.apprentice import ApprenticeCrawler
from deepcrawl.links.bfs import BreadthFirst
from deepcrawl.links.context import LinkContext, page_links, words
from deepcrawl.links.focused import FocusedStrategy, form_target, pattern_target
from deepcrawl.links.strategy import STRATEGIES, Strategy, register
from deepcrawl.links.xcrawl import XCrawler

if TYPE_CHECKING:
    from deepcrawl.links._ache_model import (
        SPACES,
        AutomaticFeatureSelector,
        MultiLevelLinkClassifier,
        space_terms,
    )
    from deepcrawl.links._apprentice_model import Apprentice, DomOffsetVectorizer
    from deepcrawl.links._xcrawl_model import (
        HitsHubs,
        TopicSensitivePageRank,
        WebGraph,
        hub_subtree_links,
    )

__all__ = [
    "SPACES",
    "STRATEGIES",
    "AcheCrawler",
    "Apprentice",
    "ApprenticeCrawler",
    "AutomaticFeatureSelector",
    "BreadthFirst",
    "DomOffsetVectorizer",
    "FocusedStrategy",
    "HitsHubs",
    "LinkContext",
    "MultiLevelLinkClassifier",
    "Strategy",
    "TopicSensitivePageRank",
    "WebGraph",
    "XCrawler",
    "form_target",
    "hub_subtree_links",
    "page_links",
    "pattern_target",
    "register",
    "space_terms",
    "words",
]

_LAZY = {
    "SPACES": "deepcrawl.links._ache_model",
    "Apprentice": "deepcrawl.links._apprentice_model",
    "AutomaticFeatureSelector": "deepcrawl.links._ache_model",
    "DomOffsetVectorizer": "deepcrawl.links._apprentice_model",
    "HitsHubs": "deepcrawl.links._xcrawl_model",
    "MultiLevelLinkClassifier": "deepcrawl.links._ache_model",
    "TopicSensitivePageRank": "deepcrawl.links._xcrawl_model",
    "WebGraph": "deepcrawl.links._xcrawl_model",
    "hub_subtree_links": "deepcrawl.links._xcrawl_model",
    "space_terms": "deepcrawl.links._ache_model",
}

__getattr__ = lazy_getattr(__name__, globals(), _LAZY)
