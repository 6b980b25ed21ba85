"""xCrawl keyword derivation: TF-IDF × hit-count weights, harmonic mean, middle-out queries."""

from __future__ import annotations

from itertools import combinations, islice

import pytest

from deepcrawl.keywords import (
    WeightedToken,
    combine_weights,
    derive_keywords,
    frequency_hits,
    middle_out,
    preselected_keywords,
    sample_queries,
    seed_queries_from_samples,
    tfidf_weights,
)
from deepcrawl.keywords.samples import _combinations_by_sum
from deepcrawl.settings import KeywordSettings

# xCrawl's Table 1: hits (in thousands) and TF-IDF of the digital-camera tokens.
TABLE_1 = {
    "resolution": (275_000, 0.894, 0.435),
    "review": (956_000, 0.090, 0.165),
    "sensor": (85_500, 0.694, 0.158),
    "specifications": (142_000, 0.090, 0.112),
    "zoom": (20_100, 0.745, 0.041),
    "lens": (84_600, 0.014, 0.024),
    "shoe": (992, 0.456, 0.002),
}


def test_table_1_weights_and_first_query_are_reproduced() -> None:
    weighted = combine_weights(
        {t: tfidf for t, (_, tfidf, _) in TABLE_1.items()},
        {t: hits for t, (hits, _, _) in TABLE_1.items()},
    )
    assert [w.token for w in weighted] == list(TABLE_1)
    for w in weighted:
        assert w.weight == pytest.approx(TABLE_1[w.token][2], abs=0.0015)
    assert weighted[1].search_weight == 1.0
    # "specifications" is the centre, "sensor" its nearest neighbour, then "zoom"
    assert next(sample_queries(weighted, 3)) == "specifications sensor zoom"
    assert list(islice(sample_queries(weighted, 1), 3)) == ["specifications", "sensor", "zoom"]


def test_middle_out_order() -> None:
    assert middle_out(list(range(7))) == [3, 2, 4, 1, 5, 0, 6]
    assert middle_out(list(range(4))) == [1, 0, 2, 3]
    assert middle_out([]) == []


@pytest.mark.parametrize(("n", "k"), [(6, 1), (6, 3), (7, 2), (5, 5), (3, 4)])
def test_combinations_come_once_each_centre_first(n: int, k: int) -> None:
    produced = list(_combinations_by_sum(n, k))
    assert sorted(produced) == sorted(combinations(range(n), k))
    sums = [sum(c) for c in produced]
    assert sums == sorted(sums)


def test_tfidf_favours_distinctive_tokens() -> None:
    docs = ["camera sensor zoom", "camera lens zoom", "camera sensor review"]
    weights = tfidf_weights(docs)
    assert max(weights.values()) == 1.0
    assert weights["camera"] < weights["sensor"]  # in every sample: low idf
    assert tfidf_weights([]) == {}


def test_derive_keywords_uses_given_hits_and_falls_back_to_the_zipf_proxy() -> None:
    docs = ["The camera sensor and the zoom lens", "A camera with a big sensor", "zoom zoom"]
    counts = {"camera": 1000, "sensor": 10}
    weighted = derive_keywords(docs, hits=counts.get)
    by_token = {w.token: w for w in weighted}
    assert "the" not in by_token  # stop words are dropped
    assert by_token["camera"].hits == 1000
    assert by_token["sensor"].hits == 10
    assert by_token["zoom"].hits == frequency_hits()("zoom")  # None from the callable
    assert all(isinstance(w, WeightedToken) for w in weighted)
    assert [w.weight for w in weighted] == sorted((w.weight for w in weighted), reverse=True)


def test_frequency_hits_follow_zipf() -> None:
    hits = frequency_hits(["the", "house", "garden"])
    assert hits("the") == pytest.approx(2 * hits("house"))
    assert hits("the") == pytest.approx(3 * hits("garden"))
    assert hits("zyzzyva") < hits("garden")


def test_seed_queries_from_samples_respects_settings_and_limit() -> None:
    docs = ["digital camera sensor resolution zoom", "camera review lens zoom specifications"]
    queries = seed_queries_from_samples(docs, KeywordSettings(), limit=5, terms_per_query=2)
    assert len(queries) == 5
    assert all(len(q.split()) == 2 for q in queries)
    assert len(set(queries)) == 5


def test_preselected_tokens_weigh_one_before_search_weights() -> None:
    weighted = preselected_keywords(
        ["zoom", "camera", "zoom"], hits={"camera": 100, "zoom": 50}.get
    )
    assert [(w.token, w.tfidf, w.search_weight) for w in weighted] == [
        ("camera", 1.0, 1.0),
        ("zoom", 1.0, 0.5),
    ]
    assert weighted[1].weight == pytest.approx(2 * 0.5 / 1.5)
