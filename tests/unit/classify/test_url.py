"""The URL-only classifier: prototypes decide first, the learned model covers new variants."""

from __future__ import annotations

import pytest

from deepcrawl.classify.url import Decision, LabelStats, URLClassifier
from deepcrawl.errors import ConfigError
from deepcrawl.prototypes import Prototyper

BASE = "http://shop.test"


def _urls() -> list[str]:
    urls = []
    for n in range(1, 120):
        urls += [
            f"{BASE}/book/{n}",
            f"{BASE}/book/{n}/print",
            f"{BASE}/author/{n % 17}-{'ab'[n % 2]}name",
            f"{BASE}/search?q=w{n}&page={n % 5}",
        ]
    return urls


@pytest.fixture(scope="module")
def classifier() -> URLClassifier:
    urls = _urls()
    prototyper = Prototyper().fit(urls)
    book = prototyper.predict([f"{BASE}/book/5"])[0]
    printed = prototyper.predict([f"{BASE}/book/5/print"])[0]
    assert book
    assert printed
    assert book != printed
    labels = {book: ("book", True), printed: ("print view", False)}
    return URLClassifier(prototyper.prototypes_, labels).fit(urls)


def test_prototypes_decide_labelled_kinds(classifier: URLClassifier) -> None:
    book = classifier.decide(f"{BASE}/book/999")
    assert (book.label, book.relevant, book.source) == ("book", True, "prototype")
    printed = classifier.decide("/book/999/print", base=BASE + "/")
    assert (printed.label, printed.relevant, printed.source) == ("print view", False, "prototype")


def test_model_scores_urls_no_prototype_matches(classifier: URLClassifier) -> None:
    # A new variant of the book kind: an id with a letter suffix no prototype has seen.
    variant = classifier.decide(f"{BASE}/book/12a")
    assert variant.source in {"model", "unsure"}
    assert variant.score > 0.5
    other = classifier.decide(f"{BASE}/help/contact-us/form")
    assert other.source == "model"
    assert not other.relevant


def test_urls_of_one_shape_share_the_models_run(classifier: URLClassifier) -> None:
    """The model's scores are the pipeline's, and a URL whose features an earlier one had
    (another id of one shape) takes them without a run of the pipeline."""
    urls = [f"{BASE}/book/{n}a" for n in (12, 13)] + [f"{BASE}/help/contact-us/form"]
    decisions = classifier.decide_many(urls)
    assert classifier.model_ is not None
    proba = classifier.model_.predict_proba(urls)
    irrelevant = list(classifier.model_.classes_).index("-")
    assert [d.score for d in decisions] == pytest.approx([1 - row[irrelevant] for row in proba])
    assert decisions[0].score == decisions[1].score
    cached = len(classifier.proba_by_features_)
    assert classifier.decide(f"{BASE}/book/777a").score == decisions[0].score
    assert len(classifier.proba_by_features_) == cached


def test_invalid_urls_are_rejected_not_raised(classifier: URLClassifier) -> None:
    decision = classifier.decide("http://exa mple.test/ bad")
    assert decision == Decision("http://exa mple.test/ bad", None, False, 0.0, "invalid")


def test_predict_and_stats(classifier: URLClassifier) -> None:
    urls = [f"{BASE}/book/1", f"{BASE}/book/1/print", f"{BASE}/search?q=x&page=1"]
    assert list(classifier.predict(urls)) == ["book", "-", "-"]
    stats = LabelStats()
    for decision in classifier.decide_many(urls):
        stats.add(decision)
    assert stats.accepted == {"book": 1}
    assert stats.rejected["print view"] == 1


def test_single_class_training_is_constant() -> None:
    urls = [f"{BASE}/book/{n}" for n in range(50)]
    prototyper = Prototyper().fit(urls)
    [proto] = prototyper.prototypes_
    clf = URLClassifier(prototyper.prototypes_, {proto.id: ("book", True)}).fit(urls)
    assert clf.decide(f"{BASE}/book/x1.html").relevant  # nothing else was ever seen
    assert not clf.decide(f"{BASE}/other/x").relevant  # but books all read /book/


def test_a_url_leaving_the_wanted_kinds_fixed_path_is_of_another_kind() -> None:
    # the records are /entry/<slug>; /people/<slug>, first seen after the prototypes were
    # learnt, scores like them (a slug of words) but leaves the fixed segment they all share
    words = [
        f"{a}{b}"
        for a in ("amber", "cliff", "glen", "moor")
        for b in ("bay", "dune", "elm", "fern", "kelp")
    ]
    urls = [f"{BASE}/entry/{w}-{v}" for w, v in zip(words, reversed(words), strict=True)]
    urls += [f"{BASE}/", f"{BASE}/browse"]
    prototyper = Prototyper().fit(urls)
    entry = next(p for p in prototyper.prototypes_ if "entry" in p.regex)
    clf = URLClassifier(prototyper.prototypes_, {entry.id: ("entry", True)}).fit(urls)
    assert clf.decide(f"{BASE}/entry/wet-moss").relevant
    people = clf.decide(f"{BASE}/people/wet-moss")
    assert people.score >= clf.unsure_high  # the model alone would take it for a record
    assert (people.relevant, people.source) == (False, "model")


def test_bad_thresholds_are_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="unsure_low"):
        URLClassifier(unsure_low=0.9, unsure_high=0.1).fit([f"{BASE}/a"])
