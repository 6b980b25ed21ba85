"""The critic's three classifiers, as scikit-learn estimators over forms.

* :class:`SearchableFormClassifier` — ACHE's generic (searchable) form classifier: structure
  (optionally with the form's text tokens too). ACHE used a decision tree; ``model`` also
  offers a random forest, gradient boosting and logistic regression
  (``benchmarks/forms_eval.py`` compares them with grouped CV).
* :class:`FormTypeClassifier` — which of the eight form types a form is (search, login,
  registration, password recovery, contact, mailing list, order, other), from structure and
  text; the safety policy and the CLI need it.
* :class:`DomainFormClassifier` — ACHE's domain-specific classifier: a linear SVM over the
  form's text, trained from a few user-given examples against background forms.

Each takes a sequence of :class:`~deepcrawl.page.form.Form` as ``X``; feature extraction is
the head of an internal ``Pipeline`` (``pipeline_``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
from sklearn.feature_extraction import DictVectorizer
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import FeatureUnion, Pipeline, make_pipeline
from sklearn.preprocessing import MaxAbsScaler
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier

from deepcrawl.forms.features import FormStructure, FormText

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import NDArray

    from deepcrawl.page.form import Form

__all__ = [
    "DOMAIN_SOURCES",
    "DomainFormClassifier",
    "FormTypeClassifier",
    "SearchModel",
    "SearchableFormClassifier",
]

SearchModel = Literal["tree", "forest", "boosting", "logistic"]

#: Text sources that carry a form's domain (what it searches), not its mechanics.
DOMAIN_SOURCES = ("labels", "placeholders", "options", "buttons", "text", "context", "action")


def _text_features(min_df: int) -> Pipeline:
    return make_pipeline(
        FormText(),
        TfidfVectorizer(token_pattern=r"\S+", lowercase=False, sublinear_tf=True, min_df=min_df),
    )


def _searchable_model(model: SearchModel, text: bool, random_state: int) -> Pipeline:
    estimator: Any
    if model == "tree":
        estimator = DecisionTreeClassifier(
            min_samples_leaf=2, class_weight="balanced", random_state=random_state
        )
    elif model == "forest":
        estimator = RandomForestClassifier(n_estimators=300, random_state=random_state, n_jobs=1)
    elif model == "boosting":
        estimator = GradientBoostingClassifier(random_state=random_state)
    else:
        estimator = make_pipeline(MaxAbsScaler(), LogisticRegression(C=1.0, max_iter=2000))
    structure = make_pipeline(FormStructure(), DictVectorizer())
    if not text:
        return Pipeline([("features", structure), ("model", estimator)])
    features = FeatureUnion([("structure", structure), ("text", _text_features(min_df=3))])
    return Pipeline([("features", features), ("model", estimator)])


class SearchableFormClassifier(ClassifierMixin, BaseEstimator):  # type: ignore[misc]
    """Is a form searchable? ACHE's generic form classifier.

    Args:
        model: ``tree`` (ACHE's choice), ``forest``, ``boosting`` or ``logistic``.
        text: besides the structure (ACHE), also read the form's tagged text tokens (TF-IDF);
            the grouped CV shows the forest gains precision from them.
        threshold: probability of "searchable" above which :meth:`predict` says True.
        random_state: seed of the randomised models.
    """

    def __init__(
        self,
        model: SearchModel = "forest",
        text: bool = False,
        threshold: float = 0.5,
        random_state: int = 0,
    ) -> None:
        self.model = model
        self.text = text
        self.threshold = threshold
        self.random_state = random_state

    def fit(self, X: Sequence[Form], y: Sequence[bool]) -> SearchableFormClassifier:
        """Learn from forms labelled searchable (True) or not; returns self."""
        self.pipeline_ = _searchable_model(self.model, self.text, self.random_state)
        self.pipeline_.fit(list(X), np.asarray(y, dtype=bool))
        self.classes_ = np.array([False, True])
        return self

    def predict_proba(self, X: Sequence[Form]) -> NDArray[np.float64]:
        """Columns: P(not searchable), P(searchable)."""
        proba = self.pipeline_.predict_proba(list(X))
        if proba.shape[1] == 1:  # trained on one class only
            only = bool(self.pipeline_.classes_[0])
            ones = np.ones(len(proba))
            return np.column_stack([1 - ones, ones] if only else [ones, 1 - ones])
        return np.asarray(proba, dtype=np.float64)

    def predict(self, X: Sequence[Form]) -> NDArray[np.bool_]:
        """True for forms judged searchable."""
        return self.predict_proba(X)[:, 1] >= self.threshold


class FormTypeClassifier(ClassifierMixin, BaseEstimator):  # type: ignore[misc]
    """Which type a form is, from its structure and text (multinomial logistic regression).

    Args:
        C: inverse regularisation strength of the logistic regression.
    """

    def __init__(self, C: float = 5.0) -> None:
        self.C = C

    def fit(self, X: Sequence[Form], y: Sequence[str]) -> FormTypeClassifier:
        """Learn from forms and their type names; returns self."""
        features = FeatureUnion(
            [
                (
                    "structure",
                    make_pipeline(FormStructure(), DictVectorizer(), MaxAbsScaler()),
                ),
                ("text", _text_features(min_df=2)),
            ]
        )
        self.pipeline_ = Pipeline(
            [("features", features), ("model", LogisticRegression(C=self.C, max_iter=3000))]
        )
        self.pipeline_.fit(list(X), np.asarray(y))
        self.classes_ = self.pipeline_.classes_
        return self

    def predict_proba(self, X: Sequence[Form]) -> NDArray[np.float64]:
        """One column per type, in the order of ``classes_``."""
        return np.asarray(self.pipeline_.predict_proba(list(X)), dtype=np.float64)

    def predict(self, X: Sequence[Form]) -> NDArray[np.str_]:
        """The most probable type of each form."""
        return np.asarray(self.classes_[self.predict_proba(X).argmax(axis=1)])


class DomainFormClassifier(ClassifierMixin, BaseEstimator):  # type: ignore[misc]
    """Does a searchable form belong to the target domain? (ACHE's domain classifier: an SVM.)

    ``X`` items are forms, or plain strings (the text of an example page of the domain).

    Args:
        C: regularisation of the linear SVM.
        threshold: score (a logistic squashing of the SVM margin) above which a form is in
            domain.
    """

    def __init__(self, C: float = 1.0, threshold: float = 0.5) -> None:
        self.C = C
        self.threshold = threshold

    def fit(
        self,
        X: Sequence[Form | str],
        y: Sequence[bool],
    ) -> DomainFormClassifier:
        """Learn from examples labelled in domain (True) or not; both labels must occur."""
        self.pipeline_ = make_pipeline(
            FormText(sources=DOMAIN_SOURCES, tag_sources=False),
            TfidfVectorizer(token_pattern=r"\S+", lowercase=False, sublinear_tf=True),
            LinearSVC(C=self.C, class_weight="balanced"),
        )
        self.pipeline_.fit(list(X), np.asarray(y, dtype=bool))
        self.classes_ = np.array([False, True])
        return self

    def score_forms(self, X: Sequence[Form | str]) -> NDArray[np.float64]:
        """A score in (0, 1) per item: the SVM margin through a logistic function."""
        margins = self.pipeline_.decision_function(list(X))
        return np.asarray([1.0 / (1.0 + math.exp(-2.0 * float(m))) for m in margins])

    def predict(self, X: Sequence[Form | str]) -> NDArray[np.bool_]:
        """True for items judged in domain."""
        return self.score_forms(X) >= self.threshold
