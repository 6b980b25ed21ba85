"""ACHE's multi-level link classifier with automatic feature selection (Barbosa & Freire, 3.2-3.3).

A link's *level* is its estimated distance to a target page: level 1 links point at a target,
level 2 links at a page that links to one, and so on (section 2.1). The classifier learns levels
from the paths the crawl found to its targets. Its features come from three spaces — the URL,
the anchor text and the words around the anchor — chosen by the paper's Automatic Feature
Selection (Algorithm 2), here the transformer :class:`AutomaticFeatureSelector`:

1. per level and space, the terms of the links at that level (line 4); stop words removed
   (line 5); the rest stemmed with Porter's stemmer (line 6);
2. for the URL space only, the k most frequent terms absorb the frequency of every term that
   contains them as a substring ("jobsearch" counts for "job", lines 8-13), because URLs glue
   words together;
3. the n terms of highest document frequency are kept (line 15).

The classifier is naive Bayes as in the paper (section 3.3 cites Zheng et al.: naive Bayes
does better than linear models with few features), or a linear SVM for comparison.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from nltk.stem import PorterStemmer
from scipy.sparse import csr_matrix
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import Pipeline
from sklearn.svm import LinearSVC
from sklearn.utils.validation import check_is_fitted

from deepcrawl.links.context import words

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from numpy.typing import NDArray

    from deepcrawl.links.context import LinkContext

__all__ = ["SPACES", "AutomaticFeatureSelector", "MultiLevelLinkClassifier", "space_terms"]

#: ACHE's three feature spaces.
SPACES = ("url", "anchor", "around")

_STEMMER = PorterStemmer()
_URL_SPLIT = re.compile(r"[^a-z]+")


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return str(_STEMMER.stem(word))


def _clean(terms: Iterable[str]) -> list[str]:
    """Stop words out, stems in; single letters and numbers are no terms."""
    return [
        _stem(t) for t in terms if len(t) > 1 and not t.isdigit() and t not in ENGLISH_STOP_WORDS
    ]


def space_terms(link: LinkContext) -> dict[str, list[str]]:
    """The stemmed, stop-word-free terms of one link in each feature space.

    URL terms are the alphabetic runs of the URL after the scheme and host (the host is the
    same for every link of a site and says nothing about one link).
    """
    rest = link.url.split("://", 1)[-1]
    path = rest.split("/", 1)[1] if "/" in rest else ""
    return {
        "url": _clean(t for t in _URL_SPLIT.split(path.lower()) if t),
        "anchor": _clean(words(link.anchor)),
        "around": _clean(link.around),
    }


class AutomaticFeatureSelector(TransformerMixin, BaseEstimator):  # type: ignore[misc]
    """ACHE's Automatic Feature Selection (Algorithm 2) as a transformer over links.

    Args:
        n_features: terms kept per space and level (``n``, line 15).
        url_top_k: frequent URL terms that absorb the terms containing them (``k``, line 8).

    ``fit(links, levels)`` selects ``vocabulary_`` (``space:term`` names); ``transform`` counts,
    for each link, the selected terms of each space — a URL term counts when it occurs as a
    substring of one of the link's URL terms, since that is how it was selected.
    """

    def __init__(self, n_features: int = 10, url_top_k: int = 10) -> None:
        self.n_features = n_features
        self.url_top_k = url_top_k

    def fit(self, X: Sequence[LinkContext], y: Sequence[int] | None = None) -> Any:
        """Select the features from links grouped by level (all in one group without ``y``)."""
        levels = list(y) if y is not None else [0] * len(X)
        by_level: dict[int, list[dict[str, list[str]]]] = {}
        for link, level in zip(X, levels, strict=True):
            by_level.setdefault(int(level), []).append(space_terms(link))
        selected: dict[str, set[str]] = {space: set() for space in SPACES}
        for group in by_level.values():
            for space in SPACES:
                df = Counter(t for terms in group for t in set(terms[space]))
                if space == "url":
                    df = self._merge_subterms(df)
                ranked = sorted(df.items(), key=lambda kv: (-kv[1], kv[0]))
                selected[space].update(t for t, _ in ranked[: self.n_features])
        self.vocabulary_ = [f"{space}:{t}" for space in SPACES for t in sorted(selected[space])]
        self.index_ = {name: i for i, name in enumerate(self.vocabulary_)}
        self.url_terms_ = sorted(selected["url"])
        return self

    def _merge_subterms(self, df: Counter[str]) -> Counter[str]:
        merged = Counter(df)
        top = [t for t, _ in sorted(df.items(), key=lambda kv: (-kv[1], kv[0]))][: self.url_top_k]
        for t in top:
            for other, count in df.items():
                if other != t and t in other:
                    merged[t] += count
        return merged

    def transform(self, X: Sequence[LinkContext]) -> csr_matrix:
        """Count each link's selected terms, one column per ``space:term``."""
        check_is_fitted(self, "vocabulary_")
        rows: list[int] = []
        cols: list[int] = []
        for i, link in enumerate(X):
            terms = space_terms(link)
            for space in ("anchor", "around"):
                for t in terms[space]:
                    if (j := self.index_.get(f"{space}:{t}")) is not None:
                        rows.append(i)
                        cols.append(j)
            for url_term in terms["url"]:
                for t in self.url_terms_:
                    if t in url_term:
                        rows.append(i)
                        cols.append(self.index_[f"url:{t}"])
        data = np.ones(len(rows), dtype=np.float64)
        matrix = csr_matrix((data, (rows, cols)), shape=(len(X), len(self.vocabulary_)))
        matrix.sum_duplicates()
        return matrix

    def get_feature_names_out(self, input_features: Any = None) -> NDArray[np.str_]:
        """The selected features, ``space:term``."""
        check_is_fitted(self, "vocabulary_")
        return np.asarray(self.vocabulary_, dtype=str)


