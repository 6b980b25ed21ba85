"""The form critic (ACHE section 3.4): which forms on a site may be filled, and how.

Forms go through the critic in sequence, as in ACHE's HIFI ensemble:

1. the *searchable* decision: ACHE's generic form classifier — a random forest over the form's
   structure and its source-tagged text tokens here (the grouped CV of
   ``benchmarks/forms_eval.py`` shows it beats ACHE's decision tree, and structure alone, on
   formasaurus's corpus); its probability is the verdict's ``score``. A type classifier
   (logistic regression) names the form's type (search, login, …) for the safety policy;
2. the *domain* decision, for searchable forms, when a domain classifier was trained from the
   user's examples (:meth:`FormCritic.fit_domain`); without one, every searchable form is in
   domain;
3. the safety policy (:mod:`deepcrawl.forms.safety`), which only ever refuses;
4. for accepted forms, the roles of the fields (:mod:`deepcrawl.forms.query_field`).

:class:`FormCritic` is a scikit-learn estimator: ``fit(forms, types)`` trains steps 1 and the
type classifier from annotated forms (:func:`deepcrawl.forms.store.load_critic` does so once on
formasaurus's corpus and caches the result).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import BaseEstimator

from deepcrawl.errors import ConfigError
from deepcrawl.forms.classifiers import (
    DomainFormClassifier,
    FormTypeClassifier,
    SearchableFormClassifier,
    SearchModel,
)
from deepcrawl.forms.query_field import find_query_fields
from deepcrawl.forms.safety import refusal_reasons
from deepcrawl.settings import FormSettings

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import NDArray

    from deepcrawl.page.form import Form

__all__ = ["DOMAIN_THRESHOLD", "SEARCHABLE_THRESHOLD", "CriticVerdict", "FormCritic"]

#: The critic calls a form searchable at or above this probability of its searchable-form
#: classifier: the classifier's own decision boundary (ACHE section 3.4 takes the classifier's
#: label as it is).
SEARCHABLE_THRESHOLD = 0.5
#: The domain classifier calls a searchable form in domain at or above this probability.
DOMAIN_THRESHOLD = 0.5

_MEMO_SIZE = 4096


@dataclass(frozen=True, slots=True)
class CriticVerdict:
    """What the critic says about one form.

    Attributes:
        type: the predicted form type (search, login, registration, password recovery, contact,
            mailing list, order, other).
        searchable: True when the critic accepts the form for filling (searchable, in domain,
            allowed by the safety policy).
        score: the searchability score in [0, 1].
        type_scores: the probability of each form type.
        domain_score: the domain classifier's score, or None without a domain classifier.
        query_field: name of the field that takes the keywords (accepted forms only).
        category_fields: names of the selects / radio groups worth enumerating.
        sort_fields: names of the selects that reorder the results.
        reasons: why the form was refused (empty when accepted).
    """

    type: str
    searchable: bool
    score: float
    type_scores: dict[str, float] = field(default_factory=dict)
    domain_score: float | None = None
    query_field: str | None = None
    category_fields: tuple[str, ...] = ()
    sort_fields: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the verdict."""
        return {
            "type": self.type,
            "searchable": self.searchable,
            "score": round(self.score, 4),
            "type_scores": {k: round(v, 4) for k, v in self.type_scores.items()},
            "domain_score": None if self.domain_score is None else round(self.domain_score, 4),
            "query_field": self.query_field,
            "category_fields": list(self.category_fields),
            "sort_fields": list(self.sort_fields),
            "reasons": list(self.reasons),
        }


