"""The URL-only classifier: decide from a link's URL alone whether its page is wanted.

This is the efficiency promise of Hernández et al. ("An Architecture for Efficient Web
Crawling"): a page that is not wanted is never downloaded. Decisions come in two tiers:

1. **Prototypes** — the labelled regular expressions of :mod:`deepcrawl.prototypes`. A URL that
   fullmatches a labelled prototype gets that prototype's label at once (the fast path).
2. **A learned model** — for URLs no prototype matches (a new variant of a known kind: an extra
   parameter, another id format), a logistic regression over token features of the URL
   (:class:`URLFeatures`), trained on the URLs the prototypes covered. Its probability decides;
   between ``unsure_low`` and ``unsure_high`` the verdict is *unsure*, and the crawl may sample
   such a URL (download it and check it) rather than guess. A variant keeps its kind's fixed
   path: a URL that leaves a literal segment every URL of each wanted prototype shares
   (``/people/…`` where the records all read ``/entry/…``) is of another kind, whatever the
   model scores it — a kind first seen after the prototypes were learnt is no record of theirs.

Both tiers are wrapped in one scikit-learn estimator, :class:`URLClassifier`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.feature_extraction import DictVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline

from deepcrawl.errors import ConfigError, InvalidURLError
from deepcrawl.prototypes import PrototypeMatcher
from deepcrawl.prototypes import classify_token as token_type
from deepcrawl.urls import URLNormaliser, parse_normalised, split_segment

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from deepcrawl.prototypes import Prototype

__all__ = ["Decision", "LabelStats", "URLClassifier", "URLFeatures"]

#: The label of URLs that are not wanted.
IRRELEVANT = "-"

#: Feature sets whose class probabilities the classifier keeps (:meth:`URLClassifier.decide_many`).
_PROBA_CACHE = 10_000


@dataclass(frozen=True, slots=True)
class Decision:
    """The verdict on one URL.

    Attributes:
        url: the normalised URL (the raw one when it could not be normalised).
        label: the label of the page kind, or None when it is not wanted.
        relevant: whether to download it.
        score: the probability that the URL is relevant (1.0 / 0.0 on the prototype path).
        source: ``prototype`` (a labelled regex matched), ``model`` (the learned model was sure),
            ``unsure`` (the model's score fell between the thresholds), ``invalid``.
        prototype: the matching prototype's id, when one matched.
    """

    url: str
    label: str | None
    relevant: bool
    score: float
    source: Literal["prototype", "model", "unsure", "invalid"]
    prototype: str | None = None


@dataclass
class LabelStats:
    """How many links the classifier accepted and rejected, per label (for the crawl report)."""

    accepted: Counter[str] = field(default_factory=Counter)
    rejected: Counter[str] = field(default_factory=Counter)
    unsure: int = 0

    def add(self, decision: Decision) -> None:
        """Count one decision."""
        name = decision.label or IRRELEVANT
        if decision.source == "unsure":
            self.unsure += 1
        elif decision.relevant:
            self.accepted[name] += 1
        else:
            self.rejected[name] += 1


class URLFeatures(TransformerMixin, BaseEstimator):  # type: ignore[misc]
    """Normalised URLs → sparse-ready feature dicts (for a ``DictVectorizer``).

    Features: the host; the path depth; per path position, the literal segment and the type of
    each of its tokens (``seg1:t0=digits``); the query keys present, and the type of each value.
    Literal values of high-cardinality tokens (ids) are left to their types so that the model
    generalises to ids it never saw.
    """

    def __init__(self, max_literal_length: int = 24) -> None:
        self.max_literal_length = max_literal_length

    def fit(self, X: Iterable[str], y: object = None) -> URLFeatures:
        return self

    def transform(self, X: Iterable[str]) -> list[dict[str, float]]:
        return [self._features(url) for url in X]

    def _features(self, url: str) -> dict[str, float]:
        tokens = parse_normalised(url)
        feats: dict[str, float] = {f"host={tokens.host}": 1.0}
        segments = [s for s in tokens.segments if s] or [""]
        feats[f"depth={len(segments)}"] = 1.0
        for i, segment in enumerate(segments):
            if segment and not segment.isdigit() and len(segment) <= self.max_literal_length:
                feats[f"seg{i}={segment}"] = 1.0
            parts = [p for p in split_segment(segment) if p not in "-_."]
            feats[f"seg{i}:n={min(len(parts), 6)}"] = 1.0
            for j, part in enumerate(parts[:6]):
                feats[f"seg{i}:t{j}={token_type(part).name.lower()}"] = 1.0
                if part.isalpha() and len(part) <= self.max_literal_length:
                    feats[f"seg{i}:w={part.lower()}"] = 1.0
        for key, value in tokens.query:
            feats[f"key={key}"] = 1.0
            kind = "none" if value is None else token_type(value).name.lower() if value else "empty"
            feats[f"key={key}:{kind}"] = 1.0
        return feats


class URLClassifier(ClassifierMixin, BaseEstimator):  # type: ignore[misc]
    """Prototype fast path plus a learned model for the rest; see the module docstring.

    Args:
        prototypes: the site's prototypes (labelled or not).
        labels: prototype id → ``(label name, relevant)`` for the prototypes the user labelled.
        unsure_low, unsure_high: model scores between these are *unsure*.
        C: inverse regularisation strength of the logistic regression.

    ``fit(urls)`` trains the model on the URLs the labelled prototypes cover (those of
    unlabelled prototypes count as not relevant); ``y`` may override the labels per URL.
    """

    def __init__(
        self,
        prototypes: Sequence[Prototype] = (),
        labels: Mapping[str, tuple[str, bool]] | None = None,
        *,
        unsure_low: float = 0.2,
        unsure_high: float = 0.8,
        C: float = 10.0,
    ) -> None:
        self.prototypes = prototypes
        self.labels = labels
        self.unsure_low = unsure_low
        self.unsure_high = unsure_high
        self.C = C

    def fit(self, X: Iterable[str], y: Sequence[str | None] | None = None) -> URLClassifier:
        """Learn from example URLs (raw or normalised); invalid ones are skipped."""
        if not 0.0 <= self.unsure_low <= self.unsure_high <= 1.0:
            raise ConfigError("URLClassifier needs 0 <= unsure_low <= unsure_high <= 1")
        labels = dict(self.labels or {})
        self.normaliser_ = URLNormaliser()
        self.matcher_ = PrototypeMatcher(self.prototypes, self.normaliser_)
        self.label_of_ = labels
        urls: list[str] = []
        names: list[str] = []
        wanted: dict[str, set[str]] = {}  # a wanted prototype's training URLs
        for i, raw in enumerate(X):
            try:
                url = self.normaliser_(raw)
            except InvalidURLError:
                continue
            if y is not None:
                name = y[i] or IRRELEVANT
            else:
                proto = self.matcher_.match(url)
                label = labels.get(proto) if proto else None
                name = label[0] if label and label[1] else IRRELEVANT
                if proto and name != IRRELEVANT:
                    wanted.setdefault(proto, set()).add(url)
            urls.append(url)
            names.append(name)
        #: the literal path segments each wanted prototype's URLs share (module docstring)
        self.fixed_paths_ = [_fixed_segments(members) for members in wanted.values()]
        self.classes_ = np.array(sorted(set(names)))
        self.relevant_labels_ = frozenset(n for n in names if n != IRRELEVANT)
        if len(self.classes_) < 2:
            # One class only: the model has nothing to learn; every unknown URL gets that class.
            self.model_: Pipeline | None = None
            self.constant_ = str(self.classes_[0]) if len(self.classes_) else IRRELEVANT
            return self
        self.proba_by_features_: dict[frozenset[str], np.ndarray[Any, np.dtype[np.float64]]] = {}
        self.model_ = Pipeline(
            [
                ("features", URLFeatures()),
                ("vectorise", DictVectorizer()),
                ("model", LogisticRegression(C=self.C, max_iter=1000)),
            ]
        ).fit(urls, names)
        return self

    def decide(self, url: str, base: str | None = None) -> Decision:
        """The verdict on one URL (raw or normalised, resolved against ``base``)."""
        return self.decide_many([url], base)[0]

    def decide_many(self, urls: Iterable[str], base: str | None = None) -> list[Decision]:
        """Verdicts on many URLs; the model runs once over all URLs no prototype matched."""
        decisions: list[Decision | None] = []
        pending: list[tuple[int, str]] = []
        for raw in urls:
            try:
                url = self.normaliser_(raw, base)
            except InvalidURLError:
                decisions.append(Decision(raw, None, False, 0.0, "invalid"))
                continue
            proto = self.matcher_.match(url)
            label = self.label_of_.get(proto) if proto else None
            if label is not None:
                name, relevant = label
                decisions.append(Decision(url, name, relevant, float(relevant), "prototype", proto))
            else:
                pending.append((len(decisions), url))
                decisions.append(None)
        if pending:
            for (index, _url), decision in zip(
                pending, self._model_decisions([u for _, u in pending]), strict=True
            ):
                if decision.relevant and not self._keeps_a_fixed_path(decision.url):
                    decision = Decision(decision.url, None, False, decision.score, "model")
                decisions[index] = decision
        return [d for d in decisions if d is not None]

    def _keeps_a_fixed_path(self, url: str) -> bool:
        """Whether ``url`` keeps every literal segment of some wanted prototype's URLs (True
        where no wanted prototype has one to keep: nothing is known of their paths)."""
        shapes = getattr(self, "fixed_paths_", [])
        if not shapes:
            return True
        segments = set(enumerate(s for s in parse_normalised(url).segments if s))
        return any(fixed <= segments for fixed in shapes)

    def _model_decisions(self, urls: list[str]) -> list[Decision]:
        if self.model_ is None:
            relevant = self.constant_ != IRRELEVANT
            label = self.constant_ if relevant else None
            return [Decision(u, label, relevant, float(relevant), "model") for u in urls]
        proba = self._probabilities(urls)
        classes = list(self.model_.classes_)
        irrelevant = classes.index(IRRELEVANT) if IRRELEVANT in classes else None
        out = []
        for url, row in zip(urls, proba, strict=True):
            relevant_score = 1.0 - (float(row[irrelevant]) if irrelevant is not None else 0.0)
            best = int(np.argmax(row))
            name = classes[best] if classes[best] != IRRELEVANT else None
            if self.unsure_low < relevant_score < self.unsure_high:
                source: Literal["model", "unsure"] = "unsure"
            else:
                source = "model"
            relevant = relevant_score >= self.unsure_high
            if relevant and name is None:  # relevant overall, but split over several labels
                ranked = sorted(
                    (i for i in range(len(classes)) if i != irrelevant), key=lambda i: -row[i]
                )
                name = classes[ranked[0]]
            out.append(Decision(url, name, relevant, relevant_score, source))
        return out

    def _probabilities(self, urls: list[str]) -> list[np.ndarray[Any, np.dtype[np.float64]]]:
        """The model's class probabilities of each URL, by its features the model knows (the
        vectoriser drops the others): URLs of one shape (ids left to their types, a literal
        never seen in training) have the same, and a crawl's links are few shapes over many
        ids, while each run of the pipeline costs a scikit-learn call's checks a batch."""
        assert self.model_ is not None
        features = self.model_.named_steps["features"].transform(urls)
        vocabulary = self.model_.named_steps["vectorise"].vocabulary_
        # every feature's value is 1.0: the set of those known is the model's input
        keys = [frozenset(name for name in f if name in vocabulary) for f in features]
        known = self.proba_by_features_
        missing = {key: f for key, f in zip(keys, features, strict=True) if key not in known}
        if missing:
            if len(known) + len(missing) > _PROBA_CACHE:  # a crawl of many slugs: start afresh
                known.clear()
            rest = self.model_[1:].predict_proba(list(missing.values()))
            known.update(zip(missing, rest, strict=True))
        return [known[key] for key in keys]

    def predict(self, X: Iterable[str]) -> np.ndarray[Any, np.dtype[np.object_]]:
        """The label of each URL (``"-"`` for not wanted, unsure counted as not wanted)."""
        return np.array(
            [d.label if d.relevant and d.label else IRRELEVANT for d in self.decide_many(X)],
            dtype=object,
        )


def _fixed_segments(urls: Iterable[str]) -> frozenset[tuple[int, str]]:
    """The ``(position, segment)`` pairs every one of ``urls`` has in its path, numbers aside
    (``/entry/a``, ``/entry/b``: ``{(0, "entry")}``); none from fewer than two URLs, which
    tell a kind's fixed part from its variable one no better than one record does."""
    paths = [[s for s in parse_normalised(url).segments if s] for url in urls]
    if len(paths) < 2:
        return frozenset()
    first, rest = paths[0], paths[1:]
    return frozenset(
        (i, segment)
        for i, segment in enumerate(first)
        if not segment.isdigit() and all(len(p) > i and p[i] == segment for p in rest)
    )
