"""Query policies behind one contract: greedy (Ntoulas et al.), random, frequency."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pytest

from deepcrawl.keywords import FrequencyPolicy, GreedyPolicy, QueryPolicy, RandomPolicy


@dataclass
class FakeState:
    """A hand-made QueryState."""

    issued: frozenset[str] = frozenset()
    cold_start: Sequence[str] = ("the", "house", "garden", "river")
    term_df: Mapping[str, int] = field(default_factory=dict)
    texted_records: int = 0
    estimated_size: float | None = None
    page_size: int | None = None
    max_result_pages: int = 50


def test_frequency_policy_takes_the_list_in_order_skipping_issued() -> None:
    state = FakeState(issued=frozenset({"the", "garden"}))
    assert FrequencyPolicy().choose(state) == "house"
    assert (
        FrequencyPolicy().choose(FakeState(cold_start=("The",), issued=frozenset({"the"}))) is None
    )


def test_random_policy_is_reproducible_and_never_repeats() -> None:
    words = [f"w{i}" for i in range(50)]
    first = [RandomPolicy(seed=3).choose(FakeState(cold_start=words)) for _ in range(3)]
    assert len(set(first)) == 1  # same seed, same first word
    policy = RandomPolicy(seed=3)
    issued: set[str] = set()
    for _ in range(50):
        word = policy.choose(FakeState(cold_start=words, issued=frozenset(issued)))
        assert word is not None
        assert word not in issued
        issued.add(word)
    assert policy.choose(FakeState(cold_start=words, issued=frozenset(issued))) is None


def test_greedy_cold_start_then_highest_document_frequency() -> None:
    greedy = GreedyPolicy()
    assert greedy.choose(FakeState()) == "the"  # nothing known yet: the frequent list
    state = FakeState(
        term_df={"house": 5, "garden": 40, "river": 12},
        texted_records=100,
        estimated_size=400,
        issued=frozenset({"the"}),
    )
    assert greedy.choose(state) == "garden"
    state.issued = frozenset({"the", "garden"})
    assert greedy.choose(state) == "river"


def test_greedy_prefers_terms_whose_seen_records_do_not_fill_the_result_cap() -> None:
    # 10 results a page, 2 pages at most: a query returns at most 20 records. "common" is in 50
    # of the 100 records known, so its 20 returned records are expected to be seen ones;
    # "middling" (15 known, ~30 matches estimated) still promises new records.
    state = FakeState(
        term_df={"common": 50, "middling": 15},
        texted_records=100,
        estimated_size=200,
        page_size=10,
        max_result_pages=2,
    )
    assert GreedyPolicy().choose(state) == "middling"


def test_greedy_page_cost_prefers_cheap_queries() -> None:
    # 100 records known of ~1000, 10 results a page, 20 pages at most (200 results).
    # "big": ~300 matches, 200 returned, 170 new, 20 pages -> 8.5 new per request;
    # "small": ~50 matches, 45 new, 5 pages -> 9 new per request.
    state = FakeState(
        term_df={"big": 30, "small": 5},
        texted_records=100,
        estimated_size=1000,
        page_size=10,
        max_result_pages=20,
    )
    assert GreedyPolicy(page_cost=0.0).choose(state) == "big"  # submissions count
    assert GreedyPolicy(page_cost=1.0).choose(state) == "small"  # requests count


def test_greedy_falls_back_to_cold_start_when_every_term_is_issued() -> None:
    state = FakeState(term_df={"house": 3}, texted_records=10, issued=frozenset({"house", "the"}))
    assert GreedyPolicy().choose(state) == "garden"


@pytest.mark.parametrize("policy", [GreedyPolicy(), RandomPolicy(), FrequencyPolicy()])
def test_policies_share_one_contract(policy: QueryPolicy) -> None:
    assert isinstance(policy, QueryPolicy)
    assert policy.name in {"greedy", "random", "frequency"}
    assert policy.choose(FakeState(cold_start=(), issued=frozenset())) is None