class FormCritic(BaseEstimator):  # type: ignore[misc]
    """Searchable? then in domain? then safe? — ACHE's form filtering plus a safety policy.

    Args:
        searchable_model: the searchable classifier's model (see
            :class:`SearchableFormClassifier`).
        searchable_text: let the searchable classifier read the form's text besides its
            structure.
        threshold: score at or above which a form is searchable.
        domain_threshold: domain score at or above which a searchable form is in domain.
        refused_words: words that make the safety policy refuse a form.
        random_state: seed of the randomised models.
    """

    def __init__(
        self,
        searchable_model: SearchModel = "forest",
        searchable_text: bool = True,
        threshold: float = SEARCHABLE_THRESHOLD,
        domain_threshold: float = DOMAIN_THRESHOLD,
        refused_words: tuple[str, ...] = FormSettings().refused_words,
        random_state: int = 0,
    ) -> None:
        self.searchable_model = searchable_model
        self.searchable_text = searchable_text
        self.threshold = threshold
        self.domain_threshold = domain_threshold
        self.refused_words = refused_words
        self.random_state = random_state

    @classmethod
    def from_settings(cls, settings: FormSettings) -> FormCritic:
        """An unfitted critic with the refused words of ``settings``."""
        return cls(refused_words=settings.refused_words)

    def fit(self, X: Sequence[Form], y: Sequence[str]) -> FormCritic:
        """Train the searchable and type classifiers from forms and their type names.

        Returns:
            self, with ``searchable_``, ``typer_`` and ``background_`` (the searchable training
            forms, negatives for :meth:`fit_domain`) set; ``domain_`` is None.
        """
        forms = list(X)
        types = np.asarray(y)
        self.searchable_ = SearchableFormClassifier(
            model=self.searchable_model, text=self.searchable_text, random_state=self.random_state
        ).fit(forms, types == "search")
        self.typer_ = FormTypeClassifier().fit(forms, [str(t) for t in types])
        self.background_ = [f for f, t in zip(forms, types, strict=True) if t == "search"]
        self.domain_: DomainFormClassifier | None = None
        self.memo_: dict[Form, tuple[float, NDArray[np.float64]]] = {}
        return self

    def fit_domain(
        self, examples: Sequence[Form | str], negatives: Sequence[Form | str] | None = None
    ) -> FormCritic:
        """Train the domain classifier from a few examples of the target domain.

        Args:
            examples: forms of the domain, or texts of pages of the domain
                (:func:`deepcrawl.page.html.page_text` turns a page's HTML into one).
            negatives: forms or texts outside the domain; default: the searchable forms of the
                training corpus (search boxes of every kind of site).

        Returns:
            self, with ``domain_`` set.

        Raises:
            ConfigError: no example was given.
        """
        if not examples:
            raise ConfigError("the domain classifier needs at least one example form or page")
        background = list(negatives) if negatives is not None else list(self.background_)
        X = [*examples, *background]
        y = [True] * len(examples) + [False] * len(background)
        self.domain_ = DomainFormClassifier(threshold=self.domain_threshold).fit(X, y)
        return self

    def scores(self, X: Sequence[Form]) -> NDArray[np.float64]:
        """Searchability score of each form: the searchable classifier's probability."""
        forms = list(X)
        if not forms:
            return np.zeros(0)
        return np.asarray(self.searchable_.predict_proba(forms)[:, 1], dtype=np.float64)

    def predict(self, X: Sequence[Form]) -> NDArray[np.bool_]:
        """True for each form the critic accepts (see :meth:`judge`)."""
        return np.array([v.searchable for v in self.judge(X)], dtype=bool)

    def judge(self, X: Sequence[Form]) -> list[CriticVerdict]:
        """The critic's verdict on each form, in order."""
        forms = list(X)
        if not forms:
            return []
        # The same site-wide forms (search box, newsletter, login) come back on every page of a
        # site: their classifier outputs are kept (by form, page URL aside) for the next page.
        keys = [form.model_copy(update={"page_url": ""}) for form in forms]
        known = {key: self.memo_[key] for key in keys if key in self.memo_}
        fresh = [key for key in dict.fromkeys(keys) if key not in known]
        if fresh:
            scores = self.scores(fresh)
            type_probs = self.typer_.predict_proba(fresh)
            if len(self.memo_) + len(fresh) > _MEMO_SIZE:
                self.memo_.clear()
            for i, key in enumerate(fresh):
                known[key] = self.memo_[key] = (float(scores[i]), type_probs[i])
        outputs = [known[key] for key in keys]
        domain = self.domain_.score_forms(forms) if self.domain_ is not None else None
        return [
            self._verdict(form, score, type_prob, domain, i)
            for i, (form, (score, type_prob)) in enumerate(zip(forms, outputs, strict=True))
        ]

    def judge_one(self, form: Form) -> CriticVerdict:
        """The critic's verdict on one form."""
        return self.judge([form])[0]

    def _verdict(
        self,
        form: Form,
        score: float,
        type_prob: NDArray[np.float64],
        domain: NDArray[np.float64] | None,
        i: int,
    ) -> CriticVerdict:
        type_scores = {
            str(c): float(p) for c, p in zip(self.typer_.classes_, type_prob, strict=True)
        }
        form_type = max(type_scores, key=lambda t: type_scores[t])
        reasons: list[str] = []
        # Visibility is not required: sites hide their search box behind a toggle (a script
        # shows it), and the static parser cannot know which CSS-hidden box a click reveals.
        if not any(f.type not in {"hidden", "button", "reset"} for f in form.fields):
            reasons.append("has no field to fill")
        elif score < self.threshold:
            reasons.append(f"not searchable (score {score:.2f} < {self.threshold:.2f})")
        domain_score = None if domain is None else float(domain[i])
        if domain_score is not None and domain_score < self.domain_threshold and not reasons:
            reasons.append(f"out of domain (score {domain_score:.2f})")
        reasons.extend(refusal_reasons(form, form_type, self.refused_words))
        accepted = not reasons
        roles = find_query_fields(form) if accepted else None
        return CriticVerdict(
            type=form_type,
            searchable=accepted,
            score=score,
            type_scores=type_scores,
            domain_score=domain_score,
            query_field=roles.query.name if roles and roles.query else None,
            category_fields=tuple(f.name for f in roles.categories if f.name) if roles else (),
            sort_fields=tuple(f.name for f in roles.sorts if f.name) if roles else (),
            reasons=tuple(reasons),
        )
