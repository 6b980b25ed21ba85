"""The apprentice (Chakrabarti, Punera & Subramanyam, "Accelerated focused crawling").

The apprentice scores a link (u, v) before v is fetched, from features of u alone: the tokens
of u's DOM leaves paired with their DOM offset to the link, ``<t, d>`` with ``|d| <= d_max``
(section 2.2.1; :func:`deepcrawl.links.context.page_links` computes them as ``t@d`` strings). It
learns online from the critic's verdicts: after each batch of fetched pages, every (u, v) whose
target v was judged becomes an instance labelled with the verdict (section 2.3), and naive Bayes
takes them in with ``partial_fit``. As in the paper's two-bucket regression, the score of a link
is the probability of the "high relevance" class. A label may also be a reward between 0 and 1
(a link on the way to a target, :mod:`deepcrawl.links.apprentice`): it counts as a weighted
instance of each class, so the score estimates the link's expected reward. Single characters and
numbers are not taken as tokens (index letters, page numbers and dates say nothing of a link).

The token space grows as the crawl goes, so :class:`DomOffsetVectorizer` hashes features into a
fixed number of columns (a stateless transformer, safe to use before any fit).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.sparse import vstack
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.feature_extraction import FeatureHasher
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import NDArray
    from scipy.sparse import spmatrix

__all__ = ["Apprentice", "DomOffsetVectorizer", "offset_of", "within_window"]


def offset_of(feature: str) -> int:
    """The DOM offset d of a ``token@d`` feature."""
    return int(feature.rsplit("@", 1)[1])


def within_window(features: Sequence[str], d_max: int) -> list[str]:
    """The features with ``|d| <= d_max``."""
    return [f for f in features if abs(offset_of(f)) <= d_max]


def _is_word(feature: str) -> bool:
    # Single characters and numbers (A-Z index letters, page numbers, dates) are no evidence
    # about one link: the token of a DOM leaf must be a word, as ACHE's terms must.
    token = feature.rsplit("@", 1)[0]
    return len(token) > 1 and not token.isdigit()


class DomOffsetVectorizer(TransformerMixin, BaseEstimator):  # type: ignore[misc]
    """Hash ``token@d`` features of links (kept within ``|d| <= d_max``) into count vectors.

    Args:
        d_max: the DOM window (the paper settles on 5).
        n_features: columns of the hashed space.
    """

    def __init__(self, d_max: int = 5, n_features: int = 2**18) -> None:
        self.d_max = d_max
        self.n_features = n_features

    def fit(self, X: Sequence[Sequence[str]], y: Any = None) -> DomOffsetVectorizer:
        """Nothing to learn (hashing); kept for the transformer contract."""
        self.n_features_in_ = 1
        return self

    def transform(self, X: Sequence[Sequence[str]]) -> spmatrix:
        """Count vectors of the features of each link."""
        hasher = FeatureHasher(
            n_features=self.n_features, input_type="string", alternate_sign=False
        )
        return hasher.transform(
            [f for f in within_window(list(x), self.d_max) if _is_word(f)] for x in X
        )


class Apprentice(ClassifierMixin, BaseEstimator):  # type: ignore[misc]
    """Naive Bayes over ``<token, DOM offset>`` features of (u, v), trained online.

    Args:
        d_max: the DOM window.
        alpha: naive Bayes smoothing.
        n_features: columns of the hashed feature space.

    Labels are rewards in [0, 1]: 1 (the critic accepted v), 0, or a discounted reward for a
    link on the way to a target. A reward ``r`` counts as ``r`` of a high-relevance instance
    and ``1 - r`` of a low-relevance one (naive Bayes' counts weighted), so the score of a link
    — the probability of high relevance — estimates its expected reward. ``fit`` starts over;
    ``partial_fit`` adds a batch of instances to what was learnt (the paper's online lessons).
    """

    def __init__(self, d_max: int = 5, alpha: float = 1.0, n_features: int = 2**18) -> None:
        self.d_max = d_max
        self.alpha = alpha
        self.n_features = n_features

    def _pipeline(self) -> Pipeline:
        return Pipeline(
            [
                ("offsets", DomOffsetVectorizer(self.d_max, self.n_features)),
                ("nb", MultinomialNB(alpha=self.alpha)),
            ]
        )

    def fit(self, X: Sequence[Sequence[str]], y: Sequence[float]) -> Apprentice:
        """Learn from scratch from links' features and the rewards of their targets."""
        for name in ("pipeline_", "classes_", "n_seen_"):
            self.__dict__.pop(name, None)
        return self.partial_fit(X, y)

    def partial_fit(self, X: Sequence[Sequence[str]], y: Sequence[float]) -> Apprentice:
        """Add one batch of instances (rewards in [0, 1]; see the class docstring).

        Raises:
            ValueError: a reward outside [0, 1].
        """
        if not hasattr(self, "pipeline_"):
            self.pipeline_ = self._pipeline()
            self.pipeline_.named_steps["offsets"].fit(X)
            self.classes_ = np.array([0, 1])
            self.n_seen_ = 0
        if len(X):
            rewards = np.asarray([float(v) for v in y], dtype=np.float64)
            if len(rewards) != len(X) or rewards.min() < 0 or rewards.max() > 1:
                raise ValueError("the apprentice's rewards must be one per link, in [0, 1]")
            features = self.pipeline_.named_steps["offsets"].transform(X)
            # each instance once as high relevance (weight r), once as low (weight 1 - r)
            stacked = vstack([features, features]).tocsr()
            labels = np.repeat([1, 0], len(X))
            weights = np.concatenate([rewards, 1 - rewards])
            keep = weights > 0
            self.pipeline_.named_steps["nb"].partial_fit(
                stacked[keep], labels[keep], classes=self.classes_, sample_weight=weights[keep]
            )
            self.n_seen_ += len(X)
        return self

    def predict_proba(self, X: Sequence[Sequence[str]]) -> NDArray[np.float64]:
        """Probability of low (column 0) and high (column 1) relevance of each link's target."""
        check_is_fitted(self, "pipeline_")
        if not self.n_seen_:
            return np.full((len(X), 2), 0.5)
        return np.asarray(self.pipeline_.predict_proba(list(X)), dtype=np.float64)

    def predict(self, X: Sequence[Sequence[str]]) -> NDArray[np.int64]:
        """1 where the target is more likely relevant than not."""
        return np.asarray(self.predict_proba(X)[:, 1] >= 0.5, dtype=np.int64)

    def score_links(self, X: Sequence[Sequence[str]]) -> NDArray[np.float64]:
        """The crawl priority of each link: the probability of the high-relevance class."""
        if not len(X):
            return np.zeros(0)
        return self.predict_proba(X)[:, 1]
