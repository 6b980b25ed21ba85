"""The apprentice: <token, DOM offset> features, online naive Bayes from critic verdicts."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.pipeline import Pipeline

from deepcrawl.links._apprentice_model import Apprentice, DomOffsetVectorizer, within_window
from deepcrawl.links.context import page_links

# A page u whose record links sit in a "results" list and whose other links sit in a menu:
# the tokens near each link (at small DOM offsets) tell them apart, the anchor texts do not.
PAGE = """<html><body>
<div class="menu"><span>Menu</span><a href="/m1">alpha</a><a href="/m2">beta</a></div>
<div class="ads"><p>one</p><p>two</p><p>three</p><p>four</p><p>five</p><p>six</p></div>
<div class="results"><span>Results</span>
  <p><a href="/r1">alpha</a> <i>record</i></p>
  <p><a href="/r2">beta</a> <i>record</i></p>
</div></body></html>"""


def _features() -> dict[str, list[str]]:
    return {c.url.rsplit("/", 1)[1]: list(c.offsets) for c in page_links(PAGE, "http://s.test/")}


def test_link_features_are_token_offset_pairs() -> None:
    feats = _features()
    assert "record@1" in feats["r1"]
    assert "results@-1" in feats["r1"]
    assert "menu@-1" in feats["m1"]
    assert "alpha@0" in feats["r1"]
    assert "alpha@0" in feats["m1"]
    assert within_window(["a@-6", "b@5", "c@0"], 5) == ["b@5", "c@0"]


def test_vectorizer_hashes_only_the_window() -> None:
    vec = DomOffsetVectorizer(d_max=0, n_features=64).fit([])
    row = vec.transform([["xx@0", "yy@1", "xx@0"]]).toarray()[0]
    assert row.sum() == 2.0  # xx@0 twice; yy@1 is outside |d| <= 0
    # single characters (A-Z index letters) and numbers are no words
    assert vec.transform([["m@0", "42@0", "x2@0"]]).toarray()[0].sum() == 1.0


def test_apprentice_learns_online_from_verdicts() -> None:
    feats = _features()
    apprentice = Apprentice(d_max=5)
    # First batch: the critic accepted r1 and refused m1.
    assert apprentice.partial_fit([feats["r1"], feats["m1"]], [1, 0]) is apprentice
    scores = apprentice.score_links([feats["r2"], feats["m2"]])
    assert scores[0] > 0.5 > scores[1]
    assert apprentice.predict([feats["r2"], feats["m2"]]).tolist() == [1, 0]
    # A second batch adds to what was learnt instead of starting over.
    seen = apprentice.n_seen_
    apprentice.partial_fit([feats["r2"]], [1])
    assert apprentice.n_seen_ == seen + 1
    assert isinstance(apprentice.pipeline_, Pipeline)


def test_fit_starts_over_and_unfitted_scores_are_neutral() -> None:
    feats = _features()
    apprentice = Apprentice().partial_fit([], [])
    assert np.allclose(apprentice.predict_proba([feats["r1"]]), 0.5)
    apprentice.fit([feats["r1"]], [1])
    apprentice.fit([feats["m1"]], [0])
    assert apprentice.n_seen_ == 1
    assert apprentice.score_links([]).shape == (0,)


def test_apprentice_is_a_scikit_learn_estimator() -> None:
    apprentice = Apprentice(d_max=3, alpha=0.5)
    copy = clone(apprentice)
    assert copy.get_params() == {"d_max": 3, "alpha": 0.5, "n_features": 2**18}


def test_graded_rewards_rank_links_by_their_distance_to_a_target() -> None:
    # A link to a target (reward 1), a link to a page one step from one (reward 0.5) and a link
    # leading nowhere (0): the apprentice's score orders new links with the same words alike.
    apprentice = Apprentice(d_max=0).fit(
        [["search@0"], ["library@0"], ["news@0"], ["search@0"], ["news@0"]], [1, 0.5, 0, 1, 0]
    )
    search, library, news = apprentice.score_links([["search@0"], ["library@0"], ["news@0"]])
    assert search > library > news
    assert 0.3 < library < 0.7  # half rewarded: half a high-relevance instance, half a low one


def test_fractional_rewards_are_weighted_instances() -> None:
    # One instance of reward 0.5 counts as one of reward 1 and one of reward 0, each weighing
    # half (without smoothing, naive Bayes' estimates only depend on the counts' ratios).
    half = Apprentice(d_max=0, alpha=1e-9).fit([["aa@0"], ["bb@0"]], [0.5, 0])
    split = Apprentice(d_max=0, alpha=1e-9).fit(
        [["aa@0"], ["aa@0"], ["bb@0"], ["bb@0"]], [1, 0, 0, 0]
    )
    links = [["aa@0"], ["bb@0"]]
    assert np.allclose(half.score_links(links), split.score_links(links), atol=1e-3)
    assert half.score_links(links)[0] == pytest.approx(0.5, abs=1e-3)


def test_rewards_outside_zero_one_are_refused() -> None:
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        Apprentice().fit([["a@0"]], [2.0])