class MultiLevelLinkClassifier(ClassifierMixin, BaseEstimator):  # type: ignore[misc]
    """Estimate a link's level (distance to a target) from its URL, anchor and around text.

    Args:
        n_features: terms per space and level kept by the feature selection.
        url_top_k: ``k`` of the URL sub-term merging.
        model: ``"nb"`` (multinomial naive Bayes, the paper's) or ``"svm"`` (linear SVM).
        alpha: naive Bayes smoothing.
        C: SVM regularisation.

    ``fit(links, levels)`` builds the pipeline ``pipeline_`` (feature selection, then the
    model); :meth:`rank` gives each link its level and its likelihood of belonging to it, the
    two keys of ACHE's frontier (section 2.2).
    """

    def __init__(
        self,
        n_features: int = 10,
        url_top_k: int = 10,
        model: Literal["nb", "svm"] = "nb",
        alpha: float = 1.0,
        C: float = 1.0,
    ) -> None:
        self.n_features = n_features
        self.url_top_k = url_top_k
        self.model = model
        self.alpha = alpha
        self.C = C

    def fit(self, X: Sequence[LinkContext], y: Sequence[int]) -> MultiLevelLinkClassifier:
        """Select features from the links of each level and train the model."""
        labels = np.asarray(y, dtype=np.int64)
        clf: Any = (
            MultinomialNB(alpha=self.alpha)
            if self.model == "nb"
            else LinearSVC(C=self.C, dual="auto", random_state=0)
        )
        afs = AutomaticFeatureSelector(self.n_features, self.url_top_k)
        self.classes_ = np.unique(labels)
        if len(self.classes_) < 2:
            # One level seen: every link is predicted at it, with certainty.
            self.pipeline_ = Pipeline([("afs", afs.fit(X, labels.tolist()))])
            return self
        self.pipeline_ = Pipeline([("afs", afs), ("clf", clf)]).fit(list(X), labels)
        return self

    def _scores(self, X: Sequence[LinkContext]) -> NDArray[np.float64]:
        check_is_fitted(self, "pipeline_")
        if len(self.classes_) < 2:
            return np.ones((len(X), 1))
        pipe = self.pipeline_
        if self.model == "nb":
            return np.asarray(pipe.predict_proba(list(X)), dtype=np.float64)
        margins = np.asarray(pipe.decision_function(list(X)), dtype=np.float64)
        if margins.ndim == 1:
            margins = np.column_stack([-margins, margins])
        exp = np.exp(margins - margins.max(axis=1, keepdims=True))
        return np.asarray(exp / exp.sum(axis=1, keepdims=True), dtype=np.float64)

    def predict_proba(self, X: Sequence[LinkContext]) -> NDArray[np.float64]:
        """Probability of each level (a softmax of the margins for the SVM)."""
        return self._scores(X)

    def predict(self, X: Sequence[LinkContext]) -> NDArray[np.int64]:
        """The most likely level of each link."""
        scores = self._scores(X)
        return np.asarray(self.classes_[scores.argmax(axis=1)], dtype=np.int64)

    def rank(self, X: Sequence[LinkContext]) -> list[tuple[int, float]]:
        """(level, likelihood of that level) for each link: the frontier's queue and order."""
        if not len(X):
            return []
        scores = self._scores(X)
        best = scores.argmax(axis=1)
        return [(int(self.classes_[b]), float(scores[i, b])) for i, b in enumerate(best.tolist())]
