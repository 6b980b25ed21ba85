"""Classifiers that decide what the crawl downloads.

* :mod:`deepcrawl.classify.url` — the URL-only classifier: labelled prototypes, then a learned
  model, decide from a URL alone whether its page is wanted;
* :mod:`deepcrawl.classify.layout` — the ``--like`` page's layout checks its prototype: pages of
  the prototype that do not look like the example split it.

The link learners' models (ACHE, the apprentice, xCrawl) live beside their strategies in
:mod:`deepcrawl.links`. The classifiers are scikit-learn estimators and load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl._lazy import lazy_getattr

if TYPE_CHECKING:
    from deepcrawl.classify.url import Decision, LabelStats, URLClassifier, URLFeatures

__all__ = ["Decision", "LabelStats", "URLClassifier", "URLFeatures"]

_LAZY = {
    "Decision": "deepcrawl.classify.url",
    "LabelStats": "deepcrawl.classify.url",
    "URLClassifier": "deepcrawl.classify.url",
    "URLFeatures": "deepcrawl.classify.url",
}

__getattr__ = lazy_getattr(__name__, globals(), _LAZY)
